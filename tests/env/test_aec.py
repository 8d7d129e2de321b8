"""The PettingZoo environment: PettingZoo's own API and seed tests, episodes that repeat
from their seed, masks that are exactly the legal actions, rewards from the outcome."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the env extra is not installed")

from pettingzoo.test import api_test, seed_test  # noqa: E402

import arena.env  # noqa: E402
from arena.env.actions import ACTION_COUNT, action_index  # noqa: E402
from arena.env.aec import UnoEnv  # noqa: E402
from arena.env.encoding import OBS_SIZE  # noqa: E402

HOUSE = {"target_score": None, "seven_o": True, "jump_in": True, "progressive": True,
         "deck": "2018", "shuffle_hands_card": "swap", "draw_to_match": True}
CONFIGS = [
    pytest.param(2, None, id="official-2"),
    pytest.param(4, {"target_score": None, "scoring": "partners"}, id="partners-4"),
    pytest.param(5, HOUSE, id="house-rules-5"),
    pytest.param(10, {"target_score": 100}, id="to-100-points-10"),
]


@pytest.mark.parametrize(("players", "rules"), CONFIGS[:3])
def test_the_env_passes_pettingzoos_api_and_seed_tests(players: int,
                                                       rules: dict[str, Any] | None) -> None:
    api_test(arena.env.env(num_players=players, rules=rules, infos=True), num_cycles=60)
    seed_test(lambda: arena.env.env(num_players=players, rules=rules), num_cycles=60)


def _episode(env: UnoEnv, seed: int, policy_seed: int) -> tuple[list[int], dict[str, float],
                                                                   list[Any]]:
    """Play one episode with a seeded random policy over the mask; the actions taken, the
    rewards and the events."""
    rng = random.Random(policy_seed)
    env.reset(seed=seed)
    taken: list[int] = []
    rewards: dict[str, float] = {}
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        rewards[agent] = reward
        if terminated or truncated:
            env.step(None)
            continue
        action = rng.choice(np.flatnonzero(observation["action_mask"]).tolist())
        taken.append(action)
        env.step(action)
    return taken, rewards, list(env.game.events) if env.game else []


def test_the_same_seed_gives_the_same_episode_and_another_seed_another() -> None:
    first = _episode(UnoEnv(num_players=3), seed=7, policy_seed=1)
    again = _episode(UnoEnv(num_players=3), seed=7, policy_seed=1)
    other = _episode(UnoEnv(num_players=3), seed=8, policy_seed=1)
    assert first == again
    assert first[2] != other[2]


def test_a_reset_without_a_seed_follows_the_last_seed_given() -> None:
    env_a, env_b = UnoEnv(num_players=2), UnoEnv(num_players=2)
    env_a.reset(seed=3)
    env_b.reset(seed=3)
    env_a.reset()
    env_b.reset()
    assert env_a.seed_used == env_b.seed_used != 3


@pytest.mark.parametrize(("players", "rules"), CONFIGS)
def test_the_mask_is_exactly_the_legal_actions_at_every_step(
        players: int, rules: dict[str, Any] | None) -> None:
    env = UnoEnv(num_players=players, rules=rules, infos=True)
    rng = random.Random(5)
    for seed in range(2):
        env.reset(seed=seed)
        steps = 0
        while env.agents and steps < 250:
            agent = env.agent_selection
            if env.terminations[agent]:
                env.step(None)
                continue
            game = env.game
            assert game is not None and game.decider is not None
            legal = game.legal_actions()
            expected = {action_index(a, game.decider, players) for a in legal}
            assert len(expected) == len(legal)  # the index tells the legal actions apart
            for other in env.agents:
                mask = env.observe(other)["action_mask"]
                assert mask.shape == (ACTION_COUNT,)
                assert set(np.flatnonzero(mask).tolist()) == (
                    expected if other == agent else set())
            assert env.observe(agent)["observation"].shape == (OBS_SIZE,)
            assert {entry["index"] for entry in env.infos[agent]["legal"]} == expected
            env.step(action_index(rng.choice(legal), game.decider, players))
            steps += 1


def test_an_illegal_action_is_refused_with_the_legal_ones_named() -> None:
    env = UnoEnv(num_players=2)
    env.reset(seed=1)
    legal = set(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist())
    illegal = next(i for i in range(ACTION_COUNT) if i not in legal)
    with pytest.raises(ValueError, match="is not legal"):
        env.step(illegal)


def test_the_winners_get_plus_one_the_others_minus_one_and_a_full_tie_zero() -> None:
    seen = set()
    for seed in range(4):  # seed 1: a hand in which nobody goes out
        env = UnoEnv(num_players=4, rules={"target_score": None, "scoring": "partners"})
        _, rewards, _ = _episode(env, seed, seed)
        assert env.game is not None and env.game.outcome is not None
        winners = set(env.game.outcome.winners)
        seen.add(len(winners))
        if len(winners) == 4:
            assert set(rewards.values()) == {0.0}
        else:
            assert len(winners) == 2  # partners win together
            assert rewards == {f"seat_{s}": 1.0 if s in winners else -1.0 for s in range(4)}
    assert seen == {2, 4}


def test_the_sdk_view_is_the_view_a_bot_is_sent() -> None:
    env = UnoEnv(num_players=3, infos=True)
    env.reset(seed=2)
    view, legal = env.sdk_view()
    assert view.seat == env.agent_name_mapping[env.agent_selection]
    assert [a.kind.value for a in legal] == [a.kind.value for a in env.legal_actions()]
    assert len(view.hand) == len(env.infos[env.agent_selection]["view"]["hand"])


def test_a_table_size_the_rules_refuse_is_refused_at_once() -> None:
    with pytest.raises(ValueError):
        UnoEnv(num_players=3, rules={"scoring": "partners"})


def test_the_wrapped_env_s_last_is_pettingzoo_s_own_at_every_step() -> None:
    from pettingzoo.utils import wrappers

    ours = arena.env.env(num_players=3, infos=True)
    stock = wrappers.OrderEnforcingWrapper(arena.env.raw_env(num_players=3, infos=True))
    for env in (ours, stock):
        with pytest.raises(AttributeError, match="before reset"):
            env.last()
    assert str(ours) == str(stock)
    rng = random.Random(2)
    ours.reset(seed=8)
    stock.reset(seed=8)
    for agent in ours.agent_iter():
        mine, theirs = ours.last(), stock.last()
        for key in ("observation", "action_mask"):
            assert np.array_equal(mine[0][key], theirs[0][key])
        assert mine[1:] == theirs[1:] and agent == stock.agent_selection
        assert ours.last(observe=False)[0] is None
        action = None if mine[2] else rng.choice(np.flatnonzero(mine[0]["action_mask"]).tolist())
        ours.step(action)
        stock.step(action)
    assert not stock.agents


def test_the_infos_hold_the_deciding_seat_s_view_and_legal_actions_in_plain_values() -> None:
    from arena import wire

    env = arena.env.raw_env(num_players=4, infos=True)
    env.reset(seed=21)
    rng = random.Random(4)
    steps = 0
    assert env.game is not None
    while not env.game.is_over:
        game, seat = env.game, env.game.decider
        assert seat is not None
        view = game.view(seat)
        names = [[c.short() for c in cards] for cards in (view.hand, view.discard_pile)]
        info = env.infos[env.agent_selection]
        assert (info["view"]["hand"], info["view"]["discard_pile"]) == tuple(names)
        assert view.top_card is not None
        assert info["view"]["top_card"] == view.top_card.short()
        assert info["view"]["scores"] == list(view.scores)
        assert info["legal"] == [{**wire.action_to_dict(a), "index": action_index(a, seat, 4)}
                                 for a in game.legal_actions()]
        env.step(rng.choice([entry["index"] for entry in info["legal"]]))
        steps += 1
    assert steps > 50
