"""The distributions, tests and Elo and LOS figures of `arena.stats` against SciPy (or, where
named, the textbook formula they implement)."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from scipy import optimize, special, stats

from arena.stats import RankedGame, duplicate_effect, seat_tables
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
from arena.stats.sequential import mixing_blocks, mixture_radius
from arena.stats.sprt import (
    _PSEUDO_COUNT,
    CATEGORY_PRIOR,
    categorical_llr,
    elo_to_score,
    multinomial_llr,
    normal_llr,
    score_to_elo,
    wald_bounds,
)

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


# ------------------------------------------------------------- sequential tests

def test_walds_bounds_are_the_log_error_ratios() -> None:
    # Wald (1945): accept H0 at log(β/(1 − α)), H1 at log((1 − β)/α); ±log 19 at 5%/5%.
    assert wald_bounds(0.05, 0.05) == pytest.approx((-math.log(19), math.log(19)), rel=1e-12)
    assert wald_bounds(0.01, 0.2) == pytest.approx((math.log(0.2 / 0.99), math.log(80)),
                                                   rel=1e-12)


@pytest.mark.parametrize("elo", [-200.0, 0.0, 7.0, 350.0])
def test_elo_and_score_convert_along_the_logistic_curve(elo: float) -> None:
    score = elo_to_score(elo)
    assert score == pytest.approx(special.expit(elo * math.log(10) / 400), rel=1e-12)
    assert score_to_elo(score) == pytest.approx(elo, abs=1e-9)


def test_the_normal_llr_is_the_likelihood_ratio_with_each_variance_fitted() -> None:
    x = np.array([0.5, 0.75, 0.25, 1.0, 0.5, 0.75, 0.5, 1.0])
    s0, s1 = 0.5, 0.6

    def fitted(mean: float) -> float:
        sigma = math.sqrt(np.mean((x - mean) ** 2))  # the MLE of σ with the mean fixed
        return float(stats.norm.logpdf(x, mean, sigma).sum())

    assert normal_llr(len(x), float(x.mean()), float(x.var()), s0, s1) == pytest.approx(
        fitted(s1) - fitted(s0), rel=1e-9)


def test_the_multinomial_llr_is_the_generalized_likelihood_ratio_of_the_counts() -> None:
    # Each hypothesis' distribution over the observed values (and 0 and 1, with the tiny
    # pseudo-count) maximizes the likelihood under its mean: found here by SLSQP.
    counts = Counter({0.25: 3.0, 0.5: 5.0, 0.75: 6.0, 1.0: 2.0})
    weights = Counter({0.0: _PSEUDO_COUNT, 1.0: _PSEUDO_COUNT})
    weights.update(counts)
    values = np.array(sorted(weights))
    shares = np.array([weights[v] for v in values]) / sum(weights.values())

    def best_log_likelihood(mean: float) -> float:
        fit = optimize.minimize(
            lambda p: -float(shares @ np.log(p)), shares, method="SLSQP",
            bounds=[(1e-12, 1.0)] * len(values), options={"ftol": 1e-15, "maxiter": 500},
            constraints=[{"type": "eq", "fun": lambda p: p.sum() - 1.0},
                         {"type": "eq", "fun": lambda p: p @ values - mean}])
        return float(shares @ np.log(fit.x))

    expected = sum(counts.values()) * (best_log_likelihood(0.6) - best_log_likelihood(0.5))
    assert multinomial_llr(counts, 0.5, 0.6) == pytest.approx(expected, rel=1e-6)


def test_the_pentanomial_llr_is_the_brownian_gsprt_of_the_counts_with_their_prior() -> None:
    # fishtest's LLR_alt2: n (s1 − s0)(2 x̄ − s0 − s1) / (2 σ²), x̄ and σ² of the counts.
    counts = [1.0, 3.0, 8.0, 5.0, 2.0]
    weights = np.array(counts) + CATEGORY_PRIOR
    scores = np.arange(5) / 4
    mean = np.average(scores, weights=weights)
    variance = np.average((scores - mean) ** 2, weights=weights)
    expected = sum(counts) * (0.51 - 0.5) * (2 * mean - 0.5 - 0.51) / (2 * variance)
    assert categorical_llr(counts, 0.5, 0.51) == pytest.approx(expected, rel=1e-12)
    assert categorical_llr([0.0] * 5, 0.5, 0.51) == 0.0


@pytest.mark.parametrize(("blocks", "variance", "alpha"), [(10, 0.2, 0.05), (250, 0.05, 0.01),
                                                           (4000, 0.5, 0.1)])
def test_the_mixture_radius_is_where_robbins_martingale_reaches_one_over_alpha(
        blocks: int, variance: float, alpha: float) -> None:
    # sqrt(ρσ²/(V + ρσ²)) · exp(S² / (2 (V + ρσ²))) = 1/α with V = nσ², solved for S = n·r.
    rho = mixing_blocks(1000, alpha) * variance
    v = blocks * variance

    def martingale(s: float) -> float:
        return 0.5 * math.log(rho / (v + rho)) + s * s / (2 * (v + rho)) - math.log(1 / alpha)

    boundary = optimize.brentq(martingale, 0.0, 1e6)
    assert mixture_radius(blocks, variance, alpha, 1000) == pytest.approx(boundary / blocks,
                                                                          rel=1e-9)


def test_the_mixing_blocks_make_the_radius_nearly_tightest_at_the_plan() -> None:
    # Howard et al. (2021): the closed form is the Lambert-W optimum's asymptote.
    plan, alpha = 1000, 0.05

    def radius(rho: float) -> float:
        return math.sqrt(2 * (plan + rho) * math.log(math.sqrt((plan + rho) / rho) / alpha)
                         ) / plan

    best = optimize.minimize_scalar(radius, bounds=(1.0, 10 * plan), method="bounded")
    assert radius(mixing_blocks(plan, alpha)) == pytest.approx(best.fun, rel=0.01)
    assert mixing_blocks(plan, alpha) == pytest.approx(
        plan / (2 * math.log(1 / alpha) + math.log(2 * math.log(1 / alpha) + 1)), rel=1e-12)


# ---------------------------------------------------------------- duplicate deals

def test_the_duplicate_design_effect_is_kishs_from_pooled_variances() -> None:
    # Heads up, blocks of two rotations: a's and b's scores are two cells, each centred on
    # its own mean. Kish (Survey Sampling, 1965): deff = 1 + (k − 1)·ρ.
    outcomes = [(1, 0), (1, 1), (0, 1), (1, 0), (0, 0), (1, 1), (1, 0), (0, 1)]
    games = []
    for block, (first, second) in enumerate(outcomes):
        games.append(RankedGame(block, ("a", "b"), (0, 1) if first else (1, 0)))
        games.append(RankedGame(block, ("b", "a"), (1, 0) if second else (0, 1)))
    effect = duplicate_effect(games)
    assert effect is not None
    cells = {"a": np.array(outcomes, dtype=float)}
    cells["b"] = 1.0 - cells["a"]
    single = sum(((c - c.mean()) ** 2).sum() for c in cells.values()) / (2 * 16 - 2)
    means = sum(((c.mean(axis=1) - c.mean()) ** 2).sum() for c in cells.values()) / (2 * 8 - 2)
    assert effect.design_effect == pytest.approx(2 * means / single, rel=1e-12)
    assert effect.intraclass_correlation == pytest.approx((effect.design_effect - 1) / (2 - 1),
                                                          rel=1e-12)
    assert effect.games_saved == pytest.approx(1 - effect.design_effect, rel=1e-12)
    assert (effect.block_size, effect.blocks, effect.games) == (2, 16, 32)
