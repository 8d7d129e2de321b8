"""Run the match server as a long-lived process (what `arena serve` wraps)."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable
from typing import Any

from arena.server.auth import Authenticator, TokenTable
from arena.server.server import ArenaServer

DEFAULT_PORT = 50051
"""The port `arena serve` listens on unless told otherwise."""
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""The signals that stop a served server gracefully."""


async def serve_until_stopped(server: ArenaServer, host: str = "127.0.0.1",
                              port: int = DEFAULT_PORT, *, grace: float = 5.0,
                              ready: Callable[[ArenaServer], None] | None = None,
                              stop: asyncio.Event | None = None) -> None:
    """Start `server`, serve until `stop` is set or SIGINT/SIGTERM arrives, then stop it.

    `ready` is called with the started server (its `port` is the bound port),
    for example to print the address. The games in play are aborted and every
    bot is told before the server stops, within `grace` seconds.
    """
    stop = stop or asyncio.Event()
    await server.start(host, port)
    loop = asyncio.get_running_loop()
    installed = []
    for sig in STOP_SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
    try:
        if ready is not None:
            ready(server)
        await stop.wait()
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
        await server.stop(grace)


async def serve(host: str, port: int, authenticator: Authenticator | None = None, *,
                server: ArenaServer | None = None, grace: float = 5.0,
                ready: Callable[[ArenaServer], None] | None = None,
                stop: asyncio.Event | None = None, **server_options: Any) -> None:
    """Serve until `stop` is set or SIGINT/SIGTERM arrives (see `serve_until_stopped`).

    Serves `server` if given (built beforehand, say with a store-backed admin
    service); otherwise an `ArenaServer` for `authenticator` (default: tokens
    from the environment, `TokenTable.from_env`) with `server_options`
    (`max_message_bytes`, `hello_timeout`, …).
    """
    if server is None:
        auth = authenticator if authenticator is not None else TokenTable.from_env()
        server = ArenaServer(auth, **server_options)
    elif authenticator is not None or server_options:
        raise ValueError("give either a server or an authenticator and options, not both")
    await serve_until_stopped(server, host, port, grace=grace, ready=ready, stop=stop)


def run_server(host: str = "127.0.0.1", port: int = DEFAULT_PORT,
               authenticator: Authenticator | None = None, *, grace: float = 5.0,
               ready: Callable[[ArenaServer], None] | None = None,
               **server_options: Any) -> None:
    """Serve in the foreground until SIGINT/SIGTERM (blocking); arguments as for `serve`."""
    asyncio.run(serve(host, port, authenticator, grace=grace, ready=ready, **server_options))
