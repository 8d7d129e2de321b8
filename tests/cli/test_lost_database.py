"""`arena tournament run` on PostgreSQL through a lost connection: it says when it lost
the connection and when it reconnected, and finishes; a database away for longer than
ARENA_DB_RECONNECT ends the run with one line, and running it again resumes.

The run is a real process with managed sample bots; once it has recorded a game, the
throwaway cluster ends the sessions of the run's database user (and, for the outage,
refuses that user for a while).
"""

from __future__ import annotations

import itertools
import os
import subprocess
from pathlib import Path

import pytest

from tests.cli.cli_support import (
    ARENA,
    BOTS,
    ONE_HAND,
    add_bots,
    arena,
    arena_env,
    assert_recorded_once,
    invoke,
    marked_env,
    ok,
    query,
    serving,
    wait_for_line,
    write_json,
)
from tests.postgres_support import PostgresCluster
from tests.support import free_port, wait_until

pytestmark = pytest.mark.timeout(90)

DEALS = 12
TOTAL = DEALS * 3  # one table of three, played in its three seat rotations

_users = itertools.count(1)


@pytest.fixture
def driver(postgres_cluster: PostgresCluster, tmp_path: Path,
           monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """(the URL the run uses, as a user of its own; the same database as `postgres`),
    holding the sample bots and tournament 'long' of TOTAL single hands."""
    monkeypatch.chdir(tmp_path)  # where a PostgreSQL store keeps its bots' logs
    user = f"cli_driver_{next(_users)}"
    postgres_cluster.add_user(user)
    url = postgres_cluster.as_user(postgres_cluster.migrated_database(), user)
    add_bots(url, BOTS)
    settings = write_json(tmp_path / "settings.json", {"rules": ONE_HAND, "concurrency": 1})
    ok(url, "tournament", "create", "long", *BOTS, "--table-size", "3", "--deals", str(DEALS),
       "--settings", str(settings))
    return url, postgres_cluster.as_user(url, "postgres")


def _done(url: str) -> int:
    rows = query(url, "SELECT count(*) AS n FROM scheduled_games WHERE status = 'done'")
    return int(rows[0]["n"])


def _run_and_disrupt(url: str, watch: str, disrupt: object, env: dict[str, str]
                     ) -> subprocess.CompletedProcess[str]:
    """Run 'long' as a process; once it has recorded a game, call `disrupt`; return how
    the process ended."""
    assert callable(disrupt)
    cli = subprocess.Popen([*ARENA, "--db", url, "tournament", "run", "long"],
                           env=arena_env(env, url), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        wait_until(lambda: _done(watch) >= 1 or cli.poll() is not None, timeout=30,
                   what="the first recorded game", interval=0.005)
        assert cli.poll() is None, "the run ended before it could be disrupted"
        disrupt()
        out, err = cli.communicate(timeout=60)
    finally:
        if cli.poll() is None:
            os.killpg(cli.pid, 9)
            cli.communicate()
    return subprocess.CompletedProcess(cli.args, cli.returncode, out, err)


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def test_a_run_says_it_lost_the_database_and_reconnected_and_finishes(
        postgres_cluster: PostgresCluster, driver: tuple[str, str], tmp_path: Path) -> None:
    url, watch = driver
    user = url.removeprefix("postgresql://").partition("@")[0]
    with marked_env(f"lost-{os.getpid()}-{tmp_path.name}") as env:
        ended = _run_and_disrupt(url, watch, lambda: postgres_cluster.end_sessions(user), env)
    assert ended.returncode == 0, ended.stderr
    lost = [line for line in _lines(ended.stderr) if line.startswith("lost the connection")]
    back = [line for line in _lines(ended.stderr) if line.startswith("reconnected to")]
    assert len(lost) == 1 and lost[0].endswith("; reconnecting"), ended.stderr
    assert len(back) == 1 and back[0].startswith(f"reconnected to the database {url} after")
    assert "Traceback" not in ended.stderr
    assert_recorded_once(watch, "long", TOTAL)


def test_a_run_whose_database_stays_away_stops_in_one_line_and_resumes(
        postgres_cluster: PostgresCluster, driver: tuple[str, str], tmp_path: Path) -> None:
    url, watch = driver
    user = url.removeprefix("postgresql://").partition("@")[0]

    def outage() -> None:
        postgres_cluster.allow_login(user, False)
        postgres_cluster.end_sessions(user)

    with marked_env(f"gone-{os.getpid()}-{tmp_path.name}") as env:
        env["ARENA_DB_RECONNECT"] = "0.5"
        ended = _run_and_disrupt(url, watch, outage, env)
    postgres_cluster.allow_login(user, True)
    assert ended.returncode == 1, ended.stderr
    last = _lines(ended.stderr)[-1]
    assert last.startswith(f"Error: lost the connection to the database {url} and could "
                           "not reconnect within 0.5 s"), ended.stderr
    assert last.endswith("run `arena tournament run long` again to resume"), last
    assert "Traceback" not in ended.stderr
    done = _done(watch)
    assert 0 < done < TOTAL
    assert len(query(watch, "SELECT id FROM games")) == done, "nothing half-written"
    ok(url, "tournament", "run", "long")
    assert_recorded_once(watch, "long", TOTAL)
    assert len(query(watch, "SELECT id FROM games")) == TOTAL


def test_a_bad_reconnect_budget_is_a_usage_error(driver: tuple[str, str]) -> None:
    url, _ = driver
    result = arena(url, "tournament", "list", env={"ARENA_DB_RECONNECT": "soon"})
    assert result.exit_code == 2
    assert "ARENA_DB_RECONNECT='soon' is not a number of seconds" in result.output


def test_serve_says_in_its_log_when_its_store_lost_the_database_and_reconnected(
        postgres_cluster: PostgresCluster, driver: tuple[str, str], tmp_path: Path) -> None:
    url, _ = driver
    user = url.removeprefix("postgresql://").partition("@")[0]
    port = free_port()
    with marked_env(f"serve-{os.getpid()}-{tmp_path.name}") as env, \
            serving(url, port, arena_env(env, url)) as server:
        wait_for_line(server, "arena serving on", timeout=30)
        postgres_cluster.end_sessions(user)
        listed = invoke("--db", url, "--server", f"127.0.0.1:{port}", "bot", "list")
        assert listed.exit_code == 0, listed.output
        assert all(name in listed.output for name in BOTS)
        said = wait_for_line(server, "reconnected to the database", timeout=30)
    lost = [line for line in _lines(said) if "lost the connection to the database" in line]
    assert len(lost) == 1, said
    assert "Traceback" not in said
