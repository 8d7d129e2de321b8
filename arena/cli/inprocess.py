"""`--in-process` for `arena match` and `arena tournament run`: trusted Python bots played here.

The games are played in this command's process by `arena.tournament.inprocess`
on the local database (no match server, no bot processes), then the standings
are shown as the gRPC path shows them. Only the local database will do: a
server given with --server serves other people's bots, and a lane that runs
code in the driver's process has no place there.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

import click

from arena.cli.context import Context, stopped
from arena.cli.output import emit_rankings, follow_progress
from arena.cli.rankings_fetch import pool_rankings
from arena.v1 import admin_pb2

if TYPE_CHECKING:
    from arena.cli.session import Session
    from arena.store import Store

IN_PROCESS_HELP = ("Play the bots' decide functions in this process (with --workers N, in N "
                   "local processes), on the local database: managed Python SDK bots only, "
                   "unsandboxed (trusted code), no match server; the same schedule, records "
                   "and ratings.")

def refuse(context: Context, reason: str | None = None) -> None:
    """Refuse --in-process with a server, or with an option it cannot honour."""
    if context.server:
        raise click.UsageError(
            f"--in-process plays the bots in this process on the local database; the "
            f"server at {context.server} serves others, so it cannot: leave out --server")
    if reason:
        raise click.UsageError(f"--in-process {reason}")


def _run(context: Context, label: str,
         start: Callable[[Store, Callable[[int, int], None]], Awaitable[tuple[str, Any]]],
         ) -> tuple[admin_pb2.RunProgress, Any]:
    """Open the store, run `start` in this process with a progress bar, close the store;
    errors become one line."""
    import asyncio  # loaded when a command plays, never for --help

    from arena.env.loading import NotAnSdkBot
    from arena.store import NoDatabase, Store, StoreError
    from arena.tournament.inprocess import InProcessRefused

    async def main() -> tuple[admin_pb2.RunProgress, Any]:
        store = Store.open(context.db, reconnect_within=context.reconnect_within,
                           connection=context.connection_settings)
        try:
            updates: asyncio.Queue[admin_pb2.RunProgress | None] = asyncio.Queue()
            named: list[str] = []

            def progress(done: int, total: int) -> None:
                updates.put_nowait(admin_pb2.RunProgress(
                    done=done, total=total, tournament=named[0] if named else ""))

            async def stream() -> AsyncIterator[admin_pb2.RunProgress]:
                while (update := await updates.get()) is not None:
                    yield update

            async def play() -> tuple[str, Any]:
                try:
                    name, outcome = await start(store, progress)
                    named.append(name)
                    return name, outcome
                finally:
                    updates.put_nowait(None)

            task = asyncio.ensure_future(play())
            await follow_progress(stream(), label)
            name, outcome = await task
            return admin_pb2.RunProgress(tournament=name), outcome
        finally:
            store.close()

    try:
        return asyncio.run(main())
    except KeyboardInterrupt:
        stopped("stopped; the games recorded so far are kept: run the tournament again "
                "(`arena tournament run NAME --in-process`) to finish it.")
    except (NotAnSdkBot, InProcessRefused) as exc:
        raise click.ClickException(str(exc)) from None
    except NoDatabase as exc:
        raise click.ClickException(
            f"{exc}: `arena bot add` creates one; --db or ARENA_DB names another") from None
    except (sqlite3.Error, StoreError) as exc:
        raise click.ClickException(f"cannot use the database {context.db_name}: {exc}") from None


def _standings(context: Context, name: str,
               confidence: float = 0.95) -> list[admin_pb2.GetRankingsResponse]:
    async def body(session: Session) -> list[admin_pb2.GetRankingsResponse]:
        return await pool_rankings(session, name, None, confidence)
    return context.run(body, read_only=True)


def run_tournament(context: Context, name: str, workers: int = 0,
                   until_separated: tuple[float, int | None] | None = None) -> None:
    """`arena tournament run NAME --in-process [--workers N | --until-separated]`
    (`until_separated`: the confidence and the most games)."""
    from arena.tournament.inprocess import run_in_process
    from arena.tournament.schedule import MAX_GAMES
    from arena.tournament.sequential import UntilSeparated

    goal = None
    if until_separated is not None:
        confidence, most = until_separated
        goal = UntilSeparated(confidence, most or MAX_GAMES)

    async def start(store: Store, progress: Callable[[int, int], None]) -> tuple[str, Any]:
        return name, await run_in_process(store, name, progress=progress, workers=workers,
                                          until_separated=goal)

    _, outcome = _run(context, name, start)
    conclusion = getattr(outcome, "conclusion", "")
    if conclusion:
        click.echo(f"until separated: {conclusion}\n")
    confidence = until_separated[0] if until_separated is not None else 0.95
    emit_rankings(_standings(context, name, confidence), "table")


def play_match(context: Context, bots: tuple[str, ...], games: int, seed: int,
               rules_text: str, sprt: dict[str, Any] | None, workers: int = 1) -> None:
    """`arena match BOTS --in-process` (with `sprt`: h0, h1, alpha, beta, max_games)."""
    from arena.engine import RuleSet
    from arena.tournament.inprocess import play_match_in_process
    from arena.tournament.schedule import MAX_GAMES
    from arena.tournament.sequential import SprtPlan

    rules = RuleSet.from_dict(json.loads(rules_text)) if rules_text else RuleSet()
    plan = None
    if sprt is not None:
        if len(bots) != 2:
            raise click.UsageError(f"a sequential test is between 2 bots, got {len(bots)}")
        plan = SprtPlan(sprt["h0"], sprt["h1"], sprt["alpha"], sprt["beta"],
                        sprt["max_games"] or MAX_GAMES, sprt["model"])

    async def start(store: Store, progress: Callable[[int, int], None]) -> tuple[str, Any]:
        return await play_match_in_process(store, list(bots), games, seed, rules, sprt=plan,
                                           progress=progress, workers=workers)

    last, outcome = _run(context, "match", start)
    conclusion = getattr(outcome, "conclusion", "")
    if conclusion:
        click.echo(f"SPRT: {conclusion}\n")
    emit_rankings(_standings(context, last.tournament), "table")
    click.echo(f"\nthe match is tournament {last.tournament}: `arena crosstable --tournament "
               f"{last.tournament}` shows it head to head, `arena rankings` every pool")
