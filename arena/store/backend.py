"""The databases the store runs on, and what differs between them.

A store is named by a *target*: a file path (SQLite, the default) or a
`postgresql://` URL (PostgreSQL through psycopg 3). Both run the same SQL, as the
store writes it for SQLite: `?` placeholders, `INSERT ... RETURNING id` for new ids,
`ON CONFLICT` instead of `INSERT OR ...`, JSON kept as text and decoded in Python. A
`Backend` carries the few things that cannot be the same: how to connect, how a
write transaction begins (SQLite's `BEGIN IMMEDIATE`; PostgreSQL's `BEGIN` under one
transaction-scoped advisory lock, so writers queue as they do on SQLite), the types
of a migration's columns, how to list a database's tables, and the session locks
that make a killed run's claim lapse at once on PostgreSQL. Only a PostgreSQL
connection breaks under a running store (`ConnectionLost`), and is then made again
(see `arena.store.database`).

SQL written for the store runs on both when it keeps to these rules:

- placeholders are `?`; new ids come from `INSERT ... RETURNING id` (never
  `lastrowid`); upserts are `INSERT ... ON CONFLICT (...) DO NOTHING | DO UPDATE
  SET c = excluded.c` (never `INSERT OR IGNORE/REPLACE`);
- a migration's columns are `INTEGER`, `REAL`, `TEXT` or `BLOB`, every column typed,
  `id INTEGER PRIMARY KEY` for a generated id; a statement only SQLite can run goes
  in the migration's `postgres` statements as well;
- only standard functions (`COALESCE`, `CASE`, aggregates): no `IFNULL`, `json_*`,
  `datetime()`, `GROUP_CONCAT`, `PRAGMA` or `sqlite_master` (`Backend.tables`); JSON is
  `TEXT`, decoded in Python; a flag is an `INTEGER` 0/1, passed as `int(flag)`, and
  never summed as a comparison (`SUM(CASE WHEN ... THEN 1 ELSE 0 END)`);
- strings in single quotes; every selected column either grouped or aggregated;
  parameters of their column's type (PostgreSQL does not compare `TEXT` to a number);
  never `IN ()` with an empty list; text ordered in Python where the order matters (a
  database's collation may differ);
- a statement that fails ends its transaction on PostgreSQL: catch
  `Backend.integrity_errors` (not `sqlite3.IntegrityError`) only to leave the
  transaction with a store error, and check first where a write may conflict.
"""

from __future__ import annotations

import os
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from arena.store.errors import StoreError

Target = str | PathLike[str]
"""Where a store lives: a file path (SQLite) or a `postgresql://` URL."""

POSTGRES_SCHEMES = ("postgresql", "postgres")
"""URL schemes that name a PostgreSQL database."""


STATEMENT_TIMEOUT = 60.0
"""Seconds one statement may run on PostgreSQL before the server cancels it (the default of
`ConnectionSettings.statement_timeout`): far longer than any statement of a game, a
leaderboard or a list takes, short enough that one stuck behind a lock or a runaway plan
does not hold a connection for ever. Migrations and `arena db copy` run without it."""


@dataclass(frozen=True, slots=True)
class ConnectionSettings:
    """How the store's connections present themselves to the database server and guard
    against it going silent. Only PostgreSQL has any of them; SQLite ignores them.

    Each is set only where the `postgresql://` URL does not already set it: a URL's
    `application_name=` or `keepalives_idle=` wins."""

    application_name: str = "arena"
    """What `pg_stat_activity` shows for each connection (`arena serve`, `arena
    tournament run`, ...); the readers of a store add ` (reader)`."""

    statement_timeout: float | None = STATEMENT_TIMEOUT
    """Seconds one statement may run before the server cancels it
    (`StatementTimeout`); None or 0 for no limit."""

    keepalive_idle: int = 30
    """Seconds a connection may be silent before TCP checks that the server is still
    there, then every `keepalive_interval` s, `keepalive_count` times, before giving up
    (so a network split ends a connection in about a minute rather than hours)."""

    keepalive_interval: int = 10
    """Seconds between two TCP keepalive probes."""

    keepalive_count: int = 3
    """Unanswered probes after which the connection is dropped."""

    def statement_timeout_ms(self) -> int:
        """The statement timeout in milliseconds, as PostgreSQL takes it (0: none)."""
        if not self.statement_timeout or self.statement_timeout <= 0:
            return 0
        return max(1, round(self.statement_timeout * 1000))


class Row(Protocol):
    """A result row, read by position or by column name (as `sqlite3.Row` is)."""

    def __getitem__(self, key: Any, /) -> Any:
        """The value at a position or under a column name."""

    def keys(self) -> list[str]:
        """The column names, in order."""


class Cursor(Protocol):
    """What a statement returns: its rows, and how many rows it changed."""

    @property
    def rowcount(self) -> int:
        """Rows an UPDATE or DELETE changed."""

    def fetchone(self) -> Any:
        """The next row, or None."""

    def fetchall(self) -> list[Any]:
        """Every remaining row."""

    def fetchmany(self, size: int = ..., /) -> list[Any]:
        """Up to `size` more rows."""

    def __iter__(self) -> Iterator[Any]:
        """The remaining rows, one by one."""


class Connection(Protocol):
    """The connection every query of the store goes through, on either backend."""

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Cursor:
        """Run one statement with `?` placeholders; return its cursor."""

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Cursor:
        """Run one statement once for each set of parameters."""

    def close(self) -> None:
        """Close the connection."""


def is_postgres(target: Target) -> bool:
    """Whether `target` names a PostgreSQL database (a `postgresql://` URL)."""
    return isinstance(target, str) and urlsplit(target).scheme in POSTGRES_SCHEMES \
        and target.partition(":")[2].startswith("//")


def describe(target: Target) -> str:
    """`target` fit to print: a URL without its password (in the user part or in a
    `password=` parameter); a path as it is."""
    if not is_postgres(target):
        return os.fspath(target)
    assert isinstance(target, str)
    parts = urlsplit(target)
    netloc = parts.netloc
    if "@" in netloc:
        user, _, host = netloc.rpartition("@")
        name, has_password, _ = user.partition(":")
        netloc = f"{name}:***@{host}" if has_password else f"{name}@{host}"
    query = urlencode([(key, "***" if key == "password" else value)
                       for key, value in parse_qsl(parts.query, keep_blank_values=True)],
                      safe="/*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def side_path(target: Target) -> Path:
    """The path files that belong with a database are named after (its admin token, its
    bots' logs): the file itself for SQLite; for PostgreSQL, the database's name in the
    current folder (`postgresql://host/cup` → `./cup`)."""
    if not is_postgres(target):
        return Path(target)
    assert isinstance(target, str)
    name = unquote(urlsplit(target).path.lstrip("/")) or "postgres"
    return Path(re.sub(r"[^A-Za-z0-9_.-]", "_", name))


class Readers(ABC):
    """Connections that only read, handed to one caller at a time, beside a store's one
    writing connection (`Store.open(..., readers=N)`)."""

    @abstractmethod
    def connection(self) -> AbstractContextManager[Connection]:
        """A reading connection for the block, waiting while all are in use."""

    @abstractmethod
    def close(self) -> None:
        """Close every connection."""


class Backend(ABC):
    """What one kind of database does its own way; the store's SQL is the same on both."""

    def __init__(self, settings: ConnectionSettings | None = None) -> None:
        self.settings = settings or ConnectionSettings()
        """How connections present themselves and guard against a silent server."""

    name: str
    """'sqlite' or 'postgresql'."""

    errors: tuple[type[Exception], ...]
    """What a statement the database refuses raises."""

    integrity_errors: tuple[type[Exception], ...]
    """What a statement that breaks a constraint raises."""

    @abstractmethod
    def connect(self, target: Target, read_only: bool,
                timeout: float | None = None) -> tuple[Connection, bool]:
        """A connection to `target`, and whether it can only be read as it stands (a
        read-only file, whose schema cannot be brought up to date); a server that does
        not answer within `timeout` seconds (None: the driver's own limit) is an error."""

    @abstractmethod
    def readers(self, target: Target, size: int) -> Readers | None:
        """Up to `size` connections to `target` that only read, for callers that need not
        wait for the writer; None where `target` cannot have any (a database in memory,
        or a file that cannot be written)."""

    @abstractmethod
    def prepare(self, conn: Connection) -> None:
        """Session settings every connection needs before the schema is looked at."""

    @abstractmethod
    def before_writing(self, conn: Connection) -> None:
        """Settings a connection that may write needs (once the schema is known ours)."""

    @abstractmethod
    def make_read_only(self, conn: Connection) -> None:
        """Refuse every write through `conn` from now on."""

    @abstractmethod
    def tables(self, conn: Connection) -> set[str]:
        """The names of the tables the database holds."""

    @abstractmethod
    def table_sizes(self, conn: Connection) -> dict[str, int | None]:
        """Bytes each table takes on disk with its indexes (None where the database
        cannot tell)."""

    def sessions(self, conn: Connection) -> dict[str, int] | None:
        """How many connections to the database each program holds, by the name it gave
        (`application_name`); None where the database cannot tell (SQLite)."""
        return None

    @abstractmethod
    def explain(self, conn: Connection, sql: str, parameters: Sequence[Any] = ()) -> str:
        """The plan the database would follow for `sql`, as text."""

    @abstractmethod
    def without_statement_timeout(self, conn: Connection) -> None:
        """Lift the statement timeout for the rest of the transaction `conn` is in (a
        migration, a copy: long by nature)."""

    @abstractmethod
    def begin(self, conn: Connection) -> None:
        """Begin a write transaction that no other writer interleaves with."""

    @abstractmethod
    def begin_snapshot(self, conn: Connection) -> None:
        """Begin a transaction that only reads, and reads the database as it was at its
        first statement, whatever is committed meanwhile."""

    def ddl(self, statement: str) -> str:
        """A migration's statement, written for SQLite, in this backend's dialect."""
        return statement

    @abstractmethod
    def hold_claim(self, conn: Connection, token: str) -> None:
        """Hold, for as long as this connection lives, the lock of the run claim `token`."""

    @abstractmethod
    def drop_claim(self, conn: Connection, token: str) -> None:
        """Let go of the lock of the run claim `token` (held through `conn`)."""

    def claim_alive(self, conn: Connection, token: str) -> bool:
        """Whether a connection still holds the lock of the run claim `token`; True where
        the backend has no such locks (SQLite: the claim's pid and heartbeat tell)."""
        return True

    @abstractmethod
    def referenced_tables(self, conn: Connection, table: str) -> set[str]:
        """The tables `table`'s foreign keys refer to."""

    @abstractmethod
    def reset_ids(self, conn: Connection, table: str) -> None:
        """After rows were written into `table` with their own ids, number new rows after
        them (SQLite does so by itself)."""

    def explain_open_failure(self, target: Target, exc: BaseException,
                             file_read_only: bool) -> StoreError | None:
        """What to say when opening `target` failed with `exc`; None to let `exc` speak."""
        return None

