"""A database's schema and size as an operator asks after them, and bringing its schema
up to date on purpose: what `arena db status` and `arena db migrate` show and do.

`database_status` only looks: it never migrates, creates or writes anything, so it can
tell which migrations are pending before any command applies them. `migrate_database`
applies them (as opening a store does), or with `dry_run` names each with the
statements it would run on this database's backend, without connecting for writing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.store.backend import ConnectionSettings, Target, is_postgres
from arena.store.database import Database, backend_for
from arena.store.errors import NoDatabase
from arena.store.schema import MIGRATIONS, Migration


@dataclass(frozen=True, slots=True)
class TableStatus:
    """One table: its rows and the bytes it takes with its indexes (None where the
    database cannot tell)."""

    name: str
    rows: int
    bytes: int | None


@dataclass(frozen=True, slots=True)
class PlannedMigration:
    """A migration a database has not had yet, as this database would run it."""

    version: int
    description: str
    statements: tuple[str, ...]
    """Its statements in the backend's dialect, in order."""
    rebuilds: bool
    """Whether data derived from what is stored is rebuilt after them (ratings, say)."""


@dataclass(frozen=True, slots=True)
class DatabaseStatus:
    """What `arena db status` shows."""

    target: str
    """The database, fit to print (a URL without its password)."""
    backend: str
    version: int
    """The newest migration applied."""
    latest: int
    """The newest migration this arena knows."""
    pending: tuple[PlannedMigration, ...]
    tables: tuple[TableStatus, ...]
    """Every table, by name."""
    connections: dict[str, int] | None = None
    """PostgreSQL's: how many connections to the database each program holds, by the
    name it gave (`arena serve`, `arena serve (reader)`, ...; '' for none)."""

    @property
    def total_bytes(self) -> int | None:
        """The bytes of every table together (None where the database cannot tell)."""
        sizes = [table.bytes for table in self.tables]
        return None if any(size is None for size in sizes) else sum(
            size for size in sizes if size is not None)


def database_status(target: Target, *, migrations: Sequence[Migration] | None = None,
                    connection: ConnectionSettings | None = None) -> DatabaseStatus:
    """The schema version of the arena database at `target`, the migrations it has yet
    to have, and each table's rows and size; nothing is written. A missing database,
    or one that holds no arena data yet, is `NoDatabase`; one that is not arena's, or
    newer than this arena, `SchemaError`."""
    wanted = MIGRATIONS if migrations is None else migrations
    with Database(target, migrations=wanted, read_only=True, migrate=False,
                  connection=connection) as database:
        return _status(database, wanted)


def migrate_database(target: Target, *, dry_run: bool = False,
                     migrations: Sequence[Migration] | None = None,
                     connection: ConnectionSettings | None = None,
                     ) -> tuple[PlannedMigration, ...]:
    """Bring the schema of the database at `target` up to date; return the migrations
    applied (none when it was). With `dry_run`, return those it would apply, and
    change nothing. A missing SQLite file or an empty PostgreSQL database is given the
    whole schema (with `dry_run`, every migration is listed)."""
    wanted = MIGRATIONS if migrations is None else migrations
    try:
        planned = database_status(target, migrations=wanted, connection=connection).pending
    except NoDatabase:
        planned = tuple(_planned(m, _backend_name(target)) for m in _ordered(wanted))
    if dry_run or not planned:
        return planned
    with Database(target, migrations=wanted, connection=connection) as database:
        version = database.schema_version
    return tuple(m for m in planned if m.version <= version)


def _status(database: Database, migrations: Sequence[Migration]) -> DatabaseStatus:
    backend = database._backend
    conn = database._conn
    version = database.schema_version
    names = sorted(backend.tables(conn))
    sizes = backend.table_sizes(conn)
    tables = tuple(
        TableStatus(name, int(conn.execute(f"SELECT COUNT(*) FROM {name}").fetchone()[0]),
                    sizes.get(name))
        for name in names)
    pending = tuple(_planned(m, backend.name) for m in _ordered(migrations)
                    if m.version > version)
    return DatabaseStatus(target=database.target, backend=backend.name, version=version,
                          latest=max((m.version for m in migrations), default=0),
                          pending=pending, tables=tables,
                          connections=backend.sessions(conn))


def _ordered(migrations: Sequence[Migration]) -> list[Migration]:
    return sorted(migrations, key=lambda m: m.version)


def _planned(migration: Migration, backend: str) -> PlannedMigration:
    dialect = backend_for("postgresql://" if backend == "postgresql" else ":memory:")
    return PlannedMigration(
        version=migration.version, description=migration.description,
        statements=tuple(" ".join(dialect.ddl(statement).split())
                         for statement in migration.statements_for(backend)),
        rebuilds=migration.rebuild is not None)


def _backend_name(target: Target) -> str:
    return "postgresql" if is_postgres(target) else "sqlite"
