"""The worked example: the trained linear bot, loaded from its folder as the lane loads any
SDK bot, beats the random sample bot (it won 99% of its evaluation games)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("numpy", reason="the env extra is not installed")

from arena.engine import RuleSet  # noqa: E402
from arena.env.game import play_game  # noqa: E402
from arena.env.loading import load_bot  # noqa: E402
from arena.env.seat import SdkSeat  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "trained_bot"


def test_the_trained_bot_beats_the_random_bot_in_most_games() -> None:
    linear = load_bot("linear", "python linear_bot.py", EXAMPLE).bot
    rnd = load_bot("random", "python random_bot.py",
                   EXAMPLE.parents[1] / "sample_bots" / "python").bot
    rules = RuleSet(target_score=None)
    wins = 0
    for seed in range(20):
        order = [linear, rnd] if seed % 2 else [rnd, linear]
        game = play_game([SdkSeat(b) for b in order], ["a", "b"], rules, seed, f"g{seed}")
        assert game.outcome is not None
        wins += order.index(linear) in game.outcome.winners
    assert wins >= 14  # 99% in training's evaluation; 14 of 20 is far below that
