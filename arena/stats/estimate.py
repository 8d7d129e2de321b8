"""Means of per-game values with intervals that treat the deal block as the unit.

A bot's mean score is a ratio: the sum of its scores over the number of its
games. Games of one deal block are not independent (with duplicate deals they
are the rotations of one deal), so the variance is computed from block totals:
the cluster-robust ("sandwich") variance of the ratio,

    V = G'/(G'-1) · Σ_b ((y_b − m·n_b) / N)²

over the G' blocks (the G real ones and the two pseudo-blocks below), where
y_b and n_b are the bot's score total and game count in block b, N = Σ n_b and
m = Σ y_b / N. A difference of two bots' means is linearised the same
way, block by block, so a block in which both bots played contributes their
covariance: that is where duplicate deals and shared tables pay off, and they
are counted only as much as they really help.

The interval is m ± t·√V, m and V computed with the pseudo-blocks in, with
Student's t on G − 1 degrees of freedom, G the number of real blocks. Two
choices make it hold up for small samples:

- Student's t on G − 1 degrees of freedom, not the normal: with few blocks the
  variance itself is uncertain. (A percentile bootstrap over blocks behaves like
  the normal interval with the variance shrunk by (G−1)/G, so it is too narrow
  exactly when the sample is small; the analytic interval is also exact to
  reproduce, needs no seed and is cheap enough to recompute for every table.)
- Two pseudo-blocks of one game each, one with the best and one with the worst
  possible result (for a difference: one where the first bot won and the
  second lost, one the other way round), are added before the estimate and the
  variance are computed, in the spirit of the Agresti–Coull "add successes and
  failures" interval. Without them a bot that won its three games would get
  the interval [1, 1] and would be "separated" from anyone; with them it takes
  six straight wins of six two-seat games to separate two bots at 95%, as an
  exact sign test also requires. With many blocks they change nothing that
  matters (a pseudo-block of a whole block's worth of games was tried and is
  far too conservative under duplicate deals, whose real blocks vary little).
  The reported point estimate is the plain mean.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena.stats.distributions import t_critical, t_two_sided_p

BlockTotals = Mapping[Hashable, tuple[float, float]]
"""Per deal block: (sum of the values in the block, number of values)."""

_BEST, _WORST = object(), object()


@dataclass(frozen=True, slots=True)
class Estimate:
    """A value with its standard error on `df` degrees of freedom (df 0: nothing is known)."""

    value: float
    adjusted: float
    """The estimate with the pseudo-blocks in, around which the interval is centred."""
    standard_error: float
    df: int

    def interval(self, confidence: float, low: float, high: float) -> tuple[float, float]:
        """The two-sided interval at `confidence`, clipped to the range [low, high], and
        always holding the observed `value` (the interval is centred on the estimate the
        pseudo-blocks pull inwards, which at a low confidence could leave it out)."""
        if self.df < 1:
            return low, high
        half = t_critical(confidence, self.df) * self.standard_error
        return (min(self.value, max(low, self.adjusted - half)),
                max(self.value, min(high, self.adjusted + half)))

    def p_value(self) -> float:
        """The two-sided p-value of "the true value is 0"."""
        if self.df < 1:
            return 1.0
        if self.standard_error == 0.0:
            return 1.0 if self.adjusted == 0.0 else 0.0
        return t_two_sided_p(self.adjusted / self.standard_error, self.df)


def block_totals(values: Iterable[tuple[Hashable, float]]) -> dict[Hashable, tuple[float, float]]:
    """Sum `(block, value)` pairs into per-block totals."""
    totals: dict[Hashable, tuple[float, float]] = defaultdict(lambda: (0.0, 0.0))
    for block, value in values:
        total, count = totals[block]
        totals[block] = (total + value, count + 1.0)
    return dict(totals)


def mean_of(totals: BlockTotals) -> float:
    """The plain mean of the values (0.5 when there are none)."""
    count = sum(n for _, n in totals.values())
    return sum(y for y, _ in totals.values()) / count if count else 0.5


def estimate_mean(totals: BlockTotals, pseudo_blocks: bool = True) -> Estimate:
    """The mean of values in [0, 1] with its block-clustered standard error."""
    return estimate_contrast([(1.0, totals)], pseudo_blocks)


def estimate_difference(first: BlockTotals, second: BlockTotals) -> Estimate:
    """The mean of `first` minus the mean of `second`, paired over shared blocks."""
    return estimate_contrast([(1.0, first), (-1.0, second)])


def estimate_contrast(terms: Sequence[tuple[float, BlockTotals]],
                      pseudo_blocks: bool = True) -> Estimate:
    """Σ c·mean for `(c, totals)` terms of values in [0, 1], with its clustered error."""
    blocks = {block for _, totals in terms for block in totals}
    if not blocks:
        return Estimate(0.0, 0.0, math.inf, 0)
    value = sum(c * mean_of(totals) for c, totals in terms)
    augmented = [_with_pseudo_blocks(c, totals) for c, totals in terms] if pseudo_blocks \
        else [dict(totals) for _, totals in terms]
    adjusted, variance = _contrast_variance(
        [c for c, _ in terms], augmented, blocks | ({_BEST, _WORST} if pseudo_blocks else set()))
    return Estimate(value, adjusted, math.sqrt(variance), len(blocks) - 1)


def _with_pseudo_blocks(c: float, totals: BlockTotals) -> dict[Hashable, tuple[float, float]]:
    augmented = dict(totals)
    if totals:
        best, worst = (_BEST, _WORST) if c > 0 else (_WORST, _BEST)
        augmented[best] = (1.0, 1.0)
        augmented[worst] = (0.0, 1.0)
    return augmented


def _contrast_variance(coefficients: Sequence[float],
                       augmented: Sequence[dict[Hashable, tuple[float, float]]],
                       blocks: set[Hashable]) -> tuple[float, float]:
    counts = [sum(n for _, n in totals.values()) for totals in augmented]
    means = [sum(y for y, _ in totals.values()) / count if count else 0.5
             for totals, count in zip(augmented, counts, strict=True)]
    squares = 0.0
    for block in blocks:
        influence = 0.0
        for c, totals, mean, count in zip(coefficients, augmented, means, counts, strict=True):
            y, n = totals.get(block, (0.0, 0.0))
            if count:
                influence += c * (y - mean * n) / count
        squares += influence * influence
    size = len(blocks)
    adjusted = sum(c * mean for c, mean in zip(coefficients, means, strict=True))
    return adjusted, squares * size / (size - 1) if size > 1 else math.inf
