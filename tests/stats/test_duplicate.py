"""The duplicate design measured: intraclass correlation, design effect and games saved."""

from __future__ import annotations

import random

import pytest

from arena.stats import RankedGame, duplicate_effect
from arena.stats.simulate import tournament

FIELD = {"a": 0.3, "b": 0.0, "c": 0.0, "d": -0.3}


def test_games_that_are_each_their_own_block_have_nothing_to_measure() -> None:
    assert duplicate_effect(tournament(FIELD, 20, random.Random(1), duplicate=False)) is None


def test_rotations_that_cancel_exactly_save_every_game() -> None:
    games = [RankedGame(deal, seats, (0, 1))
             for deal in range(10) for seats in (("a", "b"), ("b", "a"))]
    effect = duplicate_effect(games)
    assert effect is not None
    assert (effect.block_size, effect.blocks, effect.games) == (2, 20, 40)
    assert effect.design_effect == pytest.approx(0.0)
    assert effect.intraclass_correlation == pytest.approx(-1.0)
    assert effect.games_saved == pytest.approx(1.0)


def test_rotations_that_repeat_one_result_cost_games() -> None:
    rng = random.Random(2)
    games = []
    for deal in range(50):
        ranks = (0, 1) if rng.random() < 0.5 else (1, 0)
        games += [RankedGame(deal, ("a", "b"), ranks)] * 2
    effect = duplicate_effect(games)
    assert effect is not None
    assert effect.intraclass_correlation == pytest.approx(1.0, abs=0.05)
    assert effect.games_saved == pytest.approx(-1.0, abs=0.05)


def test_without_deal_luck_duplicate_deals_save_nothing() -> None:
    effect = duplicate_effect(tournament(FIELD, 400, random.Random(3), luck=0.0))
    assert effect is not None
    assert effect.design_effect == pytest.approx(1.0, abs=0.1)


def test_with_strong_deal_luck_duplicate_deals_save_a_third_of_the_games_or_more() -> None:
    effect = duplicate_effect(tournament(FIELD, 400, random.Random(4), luck=1.0))
    assert effect is not None
    print(f"\nsynthetic, luck 1: {effect}")
    assert effect.games_saved > 0.3
    assert effect.intraclass_correlation < 0.0


def test_who_sits_at_the_table_is_not_counted_as_deal_luck() -> None:
    rng = random.Random(5)
    games = [*tournament({"a": 2.0, "b": 0.0}, 200, rng, luck=0.0),
             *[RankedGame(("other", game.block), game.seats, game.ranks)
               for game in tournament({"a": -2.0, "c": 0.0}, 200, rng, luck=0.0)]]
    effect = duplicate_effect(games)
    assert effect is not None
    assert effect.design_effect == pytest.approx(1.0, abs=0.15)
