"""Head-to-head: games, wins, losses, draws, score against the opponent, difference and LOS."""

from __future__ import annotations

import math

import pytest

from arena.stats import RankedGame, crosstable, likelihood_of_superiority

PARTNERS = ((0, 2), (1, 3))


def test_los_of_even_wins_and_losses_is_one_half() -> None:
    assert likelihood_of_superiority(17, 17) == 0.5


def test_los_without_decisive_games_is_one_half() -> None:
    assert likelihood_of_superiority(0, 0) == 0.5


def test_los_is_the_normal_cdf_of_the_win_surplus_over_its_root() -> None:
    expected = 0.5 * (1 + math.erf(20 / math.sqrt(40) / math.sqrt(2)))
    assert likelihood_of_superiority(30, 10) == pytest.approx(expected, rel=1e-12)
    assert likelihood_of_superiority(30, 10) == pytest.approx(0.99922, abs=1e-5)


def test_los_of_the_loser_is_one_minus_the_winners() -> None:
    assert likelihood_of_superiority(8, 12) == pytest.approx(1 - likelihood_of_superiority(12, 8))


def duels(results: str) -> list[RankedGame]:
    """Two-seat games of a against b: w a won, l a lost, d drawn."""
    ranks = {"w": (0, 1), "l": (1, 0), "d": (0, 0)}
    return [RankedGame(block, ("a", "b"), ranks[r]) for block, r in enumerate(results)]


def test_a_pair_counts_wins_losses_draws_and_the_score_with_draws_as_half() -> None:
    a_b, b_a = crosstable(duels("wwwld"))
    assert (a_b.bot, a_b.opponent, a_b.games, a_b.wins, a_b.losses, a_b.draws) == (
        "a", "b", 5, 3, 1, 1)
    assert a_b.score == pytest.approx(0.7)
    assert (b_a.wins, b_a.losses) == (1, 3)
    assert b_a.score == pytest.approx(0.3)
    assert a_b.los == pytest.approx(likelihood_of_superiority(3, 1))


def test_the_score_interval_holds_the_score() -> None:
    (a_b, _) = crosstable(duels("wwlwdlww"))
    assert a_b.score_low < a_b.score < a_b.score_high


def test_the_difference_compares_table_scores_over_the_shared_games_only() -> None:
    games = [RankedGame(1, ("a", "b", "c"), (0, 1, 2)), RankedGame(2, ("a", "b", "c"), (2, 0, 1)),
             RankedGame(3, ("a", "c"), (0, 1))]
    a_b = next(h for h in crosstable(games) if (h.bot, h.opponent) == ("a", "b"))
    assert a_b.games == 2
    assert a_b.difference == pytest.approx((1.0 + 0.0) / 2 - (0.5 + 1.0) / 2)


def test_teammates_never_meet_in_the_crosstable() -> None:
    games = [RankedGame(1, ("a", "b", "c", "d"), (0, 1, 0, 1), PARTNERS)]
    pairs = {(h.bot, h.opponent) for h in crosstable(games)}
    assert pairs == {("a", "b"), ("a", "d"), ("c", "b"), ("c", "d"),
                     ("b", "a"), ("d", "a"), ("b", "c"), ("d", "c")}


def test_every_opponent_at_a_larger_table_is_met() -> None:
    games = [RankedGame(1, ("a", "b", "c", "d"), (3, 0, 1, 2))]
    a_rows = [h for h in crosstable(games) if h.bot == "a"]
    assert [(h.opponent, h.losses) for h in a_rows] == [("b", 1), ("c", 1), ("d", 1)]


def test_los_is_taken_by_deal_block() -> None:
    """Four duplicate deals each won once by either bot are no evidence (LOS ½), where
    counting games apart would see eight decisive games; without duplicate deals the two
    agree."""
    split = [RankedGame(block=deal, seats=seats, ranks=(0, 1))
             for deal in range(4) for seats in (("a", "b"), ("b", "a"))]
    rows = {(r.bot, r.opponent): r for r in crosstable(split)}
    assert rows["a", "b"].los == 0.5
    lopsided = split + [RankedGame(block=9, seats=("a", "b"), ranks=(0, 1)),
                        RankedGame(block=9, seats=("b", "a"), ranks=(1, 0))]
    rows = {(r.bot, r.opponent): r for r in crosstable(lopsided)}
    assert rows["a", "b"].los == pytest.approx(0.5 + 0.5 * math.erf(2 / 2 / math.sqrt(2)))
    single = [RankedGame(block=n, seats=("a", "b"), ranks=(0, 1) if n < 7 else (1, 0))
              for n in range(10)]
    rows = {(r.bot, r.opponent): r for r in crosstable(single)}
    assert rows["a", "b"].los == pytest.approx(likelihood_of_superiority(7, 3))
