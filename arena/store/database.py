"""One SQLite connection, its transactions and migrations, and the look-ups every part
of the store shares."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from os import PathLike
from types import TracebackType
from typing import Self

from arena.store.codec import (
    _TOURNAMENT_SELECT,
    _json,
    _now,
    _teams_tuple,
)
from arena.store.errors import (
    InvalidInput,
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
from arena.store.values import (
    _check_seat_count,
)


class Database:
    """The connection every part of `Store` works through. Open with `Store.open(path)`.

    Safe to call from any thread, one call at a time: a lock serialises access
    to the single connection.
    """


    def __init__(
        self, path: str | PathLike[str], *, migrations: Sequence[Migration] | None = None
    ) -> None:
        self._lock = threading.RLock()
        self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._conn.row_factory = sqlite3.Row
        try:
            self._conn.execute("PRAGMA foreign_keys = ON")
            self._conn.execute("PRAGMA busy_timeout = 5000")
            self._conn.execute("PRAGMA journal_mode = WAL")
            # In WAL mode a commit survives a killed process either way; NORMAL only
            # lets a power cut undo the latest commits, never half of one.
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self._migrate(MIGRATIONS if migrations is None else migrations)
        except BaseException:
            self._conn.close()
            raise

    @classmethod
    def open(
        cls, path: str | PathLike[str], *, migrations: Sequence[Migration] | None = None
    ) -> Self:
        """Open (creating if needed) the database at `path` and bring its schema up to date."""
        return cls(path, migrations=migrations)

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
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
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _migrate(self, migrations: Sequence[Migration]) -> None:
        with self._transaction() as conn:
            tables = {str(row[0]) for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
                " AND name NOT LIKE 'sqlite_%'")}
            if tables and "schema_migrations" not in tables:
                raise SchemaError("this is not an arena database: it holds tables of its "
                                  f"own ({', '.join(sorted(tables)[:5])})")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version INTEGER PRIMARY KEY, description TEXT NOT NULL,"
                " applied_at TEXT NOT NULL)"
            )
        known = max((m.version for m in migrations), default=0)
        if self.schema_version > known:
            raise SchemaError(
                f"the database has schema version {self.schema_version}, "
                f"newer than this arena knows ({known}); upgrade arena"
            )
        for migration in sorted(migrations, key=lambda m: m.version):
            if migration.version > self.schema_version:
                self._apply(migration)

    def _apply(self, migration: Migration) -> None:
        try:
            with self._transaction() as conn:
                for statement in migration.statements:
                    conn.execute(statement)
                if migration.rebuild is not None:
                    migration.rebuild(conn)
                conn.execute(
                    "INSERT INTO schema_migrations (version, description, applied_at)"
                    " VALUES (?, ?, ?)",
                    (migration.version, migration.description, _now()),
                )
        except sqlite3.Error as exc:
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
        """SQLite's journal mode for this database ('wal' for a file)."""
        with self._lock:
            return str(self._conn.execute("PRAGMA journal_mode").fetchone()[0])

    @staticmethod
    def _find_bot(conn: sqlite3.Connection, name: str) -> sqlite3.Row | None:
        row: sqlite3.Row | None = conn.execute(
            "SELECT * FROM bots WHERE name = ? AND removed_at IS NULL", (name,)
        ).fetchone()
        return row

    def _active_bot_ids(self, conn: sqlite3.Connection, names: Sequence[str]) -> list[int]:
        ids = []
        for name in names:
            row = self._find_bot(conn, name)
            if row is None:
                raise UnknownBot(f"no bot named {name!r}")
            ids.append(int(row["id"]))
        return ids

    def _bot_names(self, conn: sqlite3.Connection, bot_ids: Iterable[int]) -> dict[int, str]:
        wanted = sorted(set(bot_ids))
        marks = ",".join("?" * len(wanted))
        rows = conn.execute(f"SELECT id, name FROM bots WHERE id IN ({marks})", wanted)
        return {int(row["id"]): str(row["name"]) for row in rows}

    @staticmethod
    def _tournament_row(conn: sqlite3.Connection, tournament: str | int) -> sqlite3.Row:
        column = "id" if isinstance(tournament, int) else "name"
        row: sqlite3.Row | None = conn.execute(
            f"{_TOURNAMENT_SELECT} WHERE t.{column} = ?", (tournament,)
        ).fetchone()
        if row is None:
            raise UnknownTournament(f"no tournament {tournament!r}")
        return row

    @classmethod
    def _tournament_id(cls, conn: sqlite3.Connection, tournament: str | int) -> int:
        return int(cls._tournament_row(conn, tournament)["id"])

    def _scheduled_row(self, conn: sqlite3.Connection, scheduled_id: int) -> sqlite3.Row:
        row: sqlite3.Row | None = conn.execute(
            "SELECT * FROM scheduled_games WHERE id = ?", (scheduled_id,)
        ).fetchone()
        if row is None:
            raise UnknownGame(f"no scheduled game {scheduled_id}")
        return row

    def _insert_scheduled(
        self, conn: sqlite3.Connection, tournament_id: int, games: Iterable[ScheduleEntry]
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
            except sqlite3.IntegrityError:
                raise InvalidInput(
                    f"game index {game.game_index} is already in the schedule"
                ) from None
