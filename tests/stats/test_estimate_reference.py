"""The block-clustered estimates of `arena.stats.estimate` against independent computations.

With one value per block and no pseudo-blocks the standard error is the standard error
of the mean (SciPy's `sem`) and the p-value the one-sample t-test's; for a difference
paired by block, the paired t-test's; with blocks of several games, the variance of a
ratio estimator (Cochran, *Sampling Techniques*, 3rd ed., 1977, eq. 6.9 without the
finite-population correction); stratified, the variance of a stratified mean (Cochran,
eq. 5.6, of the per-block contributions). The pseudo-blocks are two more blocks of one
game each, worth 1 and 0, on the same degrees of freedom as without them.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping

import numpy as np
import pytest
from scipy import stats

from arena.stats.estimate import (
    block_totals,
    estimate_contrast,
    estimate_difference,
    estimate_mean,
    mean_of,
)

SCORES = [1.0, 0.0, 0.5, 1.0, 1.0, 0.0, 1.0, 0.5, 1.0, 0.5]
"""One bot's score in ten deal blocks of one game each."""
OTHER = [0.0, 0.5, 0.5, 0.0, 1.0, 0.0, 0.0, 0.5, 0.5, 1.0]
"""Its opponent's score in the same ten blocks."""
UNBOUNDED = (-math.inf, math.inf)


def one_per_block(values: list[float]) -> dict[object, tuple[float, float]]:
    """Block totals of one value per block, block i holding values[i]."""
    return block_totals(enumerate(values))


# ------------------------------------------------------------- one value per block

def test_without_pseudo_blocks_the_mean_is_the_plain_mean() -> None:
    estimate = estimate_mean(one_per_block(SCORES), pseudo_blocks=False)
    assert estimate.value == pytest.approx(np.mean(SCORES), rel=1e-12)
    assert estimate.adjusted == pytest.approx(np.mean(SCORES), rel=1e-12)


def test_without_pseudo_blocks_the_standard_error_is_the_standard_error_of_the_mean() -> None:
    estimate = estimate_mean(one_per_block(SCORES), pseudo_blocks=False)
    assert estimate.standard_error == pytest.approx(stats.sem(SCORES), rel=1e-12)


def test_the_degrees_of_freedom_are_the_blocks_less_one() -> None:
    assert estimate_mean(one_per_block(SCORES), pseudo_blocks=False).df == len(SCORES) - 1
    assert estimate_mean(one_per_block(SCORES)).df == len(SCORES) - 1


def test_without_pseudo_blocks_the_interval_is_the_student_t_interval() -> None:
    estimate = estimate_mean(one_per_block(SCORES), pseudo_blocks=False)
    expected = stats.t.interval(0.9, len(SCORES) - 1, loc=np.mean(SCORES),
                                scale=stats.sem(SCORES))
    assert estimate.interval(0.9, *UNBOUNDED) == pytest.approx(expected, rel=1e-9)


def test_without_pseudo_blocks_the_p_value_is_the_one_sample_t_tests() -> None:
    estimate = estimate_mean(one_per_block(SCORES), pseudo_blocks=False)
    assert estimate.p_value() == pytest.approx(stats.ttest_1samp(SCORES, 0.0).pvalue,
                                               rel=1e-9)


def test_two_blocks_without_pseudo_blocks_use_one_degree_of_freedom() -> None:
    estimate = estimate_mean(one_per_block([1.0, 0.5]), pseudo_blocks=False)
    assert estimate.df == 1
    assert estimate.standard_error == pytest.approx(0.25, rel=1e-12)
    # t(0.95; 1) = 6.3138 (tan(0.45·π)): the interval is 0.75 ± 1.5784.
    assert estimate.interval(0.9, *UNBOUNDED) == pytest.approx(
        stats.t.interval(0.9, 1, loc=0.75, scale=0.25), rel=1e-9)
    assert estimate.interval(0.9, *UNBOUNDED)[1] == pytest.approx(
        0.75 + math.tan(0.45 * math.pi) * 0.25, rel=1e-9)
    assert estimate.p_value() == pytest.approx(stats.ttest_1samp([1.0, 0.5], 0.0).pvalue,
                                               rel=1e-9)


def test_two_blocks_without_pseudo_blocks_are_clipped_to_the_range_asked_for() -> None:
    estimate = estimate_mean(one_per_block([1.0, 0.5]), pseudo_blocks=False)
    assert estimate.interval(0.95, 0.0, 1.0) == (0.0, 1.0)


def test_with_pseudo_blocks_a_best_and_a_worst_game_join_the_blocks() -> None:
    augmented = [*SCORES, 1.0, 0.0]
    estimate = estimate_mean(one_per_block(SCORES))
    assert estimate.value == pytest.approx(np.mean(SCORES), rel=1e-12)
    assert estimate.adjusted == pytest.approx(np.mean(augmented), rel=1e-12)
    assert estimate.standard_error == pytest.approx(stats.sem(augmented), rel=1e-12)


def test_with_pseudo_blocks_the_interval_is_centred_on_the_adjusted_mean() -> None:
    augmented = [*SCORES, 1.0, 0.0]
    estimate = estimate_mean(one_per_block(SCORES))
    low, high = stats.t.interval(0.8, len(SCORES) - 1, loc=np.mean(augmented),
                                 scale=stats.sem(augmented))
    assert estimate.interval(0.8, *UNBOUNDED) == pytest.approx((low, high), rel=1e-9)


def test_with_pseudo_blocks_the_p_value_is_on_the_real_blocks_degrees_of_freedom() -> None:
    augmented = [*SCORES, 1.0, 0.0]
    estimate = estimate_mean(one_per_block(SCORES))
    t = np.mean(augmented) / stats.sem(augmented)
    assert estimate.p_value() == pytest.approx(2 * stats.t.sf(t, len(SCORES) - 1), rel=1e-9)


def test_a_low_confidence_interval_still_holds_the_observed_value() -> None:
    # Three wins: the pseudo-blocks pull the centre to 0.8, a 10% interval misses 1.
    estimate = estimate_mean(one_per_block([1.0, 1.0, 1.0]))
    half = stats.t.ppf(0.55, 2) * stats.sem([1.0, 1.0, 1.0, 1.0, 0.0])
    assert estimate.interval(0.1, 0.0, 1.0) == pytest.approx((0.8 - half, 1.0), rel=1e-9)


# ------------------------------------------------------------------- edge cases

def test_no_values_give_a_mean_of_one_half() -> None:
    assert mean_of({}) == 0.5


def test_an_empty_input_knows_nothing() -> None:
    estimate = estimate_mean({})
    assert (estimate.value, estimate.adjusted, estimate.standard_error, estimate.df) == (
        0.0, 0.0, math.inf, 0)
    assert estimate.interval(0.95, 0.0, 1.0) == (0.0, 1.0)
    assert estimate.p_value() == 1.0


def test_an_empty_difference_knows_nothing() -> None:
    estimate = estimate_difference({}, {})
    assert (estimate.standard_error, estimate.df) == (math.inf, 0)
    assert estimate.interval(0.95, -1.0, 1.0) == (-1.0, 1.0)


def test_one_block_without_pseudo_blocks_has_no_variance_to_estimate() -> None:
    estimate = estimate_mean(one_per_block([0.5]), pseudo_blocks=False)
    assert (estimate.value, estimate.standard_error, estimate.df) == (0.5, math.inf, 0)
    assert estimate.p_value() == 1.0


def test_one_block_with_pseudo_blocks_has_no_degrees_of_freedom() -> None:
    estimate = estimate_mean(one_per_block([1.0]))
    assert estimate.df == 0
    assert estimate.standard_error == pytest.approx(stats.sem([1.0, 1.0, 0.0]), rel=1e-12)
    assert estimate.interval(0.5, 0.0, 1.0) == (0.0, 1.0)


def test_identical_values_have_no_spread_and_a_p_value_of_zero_or_one() -> None:
    nonzero = estimate_mean(one_per_block([0.5, 0.5, 0.5]), pseudo_blocks=False)
    zero = estimate_contrast([(1.0, one_per_block([0.5] * 3)), (-1.0, one_per_block([0.5] * 3))],
                             pseudo_blocks=False)
    assert (nonzero.standard_error, nonzero.p_value()) == (0.0, 0.0)
    assert (zero.standard_error, zero.p_value()) == (0.0, 1.0)


# ------------------------------------------------------------- blocks of several games

GAMES = [("a", 1.0), ("a", 1.0), ("a", 0.0), ("b", 0.0), ("c", 1.0), ("c", 0.5),
         ("d", 0.5), ("d", 0.0), ("d", 1.0), ("d", 1.0)]
"""Games of unequal deal blocks: (block, score)."""


def ratio_estimate_variance(games: list[tuple[str, float]]) -> float:
    """Cochran (1977), eq. 6.9 with f = 0: v(r) = Σ (y_b − r·n_b)² / (G (G − 1) n̄²)."""
    blocks = sorted({block for block, _ in games})
    y = np.array([sum(v for b, v in games if b == block) for block in blocks])
    n = np.array([sum(1 for b, _ in games if b == block) for block in blocks], dtype=float)
    r = y.sum() / n.sum()
    g = len(blocks)
    return float(((y - r * n) ** 2).sum() / (g * (g - 1) * n.mean() ** 2))


def test_blocks_of_several_games_take_the_variance_of_a_ratio_estimator() -> None:
    estimate = estimate_mean(block_totals(GAMES), pseudo_blocks=False)
    assert estimate.value == pytest.approx(np.mean([v for _, v in GAMES]), rel=1e-12)
    assert estimate.standard_error ** 2 == pytest.approx(ratio_estimate_variance(GAMES),
                                                         rel=1e-12)
    assert estimate.df == 3


def test_a_hand_worked_ratio_estimate() -> None:
    # Blocks (2 of 3), (0 of 1), (1.5 of 2): m = 3.5/6; residuals 0.25, −7/12, 1/3;
    # V = 3/2 · (1/16 + 49/144 + 1/9) / 36 = 0.02141203...
    games = [("a", 1.0), ("a", 1.0), ("a", 0.0), ("b", 0.0), ("c", 1.0), ("c", 0.5)]
    estimate = estimate_mean(block_totals(games), pseudo_blocks=False)
    assert estimate.value == pytest.approx(3.5 / 6, rel=1e-12)
    assert estimate.standard_error ** 2 == pytest.approx(1.5 * (74 / 144) / 36, rel=1e-12)


def test_repeating_a_block_total_counts_every_game() -> None:
    assert block_totals([("a", 1.0), ("a", 0.5), ("b", 0.0)]) == {
        "a": (1.5, 2.0), "b": (0.0, 1.0)}


# ----------------------------------------------------------------- differences

def test_a_difference_paired_by_block_is_the_paired_t_test() -> None:
    estimate = estimate_contrast([(1.0, one_per_block(SCORES)), (-1.0, one_per_block(OTHER))],
                                 pseudo_blocks=False)
    differences = np.subtract(SCORES, OTHER)
    assert estimate.value == pytest.approx(differences.mean(), rel=1e-12)
    assert estimate.standard_error == pytest.approx(stats.sem(differences), rel=1e-12)
    assert estimate.df == len(SCORES) - 1
    assert estimate.p_value() == pytest.approx(stats.ttest_rel(SCORES, OTHER).pvalue, rel=1e-9)


def test_a_difference_adds_a_block_won_by_each_side() -> None:
    estimate = estimate_difference(one_per_block(SCORES), one_per_block(OTHER))
    augmented = [*np.subtract(SCORES, OTHER), 1.0, -1.0]
    assert estimate.value == pytest.approx(np.mean(SCORES) - np.mean(OTHER), rel=1e-12)
    assert estimate.adjusted == pytest.approx(np.mean(augmented), rel=1e-12)
    assert estimate.standard_error == pytest.approx(stats.sem(augmented), rel=1e-12)
    assert estimate.interval(0.95, *UNBOUNDED) == pytest.approx(
        stats.t.interval(0.95, len(SCORES) - 1, loc=np.mean(augmented),
                         scale=stats.sem(augmented)), rel=1e-9)


def test_a_difference_of_unpaired_blocks_is_welchs_standard_error_by_blocks() -> None:
    # Disjoint blocks: the variance is the sum of each mean's (each with its G/(G−1)).
    first: dict[Hashable, tuple[float, float]] = {("x", i): (v, 1.0) for i, v in enumerate(SCORES)}
    second: dict[Hashable, tuple[float, float]] = {("y", i): (v, 1.0) for i, v in enumerate(OTHER)}
    estimate = estimate_contrast([(1.0, first), (-1.0, second)], pseudo_blocks=False)
    g = 2 * len(SCORES)
    expected = (g / (g - 1)) * (np.var(SCORES) / len(SCORES) + np.var(OTHER) / len(OTHER))
    assert estimate.standard_error ** 2 == pytest.approx(expected, rel=1e-12)
    assert estimate.df == g - 1


# ------------------------------------------------------------------- stratified

STRATA: dict[Hashable, Hashable] = {i: ("p", "q") if i < 5 else ("p", "r")
                                    for i in range(len(SCORES))}
"""The first five blocks against one opponent, the last five against another."""


def stratified_variance(values: list[float], strata: Mapping[Hashable, Hashable],
                        total: float) -> float:
    """Cochran (1977), eq. 5.6 with f = 0, of the contributions z_b = (y_b − m) / N:
    Σ_s G_s · s²_s(z) (the G_s/(G_s − 1) is the sample variance's own)."""
    z = (np.array(values) - np.mean(values)) / total
    variance = 0.0
    for stratum in set(strata.values()):
        members = z[[i for i in range(len(values)) if strata[i] == stratum]]
        variance += len(members) * np.var(members, ddof=1)
    return float(variance)


def test_stratified_by_pairing_the_variance_is_the_stratified_samples() -> None:
    estimate = estimate_mean(one_per_block(SCORES), pseudo_blocks=False, strata=STRATA)
    assert estimate.standard_error ** 2 == pytest.approx(
        stratified_variance(SCORES, STRATA, len(SCORES)), rel=1e-12)


def test_stratified_by_pairing_the_degrees_of_freedom_are_blocks_less_strata() -> None:
    estimate = estimate_mean(one_per_block(SCORES), pseudo_blocks=False, strata=STRATA)
    assert estimate.df == len(SCORES) - 2
    t = estimate.value / estimate.standard_error
    assert estimate.p_value() == pytest.approx(2 * stats.t.sf(t, len(SCORES) - 2), rel=1e-9)
    assert estimate.interval(0.95, *UNBOUNDED) == pytest.approx(
        stats.t.interval(0.95, len(SCORES) - 2, loc=estimate.value,
                         scale=estimate.standard_error), rel=1e-9)


def test_stratified_with_pseudo_blocks_adds_their_squared_contributions() -> None:
    augmented = [*SCORES, 1.0, 0.0]
    total = len(augmented)
    z = (np.array(augmented) - np.mean(augmented)) / total
    expected = (z[-2] ** 2 + z[-1] ** 2
                + 5 * np.var(z[:5], ddof=1) + 5 * np.var(z[5:10], ddof=1))
    estimate = estimate_mean(one_per_block(SCORES), strata=STRATA)
    assert estimate.standard_error ** 2 == pytest.approx(expected, rel=1e-12)
    assert estimate.df == len(SCORES) - 2


def test_a_stratum_of_one_block_falls_back_to_the_unstratified_variance() -> None:
    lonely = {**STRATA, 9: ("p", "s")}
    stratified = estimate_mean(one_per_block(SCORES), pseudo_blocks=False, strata=lonely)
    assert stratified.standard_error == pytest.approx(stats.sem(SCORES), rel=1e-12)
    assert stratified.df == len(SCORES) - 1


def test_strata_of_two_blocks_each_are_stratified() -> None:
    values = SCORES[:6]
    strata: dict[Hashable, Hashable] = {i: i // 2 for i in range(6)}  # three strata of two blocks
    estimate = estimate_mean(one_per_block(values), pseudo_blocks=False, strata=strata)
    assert estimate.standard_error ** 2 == pytest.approx(
        stratified_variance(values, strata, len(values)), rel=1e-12)
    assert estimate.df == 3


# ------------------------------------------------------------------- contrasts

def test_a_contrast_gives_each_terms_pseudo_blocks_the_side_its_coefficient_favours() -> None:
    # For c < 0 the term's worst result goes in the block where the others did best.
    a = [*SCORES, 1.0, 0.0]
    b = [*OTHER, 0.0, 1.0]
    combined = np.subtract(a, np.multiply(0.5, b))
    estimate = estimate_contrast([(1.0, one_per_block(SCORES)), (-0.5, one_per_block(OTHER))])
    assert estimate.adjusted == pytest.approx(combined.mean(), rel=1e-12)
    assert estimate.standard_error == pytest.approx(stats.sem(combined), rel=1e-12)


def test_a_difference_with_a_side_that_has_no_values_takes_its_mean_as_one_half() -> None:
    estimate = estimate_difference(one_per_block(SCORES), {})
    assert estimate.value == pytest.approx(np.mean(SCORES) - 0.5, rel=1e-12)
    assert estimate.adjusted == pytest.approx(np.mean([*SCORES, 1.0, 0.0]) - 0.5, rel=1e-12)


def test_an_estimate_cannot_be_changed_once_made() -> None:
    estimate = estimate_mean(one_per_block(SCORES))
    with pytest.raises(AttributeError):
        estimate.df = 3  # type: ignore[misc]
