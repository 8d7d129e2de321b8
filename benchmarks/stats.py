"""Small helpers shared by the benchmarks: repeated timing and medians."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


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
