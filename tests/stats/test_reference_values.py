"""The distributions, tests and Elo and LOS figures of `arena.stats` against SciPy (or, where
named, the textbook formula they implement)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats

from arena.stats import RankedGame, seat_tables
from arena.stats.distributions import (
    chi_square_sf,
    f_sf,
    incomplete_beta,
    normal_cdf,
    sign_flip_p,
    t_critical,
    t_two_sided_p,
    upper_incomplete_gamma,
)
from arena.stats.elo import elo_interval, logistic_elo, normalized_elo_interval
from arena.stats.headtohead import likelihood_of_superiority, paired_likelihood_of_superiority

# ------------------------------------------------------------------ distributions

@pytest.mark.parametrize("df", [1, 2, 3, 7, 30, 500])
@pytest.mark.parametrize("confidence", [0.5, 0.9, 0.95, 0.99, 0.999])
def test_t_critical_is_scipys_quantile(df: int, confidence: float) -> None:
    assert t_critical(confidence, df) == pytest.approx(stats.t.ppf(0.5 + confidence / 2, df),
                                                       rel=1e-9)


@pytest.mark.parametrize("df", [1, 2, 5, 9, 40])
@pytest.mark.parametrize("t", [0.0, 0.3, 1.0, -2.5, 6.0])
def test_the_two_sided_t_p_value_is_scipys(t: float, df: int) -> None:
    assert t_two_sided_p(t, df) == pytest.approx(2 * stats.t.sf(abs(t), df), rel=1e-9)


@pytest.mark.parametrize("df", [1, 2, 3, 10, 25])
@pytest.mark.parametrize("statistic", [0.2, 1.0, 3.0, 12.0, 40.0])
def test_the_chi_square_tail_is_scipys(statistic: float, df: int) -> None:
    assert chi_square_sf(statistic, df) == pytest.approx(stats.chi2.sf(statistic, df),
                                                         rel=1e-9)


@pytest.mark.parametrize(("df1", "df2"), [(1, 1), (1, 10), (3, 12), (5, 2), (20, 40)])
@pytest.mark.parametrize("statistic", [0.0, 0.5, 1.0, 2.5, 9.0])
def test_the_f_tail_is_scipys(statistic: float, df1: int, df2: int) -> None:
    assert f_sf(statistic, df1, df2) == pytest.approx(stats.f.sf(statistic, df1, df2),
                                                      rel=1e-9)


@pytest.mark.parametrize(("a", "b"), [(0.5, 0.5), (1.0, 3.0), (2.5, 0.5), (10.0, 12.0)])
@pytest.mark.parametrize("x", [0.0, 0.05, 0.4, 0.6, 0.97, 1.0])
def test_the_incomplete_beta_is_scipys(a: float, b: float, x: float) -> None:
    assert incomplete_beta(a, b, x) == pytest.approx(special.betainc(a, b, x), rel=1e-9,
                                                     abs=1e-15)


@pytest.mark.parametrize("a", [0.5, 1.0, 2.5, 10.0])
@pytest.mark.parametrize("x", [0.0, 0.1, 1.0, 3.4, 11.0, 30.0])
def test_the_upper_incomplete_gamma_is_scipys(a: float, x: float) -> None:
    assert upper_incomplete_gamma(a, x) == pytest.approx(special.gammaincc(a, x), rel=1e-9,
                                                         abs=1e-15)


@pytest.mark.parametrize("x", [-3.0, -0.5, 0.0, 1.2, 4.0])
def test_the_normal_cdf_is_scipys(x: float) -> None:
    assert normal_cdf(x) == pytest.approx(stats.norm.cdf(x), rel=1e-12)


def test_the_sign_flip_p_value_is_scipys_exact_permutation_test() -> None:
    differences = [0.5, 1.0, -0.5, 0.25, 1.0, 0.75, -0.25, 0.5]
    exact = stats.permutation_test((np.array(differences),), np.sum, vectorized=True,
                                   permutation_type="samples", n_resamples=math.inf,
                                   alternative="two-sided")
    assert sign_flip_p(differences) == pytest.approx(exact.pvalue, rel=1e-12)


def test_the_sign_flip_test_of_equal_differences_is_the_sign_test() -> None:
    differences = [1.0] * 9 + [-1.0] * 2
    assert sign_flip_p(differences) == pytest.approx(stats.binomtest(9, 11).pvalue, rel=1e-12)


def test_zero_differences_are_left_out_of_the_sign_flip_test() -> None:
    assert sign_flip_p([1.0, 1.0, 1.0, 0.0, 0.0]) == pytest.approx(
        stats.binomtest(3, 3).pvalue, rel=1e-12)
    assert sign_flip_p([0.0, 0.0]) == 1.0


def test_the_sign_flip_test_is_exact_up_to_forty_blocks_only() -> None:
    assert sign_flip_p([1.0] * 40) == pytest.approx(stats.binomtest(40, 40).pvalue, rel=1e-9)
    assert sign_flip_p([1.0] * 41) is None


# ------------------------------------------------------------ other estimates

@pytest.mark.parametrize(("wins", "losses"), [(7, 3), (3, 7), (12, 12), (1, 0)])
def test_likelihood_of_superiority_is_the_normal_approximation(wins: int, losses: int) -> None:
    # Cutechess's LOS: Φ((W − L) / √(W + L)).
    assert likelihood_of_superiority(wins, losses) == pytest.approx(
        stats.norm.cdf((wins - losses) / math.sqrt(wins + losses)), rel=1e-12)


def test_likelihood_of_superiority_without_decisive_games_is_one_half() -> None:
    assert likelihood_of_superiority(0, 0) == 0.5
    assert paired_likelihood_of_superiority([0.0, 0.0]) == 0.5


def test_paired_likelihood_of_superiority_is_the_normal_tail_of_the_block_nets() -> None:
    nets = [2.0, -1.0, 1.0, 1.0, 0.0, 2.0]
    assert paired_likelihood_of_superiority(nets) == pytest.approx(
        stats.norm.cdf(sum(nets) / math.sqrt(sum(n * n for n in nets))), rel=1e-12)


@pytest.mark.parametrize("score", [0.1, 0.5, 0.64, 0.9])
def test_logistic_elo_inverts_the_logistic_expected_score(score: float) -> None:
    # Elo's expected score of a difference d is 1 / (1 + 10^(−d/400)) = expit(d·ln10/400).
    assert special.expit(logistic_elo(score) * math.log(10) / 400) == pytest.approx(score,
                                                                                   rel=1e-12)


def test_logistic_elo_of_a_certain_result_is_infinite() -> None:
    assert (logistic_elo(0.0), logistic_elo(1.0)) == (-math.inf, math.inf)


def test_the_elo_interval_maps_the_scores_normal_interval() -> None:
    interval = elo_interval(0.6, 0.05, 0.95)
    low, high = stats.norm.interval(0.95, loc=0.6, scale=0.05)
    assert (interval.value, interval.low, interval.high) == pytest.approx(
        (logistic_elo(0.6), logistic_elo(low), logistic_elo(high)), rel=1e-9)
    assert interval.level == 0.95


def test_the_elo_interval_is_clipped_to_certain_results() -> None:
    interval = elo_interval(0.9, 0.1, 0.95)
    assert interval.high == math.inf
    assert interval.low == pytest.approx(logistic_elo(0.9 - stats.norm.ppf(0.975) * 0.1))


def test_normalized_elo_is_the_t_value_per_game_with_its_delta_method_interval() -> None:
    # 50 blocks of 2 games, block scores varying by 0.02: σ_game = √0.04 = 0.2.
    interval = normalized_elo_interval(0.55, 0.02, 50, 2, 0.95)
    assert interval is not None
    t = 0.05 / 0.2
    se = math.sqrt((1 + (t * math.sqrt(2)) ** 2 / 2) / 50) / math.sqrt(2)
    z = stats.norm.ppf(0.975)
    scale = 800 / math.log(10)
    assert (interval.value, interval.low, interval.high) == pytest.approx(
        (t * scale, (t - z * se) * scale, (t + z * se) * scale), rel=1e-9)


def test_normalized_elo_needs_a_spread_and_a_block() -> None:
    assert normalized_elo_interval(0.6, 0.0, 10, 2, 0.95) is None
    assert normalized_elo_interval(0.6, 0.1, 0, 2, 0.95) is None


# ------------------------------------------------------------------ seat tables

def test_the_seat_chi_square_of_unclustered_games_is_pearsons_scaled_by_its_design_effect(
        ) -> None:
    # Twelve games of their own block: seat 0 won 7, seat 1 won 3, seat 2 won 2.
    winners = [0] * 7 + [1] * 3 + [2] * 2
    games = [RankedGame(i, ("a", "b", "c"), tuple(0 if s == w else 1 for s in range(3)))
             for i, w in enumerate(winners)]
    table = seat_tables(games)[0]
    pearson = stats.chisquare([7, 3, 2]).statistic
    # Each seat's win rate's block variance over the binomial one: n / (n − 1).
    statistic = pearson * (len(games) - 1) / len(games)
    assert table.chi_square == pytest.approx(statistic, rel=1e-12)
    assert table.degrees_of_freedom == 2
    assert table.p_value == pytest.approx(stats.chi2.sf(statistic, 2), rel=1e-9)


def test_the_seat_test_of_clustered_games_is_an_f_test_on_the_blocks() -> None:
    # Six deal blocks of two games each: clustered, so F(df, df·(blocks − 1)).
    winners = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1]
    games = [RankedGame(i // 2, ("a", "b"), (0, 1) if w == 0 else (1, 0))
             for i, w in enumerate(winners)]
    table = seat_tables(games)[0]
    assert table.p_value == pytest.approx(stats.f.sf(table.chi_square, 1, 5), rel=1e-9)
