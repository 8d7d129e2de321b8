"""One connection (SQLite or PostgreSQL), its transactions and migrations, and the
look-ups every part of the store shares."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from types import TracebackType
from typing import Self

from arena.store.backend import Connection, Row, Target, backend_for, describe
from arena.store.codec import (
    _TOURNAMENT_SELECT,
    _json,
    _now,
    _teams_tuple,
)
from arena.store.errors import (
    InvalidInput,
    NoDatabase,
    SchemaError,
    UnknownBot,
    UnknownGame,
    UnknownTournament,
)
from arena.store.records import (
    GameStatus,
    ScheduleEntry,
)
from arena.store.schema import (
    MIGRATIONS,
    Migration,
)
from arena.store.sqlite_backend import SQLiteBackend
from arena.store.values import (
    _check_seat_count,
)


class Database:
    """The connection every part of `Store` works through. Open with `Store.open(target)`.

    Safe to call from any thread, one call at a time: a lock serialises access
    to the single connection.
    """

    def __init__(
        self, target: Target, *, migrations: Sequence[Migration] | None = None,
        read_only: bool = False,
    ) -> None:
        self._lock = threading.RLock()
        wanted = MIGRATIONS if migrations is None else migrations
        self._target = target
        self._backend = backend_for(target)
        self._held_claims: set[str] = set()
        self._conn, file_read_only = self._backend.connect(target, read_only)
        try:
            self._prepare(wanted, read_only=read_only, file_read_only=file_read_only)
        except BaseException as exc:
            self._close_connection()
            problem = self._backend.explain_open_failure(target, exc, file_read_only)
            if problem is None:
                raise
            raise problem from None
        # Whether the schema has submitted versions (migration 5): a store opened with
        # fewer migrations works as it did before them.
        self._versioned = "bot_versions" in self._backend.tables(self._conn)

    def _prepare(self, migrations: Sequence[Migration], *, read_only: bool,
                 file_read_only: bool) -> None:
        self._backend.prepare(self._conn)
        # Nothing is written before the database is known to be ours and not too new:
        # a database arena refuses is left exactly as it was.
        self._check_schema(migrations, read_only)
        if file_read_only:
            self._check_current(migrations)
            return
        self._backend.before_writing(self._conn)
        self._migrate(migrations)
        if read_only:
            self._backend.make_read_only(self._conn)

    @classmethod
    def open(
        cls, target: Target, *, migrations: Sequence[Migration] | None = None,
        read_only: bool = False,
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
        """
        return cls(target, migrations=migrations, read_only=read_only)

    @property
    def target(self) -> str:
        """Where the database is, fit to print (a URL without its password)."""
        return describe(self._target)

    @property
    def backend(self) -> str:
        """'sqlite' or 'postgresql'."""
        return self._backend.name

    def close(self) -> None:
        """Close the connection (on PostgreSQL, every claim it held lapses)."""
        with self._lock:
            self._close_connection()

    def _close_connection(self) -> None:
        self._held_claims.clear()
        self._conn.close()

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
    def _transaction(self) -> Iterator[Connection]:
        with self._lock:
            self._backend.begin(self._conn)
            try:
                yield self._conn
            except BaseException:
                # A connection that broke has no transaction left to roll back; the
                # error that broke it is the one to report.
                with suppress(*self._backend.errors):
                    self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

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
            raise SchemaError(
                f"migration {migration.version} ({migration.description}) failed: {exc}"
            ) from exc

    @property
    def schema_version(self) -> int:
        """The version of the newest migration applied to this database."""
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
