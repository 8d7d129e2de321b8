"""One SQLite connection, its transactions and migrations, and the look-ups every part
of the store shares."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from os import PathLike
from pathlib import Path
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
    NoDatabase,
    NotWritable,
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
        self, path: str | PathLike[str], *, migrations: Sequence[Migration] | None = None,
        read_only: bool = False,
    ) -> None:
        self._lock = threading.RLock()
        wanted = MIGRATIONS if migrations is None else migrations
        self._conn, file_read_only = _connect(path, read_only)
        self._conn.row_factory = sqlite3.Row
        try:
            self._prepare(path, wanted, read_only=read_only, file_read_only=file_read_only)
        except sqlite3.OperationalError:
            self._conn.close()
            problem = None if file_read_only else _not_writable(path)
            if problem is None:
                raise
            raise problem from None
        except BaseException:
            self._conn.close()
            raise
        # Whether the schema has submitted versions (migration 5): a store opened with
        # fewer migrations works as it did before them.
        self._versioned = self._conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'bot_versions'"
        ).fetchone() is not None

    def _prepare(self, path: str | PathLike[str], migrations: Sequence[Migration], *,
                 read_only: bool, file_read_only: bool) -> None:
        self._conn.execute("PRAGMA foreign_keys = ON")
        self._conn.execute("PRAGMA busy_timeout = 5000")
        # Nothing is written before the file is known to be ours and not too new:
        # a database arena refuses is left exactly as it was.
        self._check_schema(path, migrations, read_only)
        if file_read_only:
            self._check_current(migrations)
            return
        self._conn.execute("PRAGMA journal_mode = WAL")
        # In WAL mode a commit survives a killed process either way; NORMAL only
        # lets a power cut undo the latest commits, never half of one.
        self._conn.execute("PRAGMA synchronous = NORMAL")
        self._migrate(migrations)
        if read_only:
            self._conn.execute("PRAGMA query_only = ON")

    @classmethod
    def open(
        cls, path: str | PathLike[str], *, migrations: Sequence[Migration] | None = None,
        read_only: bool = False,
    ) -> Self:
        """Open the database at `path` and bring its schema up to date.

        A missing file is created, readable and writable by its owner only (SQLite
        gives its -wal and -shm files the same permissions); a file that exists keeps
        its own. A file that is not an arena database, or whose schema is newer than
        this code, is refused (`SchemaError`) and left byte for byte as it was.

        With `read_only`, nothing is created and nothing can be changed through the
        connection: a missing file, or one that holds no arena database yet, raises
        `NoDatabase`. Where the file and its folder can be written, an older schema is
        still brought up to date first; where they cannot (a read-only folder or
        mount), the file is read as it is, and an older schema is a `SchemaError`.
        """
        return cls(path, migrations=migrations, read_only=read_only)

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

    def _check_schema(self, path: str | PathLike[str], migrations: Sequence[Migration],
                      read_only: bool) -> None:
        """Refuse, without writing, a file that is not an arena database or is newer
        than `migrations` know; with `read_only`, also one that holds nothing yet."""
        with self._lock:
            tables = {str(row[0]) for row in self._conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
                " AND name NOT LIKE 'sqlite_%'")}
        if tables and "schema_migrations" not in tables:
            raise SchemaError("this is not an arena database: it holds tables of its "
                              f"own ({', '.join(sorted(tables)[:5])})")
        if not tables:
            if read_only:
                raise NoDatabase(f"{os.fspath(path)} holds no arena database yet")
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
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version INTEGER PRIMARY KEY, description TEXT NOT NULL,"
                " applied_at TEXT NOT NULL)"
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
        except (sqlite3.Error, ValueError, InvalidInput) as exc:  # a rebuild that cannot rate
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

    def _find_bot(self, conn: sqlite3.Connection, name: str) -> sqlite3.Row | None:
        """The active bot named `name`; for the base name of submitted versions, its
        latest built version."""
        row: sqlite3.Row | None = conn.execute(
            "SELECT * FROM bots WHERE name = ? AND removed_at IS NULL", (name,)
        ).fetchone()
        if row is None and "@" not in name and self._versioned:
            row = conn.execute(
                "SELECT b.* FROM bots b JOIN bot_versions v ON v.bot_id = b.id"
                " WHERE v.base_name = ? AND b.removed_at IS NULL AND v.build_status = 'ok'"
                " ORDER BY v.version DESC LIMIT 1", (name,)).fetchone()
        return row

    def _active_bot_ids(self, conn: sqlite3.Connection, names: Sequence[str]) -> list[int]:
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


def _connect(path: str | PathLike[str], read_only: bool) -> tuple[sqlite3.Connection, bool]:
    """A connection to the database at `path`, and whether SQLite opened the file
    read-only. Only without `read_only` is a missing file created (owner-only)."""
    if not read_only:
        _create_owner_only(path)
        return _sqlite(os.fspath(path)), False
    file = Path(path)
    if not file.is_file():
        raise NoDatabase(f"no database at {file}")
    if os.access(file, os.W_OK) and os.access(file.parent, os.W_OK):
        # mode=rw opens the file as it is and never creates it; SQLite can keep its
        # -wal and -shm files beside it, and removes them on close.
        return _sqlite(f"{file.absolute().as_uri()}?mode=rw", uri=True), False
    uri = f"{file.absolute().as_uri()}?mode=ro"
    if not Path(f"{file}-wal").exists():
        # No -wal file: no writer has the database open. To read it in WAL mode
        # SQLite would create a -shm file beside it, which it may not be able to do
        # here; immutable reads the file as it stands, without one.
        uri += "&immutable=1"
    return _sqlite(uri, uri=True), True


def _sqlite(database: str, *, uri: bool = False) -> sqlite3.Connection:
    return sqlite3.connect(database, isolation_level=None, check_same_thread=False, uri=uri)


def _create_owner_only(path: str | PathLike[str]) -> None:
    """Create a missing database file readable and writable by its owner only: it holds
    every seat's cards, bot commands and token hashes. An existing file is not touched."""
    name = os.fspath(path)
    if name in ("", ":memory:") or name.startswith("file:"):
        return
    try:
        os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        return
    except OSError as exc:
        folder = Path(name).parent
        if not folder.is_dir():
            raise NotWritable(f"the folder {folder} does not exist") from None
        raise _not_writable(path) or NotWritable(
            f"cannot create the database {name}: {exc.strerror}") from None


def _not_writable(path: str | PathLike[str]) -> NotWritable | None:
    """What to say when the database or its folder cannot be written; None if both can."""
    file = Path(path)
    if not os.access(file.parent, os.W_OK):
        return NotWritable(f"the folder {file.parent} is not writable, and arena keeps "
                           "its database's journal beside it; commands that only read, "
                           "such as `arena rankings`, work without")
    if file.exists() and not os.access(file, os.W_OK):
        return NotWritable(f"the database {file} is not writable; commands that only "
                           "read, such as `arena rankings`, work without")
    return None
