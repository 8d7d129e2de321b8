"""Reaching a server's admin service: a remote `arena serve`, or one started in-process.

Every CLI command goes through `admin_session`: with an address it talks to a
running server; without one it opens the local SQLite database, starts the
same server on a free loopback port, and talks to that over gRPC.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import grpc

from arena.server.auth_store import AnyOf, SessionTokens, StoreAuthenticator
from arena.server.manage import ManagedAdmin, Management
from arena.server.server import ArenaServer
from arena.store import Store
from arena.v1 import admin_pb2_grpc

DEFAULT_DB = "arena.db"
"""The database a command uses when neither --db nor ARENA_DB names one."""


@dataclass
class Session:
    """An admin stub, and the address of the server it talks to."""

    admin: admin_pb2_grpc.ArenaAdminAsyncStub
    address: str


def log_dir_for(db_path: Path) -> Path:
    """Where managed bots' logs go for a database: a folder beside it."""
    return db_path.parent / f"{db_path.stem}-logs"


def build_server(store: Store, log_dir: Path,
                 on_management: Callable[[Management], None] | None = None) -> ArenaServer:
    """An `ArenaServer` authenticating against `store`, with the management admin service."""
    tokens = SessionTokens()
    server = ArenaServer(AnyOf([StoreAuthenticator(store), tokens]))
    management = Management(store, server, tokens, log_dir,
                            lambda: f"127.0.0.1:{server.port}")
    server.admin_servicer = lambda *args: ManagedAdmin(management, *args)
    server.on_stop = management.stop_bots
    if on_management is not None:
        on_management(management)
    return server


@contextlib.asynccontextmanager
async def admin_session(server_address: str | None, db_path: Path) -> AsyncIterator[Session]:
    """An admin session against `server_address`, or an in-process server on `db_path`."""
    if server_address:
        async with grpc.aio.insecure_channel(server_address) as channel:
            yield Session(admin_pb2_grpc.ArenaAdminStub(channel), server_address)
        return
    store = Store.open(db_path)
    server = build_server(store, log_dir_for(db_path))
    try:
        port = await server.start("127.0.0.1", 0)
        address = f"127.0.0.1:{port}"
        async with grpc.aio.insecure_channel(address) as channel:
            yield Session(admin_pb2_grpc.ArenaAdminStub(channel), address)
    finally:
        await server.stop(0.5)
        store.close()
