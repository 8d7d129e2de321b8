"""Small helpers shared by the benchmarks: repeated timing, medians, and games played
straight through a server."""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Rate:
    """Throughput of one measured run: `units` done in `seconds`, and decisions among them."""

    games: int
    decisions: int
    seconds: float

    @property
    def games_per_s(self) -> float:
        """Games per second."""
        return self.games / self.seconds

    @property
    def decisions_per_s(self) -> float:
        """Decisions per second."""
        return self.decisions / self.seconds


def median_rate(run: Callable[[], Rate], repeats: int) -> Rate:
    """Run `repeats` times and return the run with the median games/s."""
    rates = sorted((run() for _ in range(repeats)), key=lambda r: r.games_per_s)
    return rates[len(rates) // 2]


def timed(body: Callable[[], tuple[int, int]]) -> Rate:
    """Time `body`, which returns (games, decisions)."""
    start = time.perf_counter()
    games, decisions = body()
    return Rate(games, decisions, time.perf_counter() - start)


def median(values: list[float]) -> float:
    """The median of `values`."""
    return statistics.median(values)


async def play_games(server: Any, bots: Sequence[str], games: int, tables: int,
                     seed: int) -> Rate:
    """Play `games` single hands between `bots` straight through `ArenaServer.play_game`,
    `tables` at a time, each game seating the bots one place further round."""
    from arena.engine import RuleSet
    from arena.policy import BotPolicy

    rules = RuleSet(target_score=None)
    policy = BotPolicy(decision_timeout=5.0)
    queue = list(range(games))
    decisions = 0

    async def worker() -> None:
        nonlocal decisions
        while queue:
            index = queue.pop()
            seats = [bots[(index + k) % len(bots)] for k in range(len(bots))]
            result = await server.play_game(seats, rules, seed * 7919 + index, policy)
            decisions += len(result.actions)

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(tables)))
    return Rate(games, decisions, time.perf_counter() - start)


@contextlib.contextmanager
def one_core() -> Iterator[None]:
    """Run the block (and every process it starts) on one CPU, where the platform allows."""
    if not hasattr(os, "sched_getaffinity"):
        yield
        return
    saved = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(saved)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, saved)


def random_hand(seats: Sequence[str], seed: int,
                rules: dict[str, Any] | None = None) -> Any:
    """A single hand of seeded random legal moves from deal `seed` among `seats` (under
    `rules`, one hand by default), as a worker hands a played game back: a `PlayedGame`
    with its events and actions as the store keeps them."""
    import random

    from arena import wire
    from arena.engine.game import Game
    from arena.engine.rules import RuleSet
    from arena.record import SeatTermination
    from arena.tournament.runner import PlayedGame

    game = Game.new(RuleSet.from_dict(rules or {"target_score": None}), len(seats), seed)
    pick = random.Random(seed)
    actions = []
    while not game.is_over:
        action = pick.choice(game.legal_actions())
        actions.append(wire.action_to_dict(action))
        game.apply(action)
    assert game.outcome is not None
    return PlayedGame(game.outcome, [wire.event_to_dict(e) for e in game.events], actions,
                      [SeatTermination.NORMAL] * len(seats))
