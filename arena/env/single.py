"""A Gymnasium environment: one seat learns, the other seats are fixed SDK bots.

The opponents are anything the SDK runs — a ``decide(view, legal)`` function or
a `Bot` (the sample bots: ``random_bot.decide``, ``GreedyBot()``,
``CounterBot()``) — and each is told, through `arena.env.seat.SdkSeat`, exactly
what it would be told over gRPC (its `Table`, events, views and legal actions),
so it plays here as it plays in the arena. The learner's observation and action
mask are those of `arena.env.aec` (``observation``, ``action_mask``); an action
is an index of the fixed action space (`arena.env.actions`), and one that is not
legal now raises `ValueError`. The episode is one game; the reward comes at its
end: +1 if the learner's seat is among the winners, else -1 (0 when all seats tie).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from arena import wire
from arena.client.bot import Bot, DecideFn, as_bot
from arena.engine.actions import Action
from arena.engine.game import Game
from arena.engine.rules import RuleSet
from arena.env.actions import ACTION_COUNT, action_index
from arena.env.aec import seat_reward
from arena.env.encoding import OBS_SIZE, encode_seat
from arena.env.seat import EventLog, SdkSeat, publish

Observation = dict[str, npt.NDArray[Any]]
LEARNER = "learner"
"""The learner's name at the table, as its opponents see it."""


class SingleSeatEnv(gym.Env[dict[str, Any], np.int64]):
    """The learner in seat `seat` (None: a seat drawn at random each episode) against
    `opponents`, one per other seat, in seat order. `rules` as for `arena.env.aec.UnoEnv`.
    """

    metadata = {"render_modes": []}

    def __init__(self, opponents: Sequence[Bot | DecideFn],
                 rules: RuleSet | dict[str, Any] | None = None,
                 seat: int | None = None, names: Sequence[str] | None = None) -> None:
        if isinstance(rules, dict):
            rules = RuleSet.from_dict(rules)
        self.rules = rules if rules is not None else RuleSet(target_score=None)
        self.bots = [as_bot(o) for o in opponents]
        self.num_players = len(self.bots) + 1
        Game.new(self.rules, self.num_players, 0)  # a table size the rules refuse fails here
        if seat is not None and not 0 <= seat < self.num_players:
            raise ValueError(f"seat must be 0 to {self.num_players - 1}, got {seat}")
        self.fixed_seat = seat
        self.names = list(names) if names is not None else [
            getattr(bot, "name", "bot") or "bot" for bot in self.bots]
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(-1.0, np.inf, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (ACTION_COUNT,), np.int8),
        })
        self.action_space = spaces.Discrete(ACTION_COUNT)
        self.seat = seat or 0
        self.game: Game | None = None
        self.seats: list[SdkSeat | None] = []
        self.log = EventLog()
        self._seeds = random.Random()
        self._indices: dict[int, Action] = {}
        self.episodes = 0

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Observation, dict[str, Any]]:
        """Deal a new game (from `seed`, else from the env's own generator) and play the
        opponents up to the learner's first decision."""
        super().reset(seed=seed)
        if seed is not None:
            self._seeds.seed(seed)
        deal = self._seeds.getrandbits(63)
        self.seat = (self.fixed_seat if self.fixed_seat is not None
                     else self._seeds.randrange(self.num_players))
        others = iter(zip(self.bots, self.names, strict=True))
        players: list[str] = []
        self.seats = []
        for number in range(self.num_players):
            if number == self.seat:
                players.append(LEARNER)
                self.seats.append(None)
            else:
                bot, name = next(others)
                players.append(name)
                self.seats.append(SdkSeat(bot))
        self.episodes += 1
        game_id = f"env-{self.episodes}"
        self.game = Game.new(self.rules, self.num_players, deal)
        self.log = EventLog()
        for number, seat in enumerate(self.seats):
            if seat is not None:
                seat.start(game_id, number, players, self.rules, 1000, 0,
                           wire.bot_seed(deal, number, players), self.log)
        self._publish(self.game.events)
        self._play_opponents()
        return self._observe(), {"seat": self.seat, "deal_seed": deal}

    def step(self, action: int | np.integer[Any]) -> tuple[
            Observation, float, bool, bool, dict[str, Any]]:
        """Take legal action `action` for the learner, then let the opponents play until the
        learner decides again or the game ends."""
        game = self.game
        assert game is not None, "call reset() first"
        chosen = self._indices.get(int(action))
        if chosen is None:
            raise ValueError(f"action {int(action)} is not legal now "
                             f"(legal: {sorted(self._indices)})")
        self._publish(game.apply(chosen))
        self._play_opponents()
        if game.is_over:
            outcome = game.outcome
            assert outcome is not None
            reward = seat_reward(outcome.winners, self.seat, self.num_players)
            return self._observe(), reward, True, False, {"outcome": outcome}
        return self._observe(), 0.0, False, False, {}

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions now, as booleans (what maskable learners ask for)."""
        mask = np.zeros(ACTION_COUNT, np.bool_)
        mask[list(self._indices)] = True
        return mask

    def _play_opponents(self) -> None:
        game = self.game
        assert game is not None
        while not game.is_over and game.decider != self.seat:
            decider = game.decider
            assert decider is not None
            seat = self.seats[decider]
            assert seat is not None
            legal = game.legal_actions()
            self._publish(game.apply(legal[seat.decide(partial(game.view, decider), legal)]))
        if game.is_over:
            self._indices = {}
            outcome = game.outcome
            assert outcome is not None
            for seat in self.seats:
                if seat is not None:
                    seat.end(outcome, ["normal"] * self.num_players, outcome.termination.value)
        else:
            self._indices = {action_index(a, self.seat, self.num_players): a
                             for a in game.legal_actions()}

    def _publish(self, events: Sequence[Any]) -> None:
        publish(self.log, self.seats, events)

    def _observe(self) -> Observation:
        assert self.game is not None
        mask = np.zeros(ACTION_COUNT, np.int8)
        mask[list(self._indices)] = 1
        return {"observation": encode_seat(self.game, self.seat), "action_mask": mask}
