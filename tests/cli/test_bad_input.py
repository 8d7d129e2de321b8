"""Bad input from the command line, a file or the environment: one clear line, no traceback.

Each test gives `arena` something it cannot use and checks the exact error
and that nothing was changed, on a real SQLite file as the other CLI tests do.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from contextlib import closing
from pathlib import Path

import pytest

from arena.store import Store
from arena.v1 import admin_pb2
from tests.cli.cli_support import arena, invoke, ok, write_json

pytestmark = pytest.mark.timeout(60)

UINT32_MAX = 2**32 - 1
UINT64_MAX = 2**64 - 1


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A database file that does not exist yet: the first command creates it."""
    return tmp_path / "arena.db"


@pytest.fixture
def two_bots(db: Path) -> Path:
    """A database with two remote bots registered (neither connected)."""
    ok(db, "bot", "add", "far-a")
    ok(db, "bot", "add", "far-b")
    return db


def _no_tournaments(db: Path) -> bool:
    with Store.open(db) as store:
        return store.list_tournaments() == []


# ------------------------------------------------- numbers the wire cannot carry

@pytest.mark.parametrize(("args", "param", "value", "bounds"), [
    (["match", "far-a", "far-b", "--seed", "-1"], "--seed", "-1", f"0<=x<={UINT64_MAX}"),
    (["match", "far-a", "far-b", "--seed", str(UINT64_MAX + 1)], "--seed",
     str(UINT64_MAX + 1), f"0<=x<={UINT64_MAX}"),
    (["match", "far-a", "far-b", "--games", "5000000000"], "--games", "5000000000",
     f"1<=x<={UINT32_MAX}"),
    (["match", "far-a", "far-b", "--concurrency", "5000000000"], "--concurrency", "5000000000",
     f"1<=x<={UINT32_MAX}"),
    (["games", "--limit", "5000000000"], "--limit", "5000000000", f"1<=x<={UINT32_MAX}"),
    (["tournament", "run", "t", "--concurrency", "5000000000"], "--concurrency", "5000000000",
     f"0<=x<={UINT32_MAX}"),
    (["tournament", "create", "t", "far-a", "far-b", "--seed", "-1"], "--seed", "-1",
     f"0<=x<={UINT64_MAX}"),
    (["tournament", "create", "t", "far-a", "far-b", "--seed", str(UINT64_MAX + 1)], "--seed",
     str(UINT64_MAX + 1), f"0<=x<={UINT64_MAX}"),
    (["demo", "--seed", "-1"], "--seed", "-1", f"0<=x<={UINT64_MAX}"),
])
def test_a_number_out_of_its_wire_range_is_a_usage_error(
        two_bots: Path, args: list[str], param: str, value: str, bounds: str) -> None:
    result = arena(two_bots, *args)
    assert (result.exit_code, result.stdout) == (2, ""), result.output
    assert result.stderr.endswith(
        f"Error: Invalid value for '{param}': {value} is not in the range {bounds}.\n")
    assert _no_tournaments(two_bots)


def test_match_and_tournament_seeds_take_the_same_range(two_bots: Path) -> None:
    for seed in ("0", str(UINT64_MAX)):
        ok(two_bots, "tournament", "create", f"t{seed}", "far-a", "far-b", "--table-size", "2",
           "--seed", seed)
        result = arena(two_bots, "match", "far-a", "far-b", "--seed", seed, "--wait", "0.01")
        assert result.stderr.startswith("Error: bots not connected after 0.01 s"), result.output
    [status] = json.loads(ok(two_bots, "tournament", "status", f"t{UINT64_MAX}",
                             "--format", "json").stdout)
    assert status["games_total"] == 2


@pytest.mark.parametrize("number", ["-1", str(UINT64_MAX + 1)])
def test_a_negative_or_too_large_game_number_is_not_a_game_id(db: Path, number: str) -> None:
    result = arena(db, "replay", "--", number)
    assert (result.exit_code, result.stdout) == (2, ""), result.output
    assert result.stderr.endswith(
        f"Error: Invalid value for 'GAME_ID': '{number}' is not a game id: a game id is "
        "TOURNAMENT:GAME as `arena games`, `arena tables` and `arena tournament schedule` "
        "show it (e.g. spring:3), or a stored game's number\n")
    assert not db.exists()


def test_the_largest_numbers_the_wire_carries_are_accepted(db: Path) -> None:
    Store.open(db).close()
    assert ok(db, "games", "--limit", str(UINT32_MAX)).stdout == "no games yet\n"
    result = arena(db, "replay", "0")
    assert (result.exit_code, result.stderr) == (1, "Error: no game 0\n")


# ------------------------------------------------------ settings and rules files

def test_a_settings_file_larger_than_a_bot_message_is_judged_by_what_it_says(
        tmp_path: Path, two_bots: Path) -> None:
    settings = write_json(tmp_path / "big.json", {"table_size": 2, "notes": "x" * 100_000})
    result = arena(two_bots, "tournament", "create", "t", "far-a", "far-b",
                   "--settings", str(settings))
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.startswith("Error: notes: unknown setting (known: "), result.stderr


TOO_DEEP = "nested too deeply (more than 32 levels)"


@pytest.mark.parametrize("option", ["--rules", "--settings"])
@pytest.mark.parametrize(("name", "content", "problem"), [
    ("bin.toml", b"\xff\xfe\x00garbage", "not a UTF-8 text file"),
    ("deep.toml", b"a = " + b"[" * 100_000, TOO_DEEP),
    ("deep.json", b"[" * 5000, TOO_DEEP),
    ("deep-but-parses.json", b'{"a": ' + b"[" * 900 + b"]" * 900 + b"}", TOO_DEEP),
])
def test_a_file_that_cannot_be_read_as_settings_is_a_usage_error_naming_it(
        two_bots: Path, tmp_path: Path, option: str, name: str, content: bytes,
        problem: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    result = arena(two_bots, "tournament", "create", "t", "far-a", "far-b", option, str(path))
    assert (result.exit_code, result.stdout) == (2, ""), result.output
    assert result.stderr.endswith(f"Error: Invalid value for {option}: {path}: {problem}\n")
    assert _no_tournaments(two_bots)


def test_a_json_extension_in_capitals_is_read_as_json(two_bots: Path, tmp_path: Path) -> None:
    path = tmp_path / "RULES.JSON"
    path.write_text(json.dumps({"hand_size": "seven"}))
    result = arena(two_bots, "match", "far-a", "far-b", "--rules", str(path))
    assert result.exit_code == 2
    assert result.stderr.endswith(
        "Error: Invalid value for --rules: hand_size: must be a whole number, got 'seven'\n")


# ------------------------------------------------------------ unusable databases

def _newer_database(path: Path) -> Path:
    ok(path, "bot", "add", "far-a")
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.execute("INSERT INTO schema_migrations VALUES (999, 'from the future', '')")
    return path


def _foreign_database(path: Path) -> Path:
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.execute("CREATE TABLE bots (x)")
        connection.execute("INSERT INTO bots VALUES ('theirs')")
    return path


@pytest.mark.parametrize("command", [["bot", "list"], ["serve", "--port", "0"]])
def test_a_database_from_a_newer_arena_is_refused_and_left_alone(
        db: Path, command: list[str]) -> None:
    _newer_database(db)
    result = arena(db, *command)
    assert (result.exit_code, result.stdout) == (1, ""), result.output
    assert re.fullmatch(
        f"Error: cannot use the database {re.escape(str(db))}: the database has schema "
        r"version 999, newer than this arena knows \(\d+\); upgrade arena\n", result.stderr)
    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute("SELECT name FROM bots").fetchall() == [("far-a",)]


@pytest.mark.parametrize("command", [["bot", "list"], ["serve", "--port", "0"]])
def test_a_database_of_something_else_is_refused_and_left_alone(
        db: Path, command: list[str]) -> None:
    _foreign_database(db)
    result = arena(db, *command)
    assert (result.exit_code, result.stdout) == (1, ""), result.output
    # the store's own words for why (a failed migration, or a note of the foreign table)
    assert result.stderr.startswith(f"Error: cannot use the database {db}: ")
    assert result.stderr.count("\n") == 1 and "bots" in result.stderr
    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute("SELECT x FROM bots").fetchall() == [("theirs",)]


def test_a_demo_database_that_cannot_be_created_is_a_clean_error(tmp_path: Path) -> None:
    path = tmp_path / "missing" / "demo.db"
    result = invoke("demo", "--db", str(path))
    assert (result.exit_code, result.stdout) == (1, ""), result.output
    assert result.stderr == (
        f"Error: cannot use the database {path}: the folder {path.parent} does not exist\n")


# ----------------------------------------------------------------------- --wait

@pytest.mark.parametrize("command", [["match", "far-a", "far-b"], ["tournament", "run", "t"]])
@pytest.mark.parametrize("wait", ["nan", "inf", "NaN", "Infinity"])
def test_a_wait_that_is_no_number_of_seconds_is_a_usage_error(
        two_bots: Path, command: list[str], wait: str) -> None:
    result = arena(two_bots, *command, "--wait", wait)
    assert (result.exit_code, result.stdout) == (2, ""), result.output
    assert result.stderr.endswith(
        f"Error: Invalid value for '--wait': {wait} is not a finite number of seconds.\n")


WAIT_HAS_PRESENCE = admin_pb2.PlayMatchRequest.DESCRIPTOR.fields_by_name[
    "remote_wait_seconds"].has_presence


@pytest.mark.skipif(not WAIT_HAS_PRESENCE,
                    reason="the admin protocol cannot tell a wait of 0 from no wait given")
def test_a_wait_of_0_does_not_wait_for_the_bots(two_bots: Path) -> None:
    started = time.monotonic()
    result = arena(two_bots, "match", "far-a", "far-b", "--wait", "0")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.startswith("Error: bots not connected after 0 s: far-a, far-b")
    assert time.monotonic() - started < 10
    assert _no_tournaments(two_bots)


# ------------------------------------------------------------ a ladder's name

@pytest.mark.parametrize("command", [["rankings"], ["rankings", "--watch"], ["crosstable"]])
def test_a_ladder_that_does_not_exist_is_named_with_the_command_that_starts_it(
        two_bots: Path, command: list[str]) -> None:
    result = arena(two_bots, *command, "--ladder", "weekly")
    assert result.exit_code == 1
    assert result.output == ("Error: no ladder 'weekly' yet: "
                             "`arena ladder run --name weekly` starts it\n")
    assert arena(two_bots, *command, "--ladder").output == (
        "Error: no ladder 'ladder' yet: `arena ladder run` starts it\n")


@pytest.mark.parametrize("command", [["rankings"], ["crosstable"]])
def test_a_tournament_asked_for_as_a_ladder_is_pointed_to_tournament(
        two_bots: Path, command: list[str]) -> None:
    ok(two_bots, "tournament", "create", "cup", "far-a", "far-b", "--table-size", "2")
    result = arena(two_bots, *command, "--ladder", "cup")
    assert result.exit_code == 1
    assert result.output == ("Error: 'cup' is a tournament, not a ladder: "
                             "--tournament cup shows its standings\n")
