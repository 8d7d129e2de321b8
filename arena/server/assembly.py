"""Putting a match server together: authentication against a store, session tokens for
the bots it launches, and the admin service with management over that store."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from arena.server.admin import AdminService
from arena.server.auth_store import AnyOf, SessionTokens, StoreAuthenticator
from arena.server.management import Management
from arena.server.server import ArenaServer
from arena.server.tls import ServerTls
from arena.store import Store
from arena.tournament.chunked import WorkerPools


def log_dir_for(db_path: Path) -> Path:
    """Where managed bots' logs go for a database: a folder beside it."""
    return db_path.parent / f"{db_path.stem}-logs"


def build_server(store: Store, log_dir: Path,
                 on_management: Callable[[Management], None] | None = None, *,
                 admin_token: str | None = None, tls: ServerTls | None = None,
                 worker_pools: WorkerPools | None = None) -> ArenaServer:
    """An `ArenaServer` authenticating against `store`, with the management admin service
    (open to holders of `admin_token` only, when one is given), served over `tls` if
    given; the bots it launches connect to its plaintext loopback port. With
    `worker_pools`, it can run tournaments on worker processes (`--workers`, `--cluster`)."""
    tokens = SessionTokens()
    server = ArenaServer(AnyOf([StoreAuthenticator(store), tokens]), admin_token=admin_token,
                         tls=tls)
    management = Management(store, server, tokens, log_dir,
                            lambda: f"127.0.0.1:{server.local_port}", worker_pools)
    server.admin_servicer = functools.partial(AdminService, management=management)
    server.on_stop = management.stop_bots
    if on_management is not None:
        on_management(management)
    return server
