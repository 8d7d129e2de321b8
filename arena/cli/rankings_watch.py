"""`arena rankings --watch`: the leaderboard read again and redrawn while a run goes on.

On a terminal the tables are redrawn in place every interval; elsewhere they are
printed again each time they change. Watching a tournament ends by itself once
the tournament is finished (after drawing its final standings); watching a pool
goes on until Ctrl-C, since any later game may join it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from arena.cli.output import pool_heading, ranking_rows, separation_notes
from arena.cli.screen import Screen, can_redraw
from arena.store.records import LADDER_FORMAT
from arena.v1 import admin_pb2

if TYPE_CHECKING:
    from arena.cli.context import Context
    from arena.cli.session import Session

def leaderboard_lines(responses: Sequence[admin_pb2.GetRankingsResponse]) -> list[str]:
    """The leaderboards as `arena rankings` prints them, as lines."""
    from tabulate import tabulate

    if not any(r.rows for r in responses):
        return ["no rated games yet"]
    lines: list[str] = []
    for index, response in enumerate(r for r in responses if r.rows):
        if index:
            lines.append("")
        lines.append(pool_heading(response.pool))
        lines.extend(tabulate(ranking_rows(response.rows), headers="keys", floatfmt=".2f",
                              disable_numparse=True).splitlines())
        lines.extend(separation_notes(response))
    return lines


def progress_line(tournament: admin_pb2.TournamentInfo | None, interval: float) -> str:
    """The line above the watched tables: the tournament's state, or how often they refresh."""
    clock = time.strftime("%H:%M:%S")
    if tournament is None:
        return f"rankings at {clock}, read every {interval:g} s (Ctrl-C stops)"
    if tournament.format == LADDER_FORMAT:  # its schedule grows: the games played tell
        return (f"ladder {tournament.name}: {tournament.status}, {tournament.games_done} games "
                f"at {clock}, read every {interval:g} s (Ctrl-C stops)")
    games = f"{tournament.games_done} of {tournament.games_total} games"
    if tournament.status == "finished":
        return f"tournament {tournament.name}: finished, {games}"
    return (f"tournament {tournament.name}: {tournament.status}, {games} at {clock}, "
            f"read every {interval:g} s (Ctrl-C stops)")


def watch_rankings(context: Context, tournament: str | None, pool: str | None,
                   confidence: float, interval: float, *, ladder: bool = False) -> None:
    """Read and show the leaderboard every `interval` seconds until Ctrl-C, or until the
    watched tournament is finished; with `ladder`, `tournament` must name a ladder."""
    redraw = can_redraw()

    async def body(session: Session) -> None:
        if ladder and tournament:
            from arena.cli.rankings_fetch import require_ladder

            await require_ladder(session, tournament)
        shown: list[str] | None = None
        with Screen() as screen:
            while True:
                info = await _tournament(session, tournament) if tournament else None
                tables = leaderboard_lines(
                    await _rankings(session, info, tournament, pool, confidence))
                if redraw:
                    screen.draw([progress_line(info, interval), "", *tables])
                elif tables != shown:
                    click.echo("\n".join([progress_line(info, interval), *tables, ""]))
                shown = tables
                if info is not None and info.status == "finished" and info.format != LADDER_FORMAT:
                    return  # a ladder goes on whenever it is played again
                await asyncio.sleep(interval)

    try:
        context.run(body, read_only=True)
    except KeyboardInterrupt:
        raise SystemExit(130) from None


async def _tournament(session: Session, name: str) -> admin_pb2.TournamentInfo:
    response = await session.admin.GetSchedule(admin_pb2.GetScheduleRequest(
        tournament=name, skip_games=True))
    return response.tournament


async def _rankings(session: Session, info: admin_pb2.TournamentInfo | None,
                    tournament: str | None, pool: str | None,
                    confidence: float) -> list[admin_pb2.GetRankingsResponse]:
    """The leaderboards to show; none yet for a tournament whose first game is still due
    (its pool comes with that game)."""
    import grpc

    from arena.cli.rankings_fetch import pool_rankings

    try:
        return await pool_rankings(session, tournament, pool, confidence)
    except grpc.aio.AioRpcError as exc:
        if info is not None and info.games_done == 0 \
                and exc.code() is grpc.StatusCode.NOT_FOUND:
            return []
        raise
