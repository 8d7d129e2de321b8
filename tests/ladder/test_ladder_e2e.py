"""The ladder end to end: real `arena` processes, real gRPC on loopback, real SQLite, the
sample bots as managed subprocesses, a version submitted while it plays, a removed bot,
SIGTERM and kill -9."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from arena.store import Store
from tests.cli.cli_support import (
    ARENA,
    ONE_HAND,
    PYTHON_BOTS,
    add_bots,
    arena,
    arena_env,
    leaderboard_tables,
    marked_env,
    ok,
    query,
    serving,
    wait_for_line,
    write_json,
)
from tests.support import free_port, wait_until

pytestmark = pytest.mark.timeout(120)

FIELD = {"greedy": "greedy", "counter": "counter", "rnd": "random", "greedy2": "greedy",
         "counter2": "counter"}


def _settings(folder: Path, tables: int = 2) -> Path:
    return write_json(folder / "ladder.json", {"rules": ONE_HAND, "tables": tables, "seed": 5,
                                                    "table_size": 4})


def _ladder_games(db: Path) -> list[dict[str, object]]:
    return [dict(row) for row in query(
        db, "SELECT s.game_index, s.bot_ids, s.status, s.game_id, g.started_at FROM "
            "scheduled_games s JOIN tournaments t ON t.id = s.tournament_id LEFT JOIN games g "
            "ON g.id = s.game_id WHERE t.name = 'ladder' ORDER BY s.game_index")]


def _done(db: Path) -> int:
    if not db.exists():
        return 0
    return sum(1 for game in _ladder_games(db) if game["status"] == "done")


def _assert_recorded_once(db: Path) -> int:
    """Every done game of the ladder is one stored game, rated once in each of its pools,
    and no stored game is outside the schedule; returns the games done."""
    games = [g for g in _ladder_games(db) if g["status"] == "done"]
    recorded = [g["game_id"] for g in games]
    assert len(recorded) == len(set(recorded))
    assert len(query(db, "SELECT id FROM games")) == len(recorded)
    history = query(db, "SELECT game_id, bot_id, pool_id FROM pool_rating_history")
    assert len(history) == len({tuple(row) for row in history}), "no rating update twice"
    assert len(history) == 2 * 4 * len(recorded), "each seat rated once in its two pools"
    return len(recorded)


def _start_ladder(db: Path, port: int, env: dict[str, str], *options: str
                  ) -> subprocess.Popen[bytes]:
    return subprocess.Popen([*ARENA, "--db", str(db), "--server", f"127.0.0.1:{port}",
                             "ladder", "run", *options], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_ladder_run_plays_every_bot_and_shows_the_ladders_leaderboard(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    with marked_env(f"ladder-{os.getpid()}-{tmp_path.name}") as env:
        add_bots(db, FIELD)
        result = arena(db, "ladder", "run", "--games", "16", "--settings",
                       str(_settings(tmp_path)), env=env)
    assert result.exit_code == 0, result.output
    [(heading, rows)] = leaderboard_tables(result.stdout)
    assert heading.startswith("ladder ladder: 16 games")
    assert {row["bot"] for row in rows} == set(FIELD)
    assert _assert_recorded_once(db) == 16
    seats = Counter(bot for game in _ladder_games(db) for bot in json.loads(str(game["bot_ids"])))
    assert len(seats) == len(FIELD), "every bot played"

    shown = ok(db, "rankings", "--ladder")
    assert [t[0] for t in leaderboard_tables(shown.stdout)] == [heading]
    refused = arena(db, "tournament", "run", "ladder")
    assert refused.exit_code != 0
    assert "ladder is a ladder: `arena ladder run --name ladder` plays it" in refused.output


STRONG = {"greedy", "greedy2", "counter", "counter2"}
"""The sample bots that play to win; `rnd` and the submitted `fresh@1` play at random."""


def test_six_bots_of_known_strength_a_version_midway_and_a_removed_bot(
        tmp_path: Path) -> None:
    """Five sample bots and a sixth submitted while the ladder plays: it is at the next
    table once connected; after a fixed number of games every bot has played and the
    board puts the two random bots last, never separating a pair against their strength;
    a bot removed then starts no game; SIGTERM stops the ladder cleanly."""
    db = tmp_path / "arena.db"
    port = free_port()
    add_bots(db, FIELD)
    with marked_env(f"join-{os.getpid()}-{tmp_path.name}") as env, \
            serving(db, port, env) as server:
        wait_for_line(server, "arena serving on", 30)
        ladder = _start_ladder(db, port, env, "--settings", str(_settings(tmp_path)))
        try:
            wait_until(lambda: _done(db) >= 4, timeout=60, what="a first deal")
            ok(db, "--server", f"127.0.0.1:{port}", "bot", "submit", str(PYTHON_BOTS),
               "--manifest", "random.arena-bot.toml", "--name", "fresh")
            said = wait_for_line(ladder, "fresh@1 joined", 30)  # the ladder saw it connect
            connected_at = datetime.now(UTC).isoformat()
            wait_until(lambda: _first_start(db, "fresh@1") is not None, timeout=30,
                       what="the new version's first game")
            first = _first_start(db, "fresh@1")
            assert first is not None
            between = [g for g in _ladder_games(db)
                       if g["started_at"] and connected_at < str(g["started_at"]) < first]
            # The tables in play and queued when it connected: two tables, four rotations.
            assert len(between) <= 2 * 4, between

            wait_until(lambda: _done(db) >= 64, timeout=90, what="64 ladder games")
            board = json.loads(ok(db, "--server", f"127.0.0.1:{port}", "rankings", "--ladder",
                                  "--format", "json").stdout)
            assert {line["bot"] for line in board} == {*FIELD, "fresh@1"}, "every bot played"
            assert {line["bot"] for line in board[-2:]} == {"rnd", "fresh@1"}
            assert all(line["bot"] in STRONG for line in board if line["place_high"] <= 2)
            weak_above_strong = [(upper["bot"], lower["bot"]) for upper, lower in
                                 zip(board, board[1:], strict=False)
                                 if upper["tier"] < lower["tier"] and upper["bot"] not in STRONG
                                 and lower["bot"] in STRONG]
            assert weak_above_strong == []

            ok(db, "--server", f"127.0.0.1:{port}", "bot", "remove", "greedy2")
            removed_at = datetime.now(UTC).isoformat()
            done_then = _done(db)
            wait_until(lambda: _done(db) >= done_then + 8, timeout=60, what="8 more games")
            later = [g for g in _ladder_games(db) if g["started_at"]
                     and str(g["started_at"]) > removed_at
                     and _bot_id(db, "greedy2") in json.loads(str(g["bot_ids"]))]
            assert later == [], "a removed bot starts no game"

            ladder.send_signal(signal.SIGTERM)
            _, err = ladder.communicate(timeout=30)
        finally:
            if ladder.poll() is None:
                ladder.kill()
                print("ladder said:", ladder.communicate()[1].decode())
    assert ladder.returncode == 0, "a ladder stopped by SIGTERM ended cleanly"
    assert "the games in play were abandoned and go first next time" in err.decode()
    [said_played] = re.findall(r"stopped after (\d+) games this run", err.decode())
    assert int(said_played) == _done(db), "every game this run recorded is counted"
    assert "Traceback" not in said + err.decode()
    _assert_recorded_once(db)


def test_a_server_killed_mid_ladder_loses_and_doubles_nothing_when_it_goes_on(
        tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    add_bots(db, {name: FIELD[name] for name in ("greedy", "counter", "rnd", "greedy2")})
    settings = str(_settings(tmp_path, tables=3))
    with marked_env(f"kill9-{os.getpid()}-{tmp_path.name}") as env:
        port = free_port()
        with serving(db, port, env) as server:
            wait_for_line(server, "arena serving on", 30)
            ladder = _start_ladder(db, port, env, "--settings", settings)
            wait_until(lambda: _done(db) >= 6, timeout=60, what="6 ladder games")
            server.send_signal(signal.SIGKILL)
            server.wait()
            ladder.communicate(timeout=30)
        assert ladder.returncode != 0
        before = _assert_recorded_once(db)
        assert before >= 6
        port = free_port()
        with serving(db, port, env) as server:
            wait_for_line(server, "arena serving on", 30)
            resumed = _start_ladder(db, port, env, "--settings", settings,
                                    "--games", str(before + 8))
            out, err = resumed.communicate(timeout=90)
    assert resumed.returncode == 0, err.decode()
    after = _assert_recorded_once(db)
    assert after >= before + 8
    with Store.open(db) as store:
        assert all(game.status.value == "done" for game in store.scheduled_games("ladder"))
    assert leaderboard_tables(out.decode())


def _bot_id(db: Path, name: str) -> int:
    return int(query(db, "SELECT id FROM bots WHERE name = ?", name)[0]["id"])


def _first_start(db: Path, bot: str) -> str | None:
    rows = query(db, "SELECT min(g.started_at) AS first FROM games g JOIN game_seats s ON "
                     "s.game_id = g.id JOIN bots b ON b.id = s.bot_id WHERE b.name = ?", bot)
    return None if rows[0]["first"] is None else str(rows[0]["first"])


def test_bad_ladder_settings_are_refused_with_the_key_and_nothing_is_stored(
        tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    add_bots(db, {"greedy": "greedy", "rnd": "random"})
    bad = tmp_path / "bad.toml"
    bad.write_text('tabels = 3\n', encoding="utf-8")
    for args in (("ladder", "run", "--settings", str(bad)),
                 ("serve", "--port", "0", "--ladder", str(bad))):
        result = arena(db, *args)
        assert result.exit_code != 0
        assert "tabels: unknown ladder setting" in result.output, result.output
        assert "Traceback" not in result.output
    assert query(db, "SELECT name FROM tournaments") == []


def test_the_example_ladder_settings_read() -> None:
    from arena.cli.inputs import load_table
    from arena.ladder.settings import LadderSettings
    from tests.cli.cli_support import ROOT

    settings = LadderSettings.from_dict(load_table(str(ROOT / "examples" / "ladder.toml"),
                                                   "--settings"))
    assert (settings.table_size, settings.rules.target_score) == (4, None)


def test_sigterm_stops_a_ladder_started_as_a_background_job_with_ctrl_c_ignored(
        tmp_path: Path) -> None:
    # A shell starts `nohup arena ladder run &` with SIGINT ignored; SIGTERM must still stop
    # it cleanly. With no bots the ladder waits for its field, which is enough to stop.
    db = tmp_path / "arena.db"
    with marked_env(f"ladder-bg-{os.getpid()}-{tmp_path.name}") as env:
        process = subprocess.Popen(
            [*ARENA, "--db", str(db), "ladder", "run"], env=arena_env(env, db),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
        try:
            wait_for_line(process, "waiting for 2", 60)
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=30) == 0, "stopped by SIGTERM: a clean end"
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()


def test_ctrl_c_stops_a_ladder_as_an_interrupted_command(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    with marked_env(f"ladder-int-{os.getpid()}-{tmp_path.name}") as env:
        process = subprocess.Popen([*ARENA, "--db", str(db), "ladder", "run"],
                                   env=arena_env(env, db), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
        try:
            wait_for_line(process, "waiting for 2", 60)
            process.send_signal(signal.SIGINT)
            assert process.wait(timeout=30) == 130, "Ctrl-C: the shell's interrupted status"
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
