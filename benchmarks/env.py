"""Environment benchmark: arena's PettingZoo environment against RLCard's UNO environment.

Both are stepped by a uniformly random legal action until the episode ends, and
every step yields the acting agent's encoded observation and its legal actions:
RLCard's ``env.step`` returns them, and arena's AEC loop reads them with
``env.last()`` (observation and action mask) before ``env.step``. A step is one
decision. Arena is measured as `arena.env.env()` builds it (PettingZoo's wrappers),
with ``infos=True`` (the view and the legal actions in ``infos``), and bare
(`raw_env()`, no wrappers);
random play under arena's official rules draws far more often than RLCard's
rules allow (reneging), so episodes differ in length and steps/s is the figure
compared; hands grow long under random reneging, and every step encodes them, so
arena is also stepped with the forced-draw policy of `benchmarks.engine` (a random
play whenever one is legal), which keeps its hands as short as RLCard's.

Both are timed by this process's CPU time, on one CPU: on a shared machine the
wall clock also counts the other processes' work, which changes from second to
second and is no part of either environment's cost (both step in this process
alone, with no I/O).

The loop's random policy is part of that figure, and the two APIs make it cost
differently: RLCard hands over a short list of legal action ids, arena a mask over
its 1,379 actions, which the policy scans (`np.flatnonzero`, about 3.4 µs a step,
against RLCard's 0.2 µs). So each run also times the environment's own calls alone
(reset, and `last` and `step` for arena, `step` for RLCard; `perf_counter` around
each call): "inside vs rlcard" compares those.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from benchmarks.stats import Rate, median, one_core

SIZES = (2, 4)
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Stepped:
    """One measured run of an environment: the whole loop, policy included, rated by
    its CPU time; and the same steps rated by the time spent inside the environment's
    own calls."""

    loop: Rate
    inside: Rate


class _Inside:
    """The wall-clock seconds spent inside the calls made through it."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def __call__(self, call: Callable[..., T], *args: Any) -> T:
        start = time.perf_counter()
        result = call(*args)
        self.seconds += time.perf_counter() - start
        return result


def timed(body: Callable[[_Inside], tuple[int, int]]) -> Stepped:
    """Run `body` (returning games and decisions) and rate it by the CPU time it took,
    and by the time it spent in the calls it made through the `_Inside` it is given."""
    inside = _Inside()
    start = time.process_time()
    games, decisions = body(inside)
    loop = Rate(games, decisions, time.process_time() - start)
    return Stepped(loop, Rate(games, decisions, inside.seconds))


def arena_steps(players: int, games: int, wrapped: bool, seed: int = 0,
                forced_draw: bool = False, infos: bool = False) -> Stepped:
    """Play `games` episodes of arena's environment with a random legal policy (with
    `forced_draw`, a random play whenever one is legal, as RLCard's rules force)."""
    import numpy as np

    import arena.env
    from arena.env.actions import PLAY_COUNT

    env: Any = (arena.env.env(num_players=players, infos=infos) if wrapped
                else arena.env.raw_env(num_players=players))

    def body(inside: _Inside) -> tuple[int, int]:
        rng = random.Random(seed)
        steps = 0
        for game in range(games):
            inside(env.reset, seed * 100_003 + game)
            for _ in env.agent_iter():
                observation, _, terminated, truncated, _ = inside(env.last)
                if terminated or truncated:
                    inside(env.step, None)
                    continue
                legal = np.flatnonzero(observation["action_mask"])
                if forced_draw and legal[0] < PLAY_COUNT:
                    legal = legal[legal < PLAY_COUNT]
                inside(env.step, int(legal[rng.randrange(len(legal))]))
                steps += 1
        return games, steps
    return timed(body)


def rlcard_steps(players: int, games: int, seed: int = 0) -> Stepped:
    """Play `games` episodes of RLCard 1.2.0's UNO environment with a random legal policy."""
    import rlcard

    env = rlcard.make("uno", config={"game_num_players": players, "seed": seed})

    def body(inside: _Inside) -> tuple[int, int]:
        rng = random.Random(seed)
        steps = 0
        for _ in range(games):
            state, _ = inside(env.reset)
            while not env.is_over():
                legal = list(state["legal_actions"])
                state, _ = inside(env.step, legal[rng.randrange(len(legal))])
                steps += 1
        return games, steps
    return timed(body)


ARENA = (("arena env()", True, False, False),
         ("arena env(infos=True)", True, False, True),
         ("arena raw_env()", False, False, False),
         ("arena raw_env(), forced draw", False, True, False))
"""Each arena configuration: its name, wrapped, forced draw, infos."""


def run(repeats: int = 3, scale: float = 1.0) -> list[dict[str, object]]:
    """`_run` on one CPU."""
    with one_core():
        return _run(repeats, scale)


def _run(repeats: int, scale: float) -> list[dict[str, object]]:
    """Steps/s of RLCard's environment and arena's, each against RLCard. On a shared machine
    the load changes from second to second, so every repeat measures RLCard and then each
    arena configuration right after it, and the ratio shown is the median of the repeats'
    ratios (the rates are the medians of the repeats')."""
    rows: list[dict[str, object]] = []
    for players in SIZES:
        anchors: list[Stepped] = []
        runs: dict[str, list[Stepped]] = {name: [] for name, *_ in ARENA}
        ratios: dict[str, list[float]] = {name: [] for name, *_ in ARENA}
        inside_ratios: dict[str, list[float]] = {name: [] for name, *_ in ARENA}
        for _ in range(repeats):
            anchor = rlcard_steps(players, max(1, int(400 * scale)))
            anchors.append(anchor)
            for name, wrapped, forced, infos in ARENA:
                episodes = max(1, int((150 if forced else 30) * scale))
                run = arena_steps(players, episodes, wrapped, forced_draw=forced, infos=infos)
                runs[name].append(run)
                ratios[name].append(run.loop.decisions_per_s / anchor.loop.decisions_per_s)
                inside_ratios[name].append(run.inside.decisions_per_s
                                           / anchor.inside.decisions_per_s)
        rows.append(_row("rlcard env.step", players, _median(anchors), 1.0, 1.0))
        for name, *_ in ARENA:
            rows.append(_row(name, players, _median(runs[name]), median(ratios[name]),
                             median(inside_ratios[name])))
    return rows


def _median(runs: list[Stepped]) -> Stepped:
    return sorted(runs, key=lambda r: r.loop.decisions_per_s)[len(runs) // 2]


def _row(name: str, players: int, run: Stepped, ratio: float,
         inside_ratio: float) -> dict[str, object]:
    rate = run.loop
    return {"environment": name, "players": players, "episodes": rate.games,
            "steps/s": round(rate.decisions_per_s),
            "steps/episode": round(rate.decisions / rate.games, 1),
            "steps/s vs rlcard": round(ratio, 2),
            "inside: µs/step": round(1e6 / run.inside.decisions_per_s, 1),
            "inside vs rlcard": round(inside_ratio, 2)}
