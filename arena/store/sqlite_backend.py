"""The SQLite backend: one file (WAL mode), created owner-only, opened read-only where
its folder cannot be written. In WAL mode readers do not wait for the writer: a store's
readers (`Store.open(..., readers=N)`) are connections of their own that open the file
read-only, each reading the latest commit as it begins."""

from __future__ import annotations

import os
import queue
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

from arena.store.backend import Backend, Connection, Readers, Target
from arena.store.errors import NoDatabase, NotWritable, StoreError


class SQLiteBackend(Backend):
    """An SQLite file: writers queue on its write lock (`BEGIN IMMEDIATE`)."""

    name = "sqlite"
    errors: tuple[type[Exception], ...] = (sqlite3.Error,)
    integrity_errors: tuple[type[Exception], ...] = (sqlite3.IntegrityError,)

    def connect(self, target: Target, read_only: bool,
                timeout: float | None = None) -> tuple[Connection, bool]:
        conn, file_read_only = _connect(target, read_only)
        conn.row_factory = sqlite3.Row
        return cast(Connection, conn), file_read_only

    def readers(self, target: Target, size: int) -> Readers | None:
        name = os.fspath(target)
        if name in ("", ":memory:") or name.startswith("file:"):
            return None
        file = Path(name)
        if not (os.access(file, os.W_OK) and os.access(file.parent, os.W_OK)):
            return None  # read as it stands through the store's own connection
        return SQLiteReaders(file, size)

    def prepare(self, conn: Connection) -> None:
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA busy_timeout = 5000")

    def before_writing(self, conn: Connection) -> None:
        conn.execute("PRAGMA journal_mode = WAL")
        # In WAL mode a commit survives a killed process either way; NORMAL only
        # lets a power cut undo the latest commits, never half of one.
        conn.execute("PRAGMA synchronous = NORMAL")

    def hold_claim(self, conn: Connection, token: str) -> None:
        """Nothing: an SQLite claim holds through its pid and heartbeat alone."""

    def drop_claim(self, conn: Connection, token: str) -> None:
        """Nothing: an SQLite claim holds no lock."""

    def referenced_tables(self, conn: Connection, table: str) -> set[str]:
        return {str(row["table"]) for row in conn.execute(
            "SELECT * FROM pragma_foreign_key_list(?)", (table,))}

    def reset_ids(self, conn: Connection, table: str) -> None:
        """Nothing: SQLite numbers a new row after the highest id."""

    def make_read_only(self, conn: Connection) -> None:
        conn.execute("PRAGMA query_only = ON")

    def tables(self, conn: Connection) -> set[str]:
        return {str(row[0]) for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}

    def without_statement_timeout(self, conn: Connection) -> None:
        """Nothing: SQLite has no statement timeout."""

    def table_sizes(self, conn: Connection) -> dict[str, int | None]:
        """Each table's bytes with its indexes, from the `dbstat` table where this SQLite
        has it; else None for each."""
        tables = self.tables(conn)
        try:
            rows = conn.execute(
                "SELECT COALESCE(i.tbl_name, s.name), SUM(s.pgsize) FROM dbstat s"
                " LEFT JOIN sqlite_master i ON i.name = s.name AND i.type = 'index'"
                " GROUP BY COALESCE(i.tbl_name, s.name)").fetchall()
        except sqlite3.OperationalError:
            return dict.fromkeys(tables)
        sizes = {str(row[0]): int(row[1]) for row in rows}
        return {table: sizes.get(table, 0) for table in tables}

    def explain(self, conn: Connection, sql: str, parameters: Sequence[Any] = ()) -> str:
        return "\n".join(str(row["detail"]) for row in conn.execute(
            f"EXPLAIN QUERY PLAN {sql}", parameters))

    def begin(self, conn: Connection) -> None:
        conn.execute("BEGIN IMMEDIATE")

    def explain_open_failure(self, target: Target, exc: BaseException,
                             file_read_only: bool) -> StoreError | None:
        """That the file or its folder cannot be written, when that is why."""
        if file_read_only or not isinstance(exc, sqlite3.OperationalError):
            return None
        return _not_writable(target)

    def begin_snapshot(self, conn: Connection) -> None:
        conn.execute("BEGIN")  # in WAL mode, a read transaction reads one snapshot

    @staticmethod
    def journal_mode(conn: Connection) -> str:
        """SQLite's journal mode for the database ('wal' for a file)."""
        return str(conn.execute("PRAGMA journal_mode").fetchone()[0])


class SQLiteReaders(Readers):
    """Up to `size` read-only connections to one file, made as they are first needed."""

    def __init__(self, file: Path, size: int) -> None:
        self._uri = f"{file.absolute().as_uri()}?mode=ro"
        self._idle: queue.SimpleQueue[sqlite3.Connection] = queue.SimpleQueue()
        self._slots = threading.BoundedSemaphore(size)
        self._made: list[sqlite3.Connection] = []
        self._lock = threading.Lock()

    @contextmanager
    def connection(self) -> Iterator[Connection]:
        """A reading connection for the block (waiting while all `size` are in use)."""
        with self._slots:
            try:
                conn = self._idle.get_nowait()
            except queue.Empty:
                conn = self._open()
            try:
                yield cast(Connection, conn)
            finally:
                if conn.in_transaction:
                    conn.rollback()
                self._idle.put(conn)

    def _open(self) -> sqlite3.Connection:
        conn = _sqlite(self._uri, uri=True)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA busy_timeout = 5000")
        conn.execute("PRAGMA query_only = ON")
        with self._lock:
            self._made.append(conn)
        return conn

    def close(self) -> None:
        with self._lock:
            for conn in self._made:
                conn.close()
            self._made.clear()


def _connect(path: Target, read_only: bool) -> tuple[sqlite3.Connection, bool]:
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


def _create_owner_only(path: Target) -> None:
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


def _not_writable(path: Target) -> NotWritable | None:
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
