"""`arena match` and `arena tournament …`: playing matches and tournaments."""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

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
from arena.cli.inprocess import IN_PROCESS_HELP, refuse
from arena.cli.inprocess import play_match as in_process_match
from arena.cli.inprocess import run_tournament as in_process_tournament
from arena.cli.inputs import (
    POSITIVE_UINT32,
    SEED_HELP,
    UINT32,
    UINT64,
    Period,
    Seconds,
    StartTime,
    load_table,
    rules_json,
)
from arena.cli.observe import MetricsAddress, metrics_option, refuse_remote_metrics
from arena.cli.output import (
    SPRT_STOP_BIAS,
    TOURNAMENT_COLUMNS,
    TOURNAMENT_RECORD_KEYS,
    emit,
    emit_rankings,
    follow_progress,
    match_record,
    output_format,
    run_faults_warning,
    scheduled_record,
    scheduled_row,
    separation_games_to_go,
    sprt_lines,
    tournament_record,
    tournament_row,
)
from arena.cli.rankings_fetch import pool_rankings
from arena.v1 import admin_pb2

if TYPE_CHECKING:
    from arena.cli.session import Session

# ---------------------------------------------------------------------- match

MAX_WORKERS = 1024
"""The most worker processes a run may ask for (`arena.tournament.schedule.MAX_WORKERS`)."""

WORKERS_HELP = ("Worker processes playing the games, each with its own match server and "
                "its own copies of the managed bots (more than 1: managed bots only; "
                "--concurrency is then per worker).")

@main.command()
@click.argument("bots", nargs=-1, required=True)
@click.option("--games", type=POSITIVE_UINT32, default=10, show_default=True,
              help="Games to play, rounded up to a multiple of the number of BOTS.")
@click.option("--seed", type=UINT64, default=0, show_default=True, help=SEED_HELP)
@click.option("--rules", "rules_path", type=click.Path(exists=True, dir_okay=False),
              help="Rule set file (TOML or JSON); the official rules otherwise.")
@click.option("--concurrency", type=POSITIVE_UINT32, default=2, show_default=True,
              help="Games played at once.")
@click.option("--wait", type=Seconds(), default=30.0, show_default=True,
              help="Seconds to wait for the bots to connect (0: do not wait).")
@click.option("--sprt", is_flag=True,
              help="Two bots: play deal after deal until a sequential probability ratio test "
                   "on the first bot's score per deal decides (--games is then ignored).")
@click.option("--h0", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.5, show_default=True, help="SPRT: the first bot's expected score "
              "per deal under H0 (0.5: no better).")
@click.option("--h1", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.51, show_default=True, help="SPRT: its expected score under H1.")
@click.option("--alpha", type=click.FloatRange(0, 0.5, min_open=True), default=0.05,
              show_default=True, help="SPRT: the chance of accepting H1 when H0 holds.")
@click.option("--beta", type=click.FloatRange(0, 0.5, min_open=True), default=0.05,
              show_default=True, help="SPRT: the chance of accepting H0 when H1 holds.")
@click.option("--max-games", type=POSITIVE_UINT32, default=None,
              help="SPRT: stop after this many games if the test has not decided "
                   "[default: a tournament's limit].")
@click.option("--sprt-model", type=click.Choice(["auto", "normal", "multinomial"]),
              default="auto", show_default=True,
              help="SPRT: auto is fishtest's GSPRT, on the pentanomial of each duplicate pair "
                   "of games (the trinomial of single games); normal is the regularized "
                   "normal GLR, multinomial the exact GLR over the deal scores seen.")
@click.option("--workers", type=click.IntRange(1, MAX_WORKERS), default=1, show_default=True,
              help=WORKERS_HELP)
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True, help="Output format of the result (JSON: the SPRT with its "
              "LLR after every deal, and the rankings).")
@click.option("--in-process", is_flag=True, help=IN_PROCESS_HELP)
@pass_context
def match(context: Context, bots: tuple[str, ...], games: int, seed: int,
          rules_path: str | None, concurrency: int, wait: float, sprt: bool, h0: float,
          h1: float, alpha: float, beta: float, max_games: int | None, sprt_model: str,
          workers: int, fmt: str, in_process: bool) -> None:
    """Play rated games between BOTS (2 to 10, at one table), then show the rankings.

    Each deal is played once in every seat rotation, so every bot holds every
    hand; the match is stored as a tournament of its own (match-DATE-TIME).
    With --sprt (two bots), deals are played until the sequential test accepts
    H0 or H1; the progress bar shows its log-likelihood ratio and bounds, as
    fastchess does. The defaults test whether the first bot scores 51% rather
    than 50% per deal, with 5% error each way.

    \b
    Example:
      arena match greedy counter random --games 30 --seed 1
      arena match counter greedy --sprt --h1 0.52
    """
    if in_process:
        refuse(context, "--sprt plays on one worker: leave out --workers"
               if workers > 1 and sprt else None)
        settings = dict(h0=h0, h1=h1, alpha=alpha, beta=beta, max_games=max_games,
                        model=sprt_model)
        return in_process_match(context, bots, games, seed, rules_json(rules_path),
                                settings if sprt else None, workers)
    begun: list[str] = []  # the match's name, once its first progress update names it

    def on_begun(first: admin_pb2.RunProgress) -> None:
        begun.append(first.tournament)

    async def body(session: Session
                   ) -> tuple[admin_pb2.RunProgress, list[admin_pb2.GetRankingsResponse]]:
        last = await follow_progress(session.admin.PlayMatch(request), "match", on_begun,
                                     sequential=sprt, limit=max_games if sprt else None)
        return last, await pool_rankings(session, last.tournament, None)

    from arena.tournament.schedule import MAX_TABLE_SIZE

    try:
        if len(bots) > MAX_TABLE_SIZE:
            raise click.ClickException(
                f"a match seats at most {MAX_TABLE_SIZE} bots, got {len(bots)}")
        request = admin_pb2.PlayMatchRequest(bots=list(bots), games=games, seed=seed,
                                             rules_json=rules_json(rules_path),
                                             concurrency=concurrency, remote_wait_seconds=wait,
                                             workers=workers)
        if sprt:
            request.sprt.CopyFrom(admin_pb2.SprtSettings(h0=h0, h1=h1, alpha=alpha, beta=beta,
                                                         max_games=max_games or 0,
                                                         model=sprt_model))
        last, standings = context.run(body)
    except KeyboardInterrupt:
        # The server creates the match only once its bots are connected, just before
        # its first progress update.
        stopped(match_kept(begun[0]) if begun else MATCH_NOT_BEGUN)
    if fmt == "json":
        click.echo(json.dumps(match_record(last, standings), indent=2, allow_nan=False))
        warn_at_end(last)
        return
    if last.conclusion:
        click.echo(f"SPRT: {last.conclusion}")
        for line in sprt_lines(last.sprt) if last.HasField("sprt") else ():
            click.echo(f"  {line}")
        click.echo()
    emit_rankings(standings, "table")
    if last.HasField("sprt") and last.sprt.stopped_early:
        click.echo(f"\nnote: {SPRT_STOP_BIAS}")
    name = last.tournament
    click.echo(f"\nthe match is tournament {name}: `arena crosstable --tournament {name}` "
               "shows it head to head, `arena rankings` every pool")
    warn_at_end(last)


def match_kept(name: str) -> str:
    """What a match stopped by Ctrl-C says: its games are kept, and how to finish it."""
    if not name:
        return ("stopped; the games played so far are kept: `arena tournament list` shows "
                "the match, `arena tournament run NAME` finishes it.")
    return (f"stopped; the games played so far are kept in tournament {name}: "
            f"`arena tournament run {name}` finishes it.")
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
@click.argument("bots", nargs=-1)
@click.option("--format", "format_", type=click.Choice(
    ["round_robin", "partners", "teams", "gauntlet"]), default=None,
    help="Schedule format [default: round_robin].")
@click.option("--table-size", type=click.IntRange(2, 10), default=None, help="Seats per table.")
@click.option("--deals", "deals", type=click.IntRange(1), default=None,
              help="Deals per table (each played in every seat rotation).")
@click.option("--seed", type=UINT64, default=None, help=SEED_HELP)
@click.option("--challenger", default=None, help="Gauntlet: the bot that meets the field.")
@click.option("--settings", "settings_path", type=click.Path(exists=True, dir_okay=False),
              help="Settings file (TOML or JSON): any of the options, plus policy and rules.")
@click.option("--rules", "rules_path", type=click.Path(exists=True, dir_okay=False),
              help="Rule set file (TOML or JSON).")
@click.option("--at", "start", type=StartTime(), default=None,
              help="Put it on the timetable: a running `arena serve` starts it at WHEN "
                   "(\"2026-12-24 18:00\", local time, or ISO 8601 with an offset).")
@click.option("--every", "every", type=Period(), default=None,
              help="Put it on the timetable: an edition every PERIOD (24h, 30m, 7d; 90s — "
                   "periods under a minute are for trying it out), the first at --at or now.")
@click.option("--share", type=click.FloatRange(0, 1, min_open=True), default=None,
              help="Scheduled: the share of the server's tables (`serve --tables`) its "
                   "editions play on, at least one [default: 0.5, or `share` in --settings].")
@click.option("--latest", is_flag=True,
              help="Enter the latest built version of every bot now (instead of BOTS); the "
                   "entrants are then fixed, as a final's are.")
@click.option("--per-author", type=click.IntRange(1, 1000), default=None, metavar="K",
              help="With --latest, or a timetable without BOTS: at most K bots of each "
                   "author (their newest).")
@pass_context
def tournament_create(context: Context, name: str, bots: tuple[str, ...], format_: str | None,
                      table_size: int | None, deals: int | None, seed: int | None,
                      challenger: str | None, settings_path: str | None,
                      rules_path: str | None, start: datetime | None, every: int | None,
                      share: float | None, latest: bool, per_author: int | None) -> None:
    """Create tournament NAME between BOTS and print a summary of its schedule.

    With --at or --every it goes on the timetable instead: a running `arena
    serve` starts each edition when it is due — a tournament of its own, named
    NAME-YYYY-MM-DD (NAME-YYYY-MM-DD-HHMM for editions under a day apart) —
    between BOTS, or without BOTS the latest version of every bot at that
    moment, and plays it on its share of the server's tables (beside the
    ladder, when the server runs one).
    `arena tournament list` shows what is scheduled and when.

    With --latest, a tournament created now enters the latest version of
    every bot instead of BOTS, and keeps those entrants whatever is submitted
    later (a final); --per-author K keeps each author to their K newest bots.

    \b
    Example:
      arena tournament create spring greedy counter random node --table-size 3 --deals 2
      arena tournament create pairs a b c d e f g h --format partners
      arena tournament create xmas --at "2026-12-24 18:00" --table-size 3
      arena tournament create daily greedy counter random --every 24h --table-size 3
      arena tournament create final --latest --per-author 1 --table-size 4
    """
    settings = load_table(settings_path, "--settings")
    for key, value in (("format", format_), ("table_size", table_size),
                       ("deals_per_table", deals), ("seed", seed), ("challenger", challenger),
                       ("share", share)):
        if value is not None:
            settings[key] = value
    if latest and bots:
        raise click.UsageError("--latest enters the latest version of every bot: name no BOTS")
    if per_author is not None and (bots or not (latest or start or every)):
        raise click.UsageError("--per-author goes with --latest (or a timetable without BOTS)")
    if start is not None or every is not None:
        if latest:
            raise click.UsageError("a tournament on the timetable takes the latest entrants "
                                   "when each edition starts: leave out --latest")
        schedule_tournament(context, name, bots, settings, rules_json(rules_path), start, every,
                            per_author)
        return
    if "share" in settings:
        raise click.UsageError("share (--share, or in --settings): only a tournament on the "
                               "timetable (--at, --every) has a share of the server's tables")
    if not bots and not latest:
        raise click.UsageError("Missing argument 'BOTS...' (or --latest; only a tournament "
                               "on the timetable, --at or --every, may leave them out)")
    request = admin_pb2.CreateTournamentRequest(name=name, bots=list(bots),
                                                settings_json=json.dumps(settings),
                                                rules_json=rules_json(rules_path),
                                                latest_entrants=latest,
                                                per_author=per_author or 0)

    async def body(session: Session) -> tuple[admin_pb2.TournamentInfo,
                                               admin_pb2.GetScheduleResponse]:
        info = await session.admin.CreateTournament(request)
        return info, await session.admin.GetSchedule(
            admin_pb2.GetScheduleRequest(tournament=info.name))

    info, schedule = context.run(body)
    click.echo(f"created {info.format} tournament {info.name}: {len(info.bots)} bots, "
               f"{info.games_total} games")
    warning = unequal_games_warning(list(info.bots), [list(g.seats) for g in schedule.games])
    if warning:
        click.echo(warning, err=True)
    click.echo(f"see the schedule with `arena tournament schedule {info.name}`, "
               f"play it with `arena tournament run {info.name}`")


def schedule_tournament(context: Context, name: str, bots: tuple[str, ...],
                        settings: dict[str, Any], rules: str, start: datetime | None,
                        every: int | None, per_author: int | None = None) -> None:
    """Put tournament `name` on the timetable and say when its first edition starts."""
    from arena.tournament.timetable import local_text, period_text

    request = admin_pb2.ScheduleTournamentRequest(
        name=name, bots=list(bots), settings_json=json.dumps(settings), rules_json=rules,
        start_at="" if start is None else start.isoformat(), every_seconds=every or 0,
        per_author=per_author or 0)

    async def body(session: Session) -> admin_pb2.ScheduledTournamentInfo:
        return await session.admin.ScheduleTournament(request)

    info = context.run(body)
    when = ("now" if start is None
            else f"at {local_text(datetime.fromisoformat(info.next_start))} (local time)")
    then = f", then every {period_text(info.every_seconds)}" if info.every_seconds else ""
    entrants = ("the latest version of every bot at that moment" if info.latest_entrants
                else ", ".join(info.bots))
    click.echo(f"scheduled {info.format} tournament {info.name}: its first edition, "
               f"{info.next_edition}, starts {when}{then}, on {info.share:.0%} of the server's "
               f"tables; "
               f"entrants: {entrants}")
    click.echo("a running `arena serve` on this database starts it; `arena tournament list` "
               f"shows it, `arena tournament unschedule {info.name}` takes it off")


def unequal_games_warning(bots: list[str], seatings: list[list[str]]) -> str | None:
    """A warning line when the games seated as `seatings` give `bots` unequal numbers of
    games, saying which bots play how many; None when every bot plays as many."""
    counts = dict.fromkeys(bots, 0)
    for seats in seatings:
        for name in seats:
            counts[name] = counts.get(name, 0) + 1
    if len(set(counts.values())) <= 1:
        return None
    by_count: dict[int, list[str]] = {}
    for name, count in counts.items():
        by_count.setdefault(count, []).append(name)
    which = "; ".join(f"{', '.join(names)} {count} each" if len(names) > 1
                      else f"{names[0]} {count}" for count, names in sorted(by_count.items()))
    return (f"warning: the schedule gives the bots unequal numbers of games ({which}); "
            "their results rest on unequal evidence")


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

    games = context.run(body, read_only=True).games
    if fmt != "table":
        emit([schedule_record(g) for g in games], fmt, "the schedule is empty",
             SCHEDULE_RECORD_KEYS)
        return
    rows = []
    for g in games:
        row: dict[str, Any] = {"id": g.id, "round": g.round, "table": g.table,
                               "seats": " ".join(g.seats), "seed": g.seed or "-",
                               "status": g.status}
        if g.teams:
            row["teams"] = " ".join(str(t) for t in g.teams)
        rows.append(row)
    emit(rows, fmt, "the schedule is empty")


SCHEDULE_RECORD_KEYS = ("id", "game_index", "round", "table", "seats", "teams", "seed",
                        "status", "number")


def schedule_record(game: admin_pb2.ScheduledGameInfo) -> dict[str, Any]:
    """A scheduled game under machine keys: its public `id` (what `watch` and `replay`
    take), and, once played, the stored game's `number`; its seed is the organizer's
    only (null for anyone else)."""
    return {"id": game.id, "game_index": game.game_index, "round": game.round,
            "table": game.table, "seats": list(game.seats),
            "teams": list(game.teams) if game.teams else None,
            "seed": game.seed or None, "status": game.status, "number": game.game_id or None}


@tournament.command("list")
@output_format
@pass_context
def tournament_list(context: Context, fmt: str) -> None:
    """List tournaments and how far each has come, then the tournaments on the
    timetable: when each starts next, how often, who enters, editions so far.

    In JSON and CSV a tournament on the timetable is a row of its own with status
    "scheduled" (or "ended", a single edition once made), `next_start` (UTC) and
    `every_seconds`; its `bots` are null when each edition enters the latest
    versions.

    \b
    Example:
      arena tournament list
    """
    async def body(session: Session) -> admin_pb2.ListTournamentsResponse:
        return await session.admin.ListTournaments(admin_pb2.ListTournamentsRequest())

    listed = context.run(body, read_only=True)
    empty = "no tournaments yet: create one with `arena tournament create NAME BOT BOT ...`"
    if fmt != "table":
        emit([*(tournament_record(t) for t in listed.tournaments),
              *(scheduled_record(t) for t in listed.scheduled)], fmt, empty,
             TOURNAMENT_RECORD_KEYS)
        return
    if listed.tournaments or not listed.scheduled:
        emit([tournament_row(t) for t in listed.tournaments], fmt, empty, TOURNAMENT_COLUMNS)
    if listed.scheduled:
        if listed.tournaments:
            click.echo()
        click.echo("on the timetable:")
        emit([scheduled_row(t) for t in listed.scheduled], fmt)


@tournament.command("unschedule")
@click.argument("name")
@pass_context
def tournament_unschedule(context: Context, name: str) -> None:
    """Take tournament NAME off the timetable: no more editions start. The editions
    it made stay, ordinary tournaments with their own standings; one in play goes on.

    \b
    Example:
      arena tournament unschedule daily
    """
    async def body(session: Session) -> admin_pb2.ScheduledTournamentInfo:
        return await session.admin.UnscheduleTournament(
            admin_pb2.UnscheduleTournamentRequest(name=name))

    info = context.run(body)
    made = (f"its {info.editions} edition(s) stay, the latest {info.last_edition}"
            if info.editions else "it made no edition")
    click.echo(f"took {info.name} off the timetable; {made}")


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
    emit([{**tournament_row(info), "run by": info.run_by or "-"} if fmt == "table"
          else tournament_record(info)], fmt)


@tournament.command("run")
@click.argument("name")
@click.option("--concurrency", type=UINT32, default=0,
              help="Tables at once [default: the tournament's setting].")
@click.option("--wait", type=Seconds(), default=30.0, show_default=True,
              help="Seconds to wait for the bots to connect, and for a --cluster to have a "
                   "first worker (0: do not wait).")
@click.option("--until-separated", is_flag=True,
              help="After the schedule, append whole deal blocks until every adjacent pair "
                   "on the leaderboard is separated, or --max-games is reached.")
@click.option("--confidence", type=click.FloatRange(0.5, 1, max_open=True), default=0.95,
              show_default=True, help="--until-separated: the confidence of the separations, "
              "shared between the adjacent pairs.")
@click.option("--max-games", type=POSITIVE_UINT32, default=None,
              help="--until-separated: the most games the tournament may reach "
                   "[default: a tournament's limit].")
@click.option("--workers", type=click.IntRange(0, MAX_WORKERS), default=0,
              help=WORKERS_HELP[:-2] + " [default: the tournament's setting, 1].")
@click.option("--cluster", default="", metavar="ADDRESS",
              help="Play on the workers of the Dask distributed cluster whose scheduler is "
                   "at ADDRESS (tcp://HOST:8786, or tls://… with Dask's TLS settings); "
                   "every worker needs the managed bots' commands.")
@click.option("--in-process", is_flag=True, help=IN_PROCESS_HELP)
@metrics_option
@pass_context
@interruptible("stopped; run the same command again to resume.")
def tournament_run(context: Context, name: str, concurrency: int, wait: float,
                   until_separated: bool, confidence: float, max_games: int | None,
                   workers: int, cluster: str, in_process: bool,
                   metrics_at: MetricsAddress | None) -> None:
    """Play a tournament's pending games; after Ctrl-C, run it again to resume.

    With --until-separated the run goes on past the schedule, a few deals per
    table at a time (each played in every rotation, seeded like the first),
    until the games separate every pair of bots next to each other on the
    leaderboard; the test stays valid however often it looks (a confidence
    sequence per pair). It then says which pairs remain unseparated, if any.

    With --workers N (or --cluster), N worker processes (or the cluster's
    workers) play the games, each with its own match server and bots; this
    process alone records them, in schedule order, so the games and ratings of
    deterministic bots are the same with any number of workers.

    \b
    Example:
      arena tournament run spring --concurrency 4
      arena tournament run spring --workers 4
      arena tournament run spring --cluster tcp://10.0.0.5:8786
      arena tournament run spring --until-separated --max-games 20000
      arena tournament run spring --workers 4 --metrics 127.0.0.1:9464
    """
    refuse_remote_metrics(context.server, metrics_at)
    if in_process and metrics_at is not None:
        raise click.UsageError("--metrics counts a run through the match server: run "
                               "without --in-process")
    context.metrics_at = metrics_at
    if in_process:
        refuse(context, "plays without --cluster, and --until-separated on one worker"
               if cluster or (until_separated and workers > 1) else None)
        return in_process_tournament(context, name, workers,
                                     (confidence, max_games) if until_separated else None)
    request = admin_pb2.RunTournamentRequest(tournament=name, concurrency=concurrency,
                                             remote_wait_seconds=wait, workers=workers,
                                             cluster=cluster)
    if until_separated:
        request.until_separated.CopyFrom(admin_pb2.SeparationGoal(
            confidence=confidence, max_games=max_games or 0))

    async def body(session: Session
                   ) -> tuple[admin_pb2.RunProgress, list[admin_pb2.GetRankingsResponse]]:
        async def to_go(games: int) -> int | None:
            boards = await pool_rankings(session, name, None, confidence)
            return separation_games_to_go(boards[0].separations, games) if boards else None

        last = await follow_progress(session.admin.RunTournament(request), name,
                                     sequential=until_separated,
                                     to_go=to_go if until_separated else None,
                                     limit=max_games if until_separated else None,
                                     resume=f"run `arena tournament run {name}` again to resume")
        return last, await pool_rankings(session, name, None, confidence)

    last, standings = context.run(body)
    if last.conclusion:
        click.echo(f"until separated: {last.conclusion}\n")
    emit_rankings(standings, "table")
    warn_at_end(last)


def warn_at_end(last: admin_pb2.RunProgress) -> None:
    """Say, at the end of a run, which bots stayed away past the wait, and which failed
    in its games (timed out, crashed, answered illegally, ...)."""
    if last.message:
        click.echo(f"warning: {last.message}", err=True)
    faults = run_faults_warning(last)
    if faults:
        click.echo(faults, err=True)


@tournament.command("standings")
@click.argument("name")
@output_format
@pass_context
def tournament_standings(context: Context, name: str, fmt: str) -> None:
    """The leaderboard of one tournament: scores with intervals, shared places, TrueSkill.

    \b
    Example:
      arena tournament standings spring --format json
    """
    emit_rankings(context.run(lambda session: pool_rankings(session, name, None),
                              read_only=True), fmt)
