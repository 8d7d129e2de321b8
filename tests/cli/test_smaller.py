"""Small CLI promises: refusals that say what is wrong, messages that say what to do."""

from __future__ import annotations

import json
import os
import select
import socket
import stat
import subprocess
import sys
import termios
import time
from collections import Counter
from pathlib import Path

import pytest

from arena.store import Store
from tests.cli.cli_support import (
    ARENA,
    ROOT,
    add_bots,
    arena,
    invoke,
    marked_env,
    ok,
    serving,
    wait_for_line,
)
from tests.support import TIME_SCALE, free_port


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A database file that does not exist yet: the first command creates it."""
    return tmp_path / "arena.db"


# ------------------------------------------------------------ bot add

def test_bot_add_refuses_a_command_whose_program_does_not_exist(db: Path) -> None:
    result = arena(db, "bot", "add", "ghost", "--command", "no-such-program-anywhere --fast")
    assert result.exit_code == 1
    assert "no program 'no-such-program-anywhere' on PATH" in result.stderr
    assert not db.exists(), "nothing registered"


def test_bot_add_refuses_a_relative_program_missing_from_the_current_folder(
        db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = arena(db, "bot", "add", "ghost", "--command", "./missing.sh")
    assert result.exit_code == 1
    assert f"no program './missing.sh' from {tmp_path}" in result.stderr


def test_bot_add_accepts_a_program_relative_to_the_current_folder(
        db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "bot.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.chdir(tmp_path)
    ok(db, "bot", "add", "local", "--command", "./bot.sh --level 3")
    assert "./bot.sh --level 3" in ok(db, "bot", "list", "--format", "json").stdout


# -------------------------------------------------------------- serve

def test_serve_on_a_busy_port_says_the_port_is_in_use(db: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = arena(db, "serve", "--host", "127.0.0.1", "--port", str(port))
    assert result.exit_code == 1
    assert result.stderr == f"Error: port {port} on 127.0.0.1 is in use (another arena serve?)\n"


# ------------------------------------------------------ waiting for bots

def test_waiting_for_a_remote_bot_without_a_server_says_it_needs_arena_serve(db: Path) -> None:
    add_bots(db, {"greedy": "greedy"})
    ok(db, "bot", "add", "far")
    wait = f"{3 * TIME_SCALE:g}"  # time enough for the managed bot to connect
    result = arena(db, "match", "greedy", "far", "--wait", wait)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: bots not connected after {wait} s: far (")
    said = " ".join(result.stderr.split())
    assert "started a server of its own for this run only" in said, said
    assert "start `arena serve` and run the command with --server HOST:PORT" in said
    assert "ARENA_SERVER=" not in said, "no port that is gone with the run"
    assert "logs" not in said, "the managed bot connected: no log to look at"


def test_waiting_for_a_managed_bot_points_at_its_logs(db: Path, tmp_path: Path) -> None:
    tmp_path.chmod(0o755)  # a root arena's sandboxed bot runs as another user: it must read
    script = tmp_path / "silent.sh"
    script.write_text("#!/bin/sh\nsleep 30\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    ok(db, "bot", "add", "silent", "--command", str(script))
    ok(db, "bot", "add", "far")
    result = arena(db, "match", "silent", "far", "--wait", "1")
    assert result.exit_code == 1
    assert "see the logs in" in result.stderr
    assert "remote bots (far)" in result.stderr


# ------------------------------------------------------------- replay

def test_replay_of_a_hex_id_says_what_a_game_id_is_and_how_to_follow_a_live_game(
        db: Path) -> None:
    live_id = "3f2a9c0d1e2b4a5f8e7d6c5b4a392817"
    result = arena(db, "replay", live_id)
    assert result.exit_code == 2
    assert f"'{live_id}' is not a game id: a game id is TOURNAMENT:GAME" in result.stderr
    assert "arena --server HOST:PORT watch ID" in result.stderr
    assert "integer" not in result.stderr
    assert not db.exists()


def test_replay_of_a_word_says_what_a_game_id_looks_like(db: Path) -> None:
    result = arena(db, "replay", "latest")
    assert result.exit_code == 2
    assert "'latest' is not a game id: a game id is TOURNAMENT:GAME as `arena games`" \
        in result.stderr


def test_replay_of_an_unknown_tournament_game_names_what_is_missing(db: Path) -> None:
    Store.open(db).close()
    result = arena(db, "replay", "spring:3")
    assert (result.exit_code, result.stderr) == (
        1, "Error: no game spring:3: there is no tournament spring "
           "(`arena tournament list` lists them)\n")


def test_replay_of_a_game_not_yet_played_says_how_to_play_it(db: Path) -> None:
    ok(db, "bot", "add", "far-a")
    ok(db, "bot", "add", "far-b")
    ok(db, "tournament", "create", "t", "far-a", "far-b", "--table-size", "2")
    assert arena(db, "replay", "t:1").stderr == (
        "Error: game t:1 has not been played yet: `arena tournament run t` plays it\n")
    assert arena(db, "replay", "t:99").stderr == (
        "Error: no game t:99: tournament t's schedule has games t:0 to t:1\n")


# -------------------------------------------------------------- watch

def test_watch_without_a_server_says_watching_needs_one_and_how_to_start_it(db: Path) -> None:
    result = arena(db, "watch", "spring:3")
    assert result.exit_code == 2
    assert "watching needs a running server" in result.stderr
    assert "Start one with `arena serve --port 50051`" in result.stderr
    assert "`arena --server 127.0.0.1:50051 watch spring:3`" in result.stderr
    assert "`arena replay spring:3` shows it" in result.stderr
    assert "no game" not in result.stderr
    assert not db.exists()


def test_watch_of_a_game_not_in_play_says_where_live_and_stored_games_are(
        tmp_path: Path) -> None:
    port = free_port()
    db = tmp_path / "served.db"
    with marked_env(f"watch-{port}") as env, serving(db, port, env) as server:
        wait_for_line(server, "Ctrl-C stops", timeout=20)
        result = invoke("--server", f"127.0.0.1:{port}", "--db", str(db), "watch", "t:3")
    assert (result.exit_code, result.stderr) == (
        1, "Error: no game t:3 is being played on this server (`arena --server HOST:PORT "
           "tables` lists those that are); a game that has ended is stored: "
           "`arena replay t:3` shows it\n")


def _read_until(fd: int, text: bytes, timeout: float) -> bytes:
    """What a terminal's program writes to `fd` until it writes `text` (or `timeout` s pass)."""
    seen = b""
    deadline = time.monotonic() + timeout
    while text not in seen and time.monotonic() < deadline:
        if select.select([fd], [], [], 0.05)[0]:
            try:
                seen += os.read(fd, 4096)
            except OSError:
                break
    return seen


def _settle(fd: int, timeout: float = 0.5) -> None:
    """Give the program on terminal `fd` time to switch it to raw mode if it reads single
    keys (a key typed before the switch would be flushed, not read)."""
    deadline = time.monotonic() + timeout
    while termios.tcgetattr(fd)[3] & termios.ICANON and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.05)


def test_replay_step_waits_for_enter_not_any_key(db: Path) -> None:
    add_bots(db, {"greedy": "greedy", "rnd": "random"})
    ok(db, "match", "greedy", "rnd", "--games", "2")
    main_fd, terminal = os.openpty()
    replay = subprocess.Popen([*ARENA, "--db", str(db), "replay", "1", "--step"],
                              stdin=terminal, stdout=terminal, stderr=terminal,
                              env=dict(os.environ, NO_COLOR="1"))
    os.close(terminal)
    try:
        first = _read_until(main_fd, b"press Enter for the next hand", 20)
        assert b"press Enter for the next hand" in first, first
        _settle(main_fd)
        os.write(main_fd, b"x")
        after_key = _read_until(main_fd, "── hand 2".encode(), 1.0)
        assert "── hand 2".encode() not in after_key, "a key alone does not go on"
        os.write(main_fd, b"\n")
        after_enter = _read_until(main_fd, "── hand 2".encode(), 10)
        assert "── hand 2".encode() in after_enter
    finally:
        replay.kill()
        replay.wait()
        os.close(main_fd)


# --------------------------------------------------------------- help

@pytest.mark.parametrize("command", [["match"], ["tournament", "create"], ["demo"]], ids=" ".join)
def test_every_seed_option_says_what_a_seed_fixes(command: list[str]) -> None:
    text = " ".join(invoke(*command, "--help").stdout.split())
    assert "--seed INTEGER RANGE Seed of the deals: the same seed deals the same cards" in text
    assert "randomness of their own, is theirs" in text


# ---------------------------------------------------------- tournaments

def _games_per_bot(db: Path, tournament: str) -> dict[str, int]:
    schedule = json.loads(ok(db, "tournament", "schedule", tournament, "--format", "json").stdout)
    return dict(Counter(name for game in schedule for name in game["seats"]))


def test_a_schedule_giving_bots_unequal_games_is_created_with_a_warning_naming_the_counts(
        db: Path) -> None:
    for name in "abcdef":
        ok(db, "bot", "add", name)
    result = ok(db, "tournament", "create", "pairs", *"abcdef", "--format", "partners")
    counts = _games_per_bot(db, "pairs")
    assert len(set(counts.values())) > 1, "six bots at four-seat tables cannot play equally"
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1
    assert "unequal numbers of games" in warnings[0]
    for count in set(counts.values()):
        names = ", ".join(name for name in "abcdef" if counts[name] == count)
        assert f"{names} {count} each" in warnings[0]


def test_a_schedule_giving_every_bot_as_many_games_is_created_without_a_warning(
        db: Path) -> None:
    for name in "abcd":
        ok(db, "bot", "add", name)
    result = ok(db, "tournament", "create", "even", *"abcd", "--table-size", "2")
    assert len(set(_games_per_bot(db, "even").values())) == 1
    assert "warning" not in result.stderr


# ------------------------------------------------------------ startup

HEAVY_MODULES = ("grpc", "arena.server", "arena.store", "arena.engine", "arena.client",
                 "tabulate", "asyncio")
"""What a command loads only once it plays, serves or reads: never for `--help`."""


def test_help_loads_neither_grpc_nor_the_server_store_engine_or_tabulate() -> None:
    probe = ("import sys\nfrom arena.cli import main\n"
             "main(['--help'], prog_name='arena', standalone_mode=False)\n"
             f"print('LOADED', sorted(m for m in sys.modules if m.split('.')[0] in "
             f"{sorted({name.split('.')[0] for name in HEAVY_MODULES})!r}))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT,
                            check=True, timeout=60)
    loaded = result.stdout.rsplit("LOADED", 1)[1]
    for name in HEAVY_MODULES:
        assert f"'{name}'" not in loaded, f"--help loads {name}"

