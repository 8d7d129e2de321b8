"""`arena match`, `arena tournament …` and `arena rankings`: playing and ranking."""

from __future__ import annotations

import json
from typing import Any

import click

from arena.cli.app import (
    main,
)
from arena.cli.context import (
    Context,
    interruptible,
    pass_context,
    stopped,
)
from arena.cli.inputs import (
    POSITIVE_UINT32,
    UINT32,
    UINT64,
    Seconds,
    load_table,
    rules_json,
)
from arena.cli.output import (
    RANKING_COLUMNS,
    TOURNAMENT_COLUMNS,
    emit,
    follow_progress,
    output_format,
    ranking_rows,
    tournament_row,
)
from arena.cli.session import (
    Session,
)
from arena.tournament.schedule import MAX_TABLE_SIZE
from arena.v1 import admin_pb2

# ---------------------------------------------------------------------- match

@main.command()
@click.argument("bots", nargs=-1, required=True)
@click.option("--games", type=POSITIVE_UINT32, default=10, show_default=True,
              help="Games to play, rounded up to a multiple of the number of BOTS.")
@click.option("--seed", type=UINT64, default=0, show_default=True)
@click.option("--rules", "rules_path", type=click.Path(exists=True, dir_okay=False),
              help="Rule set file (TOML or JSON); the official rules otherwise.")
@click.option("--concurrency", type=POSITIVE_UINT32, default=2, show_default=True,
              help="Games played at once.")
@click.option("--wait", type=Seconds(), default=30.0, show_default=True,
              help="Seconds to wait for the bots to connect (0: do not wait).")
@pass_context
def match(context: Context, bots: tuple[str, ...], games: int, seed: int,
          rules_path: str | None, concurrency: int, wait: float) -> None:
    """Play rated games between BOTS (2 to 10, at one table), then show the rankings.

    Each deal is played once in every seat rotation, so every bot holds every
    hand; the match is stored as a tournament of its own (match-DATE-TIME).

    \b
    Example:
      arena match greedy counter random --games 30 --seed 1
    """
    begun = False

    def on_begun() -> None:
        nonlocal begun
        begun = True

    async def body(session: Session) -> admin_pb2.GetRankingsResponse:
        await follow_progress(session.admin.PlayMatch(request), "match", on_begun)
        return await session.admin.GetRankings(admin_pb2.GetRankingsRequest())

    try:
        if len(bots) > MAX_TABLE_SIZE:
            raise click.ClickException(
                f"a match seats at most {MAX_TABLE_SIZE} bots, got {len(bots)}")
        request = admin_pb2.PlayMatchRequest(bots=list(bots), games=games, seed=seed,
                                             rules_json=rules_json(rules_path),
                                             concurrency=concurrency, remote_wait_seconds=wait)
        rows = [r for r in ranking_rows(context.run(body).rows) if r["bot"] in bots]
    except KeyboardInterrupt:
        # The server creates the match only once its bots are connected, just before
        # its first progress update.
        stopped(MATCH_KEPT if begun else MATCH_NOT_BEGUN)
    emit(rows, "table")


MATCH_KEPT = ("stopped; the games played so far are kept: `arena tournament list` shows "
              "the match, `arena tournament run NAME` finishes it.")
MATCH_NOT_BEGUN = "stopped before the match began; no game was played."


# ------------------------------------------------------------------ tournaments

@main.group()
def tournament() -> None:
    """Create, inspect and run tournaments.

    \b
    Example:
      arena tournament create spring greedy counter random --table-size 3
      arena tournament run spring
    """


@tournament.command("create")
@click.argument("name")
@click.argument("bots", nargs=-1, required=True)
@click.option("--format", "format_", type=click.Choice(
    ["round_robin", "partners", "teams", "gauntlet"]), default=None,
    help="Schedule format [default: round_robin].")
@click.option("--table-size", type=click.IntRange(2, 10), default=None, help="Seats per table.")
@click.option("--deals", "deals", type=click.IntRange(1), default=None,
              help="Deals per table (each played in every seat rotation).")
@click.option("--seed", type=UINT64, default=None, help="Tournament seed.")
@click.option("--challenger", default=None, help="Gauntlet: the bot that meets the field.")
@click.option("--settings", "settings_path", type=click.Path(exists=True, dir_okay=False),
              help="Settings file (TOML or JSON): any of the options, plus policy and rules.")
@click.option("--rules", "rules_path", type=click.Path(exists=True, dir_okay=False),
              help="Rule set file (TOML or JSON).")
@pass_context
def tournament_create(context: Context, name: str, bots: tuple[str, ...], format_: str | None,
                      table_size: int | None, deals: int | None, seed: int | None,
                      challenger: str | None, settings_path: str | None,
                      rules_path: str | None) -> None:
    """Create tournament NAME between BOTS and print a summary of its schedule.

    \b
    Example:
      arena tournament create spring greedy counter random node --table-size 3 --deals 2
      arena tournament create pairs a b c d e f g h --format partners
    """
    settings = load_table(settings_path, "--settings")
    for key, value in (("format", format_), ("table_size", table_size),
                       ("deals_per_table", deals), ("seed", seed), ("challenger", challenger)):
        if value is not None:
            settings[key] = value
    request = admin_pb2.CreateTournamentRequest(name=name, bots=list(bots),
                                                settings_json=json.dumps(settings),
                                                rules_json=rules_json(rules_path))

    async def body(session: Session) -> admin_pb2.TournamentInfo:
        return await session.admin.CreateTournament(request)

    info = context.run(body)
    click.echo(f"created {info.format} tournament {info.name}: {len(info.bots)} bots, "
               f"{info.games_total} games")
    click.echo(f"see the schedule with `arena tournament schedule {info.name}`, "
               f"play it with `arena tournament run {info.name}`")


@tournament.command("schedule")
@click.argument("name")
@output_format
@pass_context
def tournament_schedule(context: Context, name: str, fmt: str) -> None:
    """Print every game of a tournament's schedule, played or not.

    \b
    Example:
      arena tournament schedule spring --format csv
    """
    async def body(session: Session) -> admin_pb2.GetScheduleResponse:
        return await session.admin.GetSchedule(admin_pb2.GetScheduleRequest(tournament=name))

    rows = []
    for g in context.run(body, read_only=True).games:
        row: dict[str, Any] = {"game": g.game_index, "round": g.round, "table": g.table,
                               "seats": " ".join(g.seats), "seed": g.seed, "status": g.status}
        if g.teams:
            row["teams"] = " ".join(str(t) for t in g.teams)
        if g.game_id:
            row["game_id"] = g.game_id
        rows.append(row)
    emit(rows, fmt, "the schedule is empty", ["game", "round", "table", "seats", "seed", "status"])


@tournament.command("list")
@output_format
@pass_context
def tournament_list(context: Context, fmt: str) -> None:
    """List tournaments and how far each has come.

    \b
    Example:
      arena tournament list
    """
    async def body(session: Session) -> admin_pb2.ListTournamentsResponse:
        return await session.admin.ListTournaments(admin_pb2.ListTournamentsRequest())

    emit([tournament_row(t) for t in context.run(body, read_only=True).tournaments], fmt,
         "no tournaments yet: create one with `arena tournament create NAME BOT BOT ...`",
         TOURNAMENT_COLUMNS)


@tournament.command("status")
@click.argument("name")
@output_format
@pass_context
def tournament_status(context: Context, name: str, fmt: str) -> None:
    """Show a tournament's status and progress.

    \b
    Example:
      arena tournament status spring
    """
    async def body(session: Session) -> admin_pb2.GetScheduleResponse:
        return await session.admin.GetSchedule(
            admin_pb2.GetScheduleRequest(tournament=name, skip_games=True))

    info = context.run(body, read_only=True).tournament
    emit([{**tournament_row(info), "run by": info.run_by or "-"}], fmt)


@tournament.command("run")
@click.argument("name")
@click.option("--concurrency", type=UINT32, default=0,
              help="Tables at once [default: the tournament's setting].")
@click.option("--wait", type=Seconds(), default=30.0, show_default=True,
              help="Seconds to wait for the bots to connect (0: do not wait).")
@pass_context
@interruptible("stopped; run the same command again to resume.")
def tournament_run(context: Context, name: str, concurrency: int, wait: float) -> None:
    """Play a tournament's pending games; after Ctrl-C, run it again to resume.

    \b
    Example:
      arena tournament run spring --concurrency 4
    """
    request = admin_pb2.RunTournamentRequest(tournament=name, concurrency=concurrency,
                                             remote_wait_seconds=wait)

    async def body(session: Session) -> admin_pb2.GetRankingsResponse:
        await follow_progress(session.admin.RunTournament(request), name)
        return await session.admin.GetRankings(admin_pb2.GetRankingsRequest(tournament=name))

    emit(ranking_rows(context.run(body).rows), "table")


@tournament.command("standings")
@click.argument("name")
@output_format
@pass_context
def tournament_standings(context: Context, name: str, fmt: str) -> None:
    """The TrueSkill leaderboard of one tournament.

    \b
    Example:
      arena tournament standings spring --format json
    """
    _print_rankings(context, name, fmt)


@main.command()
@click.option("--tournament", default=None, help="Only the games of this tournament.")
@output_format
@pass_context
def rankings(context: Context, tournament: str | None, fmt: str) -> None:
    """The TrueSkill leaderboard, ordered by the conservative rating μ−3σ.

    \b
    Example:
      arena rankings --tournament spring
    """
    _print_rankings(context, tournament or "", fmt)


def _print_rankings(context: Context, tournament: str, fmt: str) -> None:
    async def body(session: Session) -> admin_pb2.GetRankingsResponse:
        return await session.admin.GetRankings(admin_pb2.GetRankingsRequest(
            tournament=tournament))

    emit(ranking_rows(context.run(body, read_only=True).rows), fmt, "no rated games yet",
         RANKING_COLUMNS)
