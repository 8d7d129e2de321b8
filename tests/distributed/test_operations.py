"""What an operator sees of a run on workers: the bot logs of a Dask run in the driver's
log folder, a wait for workers said at once and given up after --wait, a dashboard on a
taken port said, a lost worker and the chunks it was playing said a line each, a dead
local worker said without an exception's name.

Everything is real: `arena` processes, a Dask `LocalCluster` of worker processes on
127.0.0.1 (and a `dask scheduler` process where its command line matters), the
deterministic sample bots.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.distributed.cluster import _SchedulerLog, chunk_key, dashboard_line
from arena.distributed.logs import LogShipper, keep_logs, worker_folder
from arena.store import GameStatus, ScheduledGame
from arena.tournament.chunked import Chunk, said_if_slow
from tests.cli.cli_support import ARENA, add_bots, assert_recorded_once, marked_env, ok
from tests.distributed.test_workers import BOTS, _create, _done
from tests.support import free_port, wait_until

pytestmark = pytest.mark.timeout(120)


def _local_cluster(workers: int) -> Any:
    import distributed

    local_cluster: Any = distributed.LocalCluster  # distributed is not typed
    return local_cluster(n_workers=workers, threads_per_worker=1, processes=True,
                         host="127.0.0.1", dashboard_address=None)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    db = tmp_path / "arena.db"
    add_bots(db, BOTS)
    return db


def _start(db: Path, env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([*ARENA, "--db", str(db), *args], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)


def test_the_bot_logs_of_a_dask_run_come_back_to_the_driver_s_log_folder(
        db: Path) -> None:
    total = _create(db, "logged", deals=6)
    with _local_cluster(2) as cluster:
        run = ok(db, "tournament", "run", "logged", "--cluster", cluster.scheduler_address)
    assert_recorded_once(db, "logged", total)
    logs = db.parent / "arena-logs"
    for worker in ("worker-0", "worker-1"):
        for bot in BOTS:
            text = (logs / worker / f"{bot}.log").read_text()
            assert "start" in text and "game logged:" in text, f"{worker}: {bot}"
    assert "the cluster's dashboard is off" in run.stderr, "said, with how to turn it on"
    newest = max(logs.glob("worker-*/greedy.log"), key=lambda path: path.stat().st_mtime)
    assert ok(db, "bot", "log", "greedy", "--lines", "1").stdout.splitlines() == \
        newest.read_text().splitlines()[-1:], "`arena bot log` finds a Dask worker's log"


def test_the_bot_logs_of_a_run_on_workers_go_where_arena_worker_logs_names(
        db: Path, tmp_path: Path) -> None:
    total = _create(db, "named", deals=2)
    named = tmp_path / "shared" / "bot-logs"
    with _local_cluster(1) as cluster, \
            marked_env(f"named-{os.getpid()}-{db.parent.name}") as env:
        run = subprocess.run([*ARENA, "--db", str(db), "tournament", "run", "named",
                              "--cluster", cluster.scheduler_address],
                             env={**env, "ARENA_WORKER_LOGS": str(named)},
                             capture_output=True, text=True, timeout=90)
    assert run.returncode == 0, run.stderr
    assert_recorded_once(db, "named", total)
    assert "game named:" in (named / "worker-0" / "greedy.log").read_text()
    assert not (db.parent / "arena-logs" / "worker-0").exists()


def test_a_run_says_at_once_that_it_waits_for_a_worker_and_plays_once_one_joins(
        db: Path) -> None:
    total = _create(db, "waiting", deals=2)
    with _local_cluster(0) as cluster, \
            marked_env(f"wait-{os.getpid()}-{db.parent.name}") as env:
        started = time.monotonic()
        run = _start(db, env, "tournament", "run", "waiting", "--cluster",
                     cluster.scheduler_address, "--wait", "90")
        assert run.stderr is not None
        lines: list[str] = []
        while not any("waiting for a worker to join" in line for line in lines):
            line = run.stderr.readline()
            assert line, "the run said it waits before it ended"
            lines.append(line)
        assert time.monotonic() - started < 10 + 5, "said within 10 s (of its own start)"
        cluster.scale(1)
        _, err = run.communicate(timeout=90)
    assert run.returncode == 0, "".join(lines) + err
    assert "a worker joined the cluster" in err
    assert_recorded_once(db, "waiting", total)


def test_a_run_on_a_cluster_with_no_worker_gives_up_after_wait_and_says_a_taken_port(
        db: Path, tmp_path: Path) -> None:
    _create(db, "nobody", deals=1)
    port = free_port()
    with socket.socket() as taken, marked_env(f"nobody-{os.getpid()}") as env:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        ready = tmp_path / "scheduler.json"
        scheduler = subprocess.Popen(
            [sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1", "--port",
             str(port), "--dashboard-address", f"127.0.0.1:{busy}",
             "--scheduler-file", str(ready)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_until(lambda: ready.exists() or scheduler.poll() is not None, timeout=30,
                       what="the scheduler")
            started = time.monotonic()
            run = subprocess.run([*ARENA, "--db", str(db), "tournament", "run", "nobody",
                                  "--cluster", f"tcp://127.0.0.1:{port}", "--wait", "2"],
                                 env=env, capture_output=True, text=True, timeout=60)
            took = time.monotonic() - started
        finally:
            scheduler.terminate()
            scheduler.wait(timeout=30)
    assert run.returncode != 0
    assert f"no worker joined the cluster at tcp://127.0.0.1:{port} in 2 s" in run.stderr
    assert "waiting for a worker to join" in run.stderr
    assert f"port {busy} was taken, so the scheduler moved it" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr
    assert took < 30


def test_a_lost_dask_worker_and_the_chunks_it_played_are_said_a_line_each(
        db: Path) -> None:
    total = _create(db, "lost", deals=40)
    import distributed

    client_class: Any = distributed.Client
    with _local_cluster(2) as cluster, client_class(cluster.scheduler_address) as client, \
            marked_env(f"lost-{os.getpid()}-{db.parent.name}") as env:
        pids = client.run(os.getpid)
        run = _start(db, env, "tournament", "run", "lost", "--cluster",
                     cluster.scheduler_address)
        wait_until(lambda: _done(db, "lost") >= 4 or run.poll() is not None, timeout=60,
                   what="games recorded by the cluster", interval=0.005)
        # The worker killed is one playing a chunk, so that a chunk is out when it dies.
        busy: list[str] = []

        def found_busy() -> bool:
            busy.extend(worker for worker, keys in client.processing().items() if keys)
            return bool(busy) or run.poll() is not None

        wait_until(found_busy, timeout=60, what="a worker playing a chunk", interval=0.005)
        os.kill(pids[busy[0]], signal.SIGKILL)
        _, err = run.communicate(timeout=90)
    assert run.returncode == 0, err
    assert_recorded_once(db, "lost", total)
    assert "left the cluster; 1 worker(s) left" in err, err
    assert "are played again: the worker playing them died" in err, err
    assert "joined the cluster" in err, "the nanny's new worker"
    assert "Traceback" not in err


def _worker_processes(driver: int) -> list[int]:
    """The spawned worker processes among `driver`'s children."""
    children = []
    for task in Path(f"/proc/{driver}/task").iterdir():
        children += (task / "children").read_text().split()
    return [int(pid) for pid in children
            if "spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")]


def test_a_killed_local_worker_is_said_with_how_it_died_and_no_exception_name(
        db: Path) -> None:
    _create(db, "broken", deals=40)
    with marked_env(f"broken-{os.getpid()}-{db.parent.name}") as env:
        run = _start(db, env, "tournament", "run", "broken", "--workers", "2")
        wait_until(lambda: _done(db, "broken") >= 2 or run.poll() is not None, timeout=60,
                   what="games recorded by the workers", interval=0.005)
        [victim, *_] = _worker_processes(run.pid)
        os.kill(victim, signal.SIGKILL)
        _, err = run.communicate(timeout=60)
    assert run.returncode == 1, err
    assert f"a worker process died: pid {victim} (killed by SIGKILL)" in err, err
    assert "running the tournament again resumes it" in err
    assert f"bot logs in {db.parent / 'arena-logs'}/worker-*" in err
    assert "BrokenProcessPool" not in err and "Traceback" not in err


# ------------------------------------------------------------------- the parts alone


def test_a_shipper_sends_each_byte_once_across_a_rotation_and_the_newest_past_its_cap(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    worker, driver = tmp_path / "worker", tmp_path / "driver"
    worker.mkdir()
    shipper = LogShipper(worker)
    (worker / "greedy.log").write_bytes(b"one\n")
    keep_logs(driver, "worker-a", shipper.new_text())
    assert shipper.new_text() == (), "nothing new"
    with (worker / "greedy.log").open("ab") as log:
        log.write(b"two\n")
    (worker / "greedy.log").rename(worker / "greedy.log.1")  # a restart rotates it
    (worker / "greedy.log").write_bytes(b"three\n")
    keep_logs(driver, "worker-a", shipper.new_text())
    assert (driver / "worker-a" / "greedy.log").read_bytes() == b"one\ntwo\nthree\n"
    monkeypatch.setattr("arena.distributed.logs.SHIP_BYTES", 4)
    with (worker / "greedy.log").open("ab") as log:
        log.write(b"0123456789")
    [text] = shipper.new_text()
    assert (text.data, text.left_out) == (b"6789", 6)


def test_a_slow_start_is_said_and_a_quick_one_is_not() -> None:
    import asyncio

    said: list[str] = []
    assert asyncio.run(said_if_slow(asyncio.sleep(0.3, "slow"), "waiting", said.append,
                                    after=0.05)) == "slow"
    assert asyncio.run(said_if_slow(asyncio.sleep(0, "quick"), "not said", said.append,
                                    after=5)) == "quick"
    assert said == ["waiting"]


def test_a_dask_worker_s_folder_on_the_driver_is_its_name_fit_for_a_file() -> None:
    assert worker_folder(0) == "worker-0"
    assert worker_folder("tcp://10.0.0.5:40123") == "worker-10.0.0.5-40123"


def test_a_task_key_names_the_run_and_its_games() -> None:
    games = tuple(ScheduledGame(index, 1, 0, 0, index, ("a", "b"), (1, 2), 7, None,
                                GameStatus.PENDING, None) for index in (4, 5, 6))
    key = chunk_key("spring cup", Chunk(games, {}, {}, 2, "spring cup"))
    assert key.startswith("arena-spring_cup-games-4-6-")


def test_a_dashboard_on_every_interface_or_missing_says_what_to_do() -> None:
    line = dashboard_line({"dashboard": True, "host": "0.0.0.0", "port": 8787,
                           "asked": ":8787"})
    assert line.startswith("the cluster's dashboard: http://127.0.0.1:8787/status")
    assert "--dashboard-address 127.0.0.1:8787 keeps it on loopback" in line
    assert "pip install 'arena[cluster]'" in dashboard_line({"dashboard": False,
                                                             "bokeh": False})



def test_while_a_run_is_on_dask_says_its_warnings_as_lines_and_keeps_its_tracebacks_off(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # Dask's handlers as `import distributed` sets them in the CLI's process (under
    # pytest, whose root logger has a handler, it sets none).
    dasks = logging.StreamHandler(sys.stderr)
    for name in ("distributed", "distributed.client"):
        monkeypatch.setattr(logging.getLogger(name), "handlers", [dasks])
        monkeypatch.setattr(logging.getLogger(name), "propagate", False)
    said: list[str] = []
    with _SchedulerLog(said.append), _SchedulerLog(said.append):
        try:
            raise OSError("the comm closed")
        except OSError:
            logging.getLogger("distributed.batched").info("Batched Comm Closed",
                                                          exc_info=True)
        logging.getLogger("distributed.worker").warning("a worker left\nits details")
        logging.getLogger("distributed.client").error("the scheduler is gone")
    assert capsys.readouterr().err == ""
    assert said == ["dask: a worker left", "dask: a worker left",
                    "dask: the scheduler is gone", "dask: the scheduler is gone"]
    for name in ("distributed", "distributed.client"):
        assert logging.getLogger(name).handlers == [dasks]
        assert logging.getLogger(name).propagate is False
    logging.getLogger("distributed.batched").warning("after the run")
    assert capsys.readouterr().err == "after the run\n"


def _dask(env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "dask", *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def test_a_scheduler_killed_and_restarted_mid_run_is_said_and_the_run_goes_on(
        db: Path, tmp_path: Path) -> None:
    total = _create(db, "restarted", deals=40)
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    scheduler_args = ["scheduler", "--host", "127.0.0.1", "--port", str(port),
                      "--dashboard-address", "127.0.0.1:0"]
    worker_args = ["worker", address, "--nthreads", "1", "--host", "127.0.0.1",
                   "--dashboard-address", "127.0.0.1:0"]
    processes: list[subprocess.Popen[bytes]] = []
    with marked_env(f"restart-{os.getpid()}-{db.parent.name}") as env:
        try:
            processes.append(_dask(env, *scheduler_args))
            processes.append(_dask(env, *worker_args))
            run = _start(db, env, "tournament", "run", "restarted", "--cluster", address)
            processes.append(run)  # type: ignore[arg-type]
            wait_until(lambda: _done(db, "restarted") >= 4 or run.poll() is not None,
                       timeout=90, what="games recorded by the cluster", interval=0.005)
            processes[0].kill()  # the scheduler, as SIGKILL; its workers go with it
            processes[0].wait()
            assert _done(db, "restarted") < total, "the scheduler died before the run's end"
            time.sleep(1)
            processes.append(_dask(env, *scheduler_args))  # a supervisor starts both again
            processes.append(_dask(env, *worker_args))
            _, err = run.communicate(timeout=120)
        finally:
            for process in reversed(processes):
                if process.poll() is None:
                    process.terminate()
                    process.wait(timeout=30)
    assert run.returncode == 0, err
    assert_recorded_once(db, "restarted", total)
    lines = err.splitlines()
    assert f"lost the connection to the scheduler at {address}; reconnecting" in lines, err
    assert f"reconnected to the scheduler at {address}" in lines, err
    assert any(line.endswith("are played again after the reconnect") for line in lines), err
    assert "Traceback" not in err


def test_on_a_terminal_each_line_about_the_workers_stands_above_the_progress_bar(
        db: Path) -> None:
    from tests.cli.terminal_support import run_on_terminal

    total = _create(db, "shown", deals=40)
    import distributed

    client_class: Any = distributed.Client
    killed: list[int] = []
    with _local_cluster(2) as cluster, client_class(cluster.scheduler_address) as client, \
            marked_env(f"shown-{os.getpid()}-{db.parent.name}") as env:
        pids = list(client.run(os.getpid).values())

        def kill_a_worker(_: bytes) -> None:
            if not killed and _done(db, "shown") >= 4:
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])

        shown = run_on_terminal([*ARENA, "--db", str(db), "tournament", "run", "shown",
                                 "--cluster", cluster.scheduler_address],
                                {**env, "NO_COLOR": "1"}, timeout=100, on_output=kill_a_worker)
    assert shown.exit_code == 0, shown.text
    assert killed and _done(db, "shown") == total
    said = [line.rstrip() for line in shown.screen if "left the cluster" in line]
    assert said and said[0].startswith("worker "), shown.text
    assert not any("games/s" in line and "cluster" in line for line in shown.screen), \
        "no line about the workers inside the bar"
    assert "Traceback" not in shown.output.decode(errors="replace")
