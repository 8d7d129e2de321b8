"""A bot's score in a game: its mean result against its opponents (1, 0.5, 0)."""

from __future__ import annotations

import pytest

from arena.stats import RankedGame

PARTNERS = ((0, 2), (1, 3))


def test_the_winner_of_a_four_seat_game_scores_one_and_the_last_zero() -> None:
    game = RankedGame("deal", ("a", "b", "c", "d"), (0, 1, 2, 3))
    assert [game.score(seat) for seat in range(4)] == [1.0, pytest.approx(2 / 3),
                                                       pytest.approx(1 / 3), 0.0]


def test_a_tie_counts_half_against_each_tied_opponent() -> None:
    game = RankedGame("deal", ("a", "b", "c", "d"), (0, 1, 1, 3))
    assert game.score(1) == pytest.approx((0.0 + 0.5 + 1.0) / 3)


def test_the_scores_of_a_table_average_one_half() -> None:
    game = RankedGame("deal", ("a", "b", "c", "d", "e"), (2, 0, 2, 4, 1))
    assert sum(score for _, _, score in game.scores()) / 5 == pytest.approx(0.5)


def test_a_two_seat_game_scores_win_draw_and_loss() -> None:
    assert RankedGame(1, ("a", "b"), (0, 1)).score(0) == 1.0
    assert RankedGame(1, ("a", "b"), (0, 0)).score(0) == 0.5
    assert RankedGame(1, ("a", "b"), (1, 0)).score(0) == 0.0


def test_teammates_are_not_opponents_so_the_winning_team_scores_one() -> None:
    game = RankedGame("deal", ("a", "b", "c", "d"), (0, 1, 0, 1), PARTNERS)
    assert game.opponents(0) == (1, 3)
    assert [game.score(seat) for seat in range(4)] == [1.0, 0.0, 1.0, 0.0]


def test_a_seat_without_opponents_has_no_score() -> None:
    game = RankedGame("deal", ("a", "b"), (0, 0), ((0, 1),))
    assert game.score(0) is None
    assert list(game.scores()) == []


def test_teammates_with_different_ranks_are_refused() -> None:
    with pytest.raises(ValueError, match="share a rank"):
        RankedGame("deal", ("a", "b", "c", "d"), (0, 1, 2, 3), PARTNERS)


def test_teams_that_miss_a_seat_are_refused() -> None:
    with pytest.raises(ValueError, match="every seat exactly once"):
        RankedGame("deal", ("a", "b", "c", "d"), (0, 1, 0, 1), ((0, 2), (1,)))


def test_a_bot_in_two_seats_is_refused() -> None:
    with pytest.raises(ValueError, match="at most once"):
        RankedGame("deal", ("a", "a"), (0, 1))


def test_ranks_must_match_the_seats() -> None:
    with pytest.raises(ValueError, match="3 ranks"):
        RankedGame("deal", ("a", "b"), (0, 1, 2))
