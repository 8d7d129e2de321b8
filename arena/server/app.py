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


async def serve(host: str, port: int, authenticator: Authenticator | None, *,
                grace: float = 5.0, ready: Callable[[ArenaServer], None] | None = None,
                stop: asyncio.Event | None = None, server: ArenaServer | None = None,
                **server_options: Any) -> None:
    """Serve until `stop` is set or SIGINT/SIGTERM arrives, then shut down gracefully.

    `ready` is called with the started server (its `port` is the bound port),
    for example to print the address or to start a tournament in-process.
    `server_options` go to `ArenaServer` (`max_message_bytes`, `hello_timeout`, …);
    or pass a `server` built beforehand (then `authenticator` is not used).
    """
    stop = stop or asyncio.Event()
    if server is None:
        if authenticator is None:
            raise ValueError("serve needs an authenticator or a server")
        server = ArenaServer(authenticator, **server_options)
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


def run_server(host: str = "127.0.0.1", port: int = DEFAULT_PORT,
               authenticator: Authenticator | None = None, *, grace: float = 5.0,
               ready: Callable[[ArenaServer], None] | None = None,
               **server_options: Any) -> None:
    """Serve in the foreground until SIGINT/SIGTERM (blocking).

    Without an authenticator, tokens come from the environment
    (`ARENA_TOKENS`, `ARENA_TOKENS_FILE`; see `TokenTable.from_env`).
    """
    auth = authenticator if authenticator is not None else TokenTable.from_env()
    asyncio.run(serve(host, port, auth, grace=grace, ready=ready, **server_options))
