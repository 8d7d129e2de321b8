"""Rating parameters and their fit: predictive likelihood, recovery, held-out gain, σ shrinking.

Synthetic games come from TrueSkill's own model with known β and draw
probability: a pool of bots whose skills sit at evenly spaced quantiles of the
prior N(μ, σ²) (so the pool's spread is the prior's, not a sample's), each
game's performances drawn around those skills with spread β, neighbouring
places tied when their performances are within the draw margin.
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable
from functools import cache
from statistics import NormalDist

import pytest

from arena.engine import PARTNER_TEAMS
from arena.rating import (
    DEFAULT_PARAMETERS,
    MU,
    SIGMA,
    RatingParameters,
    RatingParametersError,
    Skill,
    rate_game,
)
from arena.rating.demo import TABLE_KINDS, TableKind, play_pool
from arena.rating.fit import (
    POOL_TAU,
    FitError,
    FitResult,
    RatedGame,
    fit,
    game_log_likelihood,
    held_out_log_likelihood,
    held_out_mask,
    pair_probabilities,
    prequential,
)

STANDARD_NORMAL = NormalDist()


def synthetic_games(
    seed: int,
    *,
    beta: float,
    draw_probability: float,
    games: int = 600,
    bots: int = 16,
    seats: int = 2,
) -> list[RatedGame]:
    """Games drawn from TrueSkill's model with the given β and draw probability."""
    rng = random.Random(seed)
    prior = NormalDist(MU, SIGMA)
    skills = [prior.inv_cdf((i + 0.5) / bots) for i in range(bots)]
    margin = STANDARD_NORMAL.inv_cdf((draw_probability + 1) / 2) * math.sqrt(2) * beta
    played = []
    for _ in range(games):
        table = rng.sample(range(bots), seats)
        performance = [skills[bot] + rng.gauss(0, beta) for bot in table]
        order = sorted(range(seats), key=lambda seat: -performance[seat])
        ranks = [0] * seats
        for place in range(1, seats):
            seat, above = order[place], order[place - 1]
            tied = performance[above] - performance[seat] <= margin
            ranks[seat] = ranks[above] if tied else place
        played.append(RatedGame(tuple(f"bot{bot}" for bot in table), tuple(ranks)))
    return played


@cache
def fitted(seed: int, beta: float, draw_probability: float) -> tuple[list[RatedGame], FitResult]:
    games = synthetic_games(seed, beta=beta, draw_probability=draw_probability)
    return games, fit(games)


# ------------------------------------------------------------------ parameters


def test_rating_parameters_round_trip_through_a_dict() -> None:
    parameters = RatingParameters(mu=0.0, sigma=2.5, beta=7.25, tau=0.0, draw_probability=0.04)
    assert RatingParameters.from_dict(parameters.to_dict()) == parameters
    assert DEFAULT_PARAMETERS.to_dict() == {
        "mu": 25.0, "sigma": 25 / 3, "beta": 25 / 6, "tau": 25 / 300, "draw_probability": 0.1,
    }


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"sigma": 0.0}, "sigma: must be positive"),
        ({"beta": -1.0}, "beta: must be positive"),
        ({"tau": -0.1}, "tau: must not be negative"),
        ({"draw_probability": 0.0}, "strictly between 0 and 1"),
        ({"draw_probability": 1.0}, "strictly between 0 and 1"),
        ({"mu": math.nan}, "mu: must be finite"),
        ({"beta": True}, "beta: must be a number"),
        ({"gamma": 1.0}, "unknown rating parameters"),
    ],
)
def test_rating_parameters_out_of_range_are_refused(
    changes: dict[str, float], message: str
) -> None:
    with pytest.raises(RatingParametersError, match=message):
        DEFAULT_PARAMETERS.with_changes(**changes)


def test_rating_parameters_from_a_dict_need_exactly_the_five_names() -> None:
    data = DEFAULT_PARAMETERS.to_dict()
    with pytest.raises(RatingParametersError, match="missing \\['tau'\\]"):
        RatingParameters.from_dict({k: v for k, v in data.items() if k != "tau"})
    with pytest.raises(RatingParametersError, match="unknown \\['gamma'\\]"):
        RatingParameters.from_dict({**data, "gamma": 1.0})


def test_rate_game_under_the_default_parameters_is_what_it_was() -> None:
    assert rate_game({}, ["a", "b"], [0, 1], parameters=DEFAULT_PARAMETERS) == rate_game(
        {}, ["a", "b"], [0, 1]
    )


def test_new_bots_start_at_the_given_parameters_initial_skill() -> None:
    parameters = RatingParameters(mu=100.0, sigma=1.0, beta=0.5, tau=0.0, draw_probability=0.1)
    after = rate_game({}, ["a", "b"], [0, 1], parameters=parameters)
    assert 100.0 < after["a"].mu < 101.5 and 98.5 < after["b"].mu < 100.0
    assert after["a"].sigma < 1.0


def test_a_larger_beta_moves_a_rating_less_after_one_game() -> None:
    lucky = DEFAULT_PARAMETERS.with_changes(beta=4 * DEFAULT_PARAMETERS.beta)
    default_gain = rate_game({}, ["a", "b"], [0, 1])["a"].mu - MU
    lucky_gain = rate_game({}, ["a", "b"], [0, 1], parameters=lucky)["a"].mu - MU
    assert 0 < lucky_gain < 0.6 * default_gain


# ------------------------------------------------------------------ likelihood


def test_evenly_matched_known_skills_tie_with_the_draw_probability() -> None:
    parameters = DEFAULT_PARAMETERS.with_changes(tau=0.0, draw_probability=0.3)
    known = Skill(25.0, 1e-9)
    chances = pair_probabilities([known], [known], parameters)
    assert chances.tie == pytest.approx(0.3, abs=1e-6)
    assert chances.ahead == pytest.approx(0.35, abs=1e-6) == pytest.approx(chances.behind)


def test_pair_probabilities_follow_the_normal_model_and_sum_to_one() -> None:
    parameters = RatingParameters(beta=5.0, tau=0.0, draw_probability=0.2)
    first, second = Skill(30.0, 2.0), Skill(24.0, 3.0)
    chances = pair_probabilities([first], [second], parameters)
    spread = math.sqrt(2 * 5.0**2 + 2.0**2 + 3.0**2)
    margin = STANDARD_NORMAL.inv_cdf(0.6) * math.sqrt(2) * 5.0
    assert chances.ahead == pytest.approx(STANDARD_NORMAL.cdf((6.0 - margin) / spread), rel=1e-6)
    assert chances.behind == pytest.approx(STANDARD_NORMAL.cdf((-6.0 - margin) / spread), rel=1e-6)
    assert chances.ahead + chances.tie + chances.behind == pytest.approx(1.0, abs=1e-12)


def test_a_partner_game_is_scored_by_the_two_teams_summed_skills() -> None:
    skills = {bot: Skill(mu, 2.0) for bot, mu in zip("abcd", (30.0, 20.0, 28.0, 26.0), strict=True)}
    game = RatedGame(("a", "b", "c", "d"), (0, 1, 0, 1), PARTNER_TEAMS)
    chances = pair_probabilities(
        [skills["a"], skills["c"]], [skills["b"], skills["d"]], DEFAULT_PARAMETERS
    )
    assert game_log_likelihood(skills, game, DEFAULT_PARAMETERS) == pytest.approx(
        math.log(chances.ahead)
    )


def test_a_four_seat_game_is_scored_by_every_pair_of_places() -> None:
    skills = {bot: Skill(25.0 + k, 3.0) for k, bot in enumerate("abcd")}
    game = RatedGame(("a", "b", "c", "d"), (2, 0, 1, 1))
    chances = {
        (x, y): pair_probabilities([skills[x]], [skills[y]], DEFAULT_PARAMETERS)
        for x, y in [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")]
    }
    expected = sum(
        math.log(p)
        for p in (
            chances["a", "b"].behind, chances["a", "c"].behind, chances["a", "d"].behind,
            chances["b", "c"].ahead, chances["b", "d"].ahead, chances["c", "d"].tie,
        )
    )
    assert game_log_likelihood(skills, game, DEFAULT_PARAMETERS) == pytest.approx(expected)


def test_prequential_scores_each_game_before_its_own_update() -> None:
    games = [RatedGame(("a", "b"), (0, 1))] * 3
    scored = prequential(games, DEFAULT_PARAMETERS)
    before_second = rate_game({}, ["a", "b"], [0, 1])
    assert scored.log_likelihoods[0] == pytest.approx(
        game_log_likelihood({}, games[0], DEFAULT_PARAMETERS)
    )
    assert scored.log_likelihoods[1] == pytest.approx(
        game_log_likelihood(before_second, games[1], DEFAULT_PARAMETERS)
    )
    assert scored.log_likelihoods[0] < scored.log_likelihoods[1] < scored.log_likelihoods[2]


def test_two_team_games_are_rated_exactly_as_rate_game_rates_them() -> None:
    rng = random.Random(7)
    games = []
    ranks: tuple[int, ...]
    for _ in range(300):
        if rng.random() < 0.5:
            ranks = rng.choice([(0, 1), (1, 0), (0, 0)])
            games.append(RatedGame(tuple(rng.sample("abcdef", 2)), ranks))
        else:
            ranks = rng.choice([(0, 1, 0, 1), (1, 0, 1, 0), (0, 0, 0, 0)])
            games.append(RatedGame(tuple(rng.sample("abcdef", 4)), ranks, PARTNER_TEAMS))
    parameters = RatingParameters(beta=9.0, tau=0.0, draw_probability=0.05)
    expected: dict[Hashable, Skill] = {}
    for game in games:
        expected.update(
            rate_game(expected, game.seats, game.ranks, game.teams, parameters=parameters)
        )
    got = prequential(games, parameters).skills
    assert set(got) == set(expected)
    for bot, skill in expected.items():
        assert got[bot].mu == pytest.approx(skill.mu, abs=1e-9)
        assert got[bot].sigma == pytest.approx(skill.sigma, abs=1e-9)


def test_the_composite_likelihood_prefers_the_true_beta_on_four_seat_games() -> None:
    games = synthetic_games(3, beta=8.0, draw_probability=0.1, games=150, seats=4)
    totals = {
        beta: prequential(games, DEFAULT_PARAMETERS.with_changes(beta=beta, tau=0.0)).total
        for beta in (8.0 / 3, 8.0, 24.0)
    }
    assert totals[8.0] > max(totals[8.0 / 3], totals[24.0])


# ------------------------------------------------------------------ the fit


@pytest.mark.parametrize(("beta", "draw_probability"), [(3.0, 0.3), (6.0, 0.2), (12.0, 0.05)])
@pytest.mark.parametrize("seed", [0, 1])
def test_fit_recovers_beta_within_30_percent_and_the_draw_probability_within_0_08(
    seed: int, beta: float, draw_probability: float
) -> None:
    _, result = fitted(seed, beta, draw_probability)
    assert result.beta == pytest.approx(beta, rel=0.3)
    assert result.draw_probability == pytest.approx(draw_probability, abs=0.08)
    assert result.parameters.tau == POOL_TAU
    assert result.at_bound == ()


def test_fit_holds_out_every_fifth_game_and_keeps_the_base_prior() -> None:
    games, result = fitted(0, 6.0, 0.2)
    assert (result.games, result.held_out_games) == (600, 120)
    assert (result.parameters.mu, result.parameters.sigma) == (MU, SIGMA)
    assert result.baseline == DEFAULT_PARAMETERS
    assert result.held_out_log_likelihood == held_out_log_likelihood(games, result.parameters)
    assert result.baseline_held_out_log_likelihood == held_out_log_likelihood(
        games, DEFAULT_PARAMETERS
    )


def test_held_out_games_are_scored_but_never_rated() -> None:
    games = [RatedGame(("a", "b"), (0, 1))] * 4 + [RatedGame(("a", "c"), (1, 0))]
    scored_after = prequential(games[:4], DEFAULT_PARAMETERS).skills
    expected = game_log_likelihood(scored_after, games[4], DEFAULT_PARAMETERS)
    assert held_out_log_likelihood(games, DEFAULT_PARAMETERS) == pytest.approx(expected)
    assert held_out_mask(10) == (False,) * 4 + (True,) + (False,) * 4 + (True,)


@pytest.mark.parametrize(
    "wrong",
    [
        {"beta": 0.6, "draw_probability": 0.2},
        {"beta": 30.0, "draw_probability": 0.2},
        {"beta": 6.0, "draw_probability": 0.01},
        {"beta": 6.0, "draw_probability": 0.7},
    ],
)
def test_fitted_parameters_predict_held_out_games_better_than_badly_wrong_ones(
    wrong: dict[str, float],
) -> None:
    for seed in (0, 1):
        games, result = fitted(seed, 6.0, 0.2)
        parameters = DEFAULT_PARAMETERS.with_changes(tau=0.0, **wrong)
        assert result.held_out_log_likelihood > held_out_log_likelihood(games, parameters)


def test_games_that_never_tie_fit_the_lowest_draw_probability() -> None:
    games = [game for game in synthetic_games(2, beta=6.0, draw_probability=0.2, games=400)
             if len(set(game.ranks)) == 2][:200]
    result = fit(games)
    assert result.at_bound == ("draw_probability",)
    assert result.draw_probability < 0.002


def test_a_fit_reports_its_standard_error_and_the_coin_flip_it_must_beat() -> None:
    _, result = fitted(0, 6.0, 0.2)
    assert math.isfinite(result.beta_standard_error)
    assert 0 < result.beta_standard_error < 0.3 * result.beta
    assert result.coin_flip_log_likelihood < math.log(0.5)  # a fifth of the games tie
    assert result.held_out_log_likelihood > result.coin_flip_log_likelihood
    assert result.warning == ""  # 600 games, nothing at a bound
    assert result.to_dict()["beta_standard_error"] == result.beta_standard_error


def test_a_fit_on_games_that_tell_nobody_apart_warns_of_its_bound_and_its_sample() -> None:
    """Two bots that win by turns: the best β is as large as the search allows."""
    games = [RatedGame(("a", "b"), (0, 1) if n % 2 else (1, 0)) for n in range(150)]
    result = fit(games)
    assert "beta" in result.at_bound and math.isnan(result.beta_standard_error)
    assert "beta ended at the edge of its search range" in result.warning
    assert "only 150 games (fewer than 500)" in result.warning
    assert result.coin_flip_log_likelihood == pytest.approx(math.log(0.999 / 2))  # no ties


@pytest.mark.parametrize(("games", "every", "message"), [(4, 5, "too few"), (10, 1, "at least 2")])
def test_too_few_games_to_hold_one_out_are_refused(games: int, every: int, message: str) -> None:
    with pytest.raises(FitError, match=message):
        fit(synthetic_games(0, beta=6.0, draw_probability=0.2, games=games), held_out_every=every)


# ------------------------------------------------------------------ τ within a pool


def sigma_after(games: list[RatedGame], counts: tuple[int, ...], tau: float) -> list[float]:
    parameters = DEFAULT_PARAMETERS.with_changes(tau=tau)
    return [prequential(games[:count], parameters).skills["strong"].sigma for count in counts]


def close_match(seed: int, games: int) -> list[RatedGame]:
    """Two bots, the stronger winning 60% of the time."""
    rng = random.Random(seed)
    return [RatedGame(("strong", "weak"), (0, 1) if rng.random() < 0.6 else (1, 0))
            for _ in range(games)]


def test_with_pool_tau_sigma_keeps_shrinking_like_one_over_root_games() -> None:
    # Measured: σ = 0.76, 0.43, 0.23, 0.13 after 100, 300, 1000, 3000 games;
    # under the default τ it stops at 0.78 from about 300 games on.
    counts = (100, 300, 1000, 3000)
    for seed in range(3):
        games = close_match(seed, 3000)
        pool = sigma_after(games, counts, POOL_TAU)
        default = sigma_after(games, counts, DEFAULT_PARAMETERS.tau)
        assert pool == sorted(pool, reverse=True)
        assert pool[-1] < pool[1] / 3 < 0.15
        assert default[-1] == pytest.approx(default[1], abs=0.02) and default[-1] > 0.7


def test_with_pool_tau_close_bots_are_eventually_separated_and_with_the_default_never() -> None:
    for seed in range(3):
        games = close_match(seed, 3000)
        for tau, separated in ((POOL_TAU, True), (DEFAULT_PARAMETERS.tau, False)):
            skills = prequential(games, DEFAULT_PARAMETERS.with_changes(tau=tau)).skills
            strong, weak = skills["strong"], skills["weak"]
            assert (strong.conservative > weak.mu + 3 * weak.sigma) is separated


# ------------------------------------------------------------------ UNO


TWO_TEAM_TABLES = [kind for kind in TABLE_KINDS if kind.seats == 2 or kind.teams is not None]


@pytest.mark.parametrize("kind", TWO_TEAM_TABLES, ids=lambda kind: kind.name)
def test_fit_on_uno_single_hands_predicts_held_out_games_better_than_the_defaults(
    kind: TableKind,
) -> None:
    # `python -m arena.rating.demo` measures this on more games, at every kind of table.
    for seed in (0, 1):
        result = fit(play_pool(kind, 400, seed=seed))
        assert result.held_out_gain > 0
        assert result.beta > DEFAULT_PARAMETERS.beta
