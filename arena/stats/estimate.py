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

*Stratified by pairing.* When the schedule fixes who meets whom how often (a
round robin: every pairing plays the same deals), the mix of opponents is not
random, and the spread between a bot's results against different opponents is
no part of its score's uncertainty. Given `strata` (each block's pairing: the
bots at its table), the variance sums, stratum by stratum, the spread of the
blocks' contributions about that stratum's own mean,

    V = Σ_s G_s/(G_s − 1) · Σ_{b in s} (z_b − z̄_s)²,     z_b = (y_b − m·n_b) / N,

on G − S degrees of freedom (S strata), plus the two pseudo-blocks' squared
contributions as in the unstratified variance. Where a stratum has a single
block its spread is unknown, and the unstratified variance is used instead.
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


Strata = Mapping[Hashable, Hashable]
"""Each block's stratum: the pairing (the bots at its table) when the schedule fixes it."""


def estimate_mean(totals: BlockTotals, pseudo_blocks: bool = True,
                  strata: Strata | None = None) -> Estimate:
    """The mean of values in [0, 1] with its block-clustered standard error (stratified by
    `strata` when given)."""
    return estimate_contrast([(1.0, totals)], pseudo_blocks, strata)


def estimate_difference(first: BlockTotals, second: BlockTotals,
                        strata: Strata | None = None) -> Estimate:
    """The mean of `first` minus the mean of `second`, paired over shared blocks (stratified
    by `strata` when given)."""
    return estimate_contrast([(1.0, first), (-1.0, second)], strata=strata)


def estimate_contrast(terms: Sequence[tuple[float, BlockTotals]],
                      pseudo_blocks: bool = True, strata: Strata | None = None) -> Estimate:
    """Σ c·mean for `(c, totals)` terms of values in [0, 1], with its clustered error."""
    blocks = {block for _, totals in terms for block in totals}
    if not blocks:
        return Estimate(0.0, 0.0, math.inf, 0)
    value = sum(c * mean_of(totals) for c, totals in terms)
    augmented = [_with_pseudo_blocks(c, totals) for c, totals in terms] if pseudo_blocks \
        else [dict(totals) for _, totals in terms]
    everything = blocks | ({_BEST, _WORST} if pseudo_blocks else set())
    coefficients = [c for c, _ in terms]
    adjusted, influences = _influences(coefficients, augmented, everything)
    size = len(everything)
    groups = None if strata is None else _stratify(influences, strata)
    if strata is None or groups is None:
        variance = (sum(x * x for x in influences.values()) * size / (size - 1)
                    if size > 1 else math.inf)
        return Estimate(value, adjusted, math.sqrt(variance), len(blocks) - 1)
    variance = sum(influences[block] ** 2 for block in everything - blocks) + sum(
        len(group) / (len(group) - 1) * sum((x - sum(group) / len(group)) ** 2 for x in group)
        for group in groups)
    real_strata = len({strata.get(block) for block in blocks})
    return Estimate(value, adjusted, math.sqrt(variance), len(blocks) - real_strata)


def _stratify(influences: Mapping[Hashable, float],
              strata: Strata) -> list[list[float]] | None:
    """The real blocks' influences grouped by stratum; None when some stratum holds a single
    block."""
    groups: dict[Hashable, list[float]] = defaultdict(list)
    for block, influence in influences.items():
        if block is not _BEST and block is not _WORST:
            groups[strata.get(block)].append(influence)
    if any(len(group) < 2 for group in groups.values()):
        return None
    return list(groups.values())


def _with_pseudo_blocks(c: float, totals: BlockTotals) -> dict[Hashable, tuple[float, float]]:
    augmented = dict(totals)
    if totals:
        best, worst = (_BEST, _WORST) if c > 0 else (_WORST, _BEST)
        augmented[best] = (1.0, 1.0)
        augmented[worst] = (0.0, 1.0)
    return augmented


def _influences(coefficients: Sequence[float],
                augmented: Sequence[dict[Hashable, tuple[float, float]]],
                blocks: set[Hashable]) -> tuple[float, dict[Hashable, float]]:
    """The contrast with the pseudo-blocks in, and each block's linearized contribution
    z_b to it (they sum to zero)."""
    counts = [sum(n for _, n in totals.values()) for totals in augmented]
    means = [sum(y for y, _ in totals.values()) / count if count else 0.5
             for totals, count in zip(augmented, counts, strict=True)]
    influences: dict[Hashable, float] = {}
    for block in blocks:
        influence = 0.0
        for c, totals, mean, count in zip(coefficients, augmented, means, counts, strict=True):
            y, n = totals.get(block, (0.0, 0.0))
            if count:
                influence += c * (y - mean * n) / count
        influences[block] = influence
    adjusted = sum(c * mean for c, mean in zip(coefficients, means, strict=True))
    return adjusted, influences
