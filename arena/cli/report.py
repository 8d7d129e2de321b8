"""`arena report`: a tournament's report as one self-contained HTML file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import click

from arena.cli.app import main
from arena.cli.context import Context, pass_context


@main.command()
@click.argument("tournament")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True, path_type=Path),
              default=None, help="The HTML file to write.  [default: TOURNAMENT.html]")
@pass_context
def report(context: Context, tournament: str, output: Path | None) -> None:
    """Write a tournament's report: one HTML file that needs no network.

    The page holds the leaderboard, the crosstable, each bot's rating over the
    tournament as a chart, the per-seat results, how every game and every seat
    ended, and a replay of every game to step through, event by event, with the
    cards drawn as everyone at the table saw them.

    The report reads the local database (--db or ARENA_DB) directly and only
    reads it, so it can be made while a tournament runs. It does not work with
    --server: run it where the database is.

    \b
    Example:
      arena report spring -o spring.html
    """
    from arena.report import write_report
    from arena.store import NoDatabase, Store, StoreError, UnknownTournament

    if context.server:
        raise click.UsageError("`arena report` reads the local database (--db or ARENA_DB); "
                               "it does not work with --server: run it where the database is")
    path = output or Path(f"{tournament}.html")
    try:
        with Store.open(context.db, read_only=True) as store:
            made = write_report(store, tournament, path)
    except NoDatabase as exc:
        raise click.ClickException(f"{exc}: --db or ARENA_DB names the database") from None
    except UnknownTournament as exc:
        raise click.ClickException(f"{exc} (`arena tournament list` lists them)") from None
    except (sqlite3.Error, StoreError) as exc:
        raise click.ClickException(f"cannot use the database {context.db}: {exc}") from None
    except OSError as exc:
        raise click.ClickException(f"cannot write {path}: {exc.strerror or exc}") from None
    click.echo(f"wrote {path}: {made.games_done} of {made.games_total} games, "
               f"{len(made.games)} replays")
