"""Answers worked out from a pool's games, kept while they still hold.

A leaderboard of a large pool takes tens of milliseconds to work out, and a hosted
competition has many readers asking for the same one. `RecentAnswers` keeps each
answer with the state it was worked out from (a pool as the store describes it: its
parameters and its count of games) and gives it again while that state is unchanged,
or while it is younger than `fresh_for` seconds even though games were recorded since.
Readers asking at once for an answer not yet kept wait for one of them to work it out.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

Answer = TypeVar("Answer")

FRESH_FOR = 1.0
"""Seconds an answer is given again after games were recorded since it was worked out:
a leaderboard is at most this much behind the games while many read it."""

KEPT = 64
"""Answers kept at most (the least recently asked for go first)."""


@dataclass(frozen=True, slots=True)
class _Kept(Generic[Answer]):
    state: object
    at: float
    answer: Answer


class RecentAnswers(Generic[Answer]):
    """Answers by request, each kept with the state it was worked out from."""

    def __init__(self, fresh_for: float = FRESH_FOR, kept: int = KEPT,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.fresh_for = fresh_for
        self.kept = kept
        self._clock = clock
        self._answers: OrderedDict[Hashable, _Kept[Answer]] = OrderedDict()
        self._lock = threading.Lock()
        self._working: dict[Hashable, threading.Lock] = {}

    def get(self, request: Hashable, state: Callable[[], object],
            work_out: Callable[[], Answer]) -> Answer:
        """The answer to `request`: the kept one while `state()` is what it was worked out
        from or it is younger than `fresh_for`, else `work_out()` (kept for next time)."""
        now_state = state()
        kept = self._fresh(request, now_state)
        if kept is not None:
            return kept.answer
        with self._lock:
            working = self._working.setdefault(request, threading.Lock())
        with working:
            kept = self._fresh(request, now_state)  # worked out meanwhile by another reader
            if kept is not None:
                return kept.answer
            started = self._clock()
            answer = work_out()
            with self._lock:
                self._answers[request] = _Kept(now_state, started, answer)
                self._answers.move_to_end(request)
                while len(self._answers) > self.kept:
                    dropped, _ = self._answers.popitem(last=False)
                    self._working.pop(dropped, None)
            return answer

    def forget(self) -> None:
        """Drop every kept answer (after a change the states do not show)."""
        with self._lock:
            self._answers.clear()

    def _fresh(self, request: Hashable, state: object) -> _Kept[Answer] | None:
        with self._lock:
            kept = self._answers.get(request)
            if kept is None:
                return None
            if kept.state == state or self._clock() - kept.at < self.fresh_for:
                self._answers.move_to_end(request)
                return kept
            return None
