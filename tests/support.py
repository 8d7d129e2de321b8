"""Helpers shared by several test folders: the CI switch, free ports, polling, and a
server with the management service."""

from __future__ import annotations

import contextlib
import os
import socket
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import NamedTuple

from arena.server import ArenaServer
from arena.server.assembly import build_server
from arena.server.management import Management
from arena.store import Store


def in_ci() -> bool:
    """True when the suite runs under CI (CI=true), where every toolchain must be present
    and nothing may skip; read from the environment at each call."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


IN_CI = in_ci()
"""`in_ci()` as it was when the suite started."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(condition: Callable[[], object], timeout: float = 20.0, what: str = "condition",
               interval: float = 0.01) -> None:
    """Poll `condition` until it holds; fail with `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


class ManagedServer(NamedTuple):
    """An in-process server with the management service, on a fresh database."""

    store: Store
    server: ArenaServer
    management: Management
    port: int


@contextlib.asynccontextmanager
async def managed_server(folder: Path) -> AsyncIterator[ManagedServer]:
    """Serve `folder`/arena.db on a free loopback port (bot logs in `folder`/logs), as
    `arena serve` does; stopped and closed on the way out."""
    store = Store.open(folder / "arena.db")
    holder: list[Management] = []
    server = build_server(store, folder / "logs", holder.append)
    try:
        port = await server.start("127.0.0.1", 0)
        yield ManagedServer(store, server, holder[0], port)
    finally:
        await server.stop(0.5)
        store.close()
