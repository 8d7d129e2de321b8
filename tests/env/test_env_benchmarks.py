"""Smoke runs of the environment and in-process lane benchmarks at a tiny size."""

from __future__ import annotations

import asyncio
import importlib.util

import pytest

pytest.importorskip("pettingzoo", reason="the env extra is not installed")

from benchmarks import env, inprocess  # noqa: E402


def test_the_environment_benchmark_steps_arena_and_rlcard() -> None:
    if importlib.util.find_spec("rlcard") is None:  # the `bench` extra is not installed
        run = env.arena_steps(2, 1, wrapped=True)
        assert run.loop.games == 1 and run.loop.decisions > 0
        assert run.inside.decisions == run.loop.decisions and run.inside.seconds > 0
        return
    rows = env.run(repeats=1, scale=0.02)
    assert {row["environment"] for row in rows} >= {"rlcard env.step"}
    assert all(isinstance(row["steps/s"], int) and row["steps/s"] > 0 for row in rows)
    assert all(isinstance(row["inside vs rlcard"], float) and row["inside vs rlcard"] > 0
               for row in rows)


def test_the_in_process_benchmark_plays_the_same_games_both_ways() -> None:
    figures = asyncio.run(inprocess.measure(inprocess.FIELDS["random x4"], deals=1, seed=0))
    assert figures["_same games"] == 1.0
    assert all(value > 0 for value in figures.values())
    assert inprocess.engine_bound(4, [0, 1]).decisions_per_s > 0
