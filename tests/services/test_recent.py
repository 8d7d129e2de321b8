"""Answers kept while the pool they come from holds: given again while its state is
unchanged or they are younger than `fresh_for`, worked out once for readers at once."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from arena.services.recent import RecentAnswers


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def counting(answers: list[str]) -> tuple[list[int], Callable[[], str]]:
    calls = [0]

    def work_out() -> str:
        calls[0] += 1
        return answers[calls[0] - 1]
    return calls, work_out


def test_an_answer_is_given_again_while_its_pool_is_unchanged_however_old() -> None:
    clock = Clock()
    recent = RecentAnswers[str](fresh_for=1.0, clock=clock)
    calls, work_out = counting(["first", "second"])
    assert recent.get("board", lambda: 7, work_out) == "first"
    clock.now += 3600
    assert recent.get("board", lambda: 7, work_out) == "first"
    assert calls == [1]


def test_a_changed_pool_is_worked_out_again_once_the_answer_is_older_than_fresh_for() -> None:
    clock = Clock()
    recent = RecentAnswers[str](fresh_for=1.0, clock=clock)
    calls, work_out = counting(["first", "second", "third"])
    recent.get("board", lambda: 7, work_out)
    clock.now += 0.99
    assert recent.get("board", lambda: 8, work_out) == "first"
    clock.now += 0.01
    assert recent.get("board", lambda: 8, work_out) == "second"
    assert recent.get("board", lambda: 8, work_out) == "second"
    assert calls == [2]


def test_each_request_has_its_own_answer() -> None:
    recent = RecentAnswers[str](clock=Clock())
    calls, work_out = counting(["a", "b"])
    assert recent.get(("rankings", "pool-a"), lambda: 1, work_out) == "a"
    assert recent.get(("rankings", "pool-b"), lambda: 1, work_out) == "b"
    assert calls == [2]


def test_forget_drops_every_answer_even_a_fresh_one() -> None:
    recent = RecentAnswers[str](clock=Clock())
    calls, work_out = counting(["before", "after"])
    recent.get("board", lambda: 1, work_out)
    recent.forget()
    assert recent.get("board", lambda: 1, work_out) == "after"


def test_the_least_recently_asked_answer_goes_first_when_too_many_are_kept() -> None:
    recent = RecentAnswers[str](kept=2, clock=Clock())
    calls, work_out = counting(["a", "b", "c", "a again"])
    recent.get("a", lambda: 1, work_out)
    recent.get("b", lambda: 1, work_out)
    recent.get("a", lambda: 1, work_out)  # a is now the newest
    recent.get("c", lambda: 1, work_out)  # b goes
    assert recent.get("a", lambda: 1, work_out) == "a"
    assert recent.get("b", lambda: 1, work_out) == "a again"


def test_readers_asking_at_once_wait_for_one_working_out() -> None:
    recent = RecentAnswers[str]()
    started = threading.Event()
    calls = [0]

    def slow() -> str:
        calls[0] += 1
        started.set()
        time.sleep(0.2)
        return "board"

    answers: list[str] = []
    readers = [threading.Thread(target=lambda: answers.append(recent.get("b", lambda: 1, slow)))
               for _ in range(8)]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join()
    assert answers == ["board"] * 8 and calls == [1]
