"""The metrics of one process: what each hook counts, the gauges read at each scrape,
and the HTTP endpoints (metrics, health, readiness) over a real SQLite store."""

from __future__ import annotations

import asyncio
import json
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from arena.distributed import worker_pools
from arena.engine.outcome import Outcome, Termination
from arena.metrics import Metrics, MetricsServer
from arena.record import Decision, DecisionOutcome, Penalty, SeatTermination
from arena.server.assembly import build_server, log_dir_for
from arena.services import Services
from arena.store import BotKind, Store
from tests.cli.cli_support import ONE_HAND, ok, write_json
from tests.postgres_support import PostgresCluster


def get(url: str) -> tuple[int, str]:
    """The status and body of a GET of `url` (an error status is an answer too)."""
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "arena.db") as opened:
        yield opened


def decision(seat: int, outcome: DecisionOutcome, elapsed_ms: int = 0) -> Decision:
    penalty = None if outcome in (DecisionOutcome.ANSWERED, DecisionOutcome.AUTO) \
        else Penalty.FALLBACK
    return Decision(seat, 0, 0, elapsed_ms, outcome, 0, penalty)


def test_a_recorded_game_counts_its_decisions_latencies_and_faults_per_bot() -> None:
    metrics = Metrics()
    metrics.game_recorded(("ann", "bob"), [
        decision(0, DecisionOutcome.ANSWERED, 3),
        decision(1, DecisionOutcome.ANSWERED, 40),
        decision(0, DecisionOutcome.AUTO),
        decision(1, DecisionOutcome.TIMEOUT, 1000),
        decision(1, DecisionOutcome.ILLEGAL, 2),
    ], 0.004)
    value = metrics.registry.get_sample_value
    assert value("arena_games_recorded_total") == 1
    assert value("arena_decisions_total", {"bot": "ann", "outcome": "answered"}) == 1
    assert value("arena_decisions_total", {"bot": "ann", "outcome": "auto"}) == 1
    assert value("arena_decisions_total", {"bot": "bob", "outcome": "timeout"}) == 1
    assert value("arena_faults_total", {"bot": "bob", "kind": "timeout"}) == 1
    assert value("arena_faults_total", {"bot": "bob", "kind": "illegal"}) == 1
    assert value("arena_faults_total", {"bot": "ann", "kind": "timeout"}) is None
    # Only answers time a bot: an auto-played or faulty decision is no latency.
    assert value("arena_decision_seconds_count", {"bot": "ann"}) == 1
    assert value("arena_decision_seconds_sum", {"bot": "bob"}) == pytest.approx(0.040)
    assert value("arena_decision_seconds_bucket", {"bot": "ann", "le": "0.005"}) == 1
    assert value("arena_decision_seconds_bucket", {"bot": "bob", "le": "0.025"}) == 0
    assert value("arena_recording_seconds_count") == 1
    assert value("arena_recording_seconds_sum") == pytest.approx(0.004)


def test_each_process_counts_in_a_registry_of_its_own_never_the_global_one() -> None:
    first, second = Metrics(), Metrics()
    first.game_recorded(("ann",), [], 0.001)
    assert first.registry.get_sample_value("arena_games_recorded_total") == 1
    assert second.registry.get_sample_value("arena_games_recorded_total") == 0
    assert REGISTRY.get_sample_value("arena_games_recorded_total") is None


def test_a_bot_killed_by_a_signal_counts_as_a_sandbox_kill_and_an_exit_does_not() -> None:
    metrics = Metrics()
    metrics.bot_exited("hog", -9)
    metrics.bot_exited("hog", 128 + 24)  # a sandbox says SIGXCPU so
    metrics.bot_exited("quitter", 1)
    metrics.bot_exited("quitter", 128)
    value = metrics.registry.get_sample_value
    assert value("arena_sandbox_kills_total", {"bot": "hog", "signal": "SIGKILL"}) == 1
    assert value("arena_sandbox_kills_total", {"bot": "hog", "signal": "SIGXCPU"}) == 1
    assert not [sample for family in metrics.registry.collect() for sample in family.samples
                if sample.labels.get("bot") == "quitter"]


def test_builds_are_counted_by_outcome() -> None:
    metrics = Metrics()
    for outcome in ("ok", "ok", "failed", "timed_out"):
        metrics.build_ended(outcome)
    value = metrics.registry.get_sample_value
    assert value("arena_builds_total", {"outcome": "ok"}) == 2
    assert value("arena_builds_total", {"outcome": "failed"}) == 1
    assert value("arena_builds_total", {"outcome": "timed_out"}) == 1


@dataclass(frozen=True)
class Run:
    run: str
    in_play: int
    queued: int


class Lobby:
    def __init__(self, bots: list[str]) -> None:
        self.bots = bots

    def connected_bots(self) -> list[str]:
        return sorted(set(self.bots))


def test_the_gauges_say_what_is_so_at_each_scrape(store: Store) -> None:
    metrics = Metrics()
    runs = [Run("spring", 3, 40), Run("ladder", 2, 0)]
    lobby = Lobby(["ann", "bob", "bob"])
    metrics.watch_runs(lambda: runs)
    metrics.watch_server(lobby)
    metrics.watch_store(store)
    value = metrics.registry.get_sample_value
    assert value("arena_tables_in_play", {"run": "spring"}) == 3
    assert value("arena_schedule_queue_games", {"run": "spring"}) == 40
    assert value("arena_tables_in_play", {"run": "ladder"}) == 2
    assert value("arena_bots_connected") == 2
    assert value("arena_store_reconnects_total") == 0
    runs[:] = [Run("spring", 1, 12)]
    lobby.bots = []
    assert value("arena_tables_in_play", {"run": "spring"}) == 1
    assert value("arena_schedule_queue_games", {"run": "spring"}) == 12
    assert value("arena_tables_in_play", {"run": "ladder"}) is None
    assert value("arena_bots_connected") == 0


def test_a_watched_store_counts_the_games_it_records_with_their_recording_time(
        store: Store) -> None:
    now = datetime.now(UTC)
    metrics = Metrics()
    metrics.watch_store(store)
    metrics.watch_store(store)  # watching twice counts once
    for name in ("ann", "bob"):
        store.add_bot(name, BotKind.REMOTE)
    outcome = Outcome(Termination.SINGLE_HAND, (50, 0), (0, 1), hands_played=1)
    store.record_game(seats=("ann", "bob"), seed=1, rules={}, outcome=outcome,
                      seat_terminations=(SeatTermination.NORMAL, SeatTermination.NORMAL),
                      events=[], actions=[], started_at=now, finished_at=now,
                      rated=False, decisions=[decision(1, DecisionOutcome.CRASH)])
    value = metrics.registry.get_sample_value
    assert value("arena_games_recorded_total") == 1
    assert value("arena_faults_total", {"bot": "bob", "kind": "crash"}) == 1
    assert value("arena_recording_seconds_count") == 1
    recording = value("arena_recording_seconds_sum")
    assert recording is not None and 0 < recording < 5


def test_the_endpoints_serve_metrics_health_and_readiness_of_a_writable_store(
        store: Store) -> None:
    metrics = Metrics()
    metrics.build_ended("ok")
    with MetricsServer(metrics, "127.0.0.1", 0, ready=store.cannot_write) as server:
        base = f"http://127.0.0.1:{server.port}"
        status, body = get(f"{base}/metrics")
        assert status == 200
        assert 'arena_builds_total{outcome="ok"} 1.0' in body
        assert get(f"{base}/healthz") == (200, json.dumps({"status": "ok"}))
        assert get(f"{base}/readyz") == (200, json.dumps({"status": "ready"}))


def test_a_store_that_cannot_write_is_not_ready_and_says_why(tmp_path: Path) -> None:
    Store.open(tmp_path / "arena.db").close()
    metrics = Metrics()
    with Store.open(tmp_path / "arena.db", read_only=True) as reader, \
            MetricsServer(metrics, "127.0.0.1", 0, ready=reader.cannot_write) as server:
        status, body = get(f"http://127.0.0.1:{server.port}/readyz")
        assert status == 503
        assert json.loads(body) == {"status": "not ready", "reason": (
            f"the database {tmp_path / 'arena.db'} is open read-only")}
        assert get(f"http://127.0.0.1:{server.port}/healthz")[0] == 200
    closed = Store.open(tmp_path / "arena.db")
    closed.close()
    assert closed.cannot_write() == "the store is closed"


def test_a_store_whose_write_lock_another_process_holds_is_not_ready(tmp_path: Path) -> None:
    import sqlite3

    with Store.open(tmp_path / "arena.db") as store:
        assert store.cannot_write() is None
        other = sqlite3.connect(tmp_path / "arena.db", isolation_level=None)
        other.execute("PRAGMA busy_timeout = 0")
        other.execute("BEGIN IMMEDIATE")
        try:
            why = store.cannot_write()
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert why is not None and why.startswith(
            f"cannot write to the database {tmp_path / 'arena.db'}: ")
        assert "locked" in why
        assert store.cannot_write() is None


def test_a_taken_port_is_an_os_error_to_report(store: Store) -> None:
    with MetricsServer(Metrics(), "127.0.0.1", 0) as first, \
            pytest.raises(OSError):
        MetricsServer(Metrics(), "127.0.0.1", first.port).start()


def test_a_postgresql_store_that_cannot_reconnect_is_not_ready_until_it_can(
        postgres_cluster: PostgresCluster) -> None:
    user = "arena_readiness"
    postgres_cluster.add_user(user)
    url = PostgresCluster.as_user(postgres_cluster.migrated_database(), user)
    with Store.open(url, reconnect_within=0.5) as store, \
            MetricsServer(Metrics(), "127.0.0.1", 0, ready=store.cannot_write) as server:
        readiness = f"http://127.0.0.1:{server.port}/readyz"
        assert get(readiness)[0] == 200
        postgres_cluster.allow_login(user, False)
        postgres_cluster.end_sessions(user)
        status, body = get(readiness)
        assert status == 503
        reason = json.loads(body)["reason"]
        assert reason.startswith(f"cannot write to the database {store.target}: lost the "
                                 "connection to the database"), reason
        assert "could not reconnect within 0.5 s" in reason
        postgres_cluster.allow_login(user, True)
        assert get(readiness) == (200, json.dumps({"status": "ready"}))


def test_a_driver_counts_what_its_worker_processes_played_and_the_kills_of_their_bots(
        tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    watched = Path(__file__).with_name("watched_bot.py")
    for name, args in (("steady", "steady 0"), ("doomed", "doomed 20")):
        ok(db, "bot", "add", name, "--command", f"{sys.executable} {watched} {args}")
    rules = write_json(tmp_path / "rules.json", ONE_HAND)
    ok(db, "tournament", "create", "cup", "steady", "doomed", "--table-size", "2",
       "--deals", "8", "--rules", str(rules))
    metrics = Metrics()
    built: list[Services] = []

    async def run() -> int:
        with Store.open(db) as store:
            server = build_server(store, log_dir_for(db), built.append,
                                  worker_pools=worker_pools, metrics=metrics)
            await server.start("127.0.0.1", 0)
            try:
                return await built[0].runs.run_tournament("cup", 0, 30.0, workers=2)
            finally:
                await server.stop(0.5)

    assert asyncio.run(run()) == 16
    value = metrics.registry.get_sample_value
    assert value("arena_games_recorded_total") == 16
    assert value("arena_recording_seconds_count") == 16
    answered = value("arena_decisions_total", {"bot": "steady", "outcome": "answered"})
    assert answered is not None and answered > 16
    # Each worker's copy of the doomed bot dies at its 20th decision, at least once.
    kills = value("arena_sandbox_kills_total", {"bot": "doomed", "signal": "SIGKILL"})
    assert kills is not None and kills >= 1
    assert value("arena_sandbox_kills_total", {"bot": "steady", "signal": "SIGKILL"}) is None
    crashes = value("arena_faults_total", {"bot": "doomed", "kind": "crash"})
    assert crashes is not None and crashes >= 1
    assert value("arena_bots_connected") == 0  # the bots played on the workers' servers


class ChangingLobby:
    """A lobby whose set of connections changes under the first look at it."""

    def __init__(self) -> None:
        self.looks = 0

    def connected_bots(self) -> list[str]:
        self.looks += 1
        if self.looks == 1:
            raise RuntimeError("Set changed size during iteration")
        return ["ann"]


def test_a_scrape_that_meets_a_changing_collection_looks_again() -> None:
    metrics = Metrics()
    lobby = ChangingLobby()
    metrics.watch_server(lobby)
    assert metrics.registry.get_sample_value("arena_bots_connected") == 1
    assert lobby.looks == 2
