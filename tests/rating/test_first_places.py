"""`wins` on a leaderboard: outright firsts only, shared firsts counted apart."""

from __future__ import annotations

from arena.rankings import first_places
from arena.stats import RankedGame


def test_a_first_place_shared_with_an_opponent_is_not_a_win() -> None:
    games = [RankedGame(block=1, seats=("a", "b"), ranks=(0, 1)),
             RankedGame(block=2, seats=("a", "b"), ranks=(0, 0)),
             RankedGame(block=3, seats=("a", "b", "c"), ranks=(1, 0, 0))]
    assert first_places(games) == {"a": (1, 1), "b": (0, 2), "c": (0, 1)}


def test_teammates_win_together() -> None:
    game = RankedGame(block=1, seats=("a", "b", "c", "d"), ranks=(0, 1, 0, 1),
                      teams=((0, 2), (1, 3)))
    assert first_places([game]) == {"a": (1, 0), "b": (0, 0), "c": (1, 0), "d": (0, 0)}


def test_wins_never_exceed_what_the_score_credits() -> None:
    """Heads up, the score counts a win as 1 and a tie as ½: wins ≤ score × games."""
    games = [RankedGame(block=n, seats=("a", "b"), ranks=(0, 0)) for n in range(6)]
    wins, shared = first_places(games)["a"]
    assert wins == 0 and shared == 6 and wins <= 0.5 * len(games)
