"""The leaderboard's rules one by one, on boards small enough to work out: what each
separation reports (against SciPy), the Bonferroni level, the exact test's part, tiers
and shared places, and what a board says about itself."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest
from scipy import stats

from arena.stats import RankedGame, leaderboard
from arena.stats.estimate import BlockTotals, estimate_difference
from arena.stats.leaderboard import (
    SCORE_INTERVAL_METHOD,
    SEPARATION_METHOD,
    STRATIFIED,
    block_sign_flip_p,
    bot_block_totals,
    pairings,
    separation,
)


def duel(block: object, winner: str, loser: str) -> RankedGame:
    """A two-seat game `winner` won."""
    return RankedGame(block, (winner, loser), (0, 1))


def heads_up(wins: int, losses: int) -> list[RankedGame]:
    """`a` and `b` heads up, one game per block: `a` wins the first `wins` blocks."""
    return [duel(i, "a", "b") if i < wins else duel(i, "b", "a")
            for i in range(wins + losses)]


def test_a_heads_up_separation_is_the_paired_t_test_or_the_sign_test_whichever_is_larger(
        ) -> None:
    [pair] = leaderboard(heads_up(7, 1)).separations
    differences = [1.0] * 7 + [-1.0]
    augmented = [*differences, 1.0, -1.0]  # the two pseudo-blocks
    t = np.mean(augmented) / stats.sem(augmented)
    t_p = 2 * stats.t.sf(t, len(differences) - 1)
    exact = stats.binomtest(7, 8).pvalue
    assert (pair.upper, pair.lower) == ("a", "b")
    assert pair.difference == pytest.approx(np.mean(differences), rel=1e-12)
    assert pair.p_value == pytest.approx(max(t_p, exact), rel=1e-9)
    assert pair.p_value == pytest.approx(exact, rel=1e-9)


def test_a_heads_up_separation_interval_is_the_student_t_one_clipped_to_plus_minus_one(
        ) -> None:
    [pair] = leaderboard(heads_up(7, 3)).separations
    augmented = [1.0] * 7 + [-1.0] * 3 + [1.0, -1.0]
    low, high = stats.t.interval(0.95, 9, loc=np.mean(augmented), scale=stats.sem(augmented))
    assert (pair.ci_low, pair.ci_high) == pytest.approx((max(-1.0, low), min(1.0, high)),
                                                        rel=1e-9)
    assert pair.level == 0.95 and not pair.separated


def test_a_separation_of_bots_that_also_met_others_takes_the_t_test_alone() -> None:
    games = [*heads_up(12, 1), duel("x", "a", "c"), duel("y", "c", "b")]
    totals = bot_block_totals(games)
    assert block_sign_flip_p(totals["a"], totals["b"]) is None
    pair = separation("a", "b", totals, 0.95)
    assert pair.p_value == estimate_difference(totals["a"], totals["b"]).p_value()
    assert pair.p_value < 0.05 and pair.separated


def test_the_exact_test_needs_the_very_same_blocks() -> None:
    totals = bot_block_totals(heads_up(3, 0))
    assert block_sign_flip_p(totals["a"], totals["b"]) == pytest.approx(0.25)
    assert block_sign_flip_p(totals["a"], {0: (1.0, 1.0)}) is None


def test_the_exact_p_value_is_taken_when_it_is_the_larger() -> None:
    # Six straight wins: the t-test's p is far below the sign test's 2/64.
    [pair] = leaderboard(heads_up(6, 0)).separations
    assert pair.p_value == pytest.approx(2 / 64, rel=1e-12)
    assert pair.separated


def test_separation_needs_the_exact_test_below_alpha_as_well() -> None:
    # Five duplicate deals won twice each: the interval alone excludes 0, the exact
    # p of 2/32 does not.
    games = [game for deal in range(5)
             for game in (duel(deal, "a", "b"), RankedGame(deal, ("b", "a"), (1, 0)))]
    [pair] = leaderboard(games).separations
    assert pair.ci_low > 0.0
    assert pair.p_value == pytest.approx(2 / 32)
    assert not pair.separated


def test_adjacent_pairs_are_tested_at_the_bonferroni_corrected_level() -> None:
    games = [duel((i, 1), "a", "b") for i in range(3)] + [duel((i, 2), "b", "c")
                                                          for i in range(3)]
    board = leaderboard(games, confidence=0.9)
    assert [s.level for s in board.separations] == pytest.approx([0.95, 0.95], rel=1e-12)
    assert board.confidence == 0.9


def test_a_bot_that_loses_every_game_heads_up_is_separated_below() -> None:
    [pair] = leaderboard(heads_up(0, 8)).separations
    assert (pair.upper, pair.lower, pair.separated) == ("b", "a", True)
    assert pair.ci_low > 0.0 and pair.difference == 1.0


def test_tiers_and_places_follow_the_separations() -> None:
    games = []
    for block in range(40):
        games += [duel((block, 1), "ace", "b"), duel((block, 2), "ace", "c"),
                  duel((block, 3), "ace", "dud"), duel((block, 4), "b", "dud"),
                  duel((block, 5), "c", "dud"),
                  duel((block, 6), "b", "c") if block % 2 else duel((block, 6), "c", "b")]
    board = leaderboard(games)
    assert [s.separated for s in board.separations] == [True, False, True]
    assert [(s.bot, s.place, s.place_low, s.place_high, s.tier) for s in board.standings] == [
        ("ace", "1", 1, 1, 1), ("b", "2–3", 2, 3, 2), ("c", "2–3", 2, 3, 2),
        ("dud", "4", 4, 4, 3)]


def test_a_standing_counts_the_bots_games_and_its_score_interval() -> None:
    board = leaderboard(heads_up(7, 3))
    a = board.standing("a")
    augmented = [1.0] * 7 + [0.0] * 3 + [1.0, 0.0]
    low, high = stats.t.interval(0.95, 9, loc=np.mean(augmented), scale=stats.sem(augmented))
    assert (a.games, a.score) == (10, 0.7)
    assert (a.ci_low, a.ci_high) == pytest.approx((low, min(1.0, high)), rel=1e-9)


def test_a_bot_not_on_the_board_has_no_standing() -> None:
    with pytest.raises(KeyError, match="nobody"):
        leaderboard(heads_up(1, 1)).standing("nobody")


def test_no_games_make_an_empty_board() -> None:
    board = leaderboard([])
    assert (board.standings, board.separations) == ((), ())


@pytest.mark.parametrize("confidence", [0.0, -0.5, 1.0, 1.5])
def test_a_confidence_outside_zero_and_one_is_refused(confidence: float) -> None:
    with pytest.raises(ValueError, match=f"confidence must be between 0 and 1, got "
                                         f"{confidence}"):
        leaderboard(heads_up(1, 1), confidence=confidence)


def test_a_board_names_its_methods() -> None:
    board = leaderboard(heads_up(2, 1))
    assert board.interval_method == SCORE_INTERVAL_METHOD == (
        "block-clustered Student-t over deal blocks, two pseudo-blocks, uncorrected")
    assert board.separations[0].method == SEPARATION_METHOD
    assert SEPARATION_METHOD.startswith("difference paired by deal block, block-clustered "
                                        "Student-t (and an exact sign-flip test")
    assert STRATIFIED == ", stratified by pairing"


def round_robin_games() -> list[RankedGame]:
    """Three bots, every pairing over four blocks of its own, with mixed results."""
    results = {("a", "b"): "aaba", ("a", "c"): "acaa", ("b", "c"): "bbcb"}
    return [duel(((x, y), i), w, y if w == x else x)
            for (x, y), winners in results.items() for i, w in enumerate(winners)]


def test_a_stratified_board_uses_the_stratified_estimates() -> None:
    games = round_robin_games()
    board = leaderboard(games, stratify=True)
    assert board.interval_method == SCORE_INTERVAL_METHOD + STRATIFIED
    assert all(s.method == SEPARATION_METHOD + STRATIFIED for s in board.separations)
    # a: 3 of 4 against b, 3 of 4 against c; the strata are the pairings.
    a = board.standing("a")
    plain = leaderboard(games).standing("a")
    assert a.score == plain.score == 0.75
    assert (a.ci_low, a.ci_high) != (plain.ci_low, plain.ci_high)


def test_each_block_is_paired_with_its_bots_sorted() -> None:
    assert pairings([duel(1, "zed", "amy"), duel(2, "amy", "bob")]) == {
        1: ("amy", "zed"), 2: ("amy", "bob")}


def test_block_totals_sum_each_bots_scores_per_block() -> None:
    games = [duel(1, "a", "b"), duel(1, "b", "a"), duel(2, "a", "b")]
    assert bot_block_totals(games) == {"a": {1: (1.0, 2.0), 2: (1.0, 1.0)},
                                       "b": {1: (1.0, 2.0), 2: (0.0, 1.0)}}


def test_a_three_seat_score_counts_each_opponent() -> None:
    totals = bot_block_totals([RankedGame(1, ("a", "b", "c"), (0, 1, 1))])
    assert totals == {"a": {1: (1.0, 1.0)}, "b": {1: (0.25, 1.0)}, "c": {1: (0.25, 1.0)}}
    assert math.isclose(sum(t[1][0] for t in totals.values()), 1.5)


def duplicate_deals(deals: int) -> list[RankedGame]:
    """`a` wins both seatings of every one of `deals` heads-up duplicate deals."""
    return [game for deal in range(deals)
            for game in (duel(deal, "a", "b"), RankedGame(deal, ("b", "a"), (1, 0)))]


def test_an_exact_p_value_of_exactly_alpha_does_not_separate() -> None:
    # Three deals won: the exact p is 2/8 = 0.25, which is α at 75% confidence.
    [pair] = leaderboard(duplicate_deals(3), confidence=0.75).separations
    assert pair.ci_low > 0.0 and pair.p_value == 0.25
    assert not pair.separated
    [wider] = leaderboard(duplicate_deals(3), confidence=0.74).separations
    assert wider.separated


def test_a_board_of_two_pairings_is_stratified() -> None:
    games = [duel(("ab", i), "a", "b") if i % 3 else duel(("ab", i), "b", "a") for i in range(6)]
    games += [duel(("ac", i), "a", "c") if i % 2 else duel(("ac", i), "c", "a") for i in range(6)]
    assert leaderboard(games, stratify=True).interval_method == SCORE_INTERVAL_METHOD + STRATIFIED


def test_standings_run_from_the_best_score_down_whatever_the_names() -> None:
    # b wins three blocks of four against a: 0.75 above 0.25, though "a" sorts first.
    games = [duel(i, "b", "a") if i < 3 else duel(i, "a", "b") for i in range(4)]
    board = leaderboard(games)
    assert [(s.bot, s.score) for s in board.standings] == [("b", 0.75), ("a", 0.25)]


@pytest.mark.parametrize("confidence", [0.0, -0.5])
def test_a_confidence_outside_zero_and_one_is_refused_even_for_no_games(confidence: float
                                                                       ) -> None:
    with pytest.raises(ValueError, match="confidence must be between 0 and 1"):
        leaderboard([], confidence=confidence)


def test_a_standings_interval_is_clipped_to_zero_and_one() -> None:
    # Two wins in three blocks: the Student-t interval on 2 degrees of freedom spills
    # over both ends of the score's range.
    a = leaderboard(heads_up(2, 1)).standing("a")
    augmented = [1.0, 1.0, 0.0, 1.0, 0.0]
    low, high = stats.t.interval(0.95, 2, loc=np.mean(augmented), scale=stats.sem(augmented))
    assert low < 0.0 and high > 1.0
    assert (a.ci_low, a.ci_high) == (0.0, 1.0)


def test_a_separation_interval_is_clipped_to_minus_one_and_one() -> None:
    [pair] = leaderboard(heads_up(2, 1)).separations
    augmented = [1.0, 1.0, -1.0, 1.0, -1.0]
    low, high = stats.t.interval(0.95, 2, loc=np.mean(augmented), scale=stats.sem(augmented))
    assert low < -1.0 and high > 1.0
    assert (pair.ci_low, pair.ci_high) == (-1.0, 1.0)


def test_a_pair_named_worse_first_is_separated_when_its_interval_lies_below_zero() -> None:
    totals = bot_block_totals(heads_up(0, 8))
    pair = separation("a", "b", totals, 0.95)
    assert pair.difference == -1.0 and pair.ci_high < 0.0
    assert pair.p_value == pytest.approx(stats.binomtest(0, 8).pvalue, rel=1e-9)
    assert pair.separated


def test_a_difference_of_exactly_zero_is_never_separated() -> None:
    # Both bots won every game, a in 20 blocks, b in 4: the pseudo-blocks pull b's
    # record down further than a's, so at 50% the interval centred on the adjusted
    # difference leaves 0 out; the interval reported is stretched to hold the observed 0.
    totals: dict[str, BlockTotals] = {"a": {i: (1.0, 1.0) for i in range(20)},
                                      "b": {("b", i): (1.0, 1.0) for i in range(4)}}
    adjusted = 21 / 22 - 5 / 6
    above = separation("a", "b", totals, 0.5)
    assert above.difference == 0.0 and above.ci_low == 0.0 and above.ci_high > adjusted
    assert not above.separated
    below = separation("b", "a", totals, 0.5)
    assert below.ci_low < -adjusted and below.ci_high == 0.0
    assert not below.separated


def brute_force_sign_flip_p(differences: list[float]) -> float:
    """The share of the 2^n sign flips whose sum is at least as far from 0 as the observed."""
    observed = abs(sum(differences))
    flips = list(itertools.product((1, -1), repeat=len(differences)))
    extreme = sum(1 for signs in flips
                  if abs(sum(s * d for s, d in zip(signs, differences, strict=True)))
                  >= observed - 1e-9)
    return extreme / len(flips)


def test_the_exact_test_compares_the_two_bots_mean_scores_block_by_block() -> None:
    # Eight duplicate deals of two games: a wins both seatings of six, and the two split
    # the other two. Per block the difference of means is 1 or 0 (not of the totals, 2 or 0).
    games = duplicate_deals(6) + [game for deal in (6, 7)
                                  for game in (duel(deal, "a", "b"), duel(deal, "b", "a"))]
    totals = bot_block_totals(games)
    expected = brute_force_sign_flip_p([1.0] * 6 + [0.0] * 2)
    assert expected == 2 / 64
    assert block_sign_flip_p(totals["a"], totals["b"]) == pytest.approx(expected)
    assert block_sign_flip_p(totals["b"], totals["a"]) == pytest.approx(expected)


def test_a_board_and_its_lines_cannot_be_changed() -> None:
    board = leaderboard(heads_up(1, 1))
    for line, name in ((board, "confidence"), (board.standings[0], "score"),
                       (board.separations[0], "separated")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(line, name, getattr(line, name))
