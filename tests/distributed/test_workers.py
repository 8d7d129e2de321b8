"""Tournaments on worker processes and on a Dask cluster: the same games and ratings as one
process, every game recorded once after a worker or the driver is killed with SIGKILL.

Everything is real: `arena` runs as a CLI (in-process, or as a process of its own
when it is to be killed), its workers are spawned processes with match servers on
loopback ports, the bots are the deterministic Python sample bots greedy and
counter (every bot process costs a Python start, so there are only two), and
the Dask cluster is a `LocalCluster` of two worker processes listening on
127.0.0.1 with no dashboard. The rule set turns
Wild Draw Four bluffing off: the sample bots learn from challenges across games,
so only without challenges does each game depend on its deal alone.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.store import Store
from tests.cli.cli_support import (
    ARENA,
    add_bots,
    arena,
    assert_recorded_once,
    marked_env,
    ok,
    processes_marked,
    query,
)
from tests.support import wait_until

pytestmark = pytest.mark.timeout(90)

BOTS = {"greedy": "greedy", "counter": "counter"}
RULES = {"target_score": None, "draw_four_bluffing": False}
"""Single hands in which greedy and counter play the same whatever games they saw before."""


def _create(db: Path, name: str, deals: int, **settings: Any) -> int:
    """Create tournament `name` between the two bots, each deal in both seatings; its games."""
    path = db.parent / f"{name}.json"
    path.write_text(json.dumps({"rules": RULES, "concurrency": 2, **settings}))
    ok(db, "tournament", "create", name, *BOTS, "--table-size", "2", "--deals", str(deals),
       "--settings", str(path))
    return deals * len(BOTS)


def _games(db: Path, name: str) -> dict[int, tuple[str, str, str]]:
    """Each recorded game of `name` by its place in the schedule: actions, events, scores."""
    rows = query(db, "SELECT s.game_index, g.actions, g.events, "
                     "(SELECT group_concat(score) FROM game_seats WHERE game_id = g.id) AS scores "
                     "FROM scheduled_games s JOIN tournaments t ON t.id = s.tournament_id "
                     "JOIN games g ON g.id = s.game_id WHERE t.name = ?", name)
    return {row["game_index"]: (row["actions"], row["events"], row["scores"]) for row in rows}


def _decisions(db: Path, name: str) -> dict[int, list[tuple[int, int, int, str]]]:
    """Each recorded game's decisions by its place in the schedule, without their times:
    (seat, index, events before, outcome)."""
    rows = query(db, "SELECT s.game_index, g.decisions FROM scheduled_games s"
                     " JOIN tournaments t ON t.id = s.tournament_id"
                     " JOIN games g ON g.id = s.game_id WHERE t.name = ?", name)
    return {row["game_index"]: [(seat, index, before, outcome) for
                                seat, index, before, _, outcome, _, _ in
                                json.loads(row["decisions"])] for row in rows}


def _ratings(db: Path, name: str) -> dict[str, tuple[float, float, int]]:
    with Store.open(db, read_only=True) as store:
        return {r.bot: (r.mu, r.sigma, r.games) for r in store.ratings(name)}


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A Dask cluster of two single-threaded worker processes on loopback, no dashboard."""
    import distributed

    local_cluster: Any = distributed.LocalCluster  # distributed is not typed
    with local_cluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as local:
        yield local


@pytest.fixture
def db(tmp_path: Path) -> Path:
    db = tmp_path / "arena.db"
    add_bots(db, BOTS)
    return db


def test_one_worker_two_workers_and_a_dask_cluster_record_the_same_games_and_ratings(
        db: Path, cluster: Any) -> None:
    total = _create(db, "one", deals=10)
    _create(db, "two", deals=10, workers=2)  # the setting, with no --workers
    _create(db, "dask", deals=10)
    ok(db, "tournament", "run", "one", "--concurrency", "4")
    ok(db, "tournament", "run", "two")
    ok(db, "tournament", "run", "dask", "--cluster", cluster.scheduler_address)
    for name in ("one", "two", "dask"):
        assert_recorded_once(db, name, total)
    assert _games(db, "two") == _games(db, "one")
    assert _games(db, "dask") == _games(db, "one")
    assert _ratings(db, "two") == _ratings(db, "one")
    assert _ratings(db, "dask") == _ratings(db, "one")
    decisions = _decisions(db, "one")
    assert len(decisions) == total and all(decisions.values())
    assert _decisions(db, "two") == decisions, "a worker's games come back with their decisions"
    assert _decisions(db, "dask") == decisions
    logs = db.parent / "arena-logs"
    assert sorted(p.name for p in logs.iterdir() if p.name.startswith("worker-")) == \
        ["worker-0", "worker-1"], "the tournament's workers setting started two workers"


def test_a_match_on_two_workers_plays_every_game_on_their_own_bots(db: Path) -> None:
    ok(db, "match", "greedy", "counter", "--games", "6", "--workers", "2",
       "--rules", str(_rules_file(db.parent)))
    [match] = [row["name"] for row in query(db, "SELECT name FROM tournaments")]
    assert_recorded_once(db, match, 6)
    for worker in ("worker-0", "worker-1"):
        assert (db.parent / "arena-logs" / worker / "greedy.log").exists()
    newest = max((db.parent / "arena-logs").glob("worker-*/greedy.log"),
                 key=lambda path: path.stat().st_mtime)
    assert ok(db, "bot", "log", "greedy", "--lines", "2").stdout.splitlines() == \
        newest.read_text().splitlines()[-2:], "the log a worker's copy of the bot wrote"


def _rules_file(folder: Path) -> Path:
    path = folder / "rules.json"
    path.write_text(json.dumps(RULES))
    return path


def test_remote_bots_on_more_than_one_worker_are_refused_saying_why(db: Path) -> None:
    ok(db, "bot", "add", "far")
    path = _rules_file(db.parent)
    ok(db, "tournament", "create", "mixed", "greedy", "far", "--table-size", "2",
       "--rules", str(path))
    result = arena(db, "tournament", "run", "mixed", "--workers", "2")
    assert result.exit_code != 0
    assert "remote bots (far) cannot play on more than one worker" in result.output
    assert "--workers 1" in result.output
    assert query(db, "SELECT count(*) AS n FROM games")[0]["n"] == 0


def test_a_sequential_run_on_more_than_one_worker_is_refused_saying_why(db: Path) -> None:
    _create(db, "open-ended", deals=1)
    result = arena(db, "tournament", "run", "open-ended", "--workers", "2", "--until-separated")
    assert result.exit_code != 0
    assert "a sequential run (--until-separated, --sprt) plays on one worker" in result.output
    assert query(db, "SELECT count(*) AS n FROM games")[0]["n"] == 0


def _done(db: Path, name: str) -> int:
    rows = query(db, "SELECT count(*) AS n FROM scheduled_games s JOIN tournaments t "
                     "ON t.id = s.tournament_id WHERE t.name = ? AND s.status = 'done'", name)
    return int(rows[0]["n"])


def _run_in_background(db: Path, name: str, env: dict[str, str], *options: str
                       ) -> subprocess.Popen[bytes]:
    return subprocess.Popen([*ARENA, "--db", str(db), "tournament", "run", name, *options],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)


def test_a_dask_worker_killed_mid_run_leaves_every_game_recorded_once_rated_as_one_worker(
        db: Path, cluster: Any) -> None:
    total = _create(db, "whole", deals=30)
    _create(db, "killed", deals=30)
    ok(db, "tournament", "run", "whole", "--concurrency", "4")
    import distributed

    client_class: Any = distributed.Client  # distributed is not typed
    with client_class(cluster.scheduler_address) as client, \
            marked_env(f"dask-{os.getpid()}-{db.parent.name}") as env:
        pids = list(client.run(os.getpid).values())
        run = _run_in_background(db, "killed", env, "--cluster", cluster.scheduler_address)
        wait_until(lambda: _done(db, "killed") >= 2 or run.poll() is not None, timeout=30,
                   what="games recorded by the cluster", interval=0.005)
        os.kill(pids[0], signal.SIGKILL)
        assert _done(db, "killed") < total, "the worker was killed before the run ended"
        _, err = run.communicate(timeout=60)
        assert run.returncode == 0, err.decode()
        wait_until(lambda: len(client.scheduler_info()["workers"]) == 2, timeout=30,
                   what="the killed worker restarted by its nanny")
    assert_recorded_once(db, "killed", total)
    assert _games(db, "killed") == _games(db, "whole")
    assert _ratings(db, "killed") == _ratings(db, "whole")


def test_a_driver_killed_mid_run_leaves_no_worker_and_resumes_with_nothing_lost_or_doubled(
        db: Path) -> None:
    total = _create(db, "killed", deals=30)
    with marked_env(f"driver-{os.getpid()}-{db.parent.name}") as env:
        marker = env["ARENA_TEST_MARK"]
        run = _run_in_background(db, "killed", env, "--workers", "2")
        wait_until(lambda: _done(db, "killed") >= 2 or run.poll() is not None, timeout=30,
                   what="games recorded by the workers", interval=0.005)
        os.kill(run.pid, signal.SIGKILL)  # the driver alone: its workers are its children
        run.communicate()
        done = _done(db, "killed")
        assert done < total, "the driver was killed before the run ended"
        wait_until(lambda: not processes_marked(marker), timeout=20,
                   what="the workers and their bots to die with the driver")
        time.sleep(0.2)
        assert _done(db, "killed") == done, "nothing recorded after the driver died"
    ok(db, "tournament", "run", "killed", "--workers", "2")
    assert_recorded_once(db, "killed", total)
    history = query(db, "SELECT game_id, bot_id, pool_id FROM pool_rating_history")
    assert len(history) == len({tuple(row) for row in history}) == 2 * total * 2, \
        "each seat rated once in each of its two pools"


def test_a_ladder_on_a_dask_cluster_launches_its_bots_on_the_workers_and_records_once(
        db: Path, cluster: Any) -> None:
    settings = db.parent / "ladder.json"
    settings.write_text(json.dumps({"rules": RULES, "tables": 2}))
    result = ok(db, "ladder", "run", "--cluster", cluster.scheduler_address, "--games", "12",
                "--settings", str(settings))
    assert "ladder ladder: 12 games" in result.stdout
    assert_recorded_once(db, "ladder", 12)
    seats = query(db, "SELECT b.name, count(*) AS n FROM game_seats s JOIN bots b ON "
                      "b.id = s.bot_id GROUP BY b.name")
    assert {row["name"]: row["n"] for row in seats} == {"greedy": 12, "counter": 12}


def _plugins(client: Any) -> list[str]:
    """The arena plugins registered on the cluster's scheduler."""
    from arena.distributed.cluster import PLUGIN_PREFIX

    names: list[str] = client.run_on_scheduler(
        lambda dask_scheduler: sorted(dask_scheduler.worker_plugins))
    return [name for name in names if name.startswith(PLUGIN_PREFIX)]


def test_two_tournaments_at_once_on_one_dask_cluster_each_record_every_game_rated_as_alone(
        db: Path, cluster: Any) -> None:
    # Two databases: the first driver is paused mid-run, maybe in a write of its own.
    other = db.parent / "other" / "arena.db"
    other.parent.mkdir()
    add_bots(other, BOTS)
    long_total = _create(db, "long", deals=40)
    short_total = _create(other, "short", deals=8, seed=7)
    _create(db, "long-alone", deals=40)
    _create(other, "short-alone", deals=8, seed=7)
    ok(db, "tournament", "run", "long-alone", "--concurrency", "4")
    ok(other, "tournament", "run", "short-alone", "--concurrency", "4")
    address = cluster.scheduler_address
    with marked_env(f"two-runs-{os.getpid()}-{db.parent.name}") as env:
        long = _run_in_background(db, "long", env, "--cluster", address)
        wait_until(lambda: _done(db, "long") >= 2 or long.poll() is not None, timeout=30,
                   what="games of the first run recorded", interval=0.005)
        # The first driver, paused, keeps its hosts on the workers while the second run
        # plays from start to end: the two runs are on the cluster at once.
        os.kill(long.pid, signal.SIGSTOP)
        try:
            assert _done(db, "long") < long_total, "the first run was paused before its end"
            ok(other, "tournament", "run", "short", "--cluster", address)
        finally:
            os.kill(long.pid, signal.SIGCONT)
        _, err = long.communicate(timeout=60)
        assert long.returncode == 0, err.decode()
    assert_recorded_once(db, "long", long_total)
    assert_recorded_once(other, "short", short_total)
    assert _games(db, "long") == _games(db, "long-alone")
    assert _games(other, "short") == _games(other, "short-alone")
    assert _ratings(db, "long") == _ratings(db, "long-alone")
    assert _ratings(other, "short") == _ratings(other, "short-alone")
    assert _games(other, "short") != _games(db, "long-alone"), "two different tournaments"


def test_a_run_unregisters_the_plugin_a_vanished_driver_left_and_keeps_a_live_ones(
        db: Path, cluster: Any) -> None:
    import distributed

    from arena.distributed.cluster import PLUGIN_PREFIX, _claim_on_scheduler

    client_class: Any = distributed.Client
    plugin: Any = distributed.WorkerPlugin
    total = _create(db, "after", deals=2)
    left, kept = PLUGIN_PREFIX + "left-behind", PLUGIN_PREFIX + "still-playing"
    with client_class(cluster.scheduler_address) as gone:
        assert gone.run_on_scheduler(_claim_on_scheduler(left, gone.id))[0] == ""
        gone.register_plugin(plugin(), name=left)
    with client_class(cluster.scheduler_address) as live:
        assert live.run_on_scheduler(_claim_on_scheduler(kept, live.id))[0] == ""
        live.register_plugin(plugin(), name=kept)
        assert {left, kept} <= set(_plugins(live))
        ok(db, "tournament", "run", "after", "--cluster", cluster.scheduler_address)
        assert _plugins(live) == [kept], "the run's own plugin went with it, and the stale one"
        live.unregister_worker_plugin(kept)
    assert_recorded_once(db, "after", total)


def test_a_second_driver_of_a_run_a_connected_driver_plays_is_refused_on_the_cluster(
        tmp_path: Path, cluster: Any) -> None:
    from arena.distributed.cluster import DaskWorkers, RunOnCluster, plugin_name
    from arena.tournament.chunked import WorkerPlan

    plan = WorkerPlan((), str(tmp_path / "logs"), run="spring", database="here:/arena.db")
    other = WorkerPlan((), str(tmp_path / "logs"), run="spring", database="there:/arena.db")
    assert plugin_name(plan) != plugin_name(other), "runs of two databases are two runs"
    assert plugin_name(plan).startswith("arena-host-spring-")

    async def twice() -> None:
        async with DaskWorkers(plan, cluster.scheduler_address):
            with pytest.raises(RunOnCluster, match="another driver .* is playing spring"):
                async with DaskWorkers(plan, cluster.scheduler_address):
                    pass
            async with DaskWorkers(other, cluster.scheduler_address) as beside:
                assert beside.size == 2
        async with DaskWorkers(plan, cluster.scheduler_address):
            pass  # its first driver gone, the run may be played again

    asyncio.run(twice())


SLOW_BOT = '''
import sys, time
from arena.client import run

def decide(view, legal):
    print("deciding", file=sys.stderr, flush=True)
    time.sleep(0.25)
    return 0

raise SystemExit(run(decide, name="slow", max_tables=8).exit_code)
'''


def test_a_run_on_workers_stopped_by_ctrl_c_ends_without_finishing_the_chunks_in_play(
        tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    tmp_path.chmod(0o755)  # a root arena runs sandboxed bots as a user of their own
    (tmp_path / "slow_bot.py").write_text(SLOW_BOT)
    ok(db, "bot", "add", "slow", "--command", f"{ARENA[0]} {tmp_path / 'slow_bot.py'}")
    add_bots(db, {"greedy": "greedy"})
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"rules": RULES, "concurrency": 2}))
    ok(db, "tournament", "create", "slow", "slow", "greedy", "--table-size", "2", "--deals",
       "6", "--settings", str(path))

    def playing() -> bool:
        return any("deciding" in log.read_text(errors="replace")
                   for log in tmp_path.glob("arena-logs/worker-*/slow*"))

    with marked_env(f"abandon-{os.getpid()}-{tmp_path.name}") as env:
        run = _run_in_background(db, "slow", env, "--workers", "2")
        wait_until(lambda: playing() or run.poll() is not None, timeout=60,
                   what="the slow bot's first decision on a worker")
        asked = time.monotonic()
        run.send_signal(signal.SIGINT)
        _, err = run.communicate(timeout=60)
        took = time.monotonic() - asked
    # Each of the 12 games takes the slow bot at least 20 decisions of 0.25 s: a chunk
    # played to its end would hold the run for well over 5 s after Ctrl-C.
    assert run.returncode == 130, err.decode()
    assert took < 5, f"{took:.1f} s to stop; said: {err.decode()}"
    assert "Traceback" not in err.decode(), err.decode()
    statuses = query(db, "SELECT s.status, count(*) AS n FROM scheduled_games s JOIN games g"
                         " ON g.id = s.game_id GROUP BY s.status")
    done = _done(db, "slow")
    assert done < 12
    assert [tuple(row) for row in statuses] in ([], [("done", done)]), "games in play stay pending"
    assert query(db, "SELECT status FROM tournaments")[0]["status"] == "stopped"
