"""Long runs say how long: a sequential run's bar estimates the games still needed at the
current effect, with the time they take, and never reads full while its total grows."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import click
import pytest

from arena.cli import output
from arena.cli.output import (
    duration_text,
    follow_progress,
    separation_games_to_go,
    sprt_games_to_go,
)
from arena.v1 import admin_pb2


def test_an_sprt_halfway_to_its_bound_needs_as_many_games_again() -> None:
    state = admin_pb2.SprtState(llr=1.5, lower=-3.0, upper=3.0, decision="continue",
                                blocks=10, games=20)
    assert sprt_games_to_go(state) == 20  # 10 more blocks of 2 games at the same drift
    falling = admin_pb2.SprtState(llr=-1.0, lower=-3.0, upper=3.0, decision="continue",
                                  blocks=20, games=40)
    assert sprt_games_to_go(falling) == 80  # towards H0: 40 more blocks
    assert sprt_games_to_go(admin_pb2.SprtState(llr=0.5, blocks=1, games=2,
                                                decision="continue")) is None
    assert sprt_games_to_go(admin_pb2.SprtState(llr=3.1, upper=3.0, blocks=9,
                                                decision="H1")) == 0


def test_a_pair_s_interval_shrinks_as_one_over_the_root_of_the_games() -> None:
    half_separated = admin_pb2.Separation(difference=0.05, ci_low=-0.05, ci_high=0.15)
    assert separation_games_to_go([half_separated], 100) == 300  # (0.1/0.05)² = 4× the games
    done = admin_pb2.Separation(difference=0.3, ci_low=0.1, ci_high=0.5, separated=True)
    assert separation_games_to_go([done], 100) == 0
    even = admin_pb2.Separation(difference=0.0, ci_low=-0.1, ci_high=0.1)
    assert separation_games_to_go([done, even], 100) is None


def test_durations_read_at_a_glance() -> None:
    assert [duration_text(s) for s in (0.2, 40, 720, 3.5 * 3600, 3 * 86400)] == [
        "1 s", "40 s", "12 min", "3.5 h", "3.0 days"]


class _Bar:
    """Stands for click's progress bar: records its length at every update."""

    seen: list[tuple[int, int, str]] = []

    def __init__(self, length: int, item_show_func: Any = None, **_: Any) -> None:
        self.length = length
        self.pos = 0
        self.show = item_show_func

    def __enter__(self) -> _Bar:
        return self

    def __exit__(self, *_: object) -> None:
        _Bar.seen.append((self.pos, self.length, "exit"))

    def update(self, steps: int) -> None:
        self.pos += steps
        _Bar.seen.append((self.pos, self.length, self.show(None)))

    def render_progress(self) -> None:
        _Bar.seen.append((self.pos, self.length, "render"))


def _updates(*updates: admin_pb2.RunProgress) -> AsyncIterator[admin_pb2.RunProgress]:
    async def stream() -> AsyncIterator[admin_pb2.RunProgress]:
        for update in updates:
            yield update
    return stream()


def test_a_sequential_bar_stays_short_of_full_until_the_test_decides(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(click, "progressbar", _Bar)
    _Bar.seen = []

    def sprt(llr: float, blocks: int, decision: str = "continue") -> admin_pb2.SprtState:
        return admin_pb2.SprtState(llr=llr, lower=-3.0, upper=3.0, decision=decision,
                                   blocks=blocks, games=2 * blocks)

    asyncio.run(follow_progress(_updates(
        admin_pb2.RunProgress(done=2, total=2, status="running", sprt=sprt(0.2, 1)),
        admin_pb2.RunProgress(done=4, total=4, status="running", sprt=sprt(1.0, 2)),
        admin_pb2.RunProgress(done=6, total=6, status="running", sprt=sprt(1.5, 3)),
        admin_pb2.RunProgress(done=8, total=8, status="finished", sprt=sprt(3.2, 4, "H1"),
                              conclusion="H1 accepted")), "match", sequential=True))
    running = [(pos, length, text) for pos, length, text in _Bar.seen[:3]]
    assert all(pos < length for pos, length, _ in running), running
    assert running[1][1] == 4 + 8  # LLR 1.0 after 2 blocks: 4 more blocks, 8 games
    assert "≈8 games to go at the current effect" in running[1][2]
    assert _Bar.seen[-1][:2] == (8, 8)  # decided: full at last


def test_an_estimate_past_max_games_says_so_and_the_bar_keeps_within_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(click, "progressbar", _Bar)
    monkeypatch.setattr(output, "OUTLOOK_EVERY", 0.01)
    _Bar.seen = []

    async def to_go(games: int) -> int | None:
        return 10_000

    async def slow_updates() -> AsyncIterator[admin_pb2.RunProgress]:
        for done in (10, 20, 30):
            await asyncio.sleep(0.05)
            yield admin_pb2.RunProgress(done=done, total=done + 5, status="running",
                                        unseparated=["a ~ b"])

    asyncio.run(follow_progress(slow_updates(), "spring", sequential=True, to_go=to_go,
                                limit=200))
    pos, length, text = _Bar.seen[-2]
    assert (pos, length) == (30, 200)
    assert "≈10,000 games to go at the current effect" in text
    assert text.endswith("past --max-games 200")


def test_the_time_left_after_a_resume_is_this_run_s_games_at_this_run_s_rate() -> None:
    rate = output._Rate()
    rate.eta = True
    rate.begin(200)  # 200 games were played before this run
    rate.started -= 10  # this run has played for 10 s ...
    rate.done = 229  # ... 29 games: 2.9 games/s, 171 to go
    rate.seen = admin_pb2.RunProgress(done=229, total=400)
    assert rate.text(None) == "2.9 games/s, ~59 s left"
