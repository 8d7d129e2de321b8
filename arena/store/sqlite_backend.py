"""The SQLite backend: one file (WAL mode), created owner-only, opened read-only where
its folder cannot be written."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import cast

from arena.store.backend import Backend, Connection, Target
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
