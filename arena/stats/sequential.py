"""Play until separated: whether the games so far order a whole field, however often one looks.

The evidence comes in *deal blocks* (every seat rotation of one deal with
duplicate deals, else one game), and each bot at a block's table has a *block
score*: its mean, over the block's games, of its score against each opponent
at the table (1 placed higher, 0.5 tie, 0 lower; see `block_scores`). The
leaderboard sorts bots by mean block score. Two bots next to each other on it
are *separated* when a confidence sequence for the mean of their paired
differences, `d = score(upper) − score(lower)` over the blocks both played,
lies above zero.

Why paired differences: at one table the bots' scores are strongly dependent
(what one bot wins another loses, and they share the deal), so two separate
intervals would misjudge the variance of a difference. Within a block the pair
faces the same cards and opponents, so the difference also cancels most of the
luck of the deal. Blocks are independent of each other, the difference lies in
[−1, 1], and its expected value may change from table to table; the sequence
then covers the mean of those expected values over the blocks seen.

Why a confidence sequence: the runner appends blocks and looks after every
batch, and stops at the first look that separates everything. A fixed-sample
interval checked at every look would be crossed by chance sooner or later (with
95 % intervals, about one run in three crosses within a hundred looks, even
between identical bots). A confidence sequence holds at every sample size at
once, so any schedule of looks, batch sizes chosen on the way, or stopping
early keeps its error rate (Armitage, McPherson and Rowe, 1969, tabulate how
repeated fixed-sample tests inflate it). This one is Robbins' normal mixture:
with `S` the sum of the centred differences and `V = n σ²`, the martingale
`sqrt(ρ/(V + ρ)) exp(S² / (2 (V + ρ)))` reaches `1/α` with chance at most α
(Ville's inequality), which gives the radius

    r(n) = σ sqrt(2 (n + ρ) log(sqrt((n + ρ)/ρ) / α)) / n      (ρ in blocks).

`σ²` is the observed variance of the differences, regularized with one
pseudo-block of the largest variance a difference in [−1, 1] can have
(`(Σ (d − d̄)² + 1) / (n + 1)`); that plug-in makes the sequence
asymptotically anytime-valid (exact for normal differences, as the
time-uniform central limit theorem of Waudby-Smith et al. shows) and keeps the
first blocks conservative. `ρ` sets where the boundary is tightest; following
Howard et al. (2021), `ρ = m / (2 log(1/α) + log(2 log(1/α) + 1))` makes it
tightest near `m = plan_blocks` blocks (the asymptotic form of the exact,
Lambert-W optimum), and the boundary is flat: with a plan four times too small or
too large it is wider by 3 % and 8 % there. A runner with a game budget does well
to plan for half of it.

Alpha spending across planned looks was the alternative. It needs the number
of looks, or the largest sample, fixed in advance and it binds the runner to
that plan; a run until separated may have no `--max-games` and takes batches
as tables finish. The mixture pays for that freedom with a boundary wider by a
factor of about `sqrt(log n)`. `python -m tests.stats.test_sequential` measures
what it costs against the fixed-size test of the same α and power: for two bots
the average blocks to stop are 1.05–1.2x the fixed size when the game budget
gives a power of 0.71–0.76, 0.8–1.0x at power 0.85–0.89 and 0.5–0.65x at power
0.97 and above. For a field of four, where all three pairs must separate (and
the fixed size, counting the pairs' tests as independent, is a little too
small), it is 1.3–1.8x at power 0.58–0.88, 0.96x at 0.95 and 0.64–0.75x at
power 1. A fixed-size test of high power must be large, while the sequence
stops soon after the evidence suffices.

The confidence level is shared between the `K − 1` adjacent pairs of `K` bots
(Bonferroni: each pair at `α / (K − 1)`), so the chance of separating any pair
wrongly stays near α. The pairs are chosen by the data (adjacent on the
leaderboard seen), so this is not a guarantee over every possible pairing; but
adjacent bots are the closest ones, and the simulations of identical fields
find false separations far rarer than α.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena.stats.distributions import EXACT_BLOCKS, sign_flip_p

DEFAULT_CONFIDENCE = 0.95
"""The chance that every separation claimed is right."""
DEFAULT_PLAN_BLOCKS = 1000
"""Where the boundary is tightest when no other plan is given: a realistic UNO edge
(51–52 %) needs thousands of blocks, a large one a few dozen."""
MAX_DIFFERENCE_VARIANCE = 1.0
"""The largest variance a difference of two scores in [0, 1] can have."""


class SeparationError(ValueError):
    """Bad settings or block scores; the message says which."""


@dataclass(frozen=True, slots=True)
class PairSeparation:
    """Two bots next to each other on the leaderboard and what the blocks both played say.

    `upper` is ranked above `lower`; `mean_difference` is upper's mean block
    score minus lower's over the `blocks` both played, and the confidence
    sequence for it runs from `low` to `high`. `separated` when `low > 0` and,
    up to `EXACT_BLOCKS` blocks, the exact sign-flip test of the differences
    (`exact_p`) is below the pair's `alpha` too, as the leaderboard requires: an
    extra condition only makes the sequence's claims rarer, so they stay valid.
    """

    upper: str
    lower: str
    blocks: int
    mean_difference: float
    low: float
    high: float
    exact_p: float | None = None
    alpha: float = 1.0

    @property
    def separated(self) -> bool:
        """True when the blocks show the upper bot better at the report's confidence."""
        return self.low > 0.0 and (self.exact_p is None or self.exact_p < self.alpha)


@dataclass(frozen=True, slots=True)
class SeparationReport:
    """The leaderboard (best first, by mean block score) and every adjacent pair on it."""

    order: tuple[str, ...]
    mean_scores: Mapping[str, float]
    pairs: tuple[PairSeparation, ...]
    confidence: float
    blocks: int

    @property
    def separated(self) -> bool:
        """True when every adjacent pair is separated: the games order the whole field."""
        return all(pair.separated for pair in self.pairs)

    @property
    def unseparated(self) -> tuple[PairSeparation, ...]:
        """The adjacent pairs the games cannot yet tell apart."""
        return tuple(pair for pair in self.pairs if not pair.separated)


@dataclass(slots=True)
class _Running:
    """Count, mean and summed squared deviations of a stream (Welford)."""

    count: int = 0
    mean: float = 0.0
    squares: float = 0.0

    def add(self, value: float) -> None:
        self.count += 1
        delta = value - self.mean
        self.mean += delta / self.count
        self.squares += delta * (value - self.mean)


class SeparationMonitor:
    """Block scores accumulated for a field of bots; `report()` says what they separate.

    Feed it every deal block with `add_block` (a mapping from each bot at the
    table to its block score); it keeps running sums, so a look costs the same
    however many blocks came before.
    """

    def __init__(self, bots: Iterable[str] = (), confidence: float = DEFAULT_CONFIDENCE,
                 plan_blocks: int = DEFAULT_PLAN_BLOCKS) -> None:
        if not 0.0 < confidence < 1.0:
            raise SeparationError(f"confidence must lie strictly between 0 and 1, got {confidence}")
        if plan_blocks < 1:
            raise SeparationError(f"plan_blocks must be at least 1, got {plan_blocks}")
        self.confidence = confidence
        self.plan_blocks = plan_blocks
        self.blocks = 0
        self._scores: dict[str, _Running] = {bot: _Running() for bot in bots}
        self._differences: dict[tuple[str, str], _Running] = {}
        self._first_differences: dict[tuple[str, str], list[float]] = {}

    def add_block(self, scores: Mapping[str, float]) -> None:
        """Count one deal block: every bot at its table and its block score in [0, 1]."""
        for bot, score in scores.items():
            if not 0.0 <= score <= 1.0:
                raise SeparationError(f"{bot}: a block score lies between 0 and 1, got {score}")
        self.blocks += 1
        for bot, score in scores.items():
            self._scores.setdefault(bot, _Running()).add(score)
        for first, second in itertools.combinations(sorted(scores), 2):
            difference = scores[first] - scores[second]
            self._differences.setdefault((first, second), _Running()).add(difference)
            kept = self._first_differences.setdefault((first, second), [])
            if len(kept) <= EXACT_BLOCKS:
                kept.append(difference)

    def report(self) -> SeparationReport:
        """The leaderboard now, and for every adjacent pair whether it is separated."""
        means = {bot: running.mean for bot, running in self._scores.items()}
        order = tuple(sorted(means, key=lambda bot: (-means[bot], bot)))
        alpha = (1.0 - self.confidence) / max(len(order) - 1, 1)
        pairs = tuple(self._pair(upper, lower, alpha) for upper, lower in itertools.pairwise(order))
        return SeparationReport(order=order, mean_scores=means, pairs=pairs,
                                confidence=self.confidence, blocks=self.blocks)

    def _pair(self, upper: str, lower: str, alpha: float) -> PairSeparation:
        key, sign = ((upper, lower), 1.0) if upper < lower else ((lower, upper), -1.0)
        running = self._differences.get(key, _Running())
        if running.count == 0:
            return PairSeparation(upper, lower, 0, 0.0, -1.0, 1.0)
        variance = (running.squares + MAX_DIFFERENCE_VARIANCE) / (running.count + 1)
        radius = mixture_radius(running.count, variance, alpha, self.plan_blocks)
        mean = sign * running.mean
        both = self._scores[upper].count == self._scores[lower].count == running.count
        exact = (sign_flip_p(self._first_differences.get(key, []))
                 if both and running.count <= EXACT_BLOCKS else None)
        return PairSeparation(upper, lower, running.count, mean,
                              max(mean - radius, -1.0), min(mean + radius, 1.0), exact, alpha)


def separation(blocks: Iterable[Mapping[str, float]], confidence: float = DEFAULT_CONFIDENCE,
               plan_blocks: int = DEFAULT_PLAN_BLOCKS) -> SeparationReport:
    """What the given deal blocks (each bot at the table → its block score) separate."""
    monitor = SeparationMonitor(confidence=confidence, plan_blocks=plan_blocks)
    for block in blocks:
        monitor.add_block(block)
    return monitor.report()


def mixing_blocks(plan_blocks: float, alpha: float) -> float:
    """ρ, in blocks, making the normal-mixture boundary at level α tightest near `plan_blocks`."""
    log_term = 2.0 * math.log(1.0 / alpha)
    return plan_blocks / (log_term + math.log(log_term + 1.0))


def mixture_radius(blocks: int, variance: float, alpha: float, plan_blocks: float) -> float:
    """The half-width, after `blocks` blocks, of the two-sided normal-mixture confidence sequence
    at level α for a mean of values with this variance (see the module docstring)."""
    rho = mixing_blocks(plan_blocks, alpha)
    spread = blocks + rho
    return math.sqrt(variance * 2.0 * spread * math.log(math.sqrt(spread / rho) / alpha)) / blocks


def game_scores(ranks: Mapping[str, int]) -> dict[str, float]:
    """Each bot's score in one game from its place (0 best, ties share): the mean, over the other
    bots at the table, of 1 when placed higher, 0.5 when tied and 0 when lower.

    Every seat counts as playing alone; for partner games pass one entry per team.
    """
    if len(ranks) < 2:
        raise SeparationError(f"a game needs at least two places, got {len(ranks)}")
    opponents = len(ranks) - 1
    return {
        bot: sum(1.0 if rank < other else 0.5 if rank == other else 0.0
                 for name, other in ranks.items() if name != bot) / opponents
        for bot, rank in ranks.items()
    }


def block_scores(games: Sequence[Mapping[str, int]]) -> dict[str, float]:
    """Each bot's block score: its mean game score over one deal block's games, given as places.

    Every game of a block seats the same bots (in rotated seats).
    """
    if not games:
        raise SeparationError("a deal block has at least one game")
    bots = set(games[0])
    totals = dict.fromkeys(bots, 0.0)
    for game in games:
        if set(game) != bots:
            raise SeparationError("every game of a deal block seats the same bots")
        for bot, score in game_scores(game).items():
            totals[bot] += score
    return {bot: total / len(games) for bot, total in totals.items()}
