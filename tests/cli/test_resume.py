"""A tournament stopped mid-run resumes without losing or double-counting a game.

`arena tournament run` runs as a real process on a real SQLite file; each test
watches the database read-only until some games are recorded, then stops the
run one way — SIGKILL to the CLI's whole process group (its managed bots, in
sessions of their own, are killed after it), Ctrl-C, or SIGTERM to the
`arena serve` a remote run talks to — and runs the same command again to the end.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from arena.server.auth import ADMIN_TOKEN_VARIABLE, admin_token_path
from arena.store import Store
from arena.v1 import admin_pb2
from tests.cli.cli_support import (
    ARENA,
    BOTS,
    ONE_HAND,
    add_bots,
    arena,
    arena_env,
    assert_recorded_once,
    has_open,
    is_launcher,
    kill_marked,
    leaderboard_tables,
    marked_env,
    ok,
    processes_marked,
    query,
    write_json,
)
from tests.support import free_port, wait_until

pytestmark = pytest.mark.timeout(60)

DB = TypeVar("DB", bound=Path | str)

DEALS = 12
TOTAL = DEALS * 3  # one table of three, played in its three seat rotations


def _done(db: Path | str) -> int:
    if isinstance(db, Path) and not db.exists():
        return 0
    rows = query(db, "SELECT count(*) AS n FROM scheduled_games s JOIN tournaments t "
                     "ON t.id = s.tournament_id WHERE t.name = 'long' AND s.status = 'done'")
    return int(rows[0]["n"])


def _with_long_tournament(db: DB, folder: Path) -> DB:
    """`db` with three managed sample bots and tournament 'long' of TOTAL single hands."""
    add_bots(db, BOTS)
    settings = write_json(folder / "settings.json", {"rules": ONE_HAND, "concurrency": 2})
    ok(db, "tournament", "create", "long", *BOTS, "--table-size", "3", "--deals", str(DEALS),
       "--settings", str(settings))
    return db


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """An SQLite database with the sample bots and tournament 'long' (see above)."""
    return _with_long_tournament(tmp_path / "arena.db", tmp_path)


@pytest.fixture
def db_on_each_backend(store_target: Path | str, tmp_path: Path,
                       monkeypatch: pytest.MonkeyPatch) -> Path | str:
    """`db`, once on SQLite and once on PostgreSQL (run from tmp_path, where a
    PostgreSQL store keeps its bots' logs)."""
    monkeypatch.chdir(tmp_path)
    return _with_long_tournament(store_target, tmp_path)


def _default_sigint() -> None:
    # A test runner started in the background ignores SIGINT, and its children
    # would inherit that; the CLI must see Ctrl-C as a terminal would send it.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_run(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([*ARENA, *args, "tournament", "run", "long"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, preexec_fn=_default_sigint)


def _wait_for_first_game(db: Path | str, cli: subprocess.Popen[bytes]) -> None:
    wait_until(lambda: _done(db) >= 1 or cli.poll() is not None, timeout=30,
               what="the first recorded game", interval=0.005)
    assert cli.poll() is None, "the run ended before it could be interrupted"


def _interrupt(cli: subprocess.Popen[bytes], ready: Callable[[], None], times: int = 1) -> str:
    """Once `ready()` returns, Ctrl-C `cli` `times` times, 50 ms apart; its stderr once it
    has ended (its process group is killed if it has not within 20 s)."""
    try:
        ready()
        for sent in range(times):
            if sent:
                time.sleep(0.05)
            cli.send_signal(signal.SIGINT)
        _, err = cli.communicate(timeout=20)
    finally:
        if cli.poll() is None:
            os.killpg(cli.pid, signal.SIGKILL)
            cli.communicate()
    return err.decode()


def _resume_and_check_every_game_recorded_once(db: Path | str) -> None:
    """Run 'long' again to its end; every scheduled game is then recorded exactly once."""
    [(_, rows)] = leaderboard_tables(ok(db, "tournament", "run", "long").stdout)
    assert {row["bot"]: row["games"] for row in rows} == {bot: str(TOTAL) for bot in BOTS}

    assert_recorded_once(db, "long", TOTAL)
    assert len(query(db, "SELECT id FROM games")) == TOTAL, "no stray game outside the schedule"
    assert len(query(db, "SELECT game_id FROM game_seats")) == TOTAL * 3

    store = Store.open(db)
    try:
        assert store.tournament("long").status.value == "finished"
        seats = Counter(bot for game in store.scheduled_games("long") for bot in game.seats)
        per_tournament = {r.bot: r for r in store.ratings("long")}
        overall = {r.bot: r for r in store.ratings()}
        wins = Counter(g.seats[g.outcome.ranks.index(0)]
                       for g in store.games(tournament="long", limit=None))
    finally:
        store.close()
    assert {bot: r.games for bot, r in per_tournament.items()} == dict(seats)
    assert sum(r.games for r in per_tournament.values()) == TOTAL * 3
    assert {bot: r.wins for bot, r in per_tournament.items()} == {b: wins[b] for b in BOTS}
    assert {bot: (r.games, r.wins, r.points) for bot, r in overall.items()} == \
        {bot: (r.games, r.wins, r.points) for bot, r in per_tournament.items()}
    history = query(db, "SELECT game_id, bot_id, pool_id FROM pool_rating_history")
    assert len(history) == len({tuple(row) for row in history}), "no rating update twice"
    assert len({row["game_id"] for row in history}) == TOTAL
    assert len(history) == 2 * TOTAL * 3, "each seat rated once in each of its two pools"


def test_a_killed_tournament_resumes_and_records_every_game_exactly_once(
        db_on_each_backend: Path | str, tmp_path: Path) -> None:
    db = db_on_each_backend
    with marked_env(f"kill-{os.getpid()}-{tmp_path.name}") as env:
        marker = env["ARENA_TEST_MARK"]
        cli = _start_run(["--db", str(db)], arena_env(env, db))
        try:
            _wait_for_first_game(db, cli)
        finally:
            os.killpg(cli.pid, signal.SIGKILL)
            cli.communicate()
        assert cli.returncode == -signal.SIGKILL
        marked = processes_marked(marker)
        launchers = [pid for pid in marked if is_launcher(pid)]
        orphans = kill_marked(marker)
        assert len(set(orphans) - set(launchers)) <= 3, \
            "at most the three managed bots outlived the run"
        assert len(launchers) <= 3, "and at most their launchers"
        wait_until(lambda: processes_marked(marker) == [], timeout=5, what="the bots to die")

    assert 0 < _done(db) < TOTAL, "killed part way through"
    _resume_and_check_every_game_recorded_once(db)


@pytest.mark.parametrize("interrupts", [1, 2], ids=["ctrl-c", "a-second-ctrl-c-while-stopping"])
def test_ctrl_c_stops_a_run_cleanly_and_it_resumes(db: Path, interrupts: int) -> None:
    with marked_env(f"int{interrupts}-{os.getpid()}-{db.parent.name}") as env:
        marker = env["ARENA_TEST_MARK"]
        cli = _start_run(["--db", str(db)], env)
        stderr = _interrupt(cli, lambda: _wait_for_first_game(db, cli), interrupts)
        assert cli.returncode == 130, (cli.returncode, _done(db), stderr)
        assert stderr.endswith("\nstopped; run the same command again to resume.\n"), stderr
        for sign in ("Traceback", "Exception ignored", "never awaited", "Task exception"):
            assert sign not in stderr, stderr
        assert processes_marked(marker) == [], "the run stopped its managed bots"

    assert 0 < _done(db) < TOTAL, "stopped part way through"
    [status] = query(db, "SELECT status FROM tournaments WHERE name = 'long'")
    assert status["status"] == "stopped"
    _resume_and_check_every_game_recorded_once(db)


def test_a_run_whose_server_stops_says_so_and_resumes(db: Path) -> None:
    port = free_port()
    with marked_env(f"stop-{os.getpid()}-{db.parent.name}") as env:
        server = subprocess.Popen([*ARENA, "--db", str(db), "serve", "--port", str(port)],
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        cli: subprocess.Popen[bytes] | None = None
        try:
            assert server.stderr is not None
            assert b"arena serving on" in server.stderr.readline()
            # run from elsewhere: the admin token comes from the environment
            env[ADMIN_TOKEN_VARIABLE] = admin_token_path(db).read_text().strip()
            cli = _start_run(["--server", f"127.0.0.1:{port}"], env)
            _wait_for_first_game(db, cli)
            server.send_signal(signal.SIGTERM)
            assert server.wait(timeout=10) == 0
            _, err = cli.communicate(timeout=20)
        finally:
            for process in (server, cli):
                if process is not None and process.poll() is None:
                    process.kill()
                    process.communicate()
            if server.stderr is not None:
                server.stderr.close()
        assert cli.returncode == 1
        last = err.decode().splitlines()[-1]
        assert last.startswith("Error: the server stopped: "), err.decode()
        assert last.endswith(f" of {TOTAL} games done; "
                             "run `arena tournament run long` again to resume")
        assert processes_marked(env["ARENA_TEST_MARK"]) == [], "the server stopped its bots"

    assert 0 < _done(db) < TOTAL, "stopped part way through"
    [status] = query(db, "SELECT status FROM tournaments WHERE name = 'long'")
    assert status["status"] == "stopped"
    _resume_and_check_every_game_recorded_once(db)


# ------------------------------------------------------------------ matches

def _interrupt_match(db: Path, bots: list[str], ready: Callable[[int], bool]) -> str:
    """Start `arena match BOTS` on `db`, Ctrl-C it once `ready(pid)`; return its stderr."""
    with marked_env(f"match-{os.getpid()}-{db.parent.name}") as env:
        cli = subprocess.Popen([*ARENA, "--db", str(db), "match", *bots, "--games", "300",
                                "--wait", "30"], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, start_new_session=True,
                               preexec_fn=_default_sigint)

        def get_going() -> None:
            wait_until(lambda: ready(cli.pid) or cli.poll() is not None, timeout=30,
                       what="the match to get going", interval=0.005)
            assert cli.poll() is None, "the match ended before it could be interrupted"

        stderr = _interrupt(cli, get_going)
        assert cli.returncode == 130, stderr
        assert processes_marked(env["ARENA_TEST_MARK"]) == [], "the match stopped its bots"
    assert "Traceback" not in stderr, stderr
    return stderr


def test_ctrl_c_before_a_match_begins_says_no_game_was_played(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    ok(db, "bot", "add", "far-a")
    ok(db, "bot", "add", "far-b")
    # the command has opened the database: its server waits for bots that never come
    stderr = _interrupt_match(db, ["far-a", "far-b"], lambda pid: has_open(pid, db))
    assert stderr.endswith("\nstopped before the match began; no game was played.\n"), stderr
    assert query(db, "SELECT name FROM tournaments") == []


def test_ctrl_c_during_a_match_says_its_games_are_kept(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    add_bots(db, BOTS)
    stderr = _interrupt_match(db, list(BOTS), lambda pid: bool(
        query(db, "SELECT id FROM games LIMIT 1")))
    [match] = query(db, "SELECT name, status FROM tournaments")
    assert match["name"].startswith("match-") and match["status"] == "stopped"
    name = match["name"]
    assert stderr.endswith(f"\nstopped; the games played so far are kept in tournament {name}: "
                           f"`arena tournament run {name}` finishes it.\n"), stderr


def test_a_second_driver_of_a_running_tournament_is_refused(
        db_on_each_backend: Path | str, tmp_path: Path) -> None:
    db = db_on_each_backend
    with marked_env(f"second-{os.getpid()}-{tmp_path.name}") as env:
        cli = _start_run(["--db", str(db)], arena_env(env, db))
        try:
            _wait_for_first_game(db, cli)
            second = arena(db, "tournament", "run", "long")
            assert cli.poll() is None, "the first driver plays on"
        finally:
            os.killpg(cli.pid, signal.SIGKILL)
            cli.communicate()
    assert second.exit_code == 1, second.output
    assert f"'long' is already being run by process {cli.pid} on " in second.output


def test_ctrl_c_is_not_lost_when_it_comes_as_a_progress_update_arrives() -> None:
    """Ctrl-C cancels the command's task; if that lands in the loop turn where the
    server's next update has just arrived, the stream must still end with the
    cancellation rather than hand the update over and play on to the end."""
    from arena.cli.session import _SilenceOnStreams

    async def scenario() -> None:
        arrived: asyncio.Future[admin_pb2.RunProgress] = asyncio.get_running_loop().create_future()

        class OneUpdate:
            def read(self) -> asyncio.Future[admin_pb2.RunProgress]:
                return arrived

            def cancel(self) -> None:
                pass

        stream = _SilenceOnStreams("127.0.0.1:1", 30)._within_silence(OneUpdate(), "RunTournament")
        following = asyncio.ensure_future(anext(stream))
        await asyncio.sleep(0)  # following now waits for the update
        arrived.set_result(admin_pb2.RunProgress(done=1))
        following.cancel()
        with pytest.raises(asyncio.CancelledError):
            await following

    asyncio.run(scenario())
