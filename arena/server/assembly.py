"""Putting a match server together: authentication against a store, session tokens for
the bots it launches, and the admin service with the services over that store."""

from __future__ import annotations

import functools
import glob
from collections.abc import Callable, Sequence
from pathlib import Path

from arena.metrics import Metrics
from arena.server.admin import AdminService
from arena.server.auth import admin_token_path
from arena.server.auth_store import AnyOf, SessionTokens, StoreAuthenticator
from arena.server.server import ArenaServer
from arena.server.tls import ServerTls
from arena.services import Services, build_services
from arena.store import Store
from arena.submissions.build import BuildLimits
from arena.supervisor import BotIsolation
from arena.tournament.chunked import WorkerPools
from arena.tournament.runner import live_runs

SANDBOXED = BotIsolation(sandbox="auto")
"""Managed bots run in a sandbox when this machine has one (the default)."""


def private_paths(db_path: Path) -> tuple[Path, ...]:
    """What of a database's no bot may see: its file, its journals and its admin token."""
    return (db_path, db_path.with_name(db_path.name + "-wal"),
            db_path.with_name(db_path.name + "-shm"), db_path.with_name(db_path.name + "-journal"),
            admin_token_path(db_path), log_dir_for(db_path))


def log_dir_for(db_path: Path) -> Path:
    """Where managed bots' logs go for a database: a folder beside it."""
    return db_path.parent / f"{db_path.stem}-logs"


def _beside_logs(log_dir: Path) -> list[Path]:
    """The files named like the database whose logs `log_dir` holds (`log_dir_for`): the
    database, its journals, its admin token — hidden from bots even when no one names
    them."""
    if not log_dir.name.endswith("-logs"):
        return []
    stem = log_dir.name.removesuffix("-logs")
    named = list(log_dir.parent.glob(f"{glob.escape(stem)}.*"))
    journals = [path.with_name(path.name + suffix) for path in named
                for suffix in ("-wal", "-shm", "-journal")]
    return [*named, *journals, log_dir.parent / f"{stem}.admin-token"]


def build_server(store: Store, log_dir: Path,
                 on_services: Callable[[Services], None] | None = None, *,
                 admin_token: str | None = None, tls: ServerTls | None = None,
                 isolation: BotIsolation = SANDBOXED,
                 hidden_paths: Sequence[Path] = (),
                 worker_pools: WorkerPools | None = None,
                 session_tokens: SessionTokens | None = None,
                 build_limits: BuildLimits | None = None, public: bool = False,
                 metrics: Metrics | None = None) -> ArenaServer:
    """An `ArenaServer` authenticating against `store`, with the admin service over the
    `arena.services` (open to holders of `admin_token` only, when one is given), served
    over `tls` if given. The bots it launches are isolated as `isolation` says (by default in a
    sandbox when the machine has one), never shown `hidden_paths` (see `private_paths`)
    nor their logs, and connect to the server's Unix socket (its plaintext loopback port
    where it has none). With `worker_pools`, it can run tournaments on worker processes
    (`--workers`, `--cluster`). The managed bots' tokens are minted in `session_tokens`
    (a table of its own by default); submitted versions are built within `build_limits`.
    The authors in `store` may call the admin service as `arena.server.permissions`
    says, and with `public` anyone may read what every participant sees. With `metrics`,
    what the server, its store, runs, builds and bots do is counted there (`watch`)."""
    tokens = session_tokens or SessionTokens()
    server = ArenaServer(AnyOf([StoreAuthenticator(store), tokens]), admin_token=admin_token,
                         tls=tls, people=store, public=public)
    isolation = BotIsolation(isolation.sandbox, isolation.limits,
                             (*isolation.hidden_paths, *hidden_paths, *_beside_logs(log_dir)))
    if metrics is not None and worker_pools is not None:
        worker_pools = functools.partial(worker_pools, note=metrics.worker_event)
    services = build_services(store, server, tokens.mint, tokens.revoke, log_dir,
                              isolation=isolation, worker_pools=worker_pools,
                              build_limits=build_limits)
    server.admin_servicer = functools.partial(AdminService, services=services)
    server.on_stop = services.fleet.stop
    server.on_stopped = services.runs.finish_runs
    if metrics is not None:
        watch(metrics, services, server)
    if on_services is not None:
        on_services(services)
    return server


def watch(metrics: Metrics, services: Services, server: ArenaServer) -> None:
    """Count in `metrics` what `server` and its `services` do: the games their store
    records, its reconnects, the bots connected, the runs of this process, the builds
    and the managed bots' processes killed by a signal."""
    metrics.watch_store(services.store)
    metrics.watch_server(server)
    metrics.watch_runs(live_runs)
    services.fleet.exit_listeners.append(metrics.bot_exited)
    services.bots.submissions.build_listeners.append(metrics.build_ended)
