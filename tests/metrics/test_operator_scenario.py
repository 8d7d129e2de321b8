"""What an operator sees of a bad day, from `/metrics` and the JSON logs alone: a driver
plays a tournament on a Dask cluster, storing in PostgreSQL, while one of its bots keeps
being killed, a Dask worker playing a chunk is killed, and PostgreSQL restarts. Each of
these shows up in Prometheus (Debian's server scraping the driver) and in the driver's
JSON log, and the run still records every game once.

Everything is real: the driver is `arena` as a process of its own, the cluster a Dask
`LocalCluster` of two worker processes on loopback, PostgreSQL a server of the test's
own (restarted with `pg_ctl restart -m fast`), Prometheus Debian's `prometheus`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.cli_support import ARENA, ONE_HAND, assert_recorded_once, ok, query, write_json
from tests.cli.cli_support import marked_env as marked
from tests.metrics.test_logs import events
from tests.metrics.test_prometheus import Prometheus, bot, prometheus_binary
from tests.postgres_support import PostgresCluster, server_binaries
from tests.support import TIME_SCALE, free_port, in_ci, wait_until

pytestmark = pytest.mark.timeout(int(300 * TIME_SCALE))

DEALS = 30
GAMES = 2 * DEALS
DOOMED_AT = 40
"""The doomed bot is killed by SIGKILL at its 40th decision, in every life."""


@pytest.fixture
def postgres() -> Iterator[PostgresCluster]:
    """A PostgreSQL server of this test's own: it is restarted under the run."""
    binaries = server_binaries()
    if binaries is None:
        reason = "PostgreSQL's server binaries (initdb, pg_ctl) are not installed"
        if in_ci():
            pytest.fail(f"{reason}, and CI=true forbids skipping")
        pytest.skip(reason)
    cluster = PostgresCluster(binaries)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def dask_cluster() -> Iterator[Any]:
    import distributed

    local_cluster: Any = distributed.LocalCluster  # distributed is not typed
    with local_cluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                       dashboard_address=None) as cluster:
        yield cluster


def _done(url: str) -> int:
    rows = query(url, "SELECT count(*) AS n FROM scheduled_games WHERE status = 'done'")
    return int(rows[0]["n"])


def test_a_lost_dask_worker_a_failing_bot_and_a_postgres_restart_are_seen_in_prometheus_and_the_logs(  # noqa: E501
        tmp_path: Path, postgres: PostgresCluster, dask_cluster: Any) -> None:
    folder = tmp_path / "prometheus"
    folder.mkdir()
    url = postgres.fresh_database()
    ok(url, "bot", "add", "steady", "--command", bot("steady", "0.005"))
    ok(url, "bot", "add", "doomed", "--command", bot("doomed", str(DOOMED_AT)))
    rules = write_json(tmp_path / "rules.json", ONE_HAND)
    ok(url, "tournament", "create", "ops", "steady", "doomed", "--table-size", "2",
       "--deals", str(DEALS), "--rules", str(rules))
    metrics = free_port()
    prometheus = Prometheus(prometheus_binary(), folder, {"driver": f"127.0.0.1:{metrics}"})
    log = tmp_path / "arena.log.jsonl"
    import distributed

    client_class: Any = distributed.Client  # distributed is not typed
    try:
        with client_class(dask_cluster.scheduler_address) as client, \
                marked(f"operator-{tmp_path.name}") as env:
            pids = client.run(os.getpid)
            run = subprocess.Popen(
                [*ARENA, "--db", url, "--log-format", "json", "--log-file", str(log),
                 "tournament", "run", "ops", "--cluster", dask_cluster.scheduler_address,
                 "--metrics", f"127.0.0.1:{metrics}"],
                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                start_new_session=True, cwd=tmp_path)  # a database URL's logs go by the cwd
            prometheus.wait_for('up{job="driver"}', 1, 60)
            wait_until(lambda: _done(url) >= 4 or run.poll() is not None, timeout=120,
                       what="games recorded by the cluster")
            busy: list[str] = []

            def found_busy() -> bool:
                busy.extend(worker for worker, keys in client.processing().items() if keys)
                return bool(busy) or run.poll() is not None

            wait_until(found_busy, timeout=60, what="a worker playing a chunk", interval=0.005)
            os.kill(pids[busy[0]], signal.SIGKILL)
            time.sleep(0.5)
            postgres.restart()
            restarted_with = _done(url)
            _, err = run.communicate(timeout=240 * TIME_SCALE)
        assert run.returncode == 0, err
        assert restarted_with < GAMES, "PostgreSQL restarted while the run played"
        assert_recorded_once(url, "ops", GAMES)
        check_prometheus(prometheus)
    finally:
        prometheus.stop()
    check_logs(events(log.read_text(encoding="utf-8")))


def seen(prometheus: Prometheus, expression: str) -> float:
    """The most `expression` was over the run (0 for never)."""
    value = prometheus.value(f"max(max_over_time({expression}[10m]))")
    return value or 0.0


def check_prometheus(prometheus: Prometheus) -> None:
    """Each of the day's events, as Prometheus scraped it from the driver."""
    assert seen(prometheus, 'arena_worker_events_total{event="worker_left"}') >= 1
    assert seen(prometheus, 'arena_worker_events_total{event="chunk_replayed"}') >= 1
    assert seen(prometheus, "arena_store_reconnects_total") >= 1
    assert seen(prometheus, 'arena_sandbox_kills_total{bot="doomed",signal="SIGKILL"}') >= 1
    assert seen(prometheus, 'arena_faults_total{bot="doomed"}') >= 1
    assert seen(prometheus, 'arena_faults_total{bot="steady"}') == 0
    assert 0 < seen(prometheus, "arena_games_recorded_total") <= GAMES


def check_logs(logged: list[dict[str, Any]]) -> None:
    """Each of the day's events, as the driver's JSON log says it."""
    pool = {e["event"] for e in logged if e["logger"] == "arena.worker" and "event" in e}
    assert {"worker_left", "chunk_replayed"} <= pool, pool
    assert all(e["run"] == "ops" for e in logged
               if e["logger"] == "arena.worker" and "event" in e)
    assert any(e["logger"].startswith("arena.store") and "reconnect" in e["message"]
               for e in logged), "the store's reconnect"
    exits = [e for e in logged if e.get("bot") == "doomed" and "exit_code" in e]
    # Killed by SIGKILL: -9, or 128 + 9 as a sandbox reports its command's death.
    assert exits and all(e["exit_code"] in (-signal.SIGKILL, 128 + signal.SIGKILL)
                         for e in exits), exits
    recorded = [e for e in logged if e["message"] == "game recorded"]
    assert len({e["game"] for e in recorded}) == GAMES
    assert json.dumps(logged)  # every event is plain JSON
