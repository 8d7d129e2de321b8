"""Run the match server as a long-lived process (what `arena serve` wraps)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from arena.server.auth import Authenticator, TokenTable
from arena.server.server import ArenaServer

DEFAULT_PORT = 50051
"""The port `arena serve` listens on unless told otherwise."""
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""The signals that stop a served server gracefully."""

BackgroundJob = Callable[[asyncio.Event], Awaitable[None]]
"""Work a served server does on its own (the timetable, the ladder): started once the
server is, given the event that is set when the server is to stop, and awaited (then
cancelled, past the grace) before the server stops."""

_log = logging.getLogger(__name__)


async def serve_until_stopped(server: ArenaServer, host: str = "127.0.0.1",
                              port: int = DEFAULT_PORT, *, grace: float = 5.0,
                              ready: Callable[[ArenaServer], None] | None = None,
                              stop: asyncio.Event | None = None,
                              background: Sequence[BackgroundJob] = ()) -> None:
    """Start `server`, serve until `stop` is set or SIGINT/SIGTERM arrives, then stop it.

    `ready` is called with the started server (its `port` is the bound port),
    for example to print the address. Each `background` job runs from then on
    (see `BackgroundJob`); one that fails is logged, and the server serves on.
    The games in play are aborted and every bot is told before the server
    stops, within `grace` seconds.
    """
    stop = stop or asyncio.Event()
    await server.start(host, port)
    loop = asyncio.get_running_loop()
    installed = []
    for sig in STOP_SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
    jobs: list[asyncio.Task[None]] = []
    try:
        if ready is not None:
            ready(server)
        jobs = [_start_job(job, stop) for job in background]
        await stop.wait()
    finally:
        stop.set()
        await _end_jobs(jobs, grace)
        for sig in installed:
            loop.remove_signal_handler(sig)
        await server.stop(grace)


def _start_job(job: BackgroundJob, stop: asyncio.Event) -> asyncio.Task[None]:
    async def run() -> None:
        await job(stop)
    task = asyncio.create_task(run(), name=f"background {getattr(job, '__qualname__', job)}")
    task.add_done_callback(_log_failure)
    return task


def _log_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        _log.error("%s failed", task.get_name(), exc_info=task.exception())


async def _end_jobs(jobs: Sequence[asyncio.Task[None]], grace: float) -> None:
    """Wait up to `grace` seconds for the background jobs to end (their stop event is
    set), then cancel those still going."""
    if not jobs:
        return
    _, going = await asyncio.wait(jobs, timeout=grace)
    for task in going:
        task.cancel()
    for task in going:
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def serve(host: str, port: int, authenticator: Authenticator | None = None, *,
                server: ArenaServer | None = None, grace: float = 5.0,
                ready: Callable[[ArenaServer], None] | None = None,
                stop: asyncio.Event | None = None, background: Sequence[BackgroundJob] = (),
                **server_options: Any) -> None:
    """Serve until `stop` is set or SIGINT/SIGTERM arrives (see `serve_until_stopped`).

    Serves `server` if given (built beforehand, say with a store-backed admin
    service); otherwise an `ArenaServer` for `authenticator` (default: tokens
    from the environment, `TokenTable.from_env`) with `server_options`
    (`max_message_bytes`, `hello_timeout`, …); `background` jobs as there.
    """
    if server is None:
        auth = authenticator if authenticator is not None else TokenTable.from_env()
        server = ArenaServer(auth, **server_options)
    elif authenticator is not None or server_options:
        raise ValueError("give either a server or an authenticator and options, not both")
    await serve_until_stopped(server, host, port, grace=grace, ready=ready, stop=stop,
                              background=background)


def run_server(host: str = "127.0.0.1", port: int = DEFAULT_PORT,
               authenticator: Authenticator | None = None, *, grace: float = 5.0,
               ready: Callable[[ArenaServer], None] | None = None,
               **server_options: Any) -> None:
    """Serve in the foreground until SIGINT/SIGTERM (blocking); arguments as for `serve`."""
    asyncio.run(serve(host, port, authenticator, grace=grace, ready=ready, **server_options))
