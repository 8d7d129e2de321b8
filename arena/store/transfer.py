"""Copying a whole arena history from one database into another, ids and all (an
SQLite file into PostgreSQL, or between any two)."""

from __future__ import annotations

from collections.abc import Mapping
from graphlib import TopologicalSorter

from arena.store.backend import Connection, Target, describe
from arena.store.database import Database
from arena.store.errors import StoreError

SKIPPED_TABLES = frozenset({"schema_migrations", "tournament_runs"})
"""Not copied: the destination keeps its own record of migrations, and a run's claim
belongs to the database the run plays on."""

BATCH = 500
"""Rows read and written at a time."""


class CopyRefused(StoreError):
    """The copy cannot be made: the destination is not empty, or is the source."""


def copy_database(source: Target, destination: Target) -> dict[str, int]:
    """Copy every table of `source` into `destination`, keeping every id, in one
    transaction on `destination`, and check each table's row count before committing;
    return the rows copied per table.

    Both are brought up to this arena's schema first (where `source` can be written:
    it is only read). `destination` must hold no arena data yet (`CopyRefused`
    otherwise, and nothing is written). The copy is `source` as it was when the copy
    began, whatever is recorded in it meanwhile. Run claims are not copied."""
    if describe(source) == describe(destination):
        raise CopyRefused("the source and the destination are the same database")
    with Database.open(source, read_only=True) as reading, \
            Database.open(destination) as writing:
        tables = _tables_in_order(reading)
        missing = sorted(set(tables) - writing._backend.tables(writing._conn))
        if missing:
            raise CopyRefused(f"{writing.target} has no table {', '.join(missing)}")
        with reading._snapshot() as src, writing._transaction() as dst:
            held = {table: _count(dst, table) for table in
                    sorted(writing._backend.tables(dst) - {"schema_migrations"})}
            if any(held.values()):
                raise CopyRefused(
                    f"{writing.target} already holds arena data ({_listing(held)}); "
                    "arena copies only into an empty database")
            copied = {table: _copy_table(src, writing, dst, table)
                      for table in tables}
            for table, rows in copied.items():
                if (_count(src, table), _count(dst, table)) != (rows, rows):
                    raise StoreError(f"copying {table} went wrong: {rows} rows read, "
                                     f"{_count(dst, table)} written; nothing was kept")
    return copied


def _tables_in_order(database: Database) -> list[str]:
    """The tables to copy, each after the tables it refers to."""
    conn = database._conn
    tables = database._backend.tables(conn) - SKIPPED_TABLES
    graph = {table: database._backend.referenced_tables(conn, table) & tables
             for table in sorted(tables)}
    return list(TopologicalSorter(graph).static_order())


def _copy_table(conn_in: Connection, writing: Database, conn_out: Connection,
                table: str) -> int:
    first = conn_in.execute(f"SELECT * FROM {table} LIMIT 1").fetchone()
    if first is None:
        return 0
    columns = list(first.keys())
    order = " ORDER BY id" if "id" in columns else ""
    insert = (f"INSERT INTO {table} ({', '.join(columns)})"
              f" VALUES ({', '.join('?' * len(columns))})")
    cursor = conn_in.execute(f"SELECT {', '.join(columns)} FROM {table}{order}")
    copied = 0
    while rows := cursor.fetchmany(BATCH):
        conn_out.executemany(insert, [tuple(row) for row in rows])
        copied += len(rows)
    if "id" in columns:
        writing._backend.reset_ids(conn_out, table)
    return copied


def _count(conn: Connection, table: str) -> int:
    return int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def _listing(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{rows} in {table}" for table, rows in counts.items() if rows)
