"""Prometheus itself scrapes arena: Debian's `prometheus` server, started on a loopback
port with a scrape configuration of its own, scrapes `arena serve --metrics` while a
tournament is played through it, and a driver that plays on two worker processes; the
series are read back through Prometheus's HTTP query API (/api/v1/query).

Outside CI the test skips, saying why, when the `prometheus` binary is missing; under
CI=true it must be there (`.ci/run` installs it)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.cli_support import ARENA, ONE_HAND, ok, serving, wait_for_line, write_json
from tests.cli.cli_support import marked_env as marked
from tests.support import TIME_SCALE, free_port, in_ci

pytestmark = pytest.mark.timeout(int(300 * TIME_SCALE))

BOT = Path(__file__).with_name("watched_bot.py")
GAMES = 12
"""The games of each tournament: 6 deals of single hands, two seats."""


def prometheus_binary() -> str:
    """The `prometheus` server binary; a skip outside CI when there is none."""
    found = shutil.which("prometheus")
    if found is None:
        reason = "Debian's prometheus server is not installed (apt-get install prometheus)"
        if in_ci():
            pytest.fail(f"{reason}, and CI=true forbids skipping")
        pytest.skip(reason)
    return found


class Prometheus:
    """A Prometheus server of the test's own, scraping `targets` (job → host:port)
    every half second, its data in a temporary folder."""

    def __init__(self, binary: str, folder: Path, targets: dict[str, str]) -> None:
        self.port = free_port()
        config = folder / "prometheus.yml"
        jobs = "".join(f"  - job_name: {job}\n    static_configs:\n"
                       f"      - targets: ['{target}']\n" for job, target in targets.items())
        config.write_text("global:\n  scrape_interval: 500ms\n  scrape_timeout: 400ms\n"
                          f"scrape_configs:\n{jobs}", encoding="utf-8")
        (folder / "data").mkdir()
        self.process = subprocess.Popen(
            [binary, f"--config.file={config}", f"--storage.tsdb.path={folder / 'data'}",
             f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn"],
            stdout=subprocess.DEVNULL, stderr=(folder / "prometheus.log").open("wb"))

    def query(self, expression: str) -> list[dict[str, Any]]:
        """The instant vector `expression` evaluates to now (its samples)."""
        url = (f"http://127.0.0.1:{self.port}/api/v1/query?"
               + urllib.parse.urlencode({"query": expression}))
        with urllib.request.urlopen(url, timeout=10) as answer:
            body = json.loads(answer.read())
        assert body["status"] == "success", body
        return body["data"]["result"]  # type: ignore[no-any-return]

    def value(self, expression: str) -> float | None:
        """The single value `expression` evaluates to now; None for no sample."""
        result = self.query(expression)
        assert len(result) <= 1, result
        return float(result[0]["value"][1]) if result else None

    def by(self, label: str, expression: str) -> dict[str, float]:
        """The samples of `expression` now, by the value of their `label`."""
        return {sample["metric"][label]: float(sample["value"][1])
                for sample in self.query(expression)}

    def wait_for(self, expression: str, wanted: float, timeout: float) -> None:
        """Wait until `expression` is `wanted` (a scrape or two after it became so)."""
        deadline = time.monotonic() + timeout * TIME_SCALE
        seen: float | None = None
        while time.monotonic() < deadline:
            try:
                seen = self.value(expression)
            except OSError:  # not listening yet
                seen = None
            if seen == wanted:
                return
            time.sleep(0.25)
        raise AssertionError(f"{expression} stayed {seen}, not {wanted}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def prometheus_folder(tmp_path: Path) -> Path:
    prometheus_binary()
    folder = tmp_path / "prometheus"
    folder.mkdir()
    return folder


@pytest.fixture
def env(tmp_path: Path) -> Iterator[dict[str, str]]:
    with marked(f"prometheus-{tmp_path.name}") as marked_env:
        yield marked_env


def bot(mode: str, *args: str) -> str:
    return " ".join([sys.executable, str(BOT), mode, *args])


def tournament(db: Path, name: str, rules: Path) -> None:
    ok(db, "tournament", "create", name, "steady", "sloppy", "--table-size", "2",
       "--deals", str(GAMES // 2), "--rules", str(rules))


def test_prometheus_scrapes_a_served_tournament_and_a_driver_on_two_workers(
        tmp_path: Path, prometheus_folder: Path, env: dict[str, str]) -> None:
    db = tmp_path / "arena.db"
    ok(db, "bot", "add", "steady", "--command", bot("steady", "0.01"))
    ok(db, "bot", "add", "sloppy", "--command", bot("sloppy"))
    rules = write_json(tmp_path / "rules.json", ONE_HAND)
    tournament(db, "served", rules)
    tournament(db, "driven", rules)
    port, served_metrics, driver_metrics = free_port(), free_port(), free_port()
    prometheus = Prometheus(prometheus_binary(), prometheus_folder, {
        "served": f"127.0.0.1:{served_metrics}", "driver": f"127.0.0.1:{driver_metrics}"})
    try:
        with serving(db, port, env, "--metrics", f"127.0.0.1:{served_metrics}") as server:
            wait_for_line(server, "arena serving on", 60 * TIME_SCALE)
            prometheus.wait_for('up{job="served"}', 1, 60)
            run = subprocess.run([*ARENA, "--db", str(db), "--server", f"127.0.0.1:{port}",
                                  "tournament", "run", "served"], env=env,
                                 capture_output=True, text=True, timeout=240 * TIME_SCALE)
            assert run.returncode == 0, run.stderr
            prometheus.wait_for('arena_games_recorded_total{job="served"}', GAMES, 30)
            check_served(prometheus)
        driver = subprocess.Popen(
            [*ARENA, "--db", str(db), "tournament", "run", "driven", "--workers", "2",
             "--metrics", f"127.0.0.1:{driver_metrics}"], env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, err = driver.communicate(timeout=240 * TIME_SCALE)
        assert driver.returncode == 0, err
        assert f"metrics at http://127.0.0.1:{driver_metrics}/metrics" in err
        check_driven(prometheus)
    finally:
        prometheus.stop()


def check_served(prometheus: Prometheus) -> None:
    """What Prometheus holds of the served tournament once every game is recorded."""
    job = '{job="served"}'
    assert prometheus.value(f"arena_recording_seconds_count{job}") == GAMES
    decisions = prometheus.by("bot", f"sum by (bot) (arena_decisions_total{job})")
    assert set(decisions) == {"steady", "sloppy"}
    assert all(count > GAMES for count in decisions.values()), decisions
    faults = prometheus.by("kind", 'arena_faults_total{job="served",bot="sloppy"}')
    assert set(faults) == {"illegal"} and faults["illegal"] >= 1, faults
    assert prometheus.query('arena_faults_total{job="served",bot="steady"}') == []
    answered = prometheus.by("bot", f"arena_decision_seconds_count{job}")
    assert set(answered) == {"steady", "sloppy"}
    # The steady bot sleeps 10 ms a decision: its median answer takes at least that long.
    median = prometheus.value('histogram_quantile(0.5, sum by (le) '
                              '(arena_decision_seconds_bucket{job="served",bot="steady"}))')
    assert median is not None and 0.01 <= median <= 1, median
    assert prometheus.value(f"arena_bots_connected{job}") == 2
    assert prometheus.value(f"arena_store_reconnects_total{job}") == 0
    assert prometheus.value('arena_schedule_queue_games{job="served",run="served"}') in (None, 0)


def check_driven(prometheus: Prometheus) -> None:
    """What Prometheus holds of the driver's run on two worker processes: the workers'
    games and decisions, counted by the driver from the games they sent back (the last
    scrape may have come before the last games: at least one scrape saw games)."""
    recorded = prometheus.value('max_over_time(arena_games_recorded_total{job="driver"}[5m])')
    assert recorded is not None and 0 < recorded <= GAMES, recorded
    decisions = prometheus.by(
        "bot", 'sum by (bot) (max_over_time(arena_decisions_total{job="driver"}[5m]))')
    assert set(decisions) == {"steady", "sloppy"}, decisions
    queued = prometheus.query('arena_schedule_queue_games{job="driver",run="driven"}[5m]')
    assert queued, "no scrape saw the run's queue"
    assert prometheus.value('max_over_time(up{job="driver"}[5m])') == 1
