"""One connection (SQLite or PostgreSQL), its transactions and migrations, and the
look-ups every part of the store shares.

A PostgreSQL connection can break under a running store (the server restarts, an
administrator ends the session, the network fails). Every public method of the store's
parts is then one *unit*: when the connection breaks in it, the store reconnects,
waiting `RECONNECT_FIRST_WAIT` s and twice as long each time after, for up to
`reconnect_within` s (`RECONNECT_WITHIN`), takes the locks of its run claims again, and
runs the unit again from its start. The server rolled back the transaction in flight, so
running it again is running it once; only a commit cut off midway may or may not have
taken effect, and the unit then runs again only if it is `repeatable` (running it twice
does what running it once does), else it fails with `CommitUncertain`. A claim that
another run took over while the connection was down is not taken back: every write
made for it (`acting_for`) fails with `ClaimTakenOver`. SQLite connections do not
break this way, and nothing of this happens on SQLite.

A store opened with `readers=N` also keeps up to N connections that only read, beside
its one writing connection: each method marked `reads` (leaderboards, game lists and
games, tournaments, bots) then runs on one of them, without waiting for the writer's
lock, so that many callers reading do not hold up the recording of games. On SQLite
they are read-only connections to the file (in WAL mode a reader never waits for the
writer); on PostgreSQL a `psycopg_pool` pool. A reading method called inside a unit of
the writer still reads through the writer's connection (and sees its transaction).
"""

from __future__ import annotations

import functools
import inspect
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from types import TracebackType
from typing import Any, Self, TypeVar

from arena.record import Decision
from arena.store.backend import (
    Backend,
    Connection,
    ConnectionSettings,
    Readers,
    Row,
    Target,
    describe,
    is_postgres,
)
from arena.store.codec import (
    _TOURNAMENT_SELECT,
    _json,
    _now,
    _run_claim,
    _teams_tuple,
)
from arena.store.errors import (
    ClaimTakenOver,
    CommitUncertain,
    ConnectionLost,
    DamagedDatabase,
    DatabaseError,
    InvalidInput,
    NoDatabase,
    ReconnectFailed,
    SchemaError,
    UnknownBot,
    UnknownGame,
    UnknownTournament,
)
from arena.store.records import (
    GameStatus,
    RunClaim,
    ScheduleEntry,
    tournament_kind,
)
from arena.store.schema import (
    MIGRATIONS,
    Migration,
)
from arena.store.sqlite_backend import SQLiteBackend
from arena.store.values import (
    _check_seat_count,
)

RECONNECT_WITHIN = 30.0
"""Seconds a store whose connection broke goes on trying to reconnect before the call
that found it broken fails (`ReconnectFailed`); `Store.open(..., reconnect_within=...)`
sets another."""

RECONNECT_FIRST_WAIT = 0.1
"""Seconds between the first two attempts to reconnect; each wait after is twice the
one before, up to `RECONNECT_LONGEST_WAIT`."""

RECONNECT_LONGEST_WAIT = 5.0
"""The longest wait between two attempts to reconnect."""

def backend_for(target: Target, settings: ConnectionSettings | None = None) -> Backend:
    """The backend for `target`: PostgreSQL for a `postgresql://` URL, else SQLite; its
    connections made with `settings` (PostgreSQL's only)."""
    if is_postgres(target):
        from arena.store.postgres_backend import PostgresBackend

        return PostgresBackend(settings)
    return SQLiteBackend(settings)


ConnectionListener = Callable[[str], None]
"""Told, in a line, that the store lost its connection, and that it reconnected; called
from whichever thread found out, while the store is locked: it must be quick."""

RecordListener = Callable[[Sequence[str], Sequence[Decision] | None, float], None]
"""Told of a game the store recorded: its seats (bot names), its decisions (None: none
kept) and the seconds the recording took; called in the recording thread, after the
commit: it must be quick, and whatever it raises is logged, never the caller's."""

_log = logging.getLogger("arena.store")

_acting_for: ContextVar[str | None] = ContextVar("arena_store_acting_for", default=None)
"""The token of the run claim the calls in this context are made for (`acting_for`)."""

T = TypeVar("T")
Method = TypeVar("Method", bound=Callable[..., Any])


def repeatable(method: Method) -> Method:
    """Mark a store method that may run again after a commit that was cut off midway
    (its outcome unknown): running it twice does what running it once does."""
    method.__arena_repeatable__ = True  # type: ignore[attr-defined]
    return method


def reads(method: Method) -> Method:
    """Mark a store method that only reads: on a store with readers it runs on one of
    them, not on the writer's connection (see the module's description)."""
    method.__arena_reads__ = True  # type: ignore[attr-defined]
    return method


def _one_unit(method: Callable[..., T]) -> Callable[..., T]:
    """`method` run as one unit of the store: again from its start after a reconnect; a
    method that `reads`, on a reader where the store has them."""
    again_after_commit = getattr(method, "__arena_repeatable__", False)
    only_reads = getattr(method, "__arena_reads__", False)

    @functools.wraps(method)
    def unit(self: Database, *args: Any, **kwargs: Any) -> T:
        body = functools.partial(method, self, *args, **kwargs)
        if getattr(self._local, "reader", None) is not None:
            return body()  # part of a reading unit, on its connection
        if only_reads and self._readers is not None \
                and not getattr(self._local, "writing", False):
            return self._run_read(body)
        return self._run_unit(body, again_after_commit)
    unit.__arena_unit__ = True  # type: ignore[attr-defined]
    return unit


class _NoLock:
    """Stands for the writer's lock in a reading unit, which has its connection alone."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


_NO_LOCK = _NoLock()


class Database:
    """The connection every part of `Store` works through. Open with `Store.open(target)`.

    Safe to call from any thread: a lock serialises access to the writer's connection
    (and, without readers, every call). Every public method a part of the store defines
    is one unit, run again after a reconnect (see the module's description); one marked
    `reads` runs on a reader where the store has them.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name, value in list(vars(cls).items()):
            if not name.startswith("_") and inspect.isfunction(value) \
                    and not getattr(value, "__arena_unit__", False):
                setattr(cls, name, _one_unit(value))

    def __init__(
        self, target: Target, *, migrations: Sequence[Migration] | None = None,
        read_only: bool = False, reconnect_within: float = RECONNECT_WITHIN,
        connection: ConnectionSettings | None = None, readers: int = 0,
        migrate: bool = True,
    ) -> None:
        self._writer_lock = threading.RLock()
        self._local = threading.local()
        """Per thread: `reader`, the reading connection of the unit it runs (if any);
        `writing`, whether it runs a unit on the writer's connection."""
        self._readers: Readers | None = None
        wanted = MIGRATIONS if migrations is None else migrations
        self._target = target
        self._read_only = read_only
        self.reconnect_within = reconnect_within
        """Seconds to go on trying to reconnect after the connection broke."""
        self._backend = backend_for(target, connection)
        self._held_claims: dict[str, int] = {}
        """The run claims whose locks this connection holds: token → tournament id."""
        self._lost_claims: dict[str, str] = {}
        """Claims another run took over while the connection was down: token → why."""
        self._listeners: list[ConnectionListener] = []
        self.record_listeners: list[RecordListener] = []
        """Told of every game recorded (`GameRecords.record_game`), once it is committed:
        its seats, its decisions and the seconds the recording took."""
        self.reconnects = 0
        """How many times the store has reconnected after losing its connection."""
        self._in_unit = False
        self._committed = False
        """Whether the unit running now has committed a transaction."""
        self._rerun_after_commit = False
        """Whether the unit running now runs again after a commit of unknown outcome."""
        self._lost_at: float | None = None
        """When the connection was found broken (monotonic time), while it is."""
        self._gave_up = False
        """Whether the last reconnect ran out of time (the next tries once, at once)."""
        self._closed = False
        self._conn, file_read_only = self._backend.connect(target, read_only)
        try:
            self._prepare(wanted, read_only=read_only, file_read_only=file_read_only,
                          migrate=migrate)
            if readers > 0 and not file_read_only:
                self._readers = self._backend.readers(target, readers)
        except BaseException as exc:
            self._close_connection()
            problem = self._backend.explain_open_failure(target, exc, file_read_only)
            if problem is None:
                raise
            raise problem from None
        # Whether the schema has submitted versions (migration 5): a store opened with
        # fewer migrations works as it did before them.
        tables = self._backend.tables(self._conn)
        self._versioned = "bot_versions" in tables
        self._authored = "authors" in tables
        """Whether the schema has authors, invites and the audit trail (migration 8)."""

    @property
    def _conn(self) -> Connection:
        """The connection this thread's unit works through: its reader's, else the
        writer's."""
        reader: Connection | None = getattr(self._local, "reader", None)
        if reader is not None:
            return reader
        if self._closed:
            raise DatabaseError("the store is closed")
        return self._writer

    @_conn.setter
    def _conn(self, conn: Connection) -> None:
        self._writer = conn

    @property
    def _lock(self) -> threading.RLock | _NoLock:
        """The lock that serialises use of the writer's connection; none to take in a
        reading unit."""
        if getattr(self._local, "reader", None) is not None:
            return _NO_LOCK
        return self._writer_lock

    def _prepare(self, migrations: Sequence[Migration], *, read_only: bool,
                 file_read_only: bool, migrate: bool = True) -> None:
        self._backend.prepare(self._conn)
        # Nothing is written before the database is known to be ours and not too new:
        # a database arena refuses is left exactly as it was.
        self._check_schema(migrations, read_only)
        if file_read_only:
            if migrate:
                self._check_current(migrations)
            return
        if migrate:
            self._backend.before_writing(self._conn)
            self._migrate(migrations)
        if read_only:
            self._backend.make_read_only(self._conn)

    @classmethod
    def open(
        cls, target: Target, *, migrations: Sequence[Migration] | None = None,
        read_only: bool = False, reconnect_within: float = RECONNECT_WITHIN,
        connection: ConnectionSettings | None = None, readers: int = 0,
    ) -> Self:
        """Open the database at `target` and bring its schema up to date.

        `target` is a file path (SQLite) or a `postgresql://` URL (PostgreSQL, whose
        database must exist; arena creates its tables in it). A missing file is
        created, readable and writable by its owner only (SQLite gives its -wal and
        -shm files the same permissions); a file that exists keeps its own. A
        database that is not an arena database, or whose schema is newer than this
        code, is refused (`SchemaError`) and left exactly as it was.

        With `read_only`, nothing is created and nothing can be changed through the
        connection: a missing file or database, or one that holds no arena database
        yet, raises `NoDatabase`. Where the database can be written, an older schema
        is still brought up to date first; where a file and its folder cannot (a
        read-only folder or mount), the file is read as it is, and an older schema is
        a `SchemaError`.

        On PostgreSQL, a connection that breaks later is made again for up to
        `reconnect_within` seconds, and the call in flight run again (see the module's
        description); opening itself is not retried. `connection` says how PostgreSQL
        connections name themselves and the keepalives and statement timeout they keep.

        With `readers`, up to that many more connections only read, and the methods
        marked `reads` run on them without waiting for writes (see the module's
        description); where the database cannot have them (SQLite in memory, or a file
        read as it stands), every method goes through the one connection.
        """
        return cls(target, migrations=migrations, read_only=read_only,
                   reconnect_within=reconnect_within, connection=connection,
                   readers=readers)

    @property
    def readers(self) -> bool:
        """Whether the store reads through connections of their own (`readers=N`)."""
        return self._readers is not None

    @property
    def target(self) -> str:
        """Where the database is, fit to print (a URL without its password)."""
        return describe(self._target)

    @property
    def backend(self) -> str:
        """'sqlite' or 'postgresql'."""
        return self._backend.name

    def close(self) -> None:
        """Close the connection and the readers (on PostgreSQL, every claim it held
        lapses)."""
        with self._lock:
            self._closed = True
            self._close_connection()

    def _close_connection(self) -> None:
        self._held_claims.clear()
        if self._readers is not None:
            self._readers.close()
            self._readers = None
        with suppress(ConnectionLost):
            self._writer.close()

    def _run_read(self, body: Callable[[], T]) -> T:
        """Run `body`, a unit that only reads, on one of the readers; after its connection
        broke, again on another, for up to `reconnect_within` s."""
        deadline: float | None = None
        wait = RECONNECT_FIRST_WAIT
        while True:
            readers = self._readers
            if readers is None:
                raise DatabaseError("the store is closed")
            try:
                with readers.connection() as conn:
                    self._local.reader = conn
                    try:
                        return body()
                    finally:
                        self._local.reader = None
            except ConnectionLost as lost:
                if self._closed:
                    raise DatabaseError("the store is closed") from None
                now = time.monotonic()
                deadline = now + self.reconnect_within if deadline is None else deadline
                if now >= deadline:
                    raise ReconnectFailed(
                        f"lost the connection to the database {self.target} and could not "
                        f"read it again within {self.reconnect_within:g} s ({lost})"
                    ) from None
                time.sleep(min(wait, deadline - now))
                wait = min(2 * wait, RECONNECT_LONGEST_WAIT)

    @contextmanager
    def acting_for(self, claim: RunClaim) -> Iterator[None]:
        """Make the calls in this block, and in the tasks and threads started in it, the
        calls of the run holding `claim`: once a reconnect finds that another run took
        the claim over, each of them that writes raises `ClaimTakenOver`."""
        token = _acting_for.set(claim.token)
        try:
            yield
        finally:
            _acting_for.reset(token)

    def claim_lost(self, claim: RunClaim) -> bool:
        """Whether a reconnect found `claim` taken over by another run. It waits for
        nothing, not even a reconnect under way: a run asks it on its event loop."""
        return claim.token in self._lost_claims

    def cannot_write(self, within: float = 5.0) -> str | None:
        """Why a write could not be made now (None: it could): the store takes the write
        lock a recording takes, within `within` s, and lets go of it without writing. A
        connection found broken is restored as for any call (`reconnect_within`). For
        a readiness check."""
        if self._closed:
            return "the store is closed"
        if self._read_only:
            return f"the database {self.target} is open read-only"
        if not self._writer_lock.acquire(timeout=within):
            return f"the store has been busy for over {within:g} s"
        try:
            self._run_unit(self._take_write_lock, again_after_commit=True)
        except Exception as exc:  # whatever stops the write lock is the answer
            return f"cannot write to the database {self.target}: {exc}"
        finally:
            self._writer_lock.release()
        return None

    def _take_write_lock(self) -> None:
        """Begin a write transaction and roll it back."""
        self._backend.begin(self._conn)
        with suppress(Exception):
            self._conn.execute("ROLLBACK")

    @contextmanager
    def reporting_connection(self, listener: ConnectionListener) -> Iterator[None]:
        """Tell `listener`, while this block runs, when the store loses its connection
        and when it has reconnected (one line each; with no listener, they are logged
        as warnings of the `arena.store` logger)."""
        with self._lock:
            self._listeners.append(listener)
        try:
            yield
        finally:
            with self._lock:
                self._listeners.remove(listener)

    def _run_unit(self, body: Callable[[], T], again_after_commit: bool) -> T:
        """Run `body`, one unit of the store; after the connection broke in it, reconnect
        and run it again (see the module's description)."""
        with self._lock:
            if self._in_unit:
                return body()  # part of the unit that called it, which runs again whole
            self._in_unit = self._local.writing = True
            try:
                while True:
                    self._committed = False
                    try:
                        if self._lost_at is not None:
                            self._reconnect()
                        return body()
                    except ConnectionLost as lost:
                        if self._closed:
                            raise DatabaseError("the store is closed") from None
                        uncertain = lost.during_commit or self._committed
                        if uncertain and not again_after_commit:
                            raise CommitUncertain(
                                "the connection to the database broke while a change was "
                                "being committed: it may or may not have been made; look "
                                "before making it again") from None
                        self._rerun_after_commit = self._rerun_after_commit or uncertain
                        if self._lost_at is None:
                            self._lost_at = time.monotonic()
                            self._announce(f"lost the connection to the database "
                                           f"{self.target}; reconnecting")
                        self._reconnect()
            finally:
                self._in_unit = self._rerun_after_commit = self._local.writing = False

    def _reconnect(self) -> None:
        """Connect again, within `reconnect_within` s (at once after an earlier reconnect
        ran out of time); raise `ReconnectFailed` if the database stays unreachable."""
        assert self._lost_at is not None
        budget = 0.0 if self._gave_up else self.reconnect_within
        deadline = time.monotonic() + budget
        wait = RECONNECT_FIRST_WAIT
        while True:
            try:
                self._connect_again(timeout=deadline - time.monotonic())
                break
            except (DatabaseError, NoDatabase) as exc:
                left = deadline - time.monotonic()
                if left <= 0:
                    self._gave_up = True
                    within = f"within {budget:g} s" if budget else "again"
                    why = str(exc).removeprefix(f"cannot connect to {self.target}: ")
                    raise ReconnectFailed(
                        f"lost the connection to the database {self.target} and could not "
                        f"reconnect {within} ({why}); nothing was half-written") from None
                time.sleep(min(wait, left))
                wait = min(2 * wait, RECONNECT_LONGEST_WAIT)
        took = time.monotonic() - self._lost_at
        self._lost_at = None
        self.reconnects += 1
        self._gave_up = False
        self._announce(f"reconnected to the database {self.target} after {took:.1f} s")

    def _connect_again(self, timeout: float) -> None:
        """Replace the broken connection with a new one, set up as the first was, holding
        again the locks of the run claims it held that are still this store's."""
        with suppress(DatabaseError):
            self._conn.close()
        conn, _ = self._backend.connect(self._target, self._read_only, max(timeout, 0.0))
        try:
            self._backend.prepare(conn)
            if self._read_only:
                self._backend.make_read_only(conn)
            lost = self._hold_claims_again(conn)
        except BaseException:
            with suppress(DatabaseError):
                conn.close()
            raise
        self._conn = conn
        for token, why in lost.items():
            del self._held_claims[token]
            self._lost_claims[token] = why

    def _hold_claims_again(self, conn: Connection) -> dict[str, str]:
        """Take again, through `conn`, the lock of every claim still stored as this run's
        (in a write transaction, so that no run takes one over meanwhile); return the
        claims another run took over, each with the error that says so."""
        if not self._held_claims:
            return {}
        lost: dict[str, str] = {}
        self._backend.begin(conn)
        try:
            for token, tournament_id in sorted(self._held_claims.items()):
                row = conn.execute("SELECT * FROM tournament_runs WHERE tournament_id = ?",
                                   (tournament_id,)).fetchone()
                if row is not None and row["token"] == token:
                    self._backend.hold_claim(conn, token)
                else:
                    lost[token] = self._taken_over(conn, tournament_id, row)
            conn.execute("COMMIT")
        except BaseException:
            with suppress(DatabaseError):
                conn.execute("ROLLBACK")
            raise
        return lost

    @classmethod
    def _taken_over(cls, conn: Connection, tournament_id: int, row: Row | None) -> str:
        """The error of a run whose claim on `tournament_id` another run took over (its
        claim now `row`, or none left)."""
        held = cls._tournament_row(conn, tournament_id)
        try:
            holder = "" if row is None else f" ({_run_claim(row).describe()})"
        except (DamagedDatabase, TypeError, OverflowError):  # the takeover is what matters
            holder = ""
        return (f"another driver{holder} took over {tournament_kind(held['format'])} "
                f"{held['name']!r} while this one was disconnected from the database; this "
                "run stops here, and the games it recorded are kept")

    def _tell_recorded(self, seats: Sequence[str], decisions: Sequence[Decision] | None,
                       seconds: float) -> None:
        """Tell the record listeners of a game recorded; what one raises is logged."""
        for listener in list(self.record_listeners):
            try:
                listener(seats, decisions, seconds)
            except Exception:
                _log.exception("a record listener failed")

    def _announce(self, line: str) -> None:
        """Tell the listeners `line`; log it when none listens."""
        if not self._listeners:
            _log.warning("%s", line)
        else:  # the listeners show it; a configured log (JSON) keeps it too
            _log.info("%s", line, extra={"database": self.target})
        for listener in list(self._listeners):
            listener(line)

    def _check_acting_claim(self) -> None:
        """Refuse a write made for a run claim another run took over (`acting_for`)."""
        acting = _acting_for.get()
        if acting is not None and acting in self._lost_claims:
            raise ClaimTakenOver(self._lost_claims[acting])

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    @contextmanager
    def _on_the_writer(self) -> Iterator[None]:
        """Mark this thread, for the block, as working on the writer's connection: the
        reading methods it calls read there too (and see what it has not committed)."""
        before = getattr(self._local, "writing", False)
        self._local.writing = True
        try:
            yield
        finally:
            self._local.writing = before

    @contextmanager
    def _transaction(self) -> Iterator[Connection]:
        with self._lock, self._on_the_writer():
            self._check_acting_claim()
            try:
                # in the try: a BEGIN whose write lock timed out has a transaction to end
                self._backend.begin(self._conn)
                yield self._conn
            except BaseException:
                # A connection that broke has no transaction left to roll back; the
                # error that broke it is the one to report.
                with suppress(*self._backend.errors):
                    self._conn.execute("ROLLBACK")
                raise
            try:
                self._conn.execute("COMMIT")
            except ConnectionLost as lost:
                raise ConnectionLost(str(lost), during_commit=True) from lost
            self._committed = True

    @contextmanager
    def _snapshot(self) -> Iterator[Connection]:
        """A transaction that only reads, and sees the database as it was when it began."""
        with self._lock:
            self._backend.begin_snapshot(self._conn)
            try:
                yield self._conn
            finally:
                with suppress(*self._backend.errors):
                    self._conn.execute("ROLLBACK")

    def _check_schema(self, migrations: Sequence[Migration], read_only: bool) -> None:
        """Refuse, without writing, a database that is not arena's or is newer than
        `migrations` know; with `read_only`, also one that holds nothing yet."""
        with self._lock:
            tables = self._backend.tables(self._conn)
        if tables and "schema_migrations" not in tables:
            raise SchemaError("this is not an arena database: it holds tables of its "
                              f"own ({', '.join(sorted(tables)[:5])})")
        if not tables:
            if read_only:
                raise NoDatabase(f"{self.target} holds no arena database yet")
            return
        known = max((m.version for m in migrations), default=0)
        if self.schema_version > known:
            raise SchemaError(
                f"the database has schema version {self.schema_version}, "
                f"newer than this arena knows ({known}); upgrade arena"
            )

    def _check_current(self, migrations: Sequence[Migration]) -> None:
        """Refuse a database opened read-only whose schema is older than `migrations`:
        it cannot be brought up to date where it is."""
        known = max((m.version for m in migrations), default=0)
        if self.schema_version < known:
            raise SchemaError(
                f"the database has schema version {self.schema_version}, older than this "
                f"arena's ({known}), and cannot be upgraded where it is: it is read-only"
            )

    def _migrate(self, migrations: Sequence[Migration]) -> None:
        with self._transaction() as conn:
            if "schema_migrations" not in self._backend.tables(conn):
                conn.execute(
                    "CREATE TABLE schema_migrations ("
                    " version INTEGER PRIMARY KEY, description TEXT NOT NULL,"
                    " applied_at TEXT NOT NULL)"
                )
        for migration in sorted(migrations, key=lambda m: m.version):
            if migration.version > self.schema_version:
                self._apply(migration)

    def _apply(self, migration: Migration) -> None:
        try:
            with self._transaction() as conn:
                if migration.version <= self.schema_version:
                    return  # another process applied it while this one waited
                self._backend.without_statement_timeout(conn)
                for statement in migration.statements_for(self._backend.name):
                    conn.execute(self._backend.ddl(statement))
                if migration.rebuild is not None:
                    migration.rebuild(conn)
                conn.execute(
                    "INSERT INTO schema_migrations (version, description, applied_at)"
                    " VALUES (?, ?, ?)",
                    (migration.version, migration.description, _now()),
                )
        except (*self._backend.errors, ValueError, InvalidInput) as exc:  # type: ignore[misc]
            # a rebuild that cannot rate fails here too
            hint = ""
            if "must be owner" in str(exc) or "permission denied" in str(exc):
                hint = ("; the role that owns the database's schema applies it: "
                        "`arena db migrate` run as that role")
            raise SchemaError(
                f"migration {migration.version} ({migration.description}) failed: {exc}{hint}"
            ) from exc

    @property
    def schema_version(self) -> int:
        """The version of the newest migration applied to this database."""
        return self._run_unit(self._schema_version, again_after_commit=False)

    def _schema_version(self) -> int:
        with self._lock:
            row = self._conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
        try:
            return int(row[0] or 0)
        except ValueError:
            raise SchemaError(f"schema_migrations holds a version arena cannot read: "
                              f"{row[0]!r}") from None

    @property
    def journal_mode(self) -> str:
        """SQLite's journal mode for this database ('wal' for a file); on PostgreSQL,
        which keeps its own write-ahead log, 'postgresql'."""
        return self._run_unit(self._journal_mode, again_after_commit=False)

    def _journal_mode(self) -> str:
        with self._lock:
            if isinstance(self._backend, SQLiteBackend):
                return self._backend.journal_mode(self._conn)
            return self._backend.name

    def _find_bot(self, conn: Connection, name: str) -> Row | None:
        """The active bot named `name`; for the base name of submitted versions, its
        latest built version."""
        row: Row | None = conn.execute(
            "SELECT * FROM bots WHERE name = ? AND removed_at IS NULL", (name,)
        ).fetchone()
        if row is None and "@" not in name and self._versioned:
            row = conn.execute(
                "SELECT b.* FROM bots b JOIN bot_versions v ON v.bot_id = b.id"
                " WHERE v.base_name = ? AND b.removed_at IS NULL AND v.build_status = 'ok'"
                " ORDER BY v.version DESC LIMIT 1", (name,)).fetchone()
        return row

    def _active_bot_ids(self, conn: Connection, names: Sequence[str]) -> list[int]:
        """The ids of the active bots `names`; a submitted version that is not built
        (its build failed, or is still running) cannot play, and is refused."""
        ids = []
        for name in names:
            row = self._find_bot(conn, name)
            if row is None:
                raise UnknownBot(f"no bot named {name!r}")
            status = None if not self._versioned else conn.execute(
                "SELECT build_status FROM bot_versions WHERE bot_id = ?", (row["id"],)
            ).fetchone()
            if status is not None and status[0] != "ok":
                raise InvalidInput(f"bot {row['name']} cannot play: its build "
                                   f"{'failed' if status[0] == 'failed' else 'is not done'}"
                                   f" (`arena bot versions {name.split('@')[0]}` shows it)")
            ids.append(int(row["id"]))
        return ids

    def _bot_names(self, conn: Connection, bot_ids: Iterable[int]) -> dict[int, str]:
        wanted = sorted(set(bot_ids))
        if not wanted:
            return {}
        marks = ",".join("?" * len(wanted))
        rows = conn.execute(f"SELECT id, name FROM bots WHERE id IN ({marks})", wanted)
        return {int(row["id"]): str(row["name"]) for row in rows}

    @staticmethod
    def _tournament_row(conn: Connection, tournament: str | int) -> Row:
        column = "id" if isinstance(tournament, int) else "name"
        row: Row | None = conn.execute(
            f"{_TOURNAMENT_SELECT} WHERE t.{column} = ?", (tournament,)
        ).fetchone()
        if row is None:
            raise UnknownTournament(f"no tournament {tournament!r}")
        return row

    @classmethod
    def _tournament_id(cls, conn: Connection, tournament: str | int) -> int:
        return int(cls._tournament_row(conn, tournament)["id"])

    def _scheduled_row(self, conn: Connection, scheduled_id: int) -> Row:
        row: Row | None = conn.execute(
            "SELECT * FROM scheduled_games WHERE id = ?", (scheduled_id,)
        ).fetchone()
        if row is None:
            raise UnknownGame(f"no scheduled game {scheduled_id}")
        return row

    def _insert_scheduled(
        self, conn: Connection, tournament_id: int, games: Iterable[ScheduleEntry]
    ) -> None:
        for game in games:
            _check_seat_count(len(game.seats))
            bot_ids = self._active_bot_ids(conn, game.seats)
            try:
                conn.execute(
                    "INSERT INTO scheduled_games (tournament_id, round, table_number,"
                    " game_index, bot_ids, teams, seed, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (tournament_id, game.round, game.table, game.game_index, _json(bot_ids),
                     None if game.teams is None else _json(_teams_tuple(game.teams)),
                     game.seed, GameStatus.PENDING.value),
                )
            except self._backend.integrity_errors:
                raise InvalidInput(
                    f"game index {game.game_index} is already in the schedule"
                ) from None
