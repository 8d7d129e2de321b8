"""TrueSkill ratings: documented reference values, teams, ties and the leaderboard."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from arena.engine import PARTNER_TEAMS
from arena.rating import (
    DEFAULT_SKILL,
    RatingError,
    Skill,
    leaderboard,
    rate_game,
)


def test_one_on_one_win_matches_the_trueskill_documentation() -> None:
    after = rate_game({}, ["winner", "loser"], [0, 1])
    assert after["winner"].mu == pytest.approx(29.396, abs=1e-3)
    assert after["winner"].sigma == pytest.approx(7.171, abs=1e-3)
    assert after["loser"].mu == pytest.approx(20.604, abs=1e-3)
    assert after["loser"].sigma == pytest.approx(7.171, abs=1e-3)


def test_one_on_one_draw_matches_the_trueskill_documentation() -> None:
    after = rate_game({}, ["a", "b"], [0, 0])
    for bot in ("a", "b"):
        assert after[bot].mu == pytest.approx(25.000, abs=1e-3)
        assert after[bot].sigma == pytest.approx(6.458, abs=1e-3)


def test_one_against_two_matches_the_trueskill_documentation() -> None:
    after = rate_game({}, ["solo", "left", "right"], [0, 1, 1], teams=[[0], [1, 2]])
    assert after["solo"].mu == pytest.approx(33.731, abs=1e-3)
    assert after["solo"].sigma == pytest.approx(7.317, abs=1e-3)
    for bot in ("left", "right"):
        assert after[bot].mu == pytest.approx(16.269, abs=1e-3)
        assert after[bot].sigma == pytest.approx(7.317, abs=1e-3)


def test_free_for_all_orders_means_by_place_and_shrinks_every_sigma() -> None:
    after = rate_game({}, ["first", "second", "third", "fourth"], [0, 1, 2, 3])
    means = [after[bot].mu for bot in ("first", "second", "third", "fourth")]
    assert means == sorted(means, reverse=True)
    assert all(skill.sigma < DEFAULT_SKILL.sigma for skill in after.values())


def test_single_hand_losers_tied_on_zero_stay_level_with_each_other() -> None:
    after = rate_game({}, ["winner", "b", "c", "d"], [0, 1, 1, 1])
    for bot in ("c", "d"):
        assert after[bot].mu == pytest.approx(after["b"].mu, abs=0.05)
    assert after["winner"].mu > max(after[bot].mu for bot in ("b", "c", "d"))


def test_partner_game_moves_both_partners_alike() -> None:
    after = rate_game({}, ["a", "b", "c", "d"], [0, 1, 0, 1], teams=PARTNER_TEAMS)
    assert after["a"] == after["c"]
    assert after["b"] == after["d"]
    assert after["a"].mu > 25 > after["b"].mu


def test_stronger_prior_gains_less_from_beating_a_weaker_bot() -> None:
    strong = rate_game({"s": Skill(35.0, 3.0), "w": Skill(15.0, 3.0)}, ["s", "w"], [0, 1])
    even = rate_game({}, ["s", "w"], [0, 1])
    assert strong["s"].mu - 35.0 < even["s"].mu - 25.0


def test_bot_missing_from_before_starts_at_the_default() -> None:
    assert rate_game({"a": DEFAULT_SKILL}, ["a", "b"], [0, 1]) == rate_game({}, ["a", "b"], [0, 1])


def test_same_bot_on_two_teams_is_refused() -> None:
    with pytest.raises(RatingError, match="two teams"):
        rate_game({}, ["a", "a"], [0, 1])


def test_same_bot_twice_on_one_team_is_rated_once() -> None:
    after = rate_game({}, ["a", "b", "a", "c"], [0, 1, 0, 1], teams=PARTNER_TEAMS)
    assert set(after) == {"a", "b", "c"}


def test_partners_with_different_ranks_are_refused() -> None:
    with pytest.raises(RatingError, match="different ranks"):
        rate_game({}, ["a", "b", "c", "d"], [0, 1, 1, 1], teams=PARTNER_TEAMS)


@pytest.mark.parametrize(
    ("seats", "ranks", "teams", "message"),
    [
        (["a", "b"], [0], None, "2 seats but 1 ranks"),
        (["a"], [0], None, "at least 2 seats"),
        (["a", "b", "c"], [0, 1, 1], [[0], [1]], "every seat"),
        (["a", "b", "c"], [0, 1, 1], [[0], [1, 1, 2]], "exactly once"),
        (["a", "b"], [0, 0], [[0, 1]], "two non-empty teams"),
    ],
)
def test_inconsistent_tables_are_refused(
    seats: list[str], ranks: list[int], teams: list[list[int]] | None, message: str
) -> None:
    with pytest.raises(RatingError, match=message):
        rate_game({}, seats, ranks, teams)


@dataclass(frozen=True)
class Record:
    bot: str
    mu: float
    sigma: float
    games: int
    wins: int
    points: int


def test_leaderboard_orders_by_conservative_skill_not_by_mean() -> None:
    sure = Record("sure", mu=30.0, sigma=1.0, games=40, wins=20, points=4000)
    lucky = Record("lucky", mu=35.0, sigma=5.0, games=2, wins=2, points=300)
    rows = leaderboard([lucky, sure])
    assert [row.bot for row in rows] == ["sure", "lucky"]
    assert rows[0].conservative == pytest.approx(27.0)
    assert rows[0].win_rate == pytest.approx(0.5)
    assert rows[0].average_points == pytest.approx(100.0)
    assert [row.place for row in rows] == [1, 2]


def test_leaderboard_shares_places_between_equal_ratings() -> None:
    rows = leaderboard([Record(name, 25.0, 5.0, 1, 0, 0) for name in ("b", "a")]
                       + [Record("c", 20.0, 5.0, 0, 0, 0)])
    assert [(row.place, row.bot) for row in rows] == [(1, "a"), (1, "b"), (3, "c")]
    assert rows[2].win_rate == 0.0 and rows[2].average_points == 0.0
