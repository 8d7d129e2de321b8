"""A leaderboard that says what the games support.

Bots are sorted by mean score (see `arena.stats.games`), each with an interval
at the leaderboard's confidence (block-clustered, see `arena.stats.estimate`).
Then every *adjacent* pair in that order is tested: the difference of the two
bots' mean scores, paired over the deal blocks both played in, is *separated*
when its interval at confidence 1 − α/(m − 1) excludes 0, α = 1 − confidence
and m the number of bots (a Bonferroni correction over the m − 1 adjacent
pairs), and, when the two played the very same deal blocks (heads up, or all
at one table) and at most 40 of them, when an exact randomization test agrees
at the same level: under "no difference" between two bots each block's
difference is as likely positive as negative, and the p-value counts the 2^n
sign flips whose sum is as far from 0 as the one observed. So a small sample
never separates two bots more easily than an exact test would: heads up with
duplicate deals it takes six deals won of six (p = 2/64) between two bots,
where the interval alone would separate them after four (the exact p there is
0.125); beyond 40 blocks the interval alone decides. With four bots (three
pairs, each at α/3) no pair separates before seven deal blocks: 2/2^6 > 0.05/3.

Bonferroni rather than Holm: Holm's step-down tests the last adjacent pair at
the full α once the others are separated, so two equal bots in an
otherwise clear field would be split one time in twenty; Bonferroni keeps every
pair's chance of a false split at α/(m − 1) and the whole board's at α.

With `stratify` (a schedule that fixes the mix of opponents, such as a
round robin) every interval and test is stratified by pairing: the spread
between a bot's results against different opponents is left out of its
uncertainty, since the schedule, not chance, chose them (`arena.stats.estimate`).

Bots joined by unseparated adjacent pairs form a *tier* and share a place:
tier 2 may be places "2–3". A bot that played no scored game (all its games
were against teammates only) is left out.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena.stats.distributions import sign_flip_p
from arena.stats.estimate import (
    BlockTotals,
    Strata,
    block_totals,
    estimate_difference,
    estimate_mean,
)
from arena.stats.games import RankedGame

CONFIDENCE = 0.95
"""The default confidence of intervals and separations."""
SCORE_INTERVAL_METHOD = ("block-clustered Student-t over deal blocks, two pseudo-blocks, "
                         "uncorrected")
"""How a standing's interval is made (`arena.stats.estimate`), as a reader is told."""
SEPARATION_METHOD = ("difference paired by deal block, block-clustered Student-t (and an exact "
                     "sign-flip test when both played the same 40 blocks or fewer), Bonferroni "
                     "over the adjacent pairs")
"""How an adjacent pair's interval and test are made, as a reader is told."""
STRATIFIED = ", stratified by pairing"
"""Added to a method when the schedule fixed the pairings and the estimate is stratified."""


@dataclass(frozen=True, slots=True)
class Standing:
    """One bot's line on a leaderboard.

    `score` is the bot's mean score (0.5 is average) over `games` games, with the
    interval [`ci_low`, `ci_high`]. `place_low`..`place_high` (1-based) are the
    places its tier spans, `place` the same as text ("3" or "2–3"), and `tier`
    numbers the groups of bots the games cannot tell apart, 1 for the best.
    """

    bot: str
    games: int
    score: float
    ci_low: float
    ci_high: float
    place: str
    place_low: int
    place_high: int
    tier: int


@dataclass(frozen=True, slots=True)
class Separation:
    """The test between two bots adjacent on the leaderboard (`upper` above `lower`).

    `difference` is upper's mean score minus lower's, with its interval at the
    corrected confidence `level`; `p_value` is the uncorrected two-sided p-value of
    "no difference" (the larger of the interval's and, up to 40 blocks, the exact
    sign-flip test's); `separated` when the corrected interval excludes 0 and the
    exact test agrees. `method` says how, in words.
    """

    upper: str
    lower: str
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    separated: bool
    level: float = CONFIDENCE
    method: str = SEPARATION_METHOD


@dataclass(frozen=True, slots=True)
class Leaderboard:
    """Standings best first, the adjacent-pair separations between them, the confidence, and
    how the standings' intervals were made."""

    standings: tuple[Standing, ...]
    separations: tuple[Separation, ...]
    confidence: float
    interval_method: str = SCORE_INTERVAL_METHOD

    def standing(self, bot: str) -> Standing:
        """The standing of `bot` (KeyError when it is not on the board)."""
        for standing in self.standings:
            if standing.bot == bot:
                return standing
        raise KeyError(bot)


def bot_block_totals(games: Iterable[RankedGame]) -> dict[str, dict[Hashable, tuple[float, float]]]:
    """Every bot's scores summed per deal block."""
    values: dict[str, list[tuple[Hashable, float]]] = defaultdict(list)
    for game in games:
        for _, bot, score in game.scores():
            values[bot].append((game.block, score))
    return {bot: block_totals(pairs) for bot, pairs in values.items()}


def pairings(games: Iterable[RankedGame]) -> dict[Hashable, Hashable]:
    """Each deal block's pairing: the bots at its table, sorted."""
    return {game.block: tuple(sorted(game.seats)) for game in games}


def leaderboard(games: Iterable[RankedGame], confidence: float = CONFIDENCE,
                stratify: bool = False) -> Leaderboard:
    """The leaderboard of `games`, with intervals and tiers at `confidence`; stratified by
    pairing when `stratify` (see the module docstring)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    games = list(games)
    totals = bot_block_totals(games)
    strata = pairings(games) if stratify else None
    if strata is not None and len(set(strata.values())) < 2:
        strata = None  # one pairing: nothing to stratify
    stratify = strata is not None
    estimates = {bot: estimate_mean(bot_totals, strata=strata)
                 for bot, bot_totals in totals.items()}
    order = sorted(totals, key=lambda bot: (-estimates[bot].value, bot))
    separations = _separations(order, totals, confidence, strata)
    tiers = _tiers(len(order), [s.separated for s in separations])
    standings = []
    for index, bot in enumerate(order):
        low, high = estimates[bot].interval(confidence, 0.0, 1.0)
        tier, place_low, place_high = tiers[index]
        standings.append(Standing(
            bot=bot, games=round(sum(n for _, n in totals[bot].values())),
            score=estimates[bot].value, ci_low=low, ci_high=high,
            place=place_text(place_low, place_high), place_low=place_low,
            place_high=place_high, tier=tier))
    method = SCORE_INTERVAL_METHOD + (STRATIFIED if stratify else "")
    return Leaderboard(tuple(standings), separations, confidence, method)


def separation(upper: str, lower: str, totals: Mapping[str, BlockTotals],
               confidence: float, strata: Strata | None = None) -> Separation:
    """Whether `upper` and `lower` differ at `confidence` (already corrected by the caller),
    stratified by `strata` when given."""
    estimate = estimate_difference(totals[upper], totals[lower], strata)
    low, high = estimate.interval(confidence, -1.0, 1.0)
    exact = block_sign_flip_p(totals[upper], totals[lower])
    return Separation(upper, lower, estimate.value, low, high,
                      max(estimate.p_value(), exact or 0.0),
                      separated=(low > 0.0 or high < 0.0)
                      and (exact is None or exact < 1.0 - confidence),
                      level=confidence,
                      method=SEPARATION_METHOD + (STRATIFIED if strata is not None else ""))


def block_sign_flip_p(first: BlockTotals, second: BlockTotals) -> float | None:
    """The exact sign-flip p-value of `first`'s mean minus `second`'s block by block, when
    the two played the very same blocks; None when they did not (each also met others
    alone) or beyond `EXACT_BLOCKS` blocks."""
    if first.keys() != second.keys():
        return None
    return sign_flip_p([first[b][0] / first[b][1] - second[b][0] / second[b][1]
                        for b in first])


def _separations(order: Sequence[str], totals: Mapping[str, BlockTotals],
                 confidence: float, strata: Strata | None) -> tuple[Separation, ...]:
    pairs = len(order) - 1
    corrected = 1.0 - (1.0 - confidence) / pairs if pairs else confidence
    return tuple(separation(upper, lower, totals, corrected, strata)
                 for upper, lower in zip(order, order[1:], strict=False))


def _tiers(count: int, separated: Sequence[bool]) -> list[tuple[int, int, int]]:
    """(tier, place_low, place_high) for each position, from the adjacent separations."""
    groups: list[list[int]] = []
    for index in range(count):
        if index == 0 or separated[index - 1]:
            groups.append([])
        groups[-1].append(index)
    return [(tier, group[0] + 1, group[-1] + 1)
            for tier, group in enumerate(groups, start=1) for _ in group]


def place_text(place_low: int, place_high: int) -> str:
    """"3" for one place, "2–3" (en dash) for a shared range."""
    return str(place_low) if place_low == place_high else f"{place_low}–{place_high}"
