"""The PettingZoo AEC environment: arena's engine, every seat an agent.

Agents are ``seat_0`` … ``seat_{n-1}``; the agent to act is the seat whose
decision is due (which is not always the seat whose turn it is: challenges,
catch windows and jump-ins ask other seats). Each agent observes a dict:

- ``observation``: its view encoded as in `arena.env.encoding` (float32, 366);
- ``action_mask``: int8 over the fixed action space of `arena.env.actions`
  (1379), 1 for each action legal now (all 0 unless it is the agent's decision).

With ``infos=True``, ``infos[agent]`` holds, for the agent whose decision is due,
``view`` (its view
as a dict of plain values: cards as short names such as ``"R5"`` or ``"W+4"``),
and ``legal`` (the legal actions as dicts, in the engine's order, each with its
``index`` in the action space). `UnoEnv.sdk_view` gives the SDK `View` and legal
actions a submitted bot is given at this decision, for a ``decide(view, legal)``.

An episode is one game (`rules` say how many hands); the rewards come at its
end: +1 to each winner (both partners, under partner scoring), -1 to every other
seat, and 0 to all when every seat ties (a hand that ends with nobody out). The
same seed deals the same game, so the same seed and actions give the same episode.
"""

from __future__ import annotations

import marshal
import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from arena import wire
from arena.client.model import Action as SdkAction
from arena.client.table import Table
from arena.client.view import View
from arena.engine import events as ev
from arena.engine.actions import Action, Phase
from arena.engine.cards import Color
from arena.engine.game import Game
from arena.engine.rules import RuleSet
from arena.engine.view import SeatView
from arena.env.actions import ACTION_COUNT, action_index
from arena.env.encoding import OBS_SIZE, encode_seat
from arena.env.seat import decision_request, sdk_action

Observation = dict[str, npt.NDArray[Any]]


def agent_name(seat: int) -> str:
    """The agent playing `seat`."""
    return f"seat_{seat}"


def view_dict(view: SeatView) -> dict[str, Any]:
    """A seat's view as plain values (cards as their short names)."""
    name, value = _SHORT_NAMES.__getitem__, _VALUES.__getitem__
    (seat, num_players, phase, decider, turn, hand, hand_sizes, top_card, active_color,
     direction, dealer, hand_number, draw_pile_size, discard_pile, scores, active_seats,
     pending_draw, drawn_card, uno_offender, revealed, teams) = view
    return {
        "seat": seat, "num_players": num_players, "phase": value(phase),
        "decider": decider, "turn": turn, "hand": list(map(name, hand)),
        "hand_sizes": list(hand_sizes), "top_card": name(top_card),
        "active_color": value(active_color),
        "direction": direction, "dealer": dealer, "hand_number": hand_number,
        "draw_pile_size": draw_pile_size,
        "discard_pile": list(map(name, discard_pile)), "scores": list(scores),
        "active_seats": list(active_seats), "pending_draw": pending_draw,
        "drawn_card": name(drawn_card), "uno_offender": uno_offender,
        "revealed": [[shown_by, list(map(name, shown))] for shown_by, shown in revealed],
        "teams": None if teams is None else list(teams),
    }


_VALUES: dict[Any, str | None] = {None: None, **{m: m.value for m in (*Phase, *Color)}}
"""Each phase's and colour's value (a plain str), and None for None."""


class _ShortNames(dict[Any, str | None]):
    """Each engine card's short name, kept once asked for (the engine's cards are interned:
    at most 56 entries); None for no card."""

    def __missing__(self, card: Any) -> str:
        name = self[card] = str(card.short())
        return name


_SHORT_NAMES = _ShortNames({None: None})


_NO_ACTIONS = np.zeros(ACTION_COUNT, np.int8)
_INDEX_CACHE_SIZE = 1 << 14
_MARSHAL = 2
"""The marshal version of the ``infos`` entries (2: no back-references, so the entries of a
list can be marshalled one by one and joined)."""
_LIST_CODE = marshal.dumps([], _MARSHAL)[:1]
"""The type code marshal writes before a list's length and items."""


def seat_reward(winners: Sequence[int], seat: int, num_players: int) -> float:
    """+1 if `seat` is among the `winners`, else -1; 0 when every seat ties."""
    if len(winners) == num_players:
        return 0.0
    return 1.0 if seat in winners else -1.0


class UnoEnv(AECEnv):  # type: ignore[misc]
    """UNO under any arena rule set, `num_players` seats (2–10; 4 under partner scoring).

    `rules` is a `RuleSet` or its dict (`RuleSet.from_dict`); the default is the
    official rules played as a single hand (``target_score=None``), the shortest
    episode. `infos=True` fills ``infos`` with the deciding seat's view and legal actions
    (about half the speed: most learners read the observation and the mask only).
    """

    metadata = {"name": "arena_uno_v0", "render_modes": ["human", "ansi"],
                "is_parallelizable": False}

    def __init__(self, num_players: int = 2, rules: RuleSet | dict[str, Any] | None = None,
                 render_mode: str | None = None, infos: bool = False) -> None:
        super().__init__()
        if isinstance(rules, dict):
            rules = RuleSet.from_dict(rules)
        self.rules = rules if rules is not None else RuleSet(target_score=None)
        Game.new(self.rules, num_players, 0)  # a table size the rules refuse fails here
        self.num_players = num_players
        self.render_mode = render_mode
        self.with_infos = infos
        self.possible_agents = [agent_name(s) for s in range(num_players)]
        self.agent_name_mapping = {a: s for s, a in enumerate(self.possible_agents)}
        observation = spaces.Dict({
            "observation": spaces.Box(-1.0, np.inf, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (ACTION_COUNT,), np.int8),
        })
        self.observation_spaces = {a: observation for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(ACTION_COUNT) for a in self.possible_agents}
        self._seeds = random.Random()
        self.game: Game | None = None
        self.seed_used = 0
        self._legal: list[Action] = []
        self._indices: dict[int, Action] = {}
        self._index_of: list[dict[int, tuple[Action, int, bytes]]] = [
            {} for _ in range(num_players)]
        """Each seat's index of each action met, by the action's id (the engine's actions are
        mostly interned; the entry holds its action, so the id is not reused while kept),
        with the action's entry in ``infos`` (marshalled; empty without infos)."""
        self._decider_view: SeatView | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of `agent` (the same for all)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of `agent` (the same for all)."""
        return self.action_spaces[agent]

    # ------------------------------------------------------------ episode

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game: from `seed` if given, else from the env's own generator (seeded
        by the last seed given)."""
        if seed is not None:
            self._seeds.seed(seed)
            self.seed_used = seed
        else:
            self.seed_used = self._seeds.getrandbits(63)
        self.game = Game.new(self.rules, self.num_players, self.seed_used)
        self._decider_view = None
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._next_decision()

    def _next_decision(self) -> None:
        game = self.game
        assert game is not None
        decider = game.decider
        if decider is None:
            return
        seat = decider
        self._legal = legal = game.legal_actions()
        known = self._index_of[seat]
        if len(known) > _INDEX_CACHE_SIZE:
            known.clear()
        indices: dict[int, Action] = {}
        for action in legal:
            entry = known.get(id(action))
            if entry is None or entry[0] is not action:
                entry = known[id(action)] = self._entry(action, seat)
            indices[entry[1]] = action
        self._indices = indices
        self._decider_view = None
        self.agent_selection = self.possible_agents[seat]
        if self.with_infos:
            for agent in self.agents:
                self.infos[agent] = {}
            # One marshal.loads gives new objects all through, as wire.actions_to_dicts does.
            entries = [known[id(action)][2] for action in legal]
            legal_dicts: list[dict[str, Any]] = marshal.loads(b"".join(
                [_LIST_CODE, len(entries).to_bytes(4, "little", signed=True), *entries]))
            self.infos[self.agent_selection] = {"view": view_dict(self._view(seat)),
                                                "legal": legal_dicts}

    def _entry(self, action: Action, seat: int) -> tuple[Action, int, bytes]:
        """`action`'s index for `seat`, and its marshalled ``infos`` entry if infos are on."""
        index = action_index(action, seat, self.num_players)
        frozen = (marshal.dumps({**wire.action_to_dict(action), "index": index}, _MARSHAL)
                  if self.with_infos else b"")
        return action, index, frozen

    def _view(self, seat: int) -> SeatView:
        """`seat`'s view now (the deciding seat's is taken once per decision)."""
        game = self.game
        assert game is not None
        if seat != game.decider:
            return game.view(seat)
        view = self._decider_view
        if view is None:
            view = self._decider_view = game.view(seat)
        return view

    def observe(self, agent: str) -> Observation:
        """`agent`'s encoded view and its action mask."""
        game = self.game
        assert game is not None
        seat = self.agent_name_mapping[agent]
        mask = _NO_ACTIONS.copy()
        if game.decider == seat and game.outcome is None:
            for index in self._indices:
                mask[index] = 1
        return {"observation": encode_seat(game, seat), "action_mask": mask}

    def step(self, action: int | np.integer[Any] | None) -> None:
        """Take action `action` (an index legal now) for the agent whose decision is due."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        assert game is not None and action is not None
        chosen = self._indices.get(int(action))
        if chosen is None:
            raise ValueError(f"action {int(action)} is not legal for {agent} now "
                             f"(legal: {sorted(self._indices)})")
        self._cumulative_rewards[agent] = 0.0
        game.apply(chosen)
        self._decider_view = None
        rewards = self.rewards
        for name in rewards:  # PettingZoo's _clear_rewards
            rewards[name] = 0
        if game.outcome is not None:
            self._finish(game)
            self._accumulate_rewards()
        else:  # every reward is 0 until the end: accumulating them would change nothing
            self._next_decision()
        if self.render_mode == "human":
            self.render()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The current agent's observation (None unless `observe`), cumulative reward,
        terminated, truncated and info, as PettingZoo's `AECEnv.last` gives them."""
        agent = self.agent_selection
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def _finish(self, game: Game) -> None:
        outcome = game.outcome
        assert outcome is not None
        for seat, agent in enumerate(self.possible_agents):
            self.rewards[agent] = seat_reward(outcome.winners, seat, self.num_players)
            self.terminations[agent] = True
            self.infos[agent] = {"outcome": {"scores": list(outcome.scores),
                                             "ranks": list(outcome.ranks),
                                             "winners": list(outcome.winners),
                                             "termination": outcome.termination.value}}

    # ------------------------------------------------------------ extras

    def legal_actions(self) -> list[Action]:
        """The engine's legal actions of the decision due, in the engine's order."""
        return list(self._legal)

    def index_of(self, action: Action) -> int:
        """The index of `action`, one of `legal_actions()`."""
        assert self.game is not None and self.game.decider is not None
        return action_index(action, self.game.decider, self.num_players)

    def sdk_view(self, game_id: str = "env") -> tuple[View, list[SdkAction]]:
        """The SDK `View` and legal actions a bot in the deciding seat is given now (a view of
        its own fresh `Table`, without the events so far: a decide function that keeps no
        history needs nothing else; the single-seat wrapper keeps full tables)."""
        game = self.game
        assert game is not None and game.decider is not None
        seat = game.decider
        start = wire.game_start_to_proto(game_id, seat, [a for a in self.possible_agents],
                                         self.rules, 1000, 0,
                                         wire.bot_seed(self.seed_used, seat,
                                                       self.possible_agents)).game_start
        from arena.client.convert import table_from_proto

        table: Table = table_from_proto(start)
        request = decision_request("1", game_id, game.view(seat), self._legal, 1000, 0)
        return View(request, table), [sdk_action(a) for a in self._legal]

    def render(self) -> str | None:
        """The decision due (or the outcome) in words; printed in "human" mode."""
        game = self.game
        if game is None:
            return None
        if game.is_over:
            text = f"game over: {game.outcome}"
        else:
            assert game.decider is not None
            view = game.view(game.decider)
            hand = " ".join(c.short() for c in view.hand)
            top = view.top_card.short() if view.top_card is not None else "-"
            text = (f"{self.agent_selection} ({view.phase.value}): top {top}, "
                    f"colour {view.active_color}, hand {hand}")
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""

    def last_events(self) -> Sequence[ev.Event]:
        """Every event of the game so far (the replay log)."""
        return () if self.game is None else tuple(self.game.events)


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's order-enforcing wrapper (under its name), whose `last` asks the env
    once instead of reading each of its five values through the wrapper's forwarding."""

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The current agent's observation, cumulative reward, terminated, truncated and
        info, as `AECEnv.last` gives them (refused before `reset`, as the wrapper does)."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        result: tuple[Any, float, bool, bool, dict[str, Any]] = self.env.last(observe)
        return result

    def step(self, action: Any) -> None:
        """The env's step, once it has been reset and while it has agents (else what
        PettingZoo's wrapper does: an error before reset, a warning after the end)."""
        if self._has_reset and self.env.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)

    # Read at every step (by PettingZoo's agent_iter too): as the wrapper's own forwarding
    # gives them, without its __getattr__ (before reset, the AttributeError this raises
    # sends the lookup to that __getattr__, which refuses with the wrapper's message).
    @property
    def agents(self) -> list[str]:
        """The env's agents (refused before reset)."""
        if not self._has_reset:
            raise AttributeError("agents cannot be accessed before reset")
        agents: list[str] = self.env.agents
        return agents

    @property
    def agent_selection(self) -> str:
        """The agent whose decision is due (refused before reset)."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        selection: str = self.env.agent_selection
        return selection

    def __str__(self) -> str:
        """The env's own name, as PettingZoo's wrapper gives it."""
        return str(self.env)


def wrapped(env: UnoEnv) -> Any:
    """`env` in PettingZoo's order-enforcing wrapper, which catches out-of-order calls (the
    env itself refuses an action out of bounds or not legal now with a `ValueError`)."""
    return OrderEnforcingWrapper(env)
