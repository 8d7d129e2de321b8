"""The Gymnasium wrapper: one learning seat against SDK bots that are told what the SDK
tells them, episodes that repeat from their seed, rewards from the outcome."""

from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy", reason="the env extra is not installed")
pytest.importorskip("gymnasium", reason="the env extra is not installed")

from arena.client import Action, Bot, Event, Table, View  # noqa: E402
from arena.client.convert import legal_from_proto  # noqa: E402
from arena.env.single import SingleSeatEnv  # noqa: E402
from sample_bots.python.counter_bot import CounterBot  # noqa: E402
from sample_bots.python.greedy_bot import GreedyBot  # noqa: E402
from sample_bots.python.random_bot import decide as random_decide  # noqa: E402


def _play(env: SingleSeatEnv, seed: int) -> tuple[list[int], float, int]:
    """An episode with a seeded random learner: its actions, its reward, its seat."""
    rng = random.Random(seed)
    observation, info = env.reset(seed=seed)
    taken: list[int] = []
    while True:
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        assert legal == np.flatnonzero(env.action_masks()).tolist()
        action = rng.choice(legal)
        taken.append(action)
        observation, reward, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            return taken, reward, info["seat"]


def test_the_learner_plays_the_sample_bots_and_an_episode_repeats_from_its_seed() -> None:
    def make() -> SingleSeatEnv:
        return SingleSeatEnv([random_decide, GreedyBot(), CounterBot()])

    runs = [_play(make(), seed) for seed in (1, 1, 2)]
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]
    assert all(reward in (-1.0, 0.0, 1.0) for _, reward, _ in runs)


def test_the_learners_seat_is_drawn_each_episode_unless_fixed() -> None:
    drawn = SingleSeatEnv([random_decide, random_decide], seat=None)
    assert {drawn.reset(seed=seed)[1]["seat"] for seed in range(12)} == {0, 1, 2}
    fixed = SingleSeatEnv([random_decide, random_decide], seat=2)
    assert {fixed.reset(seed=seed)[1]["seat"] for seed in range(4)} == {2}


class Recorder(Bot):
    """Keeps what it is told, and checks each view against the request it stands for."""

    def __init__(self) -> None:
        self.starts: list[Table] = []
        self.events: list[Event] = []
        self.decisions = 0

    def on_game_start(self, table: Table) -> None:
        self.starts.append(table)

    def on_events(self, table: Table, events: list[Event]) -> None:
        self.events.extend(events)

    def decide(self, view: View, legal: list[Action]) -> int:
        assert legal == legal_from_proto(view.request)
        assert view.table.events == self.events  # every event before the decision
        assert view.decider == view.seat
        self.decisions += 1
        return 0


def test_an_opponent_is_told_its_table_its_events_and_its_views() -> None:
    bot = Recorder()
    env = SingleSeatEnv([bot], seat=0, names=["recorder"])
    _play(env, 4)
    assert bot.decisions > 0
    (table,) = bot.starts
    assert (table.seat, [p.name for p in table.players]) == (1, ["learner", "recorder"])
    assert table.bot_seed is not None


def test_an_illegal_action_raises() -> None:
    env = SingleSeatEnv([random_decide], seat=0)
    observation, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        env.step(illegal)


def test_a_seat_outside_the_table_is_refused() -> None:
    with pytest.raises(ValueError, match="seat must be"):
        SingleSeatEnv([random_decide], seat=2)




class Keeper(Bot):
    """Keeps every view, reading only some of them while deciding."""

    def __init__(self) -> None:
        self.kept: list[tuple[View, int | None]] = []

    def decide(self, view: View, legal: list[Action]) -> int:
        read = len(view.hand) if len(self.kept) % 2 else None
        self.kept.append((view, read))
        return 0


def test_a_view_kept_past_its_decision_still_shows_that_decision() -> None:
    bot = Keeper()
    _play(SingleSeatEnv([bot], seat=0), 3)
    assert len(bot.kept) > 4
    for view, read in bot.kept:  # read now, after the game moved on and ended
        assert view.decider == view.seat == 1
        assert read is None or len(view.hand) == read
