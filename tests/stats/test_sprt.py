"""The SPRT between two bots: its error rates, that it stops, and real UNO games.

The simulated blocks are duplicate heads-up deals: a deal favours one seat by
`u` (uniform in ±`SEAT_SPREAD`), and the two rotations give that seat to each
bot in turn, so bot A's expected scores in its two games are `s + u` and `s − u`
(a tie with chance `TIE_CHANCE`, else a win or a loss). A's expected block score is `s`,
and its two games are negatively correlated, as duplicate games are.

Run `python -m tests.stats.test_sprt` from the repository root to print the
measured error rates and average sample numbers.
"""

from __future__ import annotations

import functools
import math
import random
import statistics
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from statistics import NormalDist

import pytest

from arena.engine import Action, ActionKind, Game, RuleSet
from arena.stats.sequential import block_scores
from arena.stats.sprt import (
    DEFAULT_ALPHA,
    DEFAULT_BETA,
    Decision,
    Model,
    Sprt,
    SprtError,
    elo_to_score,
    multinomial_llr,
    normal_llr,
    score_to_elo,
    wald_bounds,
)

SEAT_SPREAD = 0.3
TIE_CHANCE = 0.02
MAX_BLOCKS = 20_000
"""No run in these tests needs a tenth of this; reaching it means the test did not stop."""


def duplicate_block(rng: random.Random, score: float) -> float:
    """A's block score in one simulated duplicate heads-up deal of expected score `score`."""
    advantage = rng.uniform(-SEAT_SPREAD, SEAT_SPREAD)
    total = 0.0
    for expected in (score + advantage, score - advantage):
        draw = rng.random()
        if draw < TIE_CHANCE:
            total += 0.5
        elif draw < TIE_CHANCE + expected - TIE_CHANCE / 2.0:
            total += 1.0
    return total / 2.0


@dataclass(frozen=True)
class Outcome:
    """How one SPRT run ended."""

    decision: Decision
    blocks: int


def run_sprt(seed: int, true_score: float, make: Callable[[], Sprt],
             max_blocks: int = MAX_BLOCKS) -> Outcome:
    """Feed simulated blocks of expected score `true_score` to a new test until it decides
    (or `max_blocks` blocks have been fed)."""
    rng = random.Random(seed)
    test = make()
    while test.blocks < max_blocks:
        if test.add(duplicate_block(rng, true_score)) is not Decision.CONTINUE:
            break
    return Outcome(test.decision, test.blocks)


def rate(outcomes: list[Outcome], decision: Decision) -> float:
    """The share of runs that ended in `decision`."""
    return sum(o.decision is decision for o in outcomes) / len(outcomes)


def tolerance(error_rate: float, runs: int) -> float:
    """Three binomial standard errors of a measured rate near `error_rate` over `runs` runs."""
    return 3.0 * math.sqrt(error_rate * (1.0 - error_rate) / runs)


def design(model: Model = Model.NORMAL, score1: float = 0.55) -> Callable[[], Sprt]:
    """A factory of tests of H0 0.5 against H1 `score1` at the default α and β."""
    return lambda: Sprt(0.5, score1, model=model)


# ------------------------------------------------------------------ settings


def test_the_bounds_are_walds() -> None:
    test = Sprt(alpha=0.05, beta=0.1)
    assert (test.lower_bound, test.upper_bound) == pytest.approx(
        (math.log(0.1 / 0.95), math.log(0.9 / 0.05)))
    assert wald_bounds(0.05, 0.1) == (test.lower_bound, test.upper_bound)


def test_elo_and_score_convert_both_ways() -> None:
    assert elo_to_score(0.0) == 0.5
    assert score_to_elo(0.513) == pytest.approx(9.04, abs=0.01)
    assert elo_to_score(score_to_elo(0.7)) == pytest.approx(0.7)
    test = Sprt.from_elo(0.0, 10.0)
    assert test.score0 == 0.5
    assert test.score1 == pytest.approx(0.5144, abs=1e-4)


@pytest.mark.parametrize(("score0", "score1", "alpha"), [
    (0.5, 0.5, 0.05), (0.55, 0.5, 0.05), (0.0, 0.5, 0.05), (0.5, 0.51, 0.0), (0.5, 0.51, 0.5)])
def test_bad_settings_are_refused(score0: float, score1: float, alpha: float) -> None:
    with pytest.raises(SprtError):
        Sprt(score0, score1, alpha=alpha)


def test_a_score_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(SprtError, match="between 0 and 1"):
        Sprt().add(1.2)


def test_a_decided_test_takes_no_more_blocks() -> None:
    test = Sprt(0.5, 0.6, model=Model.NORMAL)
    assert test.extend([1.0] * 1000) is Decision.ACCEPT_H1
    assert test.blocks < 1000
    with pytest.raises(SprtError, match="already accepted H1"):
        test.add(1.0)


def test_the_llr_starts_at_zero_and_points_to_the_hypothesis_the_mean_is_nearer() -> None:
    test = Sprt(0.5, 0.6, model=Model.NORMAL)
    assert test.llr == 0.0
    test.extend([0.5, 0.75, 0.5, 0.75])
    assert test.mean == 0.625 and test.llr > 0
    assert normal_llr(10, 0.52, 0.1, 0.5, 0.6) < 0


def test_the_two_models_agree_on_many_blocks() -> None:
    rng = random.Random(5)
    scores = [duplicate_block(rng, 0.53) for _ in range(5000)]
    counts = Counter(scores)
    mean = statistics.fmean(scores)
    normal = normal_llr(len(scores), mean, statistics.pvariance(scores), 0.5, 0.55)
    assert multinomial_llr(counts, 0.5, 0.55) == pytest.approx(normal, rel=0.05)


def test_auto_is_the_pentanomial_on_pairs_of_games_and_the_trinomial_on_single_games() -> None:
    pairs, singles, other = Sprt(), Sprt(), Sprt()
    pairs.add(0.75, games=2)
    singles.add(0.5, games=1)
    other.add(0.5, games=4)
    assert (pairs.model, singles.model, other.model) == (
        Model.PENTANOMIAL, Model.TRINOMIAL, Model.MULTINOMIAL)
    assert pairs.counts == (0, 0, 0, 1, 0) and singles.counts == (0, 1, 0)
    assert pairs.games == 2


def test_a_categorical_test_refuses_a_score_its_blocks_cannot_have() -> None:
    with pytest.raises(SprtError, match="pairs of games"):
        Sprt(model=Model.PENTANOMIAL).add(0.3)
    with pytest.raises(SprtError, match="single games"):
        Sprt(model=Model.TRINOMIAL).add(0.25)


def test_the_history_holds_the_llr_after_every_block() -> None:
    test = Sprt(model=Model.PENTANOMIAL)
    test.extend([0.5, 1.0, 0.75, 0.25])
    assert len(test.history) == 4 and test.history[-1] == test.llr
    assert test.history[1] > test.history[0]


def test_the_pentanomial_accepts_a_bot_that_wins_every_game_within_a_dozen_deals() -> None:
    """The normal model needs about 146 deals here, fishtest's exact GSPRT about 148."""
    test = Sprt()
    assert test.extend([1.0] * 200, games=2) is Decision.ACCEPT_H1
    assert test.blocks <= 12
    normal = Sprt(model=Model.NORMAL)
    assert normal.extend([1.0] * 200) is Decision.ACCEPT_H1 and normal.blocks > 140


# ------------------------------------------------------------------ error rates


RUNS = 400
"""Runs per hypothesis; three standard errors of a rate near 0.05 over them are 0.033."""


@functools.cache
def normal_outcomes(true_score: float) -> list[Outcome]:
    """RUNS runs of the normal model's test of 0.5 against 0.55 at this truth."""
    return [run_sprt(seed, true_score, design()) for seed in range(RUNS)]


def test_under_h0_the_normal_model_accepts_h1_at_most_alpha_of_the_time() -> None:
    outcomes = normal_outcomes(0.5)
    assert rate(outcomes, Decision.ACCEPT_H1) <= DEFAULT_ALPHA + tolerance(DEFAULT_ALPHA, RUNS)


def test_under_h1_the_normal_model_accepts_h0_at_most_beta_of_the_time() -> None:
    outcomes = normal_outcomes(0.55)
    assert rate(outcomes, Decision.ACCEPT_H0) <= DEFAULT_BETA + tolerance(DEFAULT_BETA, RUNS)


@pytest.mark.parametrize("true_score", [0.5, 0.55])
def test_at_either_hypothesis_the_test_needs_under_six_tenths_of_a_fixed_size_test(
        true_score: float) -> None:
    """Against the one-sided fixed-size z-test with the same α and β, from the same variance."""
    rng = random.Random(77)
    variance = statistics.pvariance(duplicate_block(rng, 0.525) for _ in range(50_000))
    fixed = fixed_size_blocks(0.5, 0.55, variance, DEFAULT_ALPHA, DEFAULT_BETA)
    average = statistics.fmean(o.blocks for o in normal_outcomes(true_score))
    assert average < 0.6 * fixed


MULTINOMIAL_RUNS = 200
"""The multinomial model costs a root search per block: fewer runs, a larger edge."""


@pytest.mark.parametrize(("true_score", "error", "nominal"), [
    (0.5, Decision.ACCEPT_H1, DEFAULT_ALPHA), (0.6, Decision.ACCEPT_H0, DEFAULT_BETA)])
def test_the_multinomial_model_keeps_its_error_rates(true_score: float, error: Decision,
                                                     nominal: float) -> None:
    outcomes = [run_sprt(seed, true_score, design(Model.MULTINOMIAL, 0.6))
                for seed in range(MULTINOMIAL_RUNS)]
    assert rate(outcomes, error) <= nominal + tolerance(nominal, MULTINOMIAL_RUNS)


@functools.cache
def pentanomial_outcomes(true_score: float) -> list[Outcome]:
    """RUNS runs of the pentanomial test of 0.5 against 0.55 at this truth."""
    return [run_sprt(seed, true_score, design(Model.PENTANOMIAL)) for seed in range(RUNS)]


@pytest.mark.parametrize(("true_score", "error", "nominal"), [
    (0.5, Decision.ACCEPT_H1, DEFAULT_ALPHA), (0.55, Decision.ACCEPT_H0, DEFAULT_BETA)])
def test_the_pentanomial_keeps_its_error_rates(true_score: float, error: Decision,
                                               nominal: float) -> None:
    assert rate(pentanomial_outcomes(true_score), error) <= nominal + tolerance(nominal, RUNS)


@pytest.mark.parametrize("true_score", [0.45, 0.5, 0.525, 0.55, 0.65])
def test_every_run_stops_wherever_the_truth_lies(true_score: float) -> None:
    outcomes = [run_sprt(seed, true_score, design()) for seed in range(100)]
    assert all(o.decision is not Decision.CONTINUE for o in outcomes)


# ------------------------------------------------------------------ real games


Policy = Callable[[Game, random.Random], Action]


def player(game: Game, rng: random.Random) -> Action:
    """Plays a card whenever it can (a random one), else any legal action."""
    legal = game.legal_actions()
    plays = [a for a in legal if a.kind is ActionKind.PLAY]
    return rng.choice(plays or legal)


def uniform(game: Game, rng: random.Random) -> Action:
    """Any legal action, uniformly: it draws far too often."""
    return rng.choice(game.legal_actions())


def uno_block(deal_seed: int, first: Policy, second: Policy) -> float:
    """`first`'s block score against `second` over both seatings of one single-hand deal."""
    rules = RuleSet(target_score=None)
    games = []
    for rotation in range(2):
        policies = (first, second) if rotation == 0 else (second, first)
        game = Game.new(rules, 2, deal_seed)
        rng = random.Random(deal_seed * 2 + rotation)
        while not game.is_over:
            assert game.decider is not None
            game.apply(policies[game.decider](game, rng))
        assert game.outcome is not None
        first_seat = rotation
        games.append({"first": game.outcome.ranks[first_seat],
                      "second": game.outcome.ranks[1 - first_seat]})
    return block_scores(games)["first"]


def uno_sprt(first: Policy, second: Policy, seed: int) -> Sprt:
    """The default SPRT (H0 0.5, H1 0.51; the pentanomial on these pairs of games) run on
    real duplicate deals until it decides."""
    test = Sprt()
    deals = (seed * 100_003 + deal for deal in range(MAX_BLOCKS))
    test.extend((uno_block(deal, first, second) for deal in deals), games=2)
    return test


def test_real_games_show_playing_when_possible_beats_uniform_random_actions() -> None:
    """About 95 % of games go to the bot that plays when it can. The pentanomial test takes
    the small spread of its deal scores into account and accepts H1 within a few dozen
    deals (the normal model gains at most about 0.02 of LLR per deal: about 150 deals)."""
    test = uno_sprt(player, uniform, seed=0)
    assert test.decision is Decision.ACCEPT_H1
    assert test.mean > 0.85 and test.blocks < 40


def test_real_games_show_uniform_random_actions_are_no_better() -> None:
    test = uno_sprt(uniform, player, seed=7)
    assert test.decision is Decision.ACCEPT_H0
    assert test.blocks < 40


# ------------------------------------------------------------------ the figures


def fixed_size_blocks(score0: float, score1: float, variance: float, alpha: float,
                      beta: float) -> float:
    """Blocks a one-sided fixed-size z-test of score0 against score1 needs at level α and
    power 1 − β."""
    z = NormalDist().inv_cdf(1 - alpha) + NormalDist().inv_cdf(1 - beta)
    return z * z * variance / (score1 - score0) ** 2


def main(runs: int = 2000) -> None:
    """Print the SPRT's measured error rates and average sample numbers against a fixed test."""
    rng = random.Random(12345)
    for score1 in (0.51, 0.53, 0.55):
        variance = statistics.pvariance(duplicate_block(rng, (0.5 + score1) / 2)
                                        for _ in range(200_000))
        fixed = fixed_size_blocks(0.5, score1, variance, DEFAULT_ALPHA, DEFAULT_BETA)
        cap = math.ceil(100 * fixed)
        print(f"H0 0.5 against H1 {score1} (α = β = 0.05), block-score variance {variance:.4f}, "
              f"{runs} runs per truth; one-sided fixed-size test: {fixed:.0f} blocks")
        for model in (Model.NORMAL, Model.MULTINOMIAL) if score1 == 0.55 else (Model.NORMAL,):
            for truth in (0.5, (0.5 + score1) / 2, score1):
                outcomes = [run_sprt(seed, truth, design(model, score1), max_blocks=cap)
                            for seed in range(runs)]
                asn = statistics.fmean(o.blocks for o in outcomes)
                print(f"  {model.value:11s} truth {truth:.3f}: accept H1 "
                      f"{rate(outcomes, Decision.ACCEPT_H1):.4f}, accept H0 "
                      f"{rate(outcomes, Decision.ACCEPT_H0):.4f}, average blocks {asn:.0f} "
                      f"({asn / fixed:.2f}x fixed), most {max(o.blocks for o in outcomes)}",
                      flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
