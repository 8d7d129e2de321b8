"""The lane's seats against the SDK's own client: `arena.testing.play_offline` feeds each bot
through `arena.client.Client` every message a server would send, built and parsed in full;
the lane's `SdkSeat` must make every bot play the very same game."""

from __future__ import annotations

import pytest

from arena.client.bot import Bot
from arena.engine import RuleSet
from arena.engine.rules import DeckKind, ShuffleHandsCard
from arena.env.game import play_game
from arena.env.seat import SdkSeat
from arena.testing import play_offline
from sample_bots.python.counter_bot import CounterBot
from sample_bots.python.greedy_bot import GreedyBot
from sample_bots.python.random_bot import decide as random_decide

RULES = [
    pytest.param(RuleSet(target_score=None), id="official"),
    pytest.param(RuleSet(target_score=None, seven_o=True, jump_in=True, progressive=True,
                         deck=DeckKind.EDITION_2018, shuffle_hands_card=ShuffleHandsCard.SWAP),
                 id="house-rules"),
    pytest.param(RuleSet(target_score=200), id="to-200-points"),
]


def _field() -> list[Bot]:
    from arena.client.bot import as_bot

    return [GreedyBot(), CounterBot(), as_bot(random_decide, name="random"), GreedyBot()]


@pytest.mark.parametrize("rules", RULES)
def test_the_lane_plays_the_games_the_sdk_client_plays(rules: RuleSet) -> None:
    for seed in range(3):
        offline_bots = _field()
        offline = play_offline(offline_bots[0], offline_bots[1:], rules=rules, seed=seed,
                               game_id="g")
        lane_bots = _field()
        names = [bot.name for bot in lane_bots]
        played = play_game([SdkSeat(bot) for bot in lane_bots], names, rules, seed, "g")
        assert played.actions == offline.game.actions
        assert played.outcome == offline.game.outcome
