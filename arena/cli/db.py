"""`arena db copy`: move a history from one database into another (SQLite → PostgreSQL)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import click

from arena.cli.app import (
    main,
)
from arena.cli.context import (
    DatabaseOption,
)


@main.group()
def db() -> None:
    """The database itself: copy a history into another one.

    \b
    Example:
      arena db copy arena.db postgresql://arena@db.example.org/arena
    """


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
