"""Results by seat: does the seat a bot sits in change how it does?

For each table layout (number of seats and, for team games, the teams) the
games are summed per seat: the mean score of whoever sat there and how often
the seat won (rank 0, ties for first included). Then a chi-square test of "no
seat effect" on wins: Pearson's statistic of the wins per seat against an
equal share, on (seats − 1) degrees of freedom. In a team game the unit is the
team, since teammates win together.

Rotations matter: without them each bot may keep one seat and a strong bot
makes its seat look strong. And duplicate deals give every rotation the same
hands, so a deal that favours seat 2 makes seat 2 win several games at once;
the games are not independent, and Pearson's statistic is divided by the mean
design effect of the seats' win rates (the first-order Rao–Scott correction:
the block-clustered variance of each win rate over its binomial variance).
Without duplicate deals the correction is about 1.

With few deal blocks that design effect is itself uncertain, and the corrected
statistic read against χ² rejected a true "no seat effect" too often: in
2,000 simulated four-seat tournaments per size (`arena.stats.simulate`, no
seat effect), 9.7% of the time at 5% with 3 duplicate deals, 7.6% with 6, 6.6%
with 12 and 5.5% with 50. So when the games are clustered in blocks of more
than one game, the p-value reads X²/(k − 1) against Snedecor's F on k − 1 and
(k − 1)(G − 1) degrees of freedom (G blocks: the Rao–Scott F of survey
statistics), which measured 3.4%, 3.9%, 5.0% and 5.0% on the same runs.
Without duplicate deals the χ² stays (3.0–4.5% there).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

from arena.stats.distributions import chi_square_sf, f_sf
from arena.stats.estimate import block_totals, estimate_mean
from arena.stats.games import RankedGame

Layout = tuple[int, tuple[tuple[int, ...], ...] | None]


@dataclass(frozen=True, slots=True)
class SeatResult:
    """How the bots in one seat did: their mean score, and the seat's wins and win rate."""

    seat: int
    games: int
    score: float
    wins: int
    win_rate: float


@dataclass(frozen=True, slots=True)
class SeatTable:
    """The seats of one table layout with the chi-square test of "no seat effect" on wins.

    `teams` is None for every-seat-for-itself games. `design_effect` is the
    Rao–Scott divisor already applied to `chi_square`; `p_value` reads it against
    F when games share deal blocks, else χ² (see the module), and is 1 when there
    were no wins to compare.
    """

    table_size: int
    teams: tuple[tuple[int, ...], ...] | None
    games: int
    seats: tuple[SeatResult, ...]
    chi_square: float
    degrees_of_freedom: int
    design_effect: float
    p_value: float


def seat_tables(games: Iterable[RankedGame]) -> tuple[SeatTable, ...]:
    """One `SeatTable` per table layout found in `games`, smallest tables first."""
    layouts: dict[Layout, list[RankedGame]] = defaultdict(list)
    for game in games:
        layouts[len(game.seats), game.teams].append(game)
    return tuple(_seat_table(size, teams, layouts[size, teams])
                 for size, teams in sorted(layouts, key=lambda layout: (layout[0], str(layout[1]))))


def _seat_table(size: int, teams: tuple[tuple[int, ...], ...] | None,
                games: Sequence[RankedGame]) -> SeatTable:
    seats = tuple(_seat_result(seat, games) for seat in range(size))
    units = [team[0] for team in teams] if teams is not None else list(range(size))
    wins = [seats[unit].wins for unit in units]
    total = sum(wins)
    if total == 0:
        return SeatTable(size, teams, len(games), seats, 0.0, len(units) - 1, 1.0, 1.0)
    expected = total / len(units)
    pearson = sum((observed - expected) ** 2 / expected for observed in wins)
    effect = _design_effect(units, games)
    statistic = pearson / effect
    df = len(units) - 1
    blocks = len({game.block for game in games})
    clustered = blocks < len(games)
    p_value = (f_sf(statistic / df, df, df * (blocks - 1)) if clustered and blocks > 1
               else chi_square_sf(statistic, df))
    return SeatTable(size, teams, len(games), seats, statistic, df, effect, p_value)


def _seat_result(seat: int, games: Sequence[RankedGame]) -> SeatResult:
    scores = [score for game in games if (score := game.score(seat)) is not None]
    wins = sum(1 for game in games if game.ranks[seat] == 0)
    return SeatResult(seat, len(games), sum(scores) / len(scores) if scores else 0.5,
                      wins, wins / len(games))


def _design_effect(units: Sequence[int], games: Sequence[RankedGame]) -> float:
    effects = []
    for unit in units:
        won: list[tuple[Hashable, float]] = [
            (game.block, 1.0 if game.ranks[unit] == 0 else 0.0) for game in games]
        estimate = estimate_mean(block_totals(won), pseudo_blocks=False)
        rate = estimate.value
        if 0.0 < rate < 1.0 and estimate.df >= 1:
            effects.append(estimate.standard_error ** 2 / (rate * (1.0 - rate) / len(games)))
    return sum(effects) / len(effects) if effects and sum(effects) > 0 else 1.0
