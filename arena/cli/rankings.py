"""`arena rankings`, `arena crosstable` and `arena stats`: what a pool's games support."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from arena.cli.app import main
from arena.cli.context import Context, pass_context
from arena.cli.output import emit, emit_rankings, output_format, pool_heading
from arena.cli.rankings_fetch import list_pools as fetch_pools
from arena.cli.rankings_fetch import pool_rankings, require_ladder
from arena.v1 import admin_pb2

T = TypeVar("T")

if TYPE_CHECKING:
    from arena.cli.session import Session

CONFIDENCE = click.FloatRange(0.5, 1, max_open=True)
"""A confidence level: at least 0.5, below 1."""


def pool_options(function: Any) -> Any:
    """`--tournament`, `--pool` and `--confidence`: which pool, and how sure."""
    for option in reversed((
        click.option("--tournament", default=None,
                     help="The pool of this tournament's games."),
        click.option("--ladder", default=None, metavar="NAME", is_flag=False,
                     flag_value="ladder",
                     help="The pool of a ladder's games: its field's leaderboard "
                          "(NAME defaults to the ladder 'ladder')."),
        click.option("--pool", default=None, metavar="KEY",
                     help="A pool by key (`arena rankings --pools` lists them)."),
        click.option("--confidence", type=CONFIDENCE, default=0.95, show_default=True,
                     help="Confidence of the intervals and of the shared places."),
    )):
        function = option(function)
    return function


@main.command()
@pool_options
@click.option("--pools", "list_pools", is_flag=True, help="List the rating pools instead.")
@click.option("--all-versions", is_flag=True,
              help="Show every version of a submitted bot, not only its latest.")
@click.option("--fit", is_flag=True,
              help="Fit TrueSkill's beta and draw probability to the pool's games and compare "
                   "them with the pool's own and TrueSkill's defaults on held-out games.")
@click.option("--apply", is_flag=True,
              help="With --fit: give the pool the fitted beta and draw probability and rate "
                   "its games again under them (its leaderboard changes; other pools do not).")
@click.option("--watch", is_flag=True,
              help="Read the leaderboard again every --interval while a run goes on, redrawn "
                   "in place on a terminal; with --tournament it ends when the tournament "
                   "is finished, otherwise (and with --ladder) at Ctrl-C.")
@click.option("--interval", type=click.FloatRange(min=0.1), default=2.0, show_default=True,
              metavar="SECONDS", help="With --watch: seconds between two readings.")
@click.option("--tiebreak", is_flag=True,
              help="Also rank the bots of each shared place by a fixed rule, for prizes: the "
                   "mean score among the bots sharing it, then over all games, then μ − 3σ, "
                   "then the name. A rule, not evidence: the shared place stays.")
@click.option("--history", is_flag=True,
              help="Each bot's TrueSkill μ and σ after each of its games in one pool instead "
                   "(the leaderboard's first eight, or the bots given with --bot), as the web "
                   "front's chart draws them; `game` numbers the pool's games in the order "
                   "they were rated, 0 being the pool's initial rating.")
@click.option("--bot", "bots", multiple=True, metavar="NAME",
              help="With --history: a bot to show (repeatable).")
@output_format
@pass_context
def rankings(context: Context, tournament: str | None, ladder: str | None, pool: str | None,
             confidence: float, list_pools: bool, all_versions: bool, fit: bool, apply: bool,
             watch: bool, interval: float, tiebreak: bool, history: bool, bots: tuple[str, ...],
             fmt: str) -> None:
    """Leaderboards: each bot's score with its interval, shared places, and TrueSkill.

    Ratings live in pools: a tournament's own, and one per rule set and table
    size for every game played that way. Without --tournament or --pool, every
    rule-set pool is shown. A bot's score is the share of its opponents it
    placed above (ties count half, 0.5 is average); bots whose difference the
    games cannot establish at the confidence level share a place ("2–3").
    A submitted bot shows as its latest version that played in a rule-set
    pool (--all-versions: every version); a tournament's standings show its
    entrants as entered.

    \b
    Example:
      arena rankings
      arena rankings --tournament spring --format json
      arena rankings --pools
      arena rankings --tournament spring --watch
      arena rankings --ladder --watch
      arena rankings --all-versions
      arena rankings --tournament spring --fit --apply
      arena rankings --tournament spring --history --bot greedy --format csv
    """
    tournament = tournament_or_ladder(tournament, ladder)
    if bots and not history:
        raise click.UsageError("--bot names the bots --history shows: give --history too")
    if history and (watch or list_pools or fit or tiebreak):
        raise click.UsageError("--history lists ratings over the games: it goes with neither "
                               "--watch, --pools, --fit nor --tiebreak")
    if apply and not fit:
        raise click.UsageError("--apply sets the parameters --fit finds: give --fit too")
    if tiebreak and (watch or list_pools or fit):
        raise click.UsageError("--tiebreak orders a leaderboard: it goes with neither --watch, "
                               "--pools nor --fit")
    if watch:
        if list_pools or fit or fmt != "table":
            raise click.UsageError("--watch redraws the leaderboard table: it goes with "
                                   "neither --pools, --fit nor --format json|csv")
        from arena.cli.rankings_watch import watch_rankings

        watch_rankings(context, tournament, pool, confidence, interval,
                       ladder=ladder is not None)
    elif history:
        emit_history(context.run(ladder_checked(ladder, lambda s: s.admin.GetRatingHistory(
            admin_pb2.GetRatingHistoryRequest(tournament=tournament or "", pool=pool or "",
                                              bots=list(bots)))), read_only=True), fmt)
    elif list_pools:
        emit([_pool_record(p) for p in context.run(fetch_pools, read_only=True)], fmt,
             "no rated games yet", floatfmt=".4g")
    elif fit:
        emit_fit(context.run(ladder_checked(ladder, lambda s: _fit(s, tournament, pool, apply)),
                             read_only=not apply), fmt)
    elif tiebreak:
        responses, prizes = context.run(ladder_checked(ladder, lambda s: _with_prizes(
            s, tournament, pool, confidence, all_versions)), read_only=True)
        emit_rankings(responses, fmt, prizes)
    else:
        emit_rankings(context.run(ladder_checked(ladder, lambda s: pool_rankings(
            s, tournament, pool, confidence, all_versions=all_versions)), read_only=True), fmt)


async def _with_prizes(session: Session, tournament: str | None, pool: str | None,
                       confidence: float, all_versions: bool
                       ) -> tuple[list[admin_pb2.GetRankingsResponse], dict[str, list[str]]]:
    """The leaderboards, and each pool's bots in the tie-break rule's order (its
    head-to-head results read from the pool's crosstable)."""
    from arena.stats.tiebreak import Contender, prize_order

    responses = await pool_rankings(session, tournament, pool, confidence,
                                    all_versions=all_versions)
    prizes: dict[str, list[str]] = {}
    for response in responses:
        if not response.rows:
            continue
        table = await session.admin.GetCrosstable(admin_pb2.GetCrosstableRequest(
            pool=response.pool.key, confidence=confidence))
        head_to_head = {(r.bot, r.opponent): (r.score * r.games, r.games) for r in table.rows}
        prizes[response.pool.key] = prize_order(
            [Contender(r.bot, r.tier, r.score, r.conservative) for r in response.rows],
            head_to_head)
    return responses, prizes


def tournament_or_ladder(tournament: str | None, ladder: str | None) -> str | None:
    """The tournament whose pool `--tournament` or `--ladder` names (a ladder is stored
    as a tournament); a `UsageError` for both."""
    if ladder is None:
        return tournament
    if tournament is not None:
        raise click.UsageError("--ladder and --tournament name one pool each: give one")
    return ladder


def ladder_checked(ladder: str | None, body: Callable[[Session], Awaitable[T]]
                   ) -> Callable[[Session], Awaitable[T]]:
    """`body`, first checking in the same session that `ladder` (if given) is a ladder."""
    async def checked(session: Session) -> T:
        if ladder is not None:
            await require_ladder(session, ladder)
        return await body(session)
    return checked


def emit_history(response: admin_pb2.GetRatingHistoryResponse, fmt: str) -> None:
    """Print each bot's rating after each of its games in a pool, one row a point (under
    the pool's heading in a table)."""
    rows = [{"pool": response.pool.key, "bot": line.bot, "game": point.game, "mu": point.mu,
             "sigma": point.sigma, "conservative": point.mu - 3 * point.sigma}
            for line in response.bots for point in line.points]
    if fmt == "table":
        click.echo(pool_heading(response.pool))
        rows = [{key: value for key, value in row.items() if key != "pool"} for row in rows]
    emit(rows, fmt, "no bot to show", columns=HISTORY_COLUMNS)


HISTORY_COLUMNS = ("pool", "bot", "game", "mu", "sigma", "conservative")
"""The columns of `arena rankings --history` in JSON and CSV."""


def _pool_record(pool: admin_pb2.PoolInfo) -> dict[str, Any]:
    return {"pool": pool.key, "description": pool.description, "games": pool.games,
            "tournament": pool.tournament or None, "beta": pool.beta, "tau": pool.tau,
            "draw_probability": pool.draw_probability}


async def _fit(session: Session, tournament: str | None, pool: str | None,
               apply: bool = False) -> admin_pb2.FitRatingsResponse:
    return await session.admin.FitRatings(admin_pb2.FitRatingsRequest(
        tournament=tournament or "", pool=pool or "", apply=apply))


def emit_fit(response: admin_pb2.FitRatingsResponse, fmt: str) -> None:
    """Print a fit of TrueSkill's parameters beside the pool's own, the defaults and a coin
    flip, with β's standard error, any bound it hit and what to be wary of."""
    rows: list[dict[str, Any]] = [
        {"parameters": "fitted", "beta": response.beta,
         "draw_probability": response.draw_probability, "tau": response.tau,
         "log_likelihood": response.fitted_log_likelihood},
        {"parameters": "pool", "beta": response.pool.beta,
         "draw_probability": response.pool.draw_probability, "tau": response.pool.tau,
         "log_likelihood": response.pool_log_likelihood},
        {"parameters": "trueskill defaults", "beta": 25 / 6, "draw_probability": 0.10,
         "tau": 25 / 300, "log_likelihood": response.default_log_likelihood},
        {"parameters": "coin flip", "beta": None, "draw_probability": 0.0, "tau": None,
         "log_likelihood": response.coin_flip_log_likelihood},
    ]
    se = response.beta_standard_error
    if fmt != "table":
        emit([{"pool": response.pool.key, **row, "training_games": response.training_games,
               "held_out_games": response.held_out_games,
               "beta_standard_error": se if row["parameters"] == "fitted" else None,
               "at_bound": list(response.at_bound) if row["parameters"] == "fitted" else [],
               "warning": response.warning or None, "applied": response.applied}
              for row in rows], fmt)
        return
    from tabulate import tabulate

    click.echo(pool_heading(response.pool))
    click.echo(tabulate(rows, headers="keys", floatfmt=".4f", missingval="-"))
    click.echo(f"log likelihood: mean per held-out game ({response.held_out_games} held out, "
               f"fitted on {response.training_games}); higher is better; a coin flip gives "
               "every pair even chances.")
    click.echo("fitted β: " + (f"standard error {se:.3f} (from the likelihood's curvature)"
                               if math.isfinite(se) else "no standard error")
               + (f"; at the bound of its search: {', '.join(response.at_bound)}"
                  if response.at_bound else ""))
    if response.warning:
        click.echo(f"warning: {response.warning}")
    if response.applied:
        click.echo(f"applied: pool {response.pool.key} now rates with β {response.pool.beta:.4f} "
                   f"and draw probability {response.pool.draw_probability:.4f}; its games "
                   "were rated again under them")


@main.command()
@pool_options
@output_format
@pass_context
def crosstable(context: Context, tournament: str | None, ladder: str | None, pool: str | None,
               confidence: float, fmt: str) -> None:
    """Head to head: for every pair of bots that met, who placed higher, how often.

    Each row is BOT against OPPONENT over the games both played: wins, losses
    and draws, the score (wins plus half the draws, per game) with its
    interval, the difference of their table scores in those games with its
    interval, and the likelihood of superiority (LOS).

    \b
    Example:
      arena crosstable --tournament spring
    """
    tournament = tournament_or_ladder(tournament, ladder)

    async def body(session: Session) -> admin_pb2.GetCrosstableResponse:
        return await session.admin.GetCrosstable(admin_pb2.GetCrosstableRequest(
            tournament=tournament or "", pool=pool or "", confidence=confidence))

    response = context.run(ladder_checked(ladder, body), read_only=True)
    records = [{"pool": response.pool.key, "bot": r.bot, "opponent": r.opponent,
                "games": r.games, "wins": r.wins, "losses": r.losses, "draws": r.draws,
                "score": r.score, "score_low": r.score_low, "score_high": r.score_high,
                "difference": r.difference, "difference_low": r.difference_low,
                "difference_high": r.difference_high, "los": r.los,
                "level": response.confidence, "method": response.interval_method or None}
               for r in response.rows]
    if fmt != "table":
        emit(records, fmt, "no games yet")
        return
    click.echo(pool_heading(response.pool))
    click.echo(f"intervals: {response.confidence:.0%}, "
               f"{response.interval_method or 'block-clustered Student-t'}")
    emit([{"bot": r["bot"], "opponent": r["opponent"], "games": r["games"],
           "W-L-D": f"{r['wins']}-{r['losses']}-{r['draws']}",
           "score": f"{r['score']:.3f} [{r['score_low']:.3f}, {r['score_high']:.3f}]",
           "difference": f"{r['difference']:+.3f} "
                         f"[{r['difference_low']:+.3f}, {r['difference_high']:+.3f}]",
           "LOS": f"{r['los']:.1%}"} for r in records], "table", "no games yet")
    if records:
        click.echo(CROSSTABLE_LEGEND)


CROSSTABLE_LEGEND = (
    "score: the bot's result against the opponent, per game (1 placed above, 0.5 tied, 0 "
    "below); difference: the bot's\nmean score against its whole table minus the "
    "opponent's, over the games both played, deal by deal; LOS:\nthe likelihood that the "
    "bot is the stronger, from its wins and losses against the opponent by deal block")
"""What the crosstable's columns mean, printed under it."""


@main.command()
@click.option("--tournament", default=None, help="The pool of this tournament's games.")
@click.option("--pool", default=None, metavar="KEY", help="A pool by key.")
@output_format
@pass_context
def stats(context: Context, tournament: str | None, pool: str | None, fmt: str) -> None:
    """Per-seat results, and what duplicate deals bought.

    For each table size: every seat's mean score and win rate, and a χ² test of
    "no seat effect" on wins. With duplicate deals: the correlation of a bot's
    results across the seat rotations of a deal, and the share of games the
    design saves against independent deals for the same precision.

    \b
    Example:
      arena stats --tournament spring
    """
    async def body(session: Session) -> admin_pb2.GetStatsResponse:
        return await session.admin.GetStats(admin_pb2.GetStatsRequest(
            tournament=tournament or "", pool=pool or ""))

    response = context.run(body, read_only=True)
    seats = [{"pool": response.pool.key, "table_size": t.table_size, "partners": t.partners,
              "seat": s.seat, "games": s.games, "score": s.score, "wins": s.wins,
              "win_rate": s.win_rate, "chi_square": t.chi_square, "p_value": t.p_value,
              "chi_square_design_effect": t.design_effect or None}
             for t in response.seat_tables for s in t.seats]
    duplicate = response.duplicate if response.HasField("duplicate") else None
    if fmt != "table":
        emit([{**row, **_duplicate_record(duplicate)} for row in seats], fmt, "no games yet")
        return
    click.echo(pool_heading(response.pool))
    for table in response.seat_tables:
        kind = "partners" if table.partners else "seats"
        click.echo(f"\n{table.table_size} {kind}, {table.games} games: χ² = "
                   f"{table.chi_square:.2f} on {table.degrees_of_freedom} df, "
                   f"p = {_p(table.p_value)} (no seat effect on wins; Pearson's statistic "
                   f"divided by the seats' design effect {table.design_effect:.3f}, "
                   "Rao–Scott)")
        emit([{"seat": s.seat, "games": s.games, "score": f"{s.score:.3f}", "wins": s.wins,
               "win rate": f"{s.win_rate:.3f}"} for s in table.seats], "table")
    click.echo()
    if duplicate is None:
        click.echo("no duplicate deals: every game has a deal of its own")
    else:
        click.echo(f"duplicate deals: {duplicate.blocks} times a bot played one deal in "
                   f"{duplicate.block_size} rotations; correlation between rotations "
                   f"{duplicate.intraclass_correlation:+.3f}, design effect on a score "
                   f"{duplicate.design_effect:.3f}: {_saved(duplicate.games_saved)}")


def _duplicate_record(duplicate: admin_pb2.DuplicateStats | None) -> dict[str, Any]:
    if duplicate is None:
        return {"duplicate_groups": None, "rotations": None, "intraclass_correlation": None,
                "design_effect": None, "games_saved": None}
    return {"duplicate_groups": duplicate.blocks, "rotations": duplicate.block_size,
            "intraclass_correlation": duplicate.intraclass_correlation,
            "design_effect": duplicate.design_effect, "games_saved": duplicate.games_saved}


def _saved(share: float) -> str:
    percent = round(100 * share)
    if percent < 0:
        return f"duplicate deals cost {-percent}% more games here than independent deals would"
    return f"{percent}% of the games saved against independent deals"


def _p(value: float) -> str:
    return "–" if math.isnan(value) else f"{value:.3f}"
