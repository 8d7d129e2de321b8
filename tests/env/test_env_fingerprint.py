"""The environment gives, step for step, what it gave before it was made faster: a digest of
every agent's observation and mask, the rewards and the infos of seeded episodes, taken
from the environment as it was (the encoding built from each `SeatView`)."""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the env extra is not installed")

import arena.env  # noqa: E402

HOUSE = {"target_score": None, "seven_o": True, "jump_in": True, "progressive": True,
         "deck": "2018", "shuffle_hands_card": "swap", "draw_to_match": True}
STEPS = 400


def _digest(players: int, rules: dict[str, Any] | None, seed: int) -> str:
    """Play `seed`'s episode (at most `STEPS` decisions) with a seeded random policy and
    digest, at each step, what every agent observes and what `last()` gives."""
    env = arena.env.env(num_players=players, rules=rules, infos=True)
    rng = random.Random(seed)
    env.reset(seed=seed)
    digest = hashlib.sha256()
    steps = 0
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        digest.update(repr((agent, reward, terminated, truncated)).encode())
        digest.update(json.dumps(info, sort_keys=True).encode())
        for other in env.agents:
            seen = env.observe(other)
            digest.update(seen["observation"].tobytes())
            digest.update(seen["action_mask"].tobytes())
        if terminated or truncated:
            env.step(None)
            continue
        steps += 1
        if steps > STEPS:
            break
        env.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
    return digest.hexdigest()


DIGESTS = {
    "official-2": "3e7f561e5aaffd7b498ff86f24c8e38e2276edb7109a12396951fc6df9bcd3f9",
    "partners-4": "0c39d8d4c73bd6bb7e3cbd0341505d4b3a4a21224f6470d673069a8bf7d27210",
    "house-rules-5": "eebb0c8fa19a88b8ae40b01da951cecee57526a0839e2c108febbcfb36d8c467",
    "to-100-points-3": "6fac3566a6f6c7319ce12f801df268197979da38f4ab79aef8bd22ffe3f86af3",
    "official-10": "7d9792ea7a3884dfd4508022aa4c95abbd9b6ab4e8ace08a1e3a5b87b59ff09b",
}
"""Each episode's digest, as the environment gave it before it read the game directly."""


@pytest.mark.parametrize(("players", "rules", "seed", "name"), [
    (2, None, 0, "official-2"),
    (4, {"target_score": None, "scoring": "partners"}, 1, "partners-4"),
    (5, HOUSE, 2, "house-rules-5"),
    (3, {"target_score": 100}, 3, "to-100-points-3"),
    (10, {"target_score": None}, 4, "official-10"),
])
def test_seeded_episodes_observe_exactly_what_they_observed_before(
        players: int, rules: dict[str, Any] | None, seed: int, name: str) -> None:
    assert _digest(players, rules, seed) == DIGESTS[name]
