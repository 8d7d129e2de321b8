"""How a command reaches its server, and how failures and Ctrl-C reach the user."""

from __future__ import annotations

import math
import os
import signal
import sqlite3
import threading
from collections.abc import Awaitable, Callable, Mapping
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

if TYPE_CHECKING:
    import grpc

    from arena.cli.session import Session
    from arena.store import ConnectionSettings

T = TypeVar("T")


class DatabaseOption(click.ParamType):  # type: ignore[type-arg]
    """`--db`: an SQLite file (a `Path`), or a `postgresql://` URL (kept as a `str`)."""

    name = "database"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Path | str:
        """The file's path, or the URL as given; a folder is refused."""
        from arena.store.backend import is_postgres

        if isinstance(value, Path):
            return value
        text = str(value)
        if is_postgres(text):
            return text
        try:
            is_folder = Path(text).is_dir()
        except OSError as exc:
            self.fail(unreachable(Path(text), exc), param, ctx)
        if is_folder:
            self.fail(f"{text} is a folder, not a database file", param, ctx)
        return Path(text)

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        """How `--help` names the value."""
        return "FILE|URL"


def unreachable(path: Path, exc: OSError) -> str:
    """Why `path` cannot be looked at (`exc`), naming the folder this user cannot enter
    when that is why."""
    reason = (exc.strerror or str(exc)).lower()
    for folder in reversed(path.absolute().parents):
        if folder.is_dir() and not os.access(folder, os.X_OK):
            return (f"cannot reach {path}: {reason}: the folder {folder} cannot be entered "
                    "by this user")
    return f"cannot reach {path}: {reason}"


RECONNECT_VARIABLE = "ARENA_DB_RECONNECT"
"""Names the seconds a PostgreSQL store that lost its connection goes on trying to
reconnect (`arena.store.RECONNECT_WITHIN` without it)."""


STATEMENT_TIMEOUT_VARIABLE = "ARENA_DB_STATEMENT_TIMEOUT"
"""Names the seconds one PostgreSQL statement may run before the server cancels it (0: no
limit; `arena.store.STATEMENT_TIMEOUT` without it)."""

READERS_VARIABLE = "ARENA_DB_READERS"
"""Names how many connections `arena serve` reads its database through (`DB_READERS`
without it)."""

DB_READERS = 4
"""Connections `arena serve` reads through beside its writer, by default: leaderboards,
game lists and games served to many callers at once do not wait for games being
recorded."""


def _seconds_from_env(variable: str, default: float) -> float:
    """The seconds the environment `variable` names, else `default`; a usage error for a
    value that is not a number of seconds (0 or more)."""
    given = os.environ.get(variable, "").strip()
    if not given:
        return default
    try:
        seconds = float(given)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds < 0:
        raise click.UsageError(f"{variable}={given!r} is not a number of seconds (0 or more)")
    return seconds


class Context:
    """Options shared by every command: where the server and the database are."""

    def __init__(self, server: str | None, db: Path | str, token: str | None = None) -> None:
        self.server = server
        self.token = token
        """The token given with --token (or ARENA_TOKEN), if any."""
        self.db = db
        """An SQLite file, or a `postgresql://` URL (which may hold a password: print
        `db_name` instead)."""
        self.metrics_at: tuple[str, int] | None = None
        """Where a command that drives runs serves its metrics (`--metrics`), if anywhere."""

    @property
    def reconnect_within(self) -> float:
        """The seconds a PostgreSQL store that lost its connection goes on trying to
        reconnect: `ARENA_DB_RECONNECT`, else the store's default; a usage error for a
        value that is not a number of seconds."""
        from arena.store import RECONNECT_WITHIN

        return _seconds_from_env(RECONNECT_VARIABLE, RECONNECT_WITHIN)

    @property
    def connection_settings(self) -> ConnectionSettings:
        """How this command's PostgreSQL connections name themselves (`arena` and the
        command, as `pg_stat_activity` shows them) and how long a statement may run
        (`ARENA_DB_STATEMENT_TIMEOUT` seconds, 0 for no limit; a usage error for a value
        that is not a number of seconds)."""
        from arena.store import STATEMENT_TIMEOUT, ConnectionSettings

        timeout = _seconds_from_env(STATEMENT_TIMEOUT_VARIABLE, STATEMENT_TIMEOUT)
        command = click.get_current_context(silent=True)
        words = command.command_path.split()[1:] if command is not None else []
        return ConnectionSettings(application_name=" ".join(["arena", *words]),
                                  statement_timeout=timeout or None)

    @property
    def db_readers(self) -> int:
        """How many connections `arena serve` reads its database through beside its
        writer: `ARENA_DB_READERS`, else `DB_READERS`; a usage error for a value that is
        not a whole number from 0 (none: every call waits for the writer's connection)."""
        given = os.environ.get(READERS_VARIABLE, "").strip()
        if not given:
            return DB_READERS
        if not given.isdigit():
            raise click.UsageError(f"{READERS_VARIABLE}={given!r} is not a number of "
                                   "connections (0 or more)")
        return int(given)

    @property
    def db_name(self) -> str:
        """The database, fit to print: a URL without its password."""
        from arena.store.backend import describe

        return describe(self.db)

    @property
    def db_files(self) -> Path:
        """The path the files kept with the database are named after (its admin token,
        its bots' logs): the file itself, or for PostgreSQL the database's name in the
        current folder."""
        from arena.store.backend import side_path

        return side_path(self.db)

    def caller_token(self) -> str | None:
        """The token sent to `server`: --token (or ARENA_TOKEN), else the organizer's
        ARENA_ADMIN_TOKEN, else the one `arena login` kept for the server, else the admin
        token `arena serve` wrote beside the database. `ValueError` for one that cannot
        be sent, or credentials that cannot be read."""
        from arena.cli.credentials import stored_token
        from arena.server.auth import ADMIN_TOKEN_VARIABLE, find_admin_token, sendable_token

        if self.token:
            return sendable_token(self.token, "--token", "the token")
        if os.environ.get(ADMIN_TOKEN_VARIABLE, "").strip() or self.server is None:
            return find_admin_token(self.db_files)
        kept = stored_token(self.server)
        if kept is not None:
            return sendable_token(kept, "the credentials `arena login` kept", "the token")
        return find_admin_token(self.db_files)

    def run(self, body: Callable[[Session], Awaitable[T]], *, read_only: bool = False) -> T:
        """Open an admin session and run `body` in it; gRPC errors, and a database that
        cannot be used, become clean messages. A command that only reads says
        `read_only`: in-process, its database is then never created, and is read even
        where it cannot be written."""
        # The server, the store and gRPC load here, not at startup: `--help` needs none.
        import asyncio

        import grpc

        from arena.cli.session import (
            ServerSilent,
            admin_session,
            call_seconds,
            silence_seconds,
            tls_from_env,
        )
        from arena.cli.suggest import suggestion
        from arena.store import NoDatabase, StoreError

        reconnect_within = self.reconnect_within
        connection = self.connection_settings
        try:
            call_seconds(), silence_seconds()  # a bad setting is said before anything runs
            tls = tls_from_env() if self.server else None
            token = self.caller_token() if self.server else None
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
        trust = None if tls is None else _tls_trust(os.environ)

        async def main() -> T:
            async with admin_session(self.server, self.db, token, tls,
                                     read_only=read_only,
                                     reconnect_within=reconnect_within,
                                     connection=connection,
                                     metrics_at=self.metrics_at) as session:
                try:
                    return await body(session)
                except grpc.aio.AioRpcError as exc:
                    hint = await suggestion(session, exc.details() or "")
                    if hint is None:
                        raise
                    raise click.ClickException(
                        f"{rpc_message(exc, self.server, trust)}; {hint}") from None
        try:
            return asyncio.run(main())
        except grpc.aio.AioRpcError as exc:
            raise click.ClickException(rpc_message(exc, self.server, trust)) from None
        except ServerSilent as exc:
            raise click.ClickException(str(exc)) from None
        except NoDatabase as exc:
            raise click.ClickException(
                f"{exc}: `arena bot add` creates one; --db or ARENA_DB names another"
            ) from None
        except (sqlite3.Error, StoreError) as exc:
            raise click.ClickException(f"cannot use the database {self.db_name}: {exc}") from None


def _tls_trust(environ: Mapping[str, str]) -> str:
    """The certificates a TLS connection set up by `tls_from_env` trusts, for messages."""
    from arena.cli.session import TLS_CA_VARIABLE, TLS_VARIABLE

    if environ.get(TLS_CA_VARIABLE):
        return f"the certificates in {TLS_CA_VARIABLE} ({environ[TLS_CA_VARIABLE]})"
    return f"the system's trusted certificates ({TLS_VARIABLE})"


def rpc_message(exc: grpc.aio.AioRpcError, server: str | None,
                 tls_trust: str | None = None) -> str:
    """What a failed call says, given what a TLS connection trusted (None: plaintext)."""
    import grpc

    from arena.cli.session import TLS_CA_VARIABLE, TLS_VARIABLE

    if exc.code() is grpc.StatusCode.UNAVAILABLE:
        where = f"cannot reach the arena server at {server}"
        if tls_trust is None:
            return (f"{where}: is `arena serve` running? "
                    f"(If it serves TLS, set {TLS_CA_VARIABLE} or {TLS_VARIABLE}=1.)")
        if "handshake failed" in (exc.details() or "").lower():
            return (f"{where}: the TLS handshake failed: its certificate does not match "
                    f"{tls_trust}, or it does not serve TLS.")
        return (f"{where}: is `arena serve` running? (If it is, the TLS handshake may have "
                f"failed: its certificate may not match {tls_trust}.)")
    if exc.code() is grpc.StatusCode.CANCELLED:
        return "cancelled"
    if exc.code() is grpc.StatusCode.DEADLINE_EXCEEDED:
        return (f"the arena server at {server} did not answer in time: it may be stopped, "
                "overloaded or unreachable (ARENA_CALL_TIMEOUT sets how long to wait)")
    return exc.details() or exc.code().name.lower()


pass_context = click.make_pass_decorator(Context)


def interruptible(message: str) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Ctrl-C ends the command with `message` instead of a traceback."""
    def decorate(function: Callable[..., T]) -> Callable[..., T]:
        @wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> T:
            try:
                return function(*args, **kwargs)
            except KeyboardInterrupt:
                stopped(message)
        return wrapper
    return decorate


def stopped(message: str) -> NoReturn:
    """End a command stopped by Ctrl-C with `message`."""
    ignore_ctrl_c()
    click.echo(f"\n{message}", err=True)
    raise SystemExit(130) from None


def ignore_ctrl_c() -> None:
    """Ignore further Ctrl-C: the command is ending, and one now would only interrupt
    the interpreter's exit (with an 'Exception ignored' report)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
