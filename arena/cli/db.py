"""`arena db`: the database itself: its schema's status, migrating it on purpose, and
copying a history from one database into another (SQLite → PostgreSQL)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from arena.cli.app import (
    main,
)
from arena.cli.context import (
    Context,
    DatabaseOption,
    pass_context,
)
from arena.cli.output import emit, output_format

if TYPE_CHECKING:
    from arena.store.status import PlannedMigration


@main.group()
def db() -> None:
    """The database itself: its schema's status, migrating it, copying a history into
    another one. Each works on --db (or ARENA_DB): an SQLite file or a postgresql:// URL.

    \b
    Example:
      arena db status
      arena db migrate --dry-run
      arena db copy arena.db postgresql://arena@db.example.org/arena
    """


@db.command("status")
@output_format
@pass_context
def status(context: Context, fmt: str) -> None:
    """Show the database's schema version, the migrations it has yet to have, each
    table's rows and size, and on PostgreSQL which programs hold connections to it (by
    the name each gave: `arena serve`, `arena tournament run`, ...). Nothing is
    changed: a command that opens the database applies pending migrations, `arena db
    migrate` on purpose.

    \b
    Example:
      arena --db postgresql://arena@db.example.org/arena db status
    """
    from arena.store.status import database_status

    found = _store_call(context, lambda: database_status(
        context.db, connection=context.connection_settings))
    if fmt == "json":
        click.echo(json.dumps({
            "database": found.target, "backend": found.backend,
            "schema_version": found.version, "latest_version": found.latest,
            "pending": [{"version": m.version, "description": m.description}
                        for m in found.pending],
            "tables": [{"name": t.name, "rows": t.rows, "bytes": t.bytes}
                       for t in found.tables],
            "connections": found.connections}, indent=2))
        return
    if fmt == "csv":
        emit([{"table": t.name, "rows": t.rows, "bytes": t.bytes} for t in found.tables],
             fmt, columns=("table", "rows", "bytes"))
        return
    state = ("up to date" if not found.pending else
             f"{len(found.pending)} pending: `arena db migrate` applies "
             f"{'it' if len(found.pending) == 1 else 'them'}")
    click.echo(f"database: {found.target} ({found.backend})")
    click.echo(f"schema version: {found.version} of {found.latest} ({state})")
    for migration in found.pending:
        click.echo(f"  pending {migration.version}: {migration.description}")
    total = found.total_bytes
    click.echo(f"size: {_size(total)}" if total is not None else
               "size: not known (this SQLite has no dbstat table)")
    if found.connections is not None:
        held = ", ".join(f"{name or '(unnamed)'} ({count})"
                         for name, count in sorted(found.connections.items()))
        click.echo(f"connections: {held}")
    click.echo("")
    emit([{"table": t.name, "rows": t.rows, "size": _size(t.bytes)} for t in found.tables],
         "table")


@db.command("migrate")
@click.option("--dry-run", is_flag=True,
              help="Show each pending migration and its statements; change nothing.")
@pass_context
def migrate(context: Context, dry_run: bool) -> None:
    """Bring the database's schema up to date, each migration in a transaction of its
    own (as any command that opens the database does, but on purpose and saying what
    it did). A missing SQLite file or an empty PostgreSQL database is given the whole
    schema.

    \b
    Example:
      arena --db postgresql://arena@db.example.org/arena db migrate --dry-run
      arena --db postgresql://arena@db.example.org/arena db migrate
    """
    from arena.store.status import migrate_database

    done = _store_call(context, lambda: migrate_database(
        context.db, dry_run=dry_run, connection=context.connection_settings))
    if not done:
        click.echo(f"{context.db_name} is up to date: nothing to migrate")
        return
    verb = "would apply" if dry_run else "applied"
    click.echo(f"{verb} {len(done)} migration{'s' if len(done) != 1 else ''} to "
               f"{context.db_name}:")
    for migration in done:
        _describe_migration(migration, dry_run)


def _describe_migration(migration: PlannedMigration, statements: bool) -> None:
    click.echo(f"  {migration.version}: {migration.description}")
    if not statements:
        return
    for statement in migration.statements:
        click.echo(f"      {statement};")
    if migration.rebuilds:
        click.echo("      (then rebuilds what is derived from the stored games)")


T = TypeVar("T")


def _store_call(context: Context, call: Callable[[], T]) -> T:
    """`call`'s answer; a database that cannot be used is one line."""
    from arena.store import NoDatabase, StoreError

    try:
        return call()
    except NoDatabase as exc:
        raise click.ClickException(f"{exc}: `arena db migrate` creates its schema") from None
    except (sqlite3.Error, StoreError) as exc:
        raise click.ClickException(
            f"cannot use the database {context.db_name}: {exc}") from None


def _size(count: int | None) -> str:
    """`count` bytes as people read them."""
    if count is None:
        return "?"
    size = float(count)
    for unit in ("B", "kB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    raise AssertionError("unreachable")


@db.command("copy")
@click.argument("source", type=DatabaseOption())
@click.argument("destination", type=DatabaseOption())
def copy(source: Path | str, destination: Path | str) -> None:
    """Copy every bot, tournament, schedule, game and rating from SOURCE into
    DESTINATION, which must hold no arena data yet.

    Each is an SQLite file or a postgresql://USER@HOST/DB URL (the PostgreSQL database
    must exist). Ids are kept, everything is written in one transaction, and each
    table's row count is checked before it is committed; run claims are not copied.

    \b
    Example:
      arena db copy arena.db postgresql://arena@db.example.org/arena
    """
    from arena.store import StoreError
    from arena.store.backend import describe
    from arena.store.transfer import copy_database

    if not isinstance(source, str) and not source.exists():
        raise click.ClickException(f"no database at {source}")
    try:
        copied = copy_database(source, destination)
    except (sqlite3.Error, StoreError) as exc:
        raise click.ClickException(
            f"cannot copy {describe(source)} into {describe(destination)}: {exc}") from None
    rows = ", ".join(f"{count} {table}" for table, count in copied.items() if count)
    click.echo(f"copied {describe(source)} into {describe(destination)}: "
               f"{rows or 'no rows'}")
