"""The leaderboard: scores with intervals, adjacent separations, shared places and tiers."""

from __future__ import annotations

import random

import pytest

from arena.stats import Leaderboard, RankedGame, leaderboard, place_text
from arena.stats.simulate import tournament


def duel(block: object, winner: str, loser: str) -> RankedGame:
    """A two-seat game `winner` won."""
    return RankedGame(block, (winner, loser), (0, 1))


def draw(block: object, first: str, second: str) -> RankedGame:
    """A two-seat game the two drew."""
    return RankedGame(block, (first, second), (0, 0))


def test_place_text_shows_a_shared_place_with_an_en_dash() -> None:
    assert place_text(2, 3) == "2–3"
    assert place_text(4, 4) == "4"


def test_a_bot_that_beats_everyone_every_time_stands_alone_above_two_equal_bots() -> None:
    games = []
    for block in range(40):
        games += [duel((block, 1), "ace", "b"), duel((block, 2), "ace", "c"),
                  duel((block, 3), "b", "c") if block % 2 else duel((block, 3), "c", "b")]
    board = leaderboard(games)
    assert [(s.bot, s.place, s.tier) for s in board.standings] == [
        ("ace", "1", 1), ("b", "2–3", 2), ("c", "2–3", 2)]
    assert (board.standing("b").place_low, board.standing("b").place_high) == (2, 3)


def test_standings_are_sorted_by_score_and_equal_scores_by_name() -> None:
    games = [draw(block, "zed", "amy") for block in range(5)]
    assert [s.bot for s in leaderboard(games).standings] == ["amy", "zed"]


def test_three_straight_wins_are_not_enough_to_separate_two_bots() -> None:
    board = leaderboard([duel(block, "a", "b") for block in range(3)])
    assert [s.place for s in board.standings] == ["1–2", "1–2"]
    assert board.standing("a").score == 1.0 and board.standing("a").ci_low < 1.0


def test_six_straight_wins_separate_two_bots_as_an_exact_sign_test_would() -> None:
    five = leaderboard([duel(block, "a", "b") for block in range(5)])
    six = leaderboard([duel(block, "a", "b") for block in range(6)])
    assert not five.separations[0].separated
    assert six.separations[0].separated


def test_every_interval_holds_its_score_within_zero_and_one() -> None:
    board = leaderboard(tournament({"a": 0.5, "b": 0.0, "c": -0.5}, 8, random.Random(4)))
    for standing in board.standings:
        assert 0.0 <= standing.ci_low <= standing.score <= standing.ci_high <= 1.0


def test_separated_means_the_p_value_is_below_alpha_over_the_adjacent_pairs() -> None:
    rng = random.Random(5)
    strengths = {"a": 0.6, "b": 0.3, "c": 0.0, "d": -0.3, "e": -0.6}
    checked = 0
    for _ in range(40):
        board = leaderboard(tournament(strengths, 15, rng))
        for separation in board.separations:
            assert separation.separated == (separation.p_value < 0.05 / 4)
            checked += separation.separated
    assert checked > 0, "some pairs are separated, so the check has bite"


def test_a_board_of_one_bot_pair_is_tested_at_the_plain_confidence() -> None:
    rng = random.Random(6)
    for _ in range(40):
        board = leaderboard(tournament({"a": 0.3, "b": 0.0}, 20, rng))
        assert board.separations[0].separated == (board.separations[0].p_value < 0.05)


def test_repeating_every_game_inside_its_block_adds_no_information() -> None:
    games = tournament({"a": 0.3, "b": 0.0, "c": 0.0}, 60, random.Random(7), duplicate=False)
    repeated_in_block = [game for game in games for _ in range(4)]
    repeated_apart = [RankedGame((game.block, copy), game.seats, game.ranks)
                      for game in games for copy in range(4)]

    def width(board_games: list[RankedGame]) -> float:
        standing = leaderboard(board_games).standing("a")
        return standing.ci_high - standing.ci_low

    assert width(repeated_in_block) == pytest.approx(width(games), rel=0.02)
    assert width(repeated_apart) == pytest.approx(width(games) / 2, rel=0.05)


def test_declaring_duplicate_blocks_narrows_the_interval_when_deal_luck_cancels() -> None:
    games = tournament({"a": 0.3, "b": 0.0, "c": 0.0, "d": 0.0}, 100, random.Random(8),
                       duplicate=True, luck=2.0)
    undeclared = [RankedGame((game.block, index), game.seats, game.ranks)
                  for index, game in enumerate(games)]
    declared, ignored = leaderboard(games).standing("a"), leaderboard(undeclared).standing("a")
    assert declared.ci_high - declared.ci_low < 0.8 * (ignored.ci_high - ignored.ci_low)


def test_a_bot_that_only_played_teammates_is_left_out() -> None:
    games = [RankedGame(1, ("a", "b"), (0, 0), ((0, 1),)), duel(2, "c", "d")]
    assert sorted(s.bot for s in leaderboard(games).standings) == ["c", "d"]


def test_a_confidence_of_one_is_refused() -> None:
    with pytest.raises(ValueError, match="confidence"):
        leaderboard([duel(1, "a", "b")], confidence=1.0)


def test_an_interval_holds_the_score_it_is_printed_beside_even_at_low_confidence() -> None:
    games = [RankedGame(block=i, seats=("a", "b"), ranks=(0, 1)) for i in range(12)]
    for confidence in (0.5, 0.8, 0.95):
        for standing in leaderboard(games, confidence).standings:
            assert standing.ci_low <= standing.score <= standing.ci_high, (confidence, standing)


def test_a_round_robin_board_is_stratified_by_pairing_and_says_so() -> None:
    from arena.stats.simulate import round_robin

    field = {"a": 2.0, "b": 0.0, "c": -2.0}  # far apart: the opponent mix matters most
    games = round_robin(field, 8, random.Random(1))
    plain, strata = leaderboard(games), leaderboard(games, stratify=True)
    assert "stratified by pairing" in strata.interval_method
    assert "stratified" not in plain.interval_method
    assert all("stratified by pairing" in s.method for s in strata.separations)
    for bot in field:
        assert strata.standing(bot).score == plain.standing(bot).score

    def width(board: Leaderboard) -> float:
        return sum(s.ci_high - s.ci_low for s in board.standings)

    assert width(strata) < 0.9 * width(plain)


def test_one_pairing_leaves_nothing_to_stratify() -> None:
    games = tournament({"a": 0.5, "b": 0.0, "c": -0.5}, 6, random.Random(2))
    assert leaderboard(games, stratify=True) == leaderboard(games)


@pytest.mark.parametrize(("deals", "separated"), [(4, False), (5, False), (6, True)])
def test_heads_up_duplicate_deals_separate_no_sooner_than_an_exact_test(
        deals: int, separated: bool) -> None:
    """`a` wins every game; the exact sign-flip test over deals gives p = 2/2^deals."""
    games = [RankedGame(block=deal, seats=seats, ranks=(0, 1) if seats[0] == "a" else (1, 0))
             for deal in range(deals) for seats in (("a", "b"), ("b", "a"))]
    [pair] = leaderboard(games).separations
    assert pair.separated is separated
    assert pair.p_value >= 2 / 2 ** deals


def test_the_sign_flip_test_is_exact() -> None:
    from arena.stats.distributions import sign_flip_p

    assert sign_flip_p([1.0] * 4) == 2 / 16
    assert sign_flip_p([0.5, -0.5]) == 1.0
    # |Σ| ≥ 1.5 for flips of (1, 0.5): (+,+) and (−,−): 2 of 4.
    assert sign_flip_p([1.0, 0.5]) == 0.5
    assert sign_flip_p([0.25] * 41) is None
