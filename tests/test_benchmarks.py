"""Smoke runs of every benchmark part at a tiny size: each returns rows of positive figures."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

import pytest

from arena.sandbox import status
from arena.store import Store
from benchmarks import (
    chaos,
    decision_cost,
    engine,
    protocol,
    recording,
    sandbox,
    scale,
    schedule,
    tournament,
)
from tests.postgres_support import SHARED_DATABASE, PostgresCluster
from tests.support import in_ci


def _numbers(row: dict[str, object]) -> dict[str, float]:
    return {key: value for key, value in row.items()
            if isinstance(value, int | float) and not isinstance(value, bool)}


def _assert_positive(rows: list[dict[str, object]], *required: str) -> None:
    assert rows
    for row in rows:
        numbers = _numbers(row)
        assert all(value > 0 for value in numbers.values()), row
        for key in required:
            assert key in numbers, (key, row)


def test_engine_benchmark() -> None:
    if importlib.util.find_spec("rlcard") is not None:  # the `bench` extra is installed
        rows = engine.run(repeats=1, scale=0.01)
        assert {row["engine"] for row in rows} == {"arena", "rlcard"}
        _assert_positive(rows, "games/s", "decisions/s", "decisions/game")
        return
    for policy in (engine.uniform, engine.forced_draw):
        for players in (2, 4):
            rate = engine.arena_games(players, 2, policy)
            assert rate.games == 2
            assert rate.decisions > 0
            assert rate.games_per_s > 0 and rate.decisions_per_s > 0


def test_protocol_benchmark() -> None:
    rows = protocol.run(repeats=1, scale=0.01)
    arena = [row for row in rows if str(row["configuration"]).startswith("arena")]
    pings = [row for row in rows if "ping-pong" in str(row["configuration"])]
    assert len(arena) == len(protocol.CONFIGS)
    assert len(pings) == 4  # one stream per table, and turns among four clients
    _assert_positive(arena, "decisions/s", "round trips/s", "p50 ms", "p99 ms", "games/s",
                     "request B", "round trips vs ping", "p99 vs ping", "round trips vs turns")
    _assert_positive(pings, "round trips/s", "p50 ms", "p99 ms", "request B")
    for row in arena:  # a bot is asked at most every decision; auto_single_action fewer
        assert isinstance(row["round trips/s"], int) and isinstance(row["decisions/s"], int)
        assert row["round trips/s"] <= row["decisions/s"]
        assert isinstance(row["p50 ms"], float) and isinstance(row["p99 ms"], float)
        assert row["p50 ms"] <= row["p99 ms"]


def test_tournament_benchmark() -> None:
    rows = tournament.run(repeats=1, scale=0.01)
    _assert_positive(rows, "bound decisions/s", "tournament decisions/s", "tournament games/s",
                     "vs bound")


def test_sandbox_benchmark() -> None:
    rows = sandbox.run(repeats=1, scale=0.01)
    if not status().available and not in_ci():
        assert str(rows[0]["sandbox"]).startswith("none (")
        return
    _assert_positive(rows, "ms to Hello sandboxed", "ms to Hello unsandboxed",
                     "games/s sandboxed", "games/s unsandboxed", "sandboxed vs not")


def test_percentile() -> None:
    assert protocol.percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert protocol.percentile([0.0, 10.0], 99) == pytest.approx(9.9)
    assert protocol.percentile([5.0], 99) == 5.0


def test_schedule_benchmark() -> None:
    rows = schedule.run(repeats=1, scale=0.01)
    built = [row for row in rows if row["tables"] != "refused"]
    assert len(built) == len(schedule.FIELDS) and len(rows) == len(built) + 1
    _assert_positive(built, "bots", "tables", "games", "build s", "ms per 1,000 tables",
                     "vs random seatings")
    _assert_positive(rows[-1:], "build s")


def test_chaos_benchmark_smoke() -> None:
    fuzzed = chaos.fuzz(300)
    assert fuzzed.inputs == 300 and fuzzed.admin_calls == 30
    assert (fuzzed.crashes, fuzzed.stuck_tables, fuzzed.unexpected) == (0, 0, 0)
    assert fuzzed.games >= 1 and fuzzed.healthy and fuzzed.live_ids > 0

    killed = chaos.kill_resume(2, 2, longest_run=2.0)
    assert killed.kills == 2 and killed.games == 6 and killed.finished
    assert (killed.lost, killed.doubled) == (0, 0)

    misbehaved = chaos.misbehaving(1)
    assert misbehaved.games == len(chaos.BEHAVIOURS) and misbehaved.mismatches == 0

    # Killed every 0.3 s over six games: on a quiet machine three games can end within a
    # second, before a one-second blink.
    blinked = chaos.blinking(2, period=0.3)
    assert blinked.kills >= 1 and blinked.games == 6
    assert (blinked.excess, blinked.lost, blinked.doubled) == (0, 0, 0)

    flooded = chaos.memory(100)
    assert 0 < flooded.peak_mb < 100


def test_recording_ceiling_records_every_game_and_rates_it(store_target: Path | str) -> None:
    assert recording.recording_ceiling(store_target, 6) > 0
    with Store.open(store_target) as store:
        assert store.schedule_progress("ceiling") == (6, 6)
        assert {r.games for r in store.ratings("ceiling")} == {6}


def test_recording_benchmark_puts_sqlite_and_postgresql_side_by_side(
        postgres_cluster: PostgresCluster, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(recording.POSTGRES_VARIABLE, postgres_cluster.url(SHARED_DATABASE))
    postgres_cluster.fresh_database()  # makes the shared database if no test has yet
    rows = recording.run(repeats=1, scale=0.01)
    assert [str(row["store"]).split()[0] for row in rows] == ["SQLite", "PostgreSQL,",
                                                              "PostgreSQL,"]
    _assert_positive(rows, "games", "record_game games/s", "ms/game")


def test_scale_benchmark_on_one_pinned_worker_with_the_ceiling_and_the_ping_pongs() -> None:
    # The N-worker and Dask figures run the same pools the tests in tests/distributed
    # check; starting their bots again here would double the suite's slowest part. The
    # paced ping-pong is the echo one with work between round trips: the same code.
    parts = ("1 worker, pinned", "driver ceiling", "protobuf ping-pong", "own work",
             "paced ping-pong")
    # Enough pings that each client process spends several clock ticks of CPU time.
    figures = asyncio.run(scale.measure(parts, games=4, seed=0, pings=1500))
    assert sorted(figures) == sorted(parts)
    # A local worker's main thread only waits for its chunks: in a 4-game run it may
    # not have used one clock tick, so its figure is only never negative.
    idle_by_design = {"main threads µs/decision"}
    for part in parts:
        assert figures[part] and all(value > 0 for key, value in figures[part].items()
                                     if key not in idle_by_design), part
        assert all(figures[part].get(key, 0) >= 0 for key in idle_by_design), part
    assert {"games/s", "server µs/decision", "bots µs/decision",
            "decisions/s per core"} <= set(figures["1 worker, pinned"])


def test_the_protobuf_ping_pong_sends_a_decision_request_that_a_bot_can_answer() -> None:
    from arena.v1 import bot_pb2

    message = bot_pb2.ServerMessage.FromString(scale.decision_request_payload())
    request = message.decision_request
    assert request.request_id and request.legal_actions and request.events
    assert request.view.seat == request.view.decider
    assert 200 < len(message.SerializeToString()) < 1000


def test_decision_cost_benchmark_measures_the_server_the_sdk_and_a_bare_bot() -> None:
    rows = decision_cost.run(repeats=1, scale=0.05)
    assert [row["part"] for row in rows] == ["server", "SDK", "bare bot"]
    _assert_positive(rows, "CPU µs/decision")


def test_web_benchmark() -> None:
    pytest.importorskip("starlette")
    from benchmarks import web

    pages = asyncio.run(web.leaderboard_times(bots=30, games_per_bot=2, requests=3, seed=1))
    assert pages["page p95 ms"] > 0 and pages["GetRankings p95 ms"] > 0
    assert pages["page / RPC"] > 0
    live = asyncio.run(web.viewers_cost(games=4, viewers=5, seed=1, viewers_nice=19,
                                        rounds=1))
    assert live["decision p99 ms, no viewers"] > 0
    assert live["decisions, no viewers"] > live["decisions, viewers"] > 0
    assert live["with / without"] > 0 and live["quiet odd / even phases"] > 0
    assert live["updates"] >= 1 and live["front CPU ms per viewer and update"] > 0
