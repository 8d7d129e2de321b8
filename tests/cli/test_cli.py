"""The `arena` commands through click's CliRunner, on a real SQLite file and an in-process server.

These commands play no game, so they need no bot process; the games are in
test_tournament_e2e.py. Output is checked exactly where it is stable. With
click >= 8.2, `result.stdout` and `result.stderr` are separate and
`result.output` is both, interleaved as a terminal would show them.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import click
import pytest

from arena.cli import main
from arena.cli.output import use_color
from arena.engine import RuleSet
from arena.store import Store
from tests.cli.cli_support import ARENA, add_bots, arena, bot_command, invoke, ok, write_json
from tests.support import free_port, read_only_folder

pytestmark = pytest.mark.timeout(60)

NO_BOTS = "no bots yet: add one with `arena bot add NAME`\n"
BOT_KEYS = ["name", "author", "kind", "command", "connected", "created_at", "read_only"]
TOURNAMENT_KEYS = ["name", "format", "status", "bots", "games_done", "games_total", "created_at",
                   "run_by"]
SCHEDULE_HEADER = "id,game_index,round,table,seats,teams,seed,status,number"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A database file that does not exist yet: the first command creates it."""
    return tmp_path / "arena.db"


@pytest.fixture
def empty_db(db: Path) -> Path:
    """An arena database with nothing in it yet."""
    Store.open(db).close()
    return db


@pytest.fixture
def three_bots(db: Path) -> Path:
    """A database with three managed sample bots registered (none of them started)."""
    add_bots(db, {"greedy": "greedy", "rnd": "random", "counter": "counter"})
    return db


# ------------------------------------------------------------------- bots

def test_bot_list_of_an_empty_database_says_how_to_add_one(empty_db: Path) -> None:
    result = ok(empty_db, "bot", "list")
    assert result.stdout == NO_BOTS
    assert result.stderr == ""


READ_COMMANDS = [["bot", "list"], ["games"], ["replay", "1"], ["rankings"], ["tables"],
                 ["tournament", "list"], ["tournament", "status", "t"],
                 ["tournament", "schedule", "t"], ["tournament", "standings", "t"]]


@pytest.mark.parametrize("command", READ_COMMANDS, ids=" ".join)
def test_a_command_that_only_reads_creates_no_database(db: Path, command: list[str]) -> None:
    result = arena(db, *command)
    assert (result.exit_code, result.stdout, result.stderr) == (
        1, "", f"Error: no database at {db}: `arena bot add` creates one; --db or ARENA_DB "
               "names another\n")
    assert list(db.parent.iterdir()) == []


def test_bot_add_creates_the_database(db: Path) -> None:
    ok(db, "bot", "add", "far-away")
    assert db.exists()


def test_a_database_in_a_read_only_folder_can_be_listed_but_not_changed(
        tmp_path: Path) -> None:
    folder = tmp_path / "shelf"
    folder.mkdir()
    db = folder / "arena.db"
    ok(db, "bot", "add", "far-away")
    before = {entry.name: entry.read_bytes() for entry in folder.iterdir()}
    with read_only_folder(folder) as run:
        listed = run([*ARENA, "--db", str(db), "bot", "list", "--format", "csv"])
        added = run([*ARENA, "--db", str(db), "bot", "add", "another"])
    assert (listed.returncode, listed.stderr) == (0, "")
    assert [row["name"] for row in csv.DictReader(io.StringIO(listed.stdout))] == ["far-away"]
    assert (added.returncode, added.stdout) == (1, "")
    assert added.stderr.startswith(f"Error: cannot use the database {db}: the folder {folder} "
                                   "is not writable"), added.stderr
    assert {entry.name: entry.read_bytes() for entry in folder.iterdir()} == before


def test_bot_add_prints_the_token_alone_on_stdout_and_the_notice_on_stderr(db: Path) -> None:
    result = ok(db, "bot", "add", "greedy", "--command", bot_command("greedy"))
    token = result.stdout.removesuffix("\n")
    assert token and "\n" not in token and " " not in token
    assert result.stderr == ("added managed bot greedy\n"
                             f"token (shown once, keep it): {token}\n")
    store = Store.open(db)
    try:
        found = store.bot_by_token(token)
        assert found is not None and found.name == "greedy"
    finally:
        store.close()


def test_bot_add_without_a_command_registers_a_remote_bot(db: Path) -> None:
    result = ok(db, "bot", "add", "far-away")
    assert result.stderr.startswith("added remote bot far-away\n")
    [row] = json.loads(ok(db, "bot", "list", "--format", "json").stdout)
    assert row["kind"] == "remote" and row["command"] is None


def test_bot_list_json_has_every_key_of_every_bot(three_bots: Path) -> None:
    rows = json.loads(ok(three_bots, "bot", "list", "--format", "json").stdout)
    assert [row["name"] for row in rows] == ["counter", "greedy", "rnd"]
    for row in rows:
        assert list(row) == BOT_KEYS
        assert row["kind"] == "managed" and row["connected"] is False
    assert rows[1]["command"] == bot_command("greedy")


def test_bot_list_csv_starts_with_the_exact_header(three_bots: Path) -> None:
    text = ok(three_bots, "bot", "list", "--format", "csv").stdout
    assert text.splitlines()[0] == ",".join(BOT_KEYS)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [(r["name"], r["kind"], r["connected"]) for r in rows] == [
        ("counter", "managed", "False"), ("greedy", "managed", "False"),
        ("rnd", "managed", "False")]


def test_bot_list_table_has_a_header_and_one_line_per_bot(three_bots: Path) -> None:
    lines = ok(three_bots, "bot", "list").stdout.splitlines()
    assert lines[0].split() == ["name", "kind", "command", "connected", "created"]
    assert set(lines[1]) <= {"-", " "}
    assert [line.split()[0] for line in lines[2:]] == ["counter", "greedy", "rnd"]


def test_a_duplicate_bot_name_is_an_error_and_changes_nothing(three_bots: Path) -> None:
    result = arena(three_bots, "bot", "add", "greedy", "--command",
                    bot_command("counter"))
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == "Error: a bot named 'greedy' already exists\n"
    rows = json.loads(ok(three_bots, "bot", "list", "--format", "json").stdout)
    assert [r["command"] for r in rows if r["name"] == "greedy"] == [bot_command("greedy")]


def test_bot_remove_takes_the_bot_off_the_list(three_bots: Path) -> None:
    assert ok(three_bots, "bot", "remove", "rnd").stdout == "removed bot rnd\n"
    rows = json.loads(ok(three_bots, "bot", "list", "--format", "json").stdout)
    assert [r["name"] for r in rows] == ["counter", "greedy"]


def test_removing_an_unknown_bot_is_an_error(db: Path) -> None:
    result = arena(db, "bot", "remove", "nobody")
    assert (result.exit_code, result.stderr) == (1, "Error: no bot named 'nobody'\n")


# ------------------------------------------------------------- tournaments

def test_tournament_create_prints_a_summary_and_stores_the_whole_schedule(
        three_bots: Path) -> None:
    result = ok(three_bots, "tournament", "create", "t1", "greedy", "rnd", "counter",
                "--table-size", "3", "--deals", "2", "--seed", "7")
    assert result.stdout == (
        "created round_robin tournament t1: 3 bots, 6 games\n"
        "see the schedule with `arena tournament schedule t1`, "
        "play it with `arena tournament run t1`\n")
    schedule = ok(three_bots, "tournament", "schedule", "t1", "--format", "csv").stdout
    assert schedule.splitlines()[0] == SCHEDULE_HEADER
    rows = list(csv.DictReader(io.StringIO(schedule)))
    assert [int(r["game_index"]) for r in rows] == list(range(6))
    assert [r["id"] for r in rows] == [f"t1:{index}" for index in range(6)]
    assert {r["number"] for r in rows} == {""}, "no game is stored yet"
    assert {r["status"] for r in rows} == {"pending"}
    first_deal = [r["seats"] for r in rows[:3]]
    assert first_deal == ["greedy rnd counter", "rnd counter greedy", "counter greedy rnd"]
    assert len({r["seed"] for r in rows[:3]}) == 1, "the rotations of a deal share its seed"
    assert rows[0]["seed"] != rows[3]["seed"]


def test_tournament_list_and_status_as_json(three_bots: Path) -> None:
    assert ok(three_bots, "tournament", "list").stdout == (
        "no tournaments yet: create one with `arena tournament create NAME BOT BOT ...`\n")
    ok(three_bots, "tournament", "create", "t1", "greedy", "rnd", "counter", "--table-size", "3")
    [listed] = json.loads(ok(three_bots, "tournament", "list", "--format", "json").stdout)
    [status] = json.loads(ok(three_bots, "tournament", "status", "t1", "--format", "json").stdout)
    assert list(listed) == list(status) == TOURNAMENT_KEYS
    assert listed == status
    assert (status["name"], status["format"], status["status"]) == ("t1", "round_robin", "created")
    assert (status["bots"], status["games_done"], status["games_total"], status["run_by"]) == (
        ["counter", "greedy", "rnd"], 0, 3, None)


def test_tournament_status_names_the_process_running_it(three_bots: Path) -> None:
    ok(three_bots, "tournament", "create", "t1", "greedy", "rnd", "counter", "--table-size", "3")
    with Store.open(three_bots) as store:
        claim = store.claim_run("t1")
        store.set_tournament_status("t1", "running")
        [status] = json.loads(ok(three_bots, "tournament", "status", "t1",
                                 "--format", "json").stdout)
        assert status["status"] == "running"
        assert status["run_by"].startswith(f"process {claim.pid} on {claim.host}, running since")
        store.release_run(claim)
    [status] = json.loads(ok(three_bots, "tournament", "status", "t1", "--format", "json").stdout)
    assert (status["status"], status["run_by"]) == ("stopped", None)


def test_partner_tournaments_default_to_four_seats_and_partner_scoring(db: Path) -> None:
    add_bots(db, {"a": "greedy", "b": "random", "c": "counter", "d": "greedy"})
    ok(db, "tournament", "create", "p", "a", "b", "c", "d", "--format", "partners")
    schedule = json.loads(ok(db, "tournament", "schedule", "p", "--format", "json").stdout)
    assert len(schedule) == 12  # three tables, every pair partners once; four rotations each
    assert {tuple(g["teams"]) for g in schedule} == {(0, 1, 0, 1)}
    assert {len(g["seats"]) for g in schedule} == {4}


def test_a_duplicate_tournament_name_is_an_error(three_bots: Path) -> None:
    ok(three_bots, "tournament", "create", "t1", "greedy", "rnd", "counter", "--table-size", "3")
    result = arena(three_bots, "tournament", "create", "t1", "greedy", "rnd", "--table-size", "2")
    assert (result.exit_code, result.stderr) == (
        1, "Error: a tournament named 't1' already exists\n")


@pytest.mark.parametrize("command", [
    ["tournament", "run", "nope"],
    ["tournament", "status", "nope"],
    ["tournament", "schedule", "nope"],
    ["tournament", "standings", "nope"],
    ["rankings", "--tournament", "nope"],
])
def test_an_unknown_tournament_is_an_error(empty_db: Path, command: list[str]) -> None:
    result = arena(empty_db, *command)
    assert (result.exit_code, result.stdout, result.stderr) == (
        1, "", "Error: no tournament 'nope'\n")


def test_an_unknown_bot_in_a_tournament_is_an_error(three_bots: Path) -> None:
    result = arena(three_bots, "tournament", "create", "t", "greedy", "nobody", "--table-size", "2")
    assert (result.exit_code, result.stderr) == (1, "Error: no bot named 'nobody'\n")
    assert "no tournaments yet" in ok(three_bots, "tournament", "list").stdout


def test_a_rules_file_with_an_unknown_rule_is_refused_naming_the_rule(
        three_bots: Path, tmp_path: Path) -> None:
    rules = tmp_path / "house.toml"
    rules.write_text("hand_size = 7\nbogus_rule = 3\n")
    for command in (["tournament", "create", "t", "greedy", "rnd", "--table-size", "2"],
                    ["match", "greedy", "rnd"]):
        result = arena(three_bots, *command, "--rules", str(rules))
        assert result.exit_code == 2, result.output
        assert "Error: Invalid value for --rules: bogus_rule: unknown rule setting" \
            in result.stderr
    assert "no tournaments yet" in ok(three_bots, "tournament", "list").stdout


def test_a_rules_file_arena_wrote_loads_back_single_hands_included(
        three_bots: Path, tmp_path: Path) -> None:
    rules = tmp_path / "single.toml"
    rules.write_text(RuleSet(target_score=None).to_toml())
    ok(three_bots, "tournament", "create", "t", "greedy", "rnd", "--table-size", "2",
       "--rules", str(rules))
    [listed] = json.loads(ok(three_bots, "tournament", "list", "--format", "json").stdout)
    assert listed["name"] == "t"


def test_a_rules_file_with_a_bad_value_names_the_rule(three_bots: Path, tmp_path: Path) -> None:
    rules = write_json(tmp_path / "rules.json", {"rules": {"hand_size": "seven"}})
    result = arena(three_bots, "match", "greedy", "rnd", "--rules", str(rules))
    assert result.exit_code == 2
    assert "Error: Invalid value for --rules: hand_size: must be a whole number, got 'seven'" \
        in result.stderr


def test_a_rules_file_that_does_not_parse_names_the_file(three_bots: Path, tmp_path: Path) -> None:
    rules = tmp_path / "broken.toml"
    rules.write_text("hand_size = \n")
    result = arena(three_bots, "match", "greedy", "rnd", "--rules", str(rules))
    assert result.exit_code == 2
    assert f"Error: Invalid value for --rules: {rules}: " in result.stderr


@pytest.mark.parametrize(("settings", "message"), [
    ({"table_size": 11}, "Error: table_size: must be between 2 and 10, got 11\n"),
    ({"table_size": "x"}, "Error: table_size: must be a whole number, got 'x'\n"),
    ({"deals_per_table": 0}, "Error: deals_per_table: must be at least 1, got 0\n"),
    ({"format": "swiss"}, "Error: format: 'swiss' is not one of "),
    ({"bogus": 1}, "Error: bogus: unknown setting (known: "),
    ({"rules": {"bogus": 1}}, "Error: rules: bogus: unknown rule setting (known: "),
    ({"policy": {"bogus": 1}}, "Error: policy: bogus: unknown bot policy setting\n"),
    ({"policy": {"decision_timeout": "2"}},
     "Error: policy: decision_timeout: must be a number of seconds, got '2'\n"),
    ({"policy": {"max_strikes": 2.5}},
     "Error: policy: max_strikes: must be a whole number or None, got 2.5\n"),
    ({"format": "gauntlet"}, "Error: challenger: a gauntlet needs the name of its challenger\n"),
])
def test_bad_settings_are_refused_naming_the_setting(
        three_bots: Path, tmp_path: Path, settings: dict[str, object], message: str) -> None:
    path = write_json(tmp_path / "settings.json", {"table_size": 2, **settings})
    result = arena(three_bots, "tournament", "create", "t", "greedy", "rnd",
                   "--settings", str(path))
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(message), result.stderr
    assert "no tournaments yet" in ok(three_bots, "tournament", "list").stdout


def test_a_settings_file_that_is_not_a_table_is_a_usage_error(
        three_bots: Path, tmp_path: Path) -> None:
    path = write_json(tmp_path / "settings.json", [1, 2])
    result = arena(three_bots, "tournament", "create", "t", "greedy", "rnd",
                   "--settings", str(path))
    assert result.exit_code == 2
    assert f"Error: Invalid value for --settings: {path}: must hold a table of settings" \
        in result.stderr


def test_command_line_options_override_the_settings_file(
        three_bots: Path, tmp_path: Path) -> None:
    path = write_json(tmp_path / "settings.json", {"table_size": 2, "deals_per_table": 5})
    ok(three_bots, "tournament", "create", "t", "greedy", "rnd", "counter",
       "--settings", str(path), "--table-size", "3", "--deals", "1")
    [status] = json.loads(ok(three_bots, "tournament", "status", "t", "--format", "json").stdout)
    assert status["games_total"] == 3


def test_the_largest_schedule_is_listed_whole_and_its_status_without_it(db: Path) -> None:
    bots = [f"random-player-{n}" for n in range(4)]  # names long enough for > 4 MB
    add_bots(db, dict.fromkeys(bots, "random"))
    ok(db, "tournament", "create", "big", *bots, "--table-size", "2",
       "--deals", "8000")  # 6 tables x 2 rotations x 8000 deals: 96,000 games
    [status] = json.loads(ok(db, "tournament", "status", "big", "--format", "json").stdout)
    assert (status["games_total"], status["games_done"], len(status["bots"])) == (96_000, 0, 4)
    lines = ok(db, "tournament", "schedule", "big", "--format", "csv").stdout.splitlines()
    assert lines[0] == SCHEDULE_HEADER and len(lines) == 1 + 96_000
    result = arena(db, "tournament", "create", "bigger", *bots, "--table-size", "2",
                   "--deals", "8400")
    assert result.exit_code == 1
    assert "the schedule would hold 100,800 games, more than the 100,000" in result.stderr


# ------------------------------------------------------- empty listings

def test_listings_of_an_empty_database(empty_db: Path) -> None:
    assert ok(empty_db, "rankings").stdout == "no rated games yet\n"
    assert ok(empty_db, "games").stdout == "no games yet\n"
    assert json.loads(ok(empty_db, "rankings", "--format", "json").stdout) == []
    assert json.loads(ok(empty_db, "games", "--format", "json").stdout) == []


@pytest.mark.parametrize(("command", "header"), [
    (["bot", "list"], BOT_KEYS),
    (["tournament", "list"], TOURNAMENT_KEYS),
    (["rankings"], ["pool", "place", "place_low", "place_high", "tier", "bot", "score", "ci_low",
                    "ci_high", "ci_level", "ci_method", "elo", "elo_low", "elo_high", "mu",
                    "sigma", "conservative", "games", "wins", "shared_firsts", "win_rate",
                    "average_points", "timeouts", "crashes", "illegal", "disconnects",
                    "malformed", "below", "difference_below", "difference_low",
                    "difference_high", "difference_level", "p_value_below",
                    "separated_from_below", "separation_method"]),
    (["games"], ["id", "number", "tournament", "seats", "scores", "ranks", "winners",
                 "termination", "seat_terminations", "forfeited_seat", "started_at",
                 "finished_at"]),
    (["tables"], ["id", "players", "hand", "decisions"]),
])
def test_an_empty_csv_listing_is_its_header_alone(
        empty_db: Path, command: list[str], header: list[str]) -> None:
    assert ok(empty_db, *command, "--format", "csv").stdout == ",".join(header) + "\n"


def test_replaying_a_game_that_does_not_exist_is_an_error(empty_db: Path) -> None:
    result = arena(empty_db, "replay", "999")
    assert (result.exit_code, result.stderr) == (1, "Error: no game 999\n")


def test_an_unreachable_server_is_a_clean_error() -> None:
    address = f"127.0.0.1:{free_port()}"
    result = invoke("--server", address, "bot", "list")
    assert result.exit_code == 1
    assert result.stderr == (f"Error: cannot reach the arena server at {address}: "
                             "is `arena serve` running? (If it serves TLS, set ARENA_TLS_CA "
                             "or ARENA_TLS=1.)\n")


# ---------------------------------------------------------------- help

def _commands(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [path]
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            found += _commands(command, (*path, name))
        else:
            found.append((*path, name))
    return found


COMMANDS = _commands(main)


def test_every_command_is_covered_by_the_help_test() -> None:
    known = {(), ("bot",), ("bot", "add"), ("bot", "list"), ("bot", "remove"), ("serve",),
             ("match",), ("tournament",), ("tournament", "create"), ("tournament", "run"),
             ("tournament", "schedule"), ("tournament", "status"), ("tournament", "list"),
             ("tournament", "standings"), ("tournament", "unschedule"), ("rankings",),
             ("games",), ("replay",), ("watch",),
             ("demo",)}
    assert known <= set(COMMANDS)


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "arena")
def test_every_commands_help_has_an_example(path: tuple[str, ...]) -> None:
    result = invoke(*path, "--help")
    assert result.exit_code == 0
    assert "Example" in result.stdout
    assert f"Usage: {' '.join(('main', *path))}" in result.stdout


# ------------------------------------------------------------- colours

class _Stream:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_colours_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color(_Stream(tty=True))
    assert not use_color(_Stream(tty=False))
    assert not use_color(io.StringIO())


def test_no_colour_under_no_color_even_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color(_Stream(tty=True))
    monkeypatch.setenv("NO_COLOR", "")
    assert not use_color(_Stream(tty=True)), "NO_COLOR counts when set, whatever its value"


def test_a_match_needs_two_bots_and_leaves_nothing_behind(three_bots: Path) -> None:
    result = arena(three_bots, "match", "greedy")
    assert result.exit_code == 1
    assert result.stderr == "Error: a match needs at least 2 bots, got 1\n"
    with Store.open(three_bots) as store:
        assert store.list_tournaments() == []


def test_a_match_of_more_bots_than_a_table_seats_says_so(db: Path) -> None:
    names = [f"far-{i}" for i in range(11)]
    for name in names:
        ok(db, "bot", "add", name)
    result = arena(db, "match", *names)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == "Error: a match seats at most 10 bots, got 11\n"
    with Store.open(db) as store:
        assert store.list_tournaments() == []


def test_a_match_whose_bots_never_connect_leaves_no_match_behind(db: Path) -> None:
    ok(db, "bot", "add", "far-a")
    ok(db, "bot", "add", "far-b")
    result = arena(db, "match", "far-a", "far-b", "--wait", "0.1")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: bots not connected after 0.1 s: far-a, far-b")
    with Store.open(db) as store:
        assert store.list_tournaments() == []


def test_csv_columns_cover_every_row_even_when_the_first_lacks_some(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from arena.cli.output import emit

    emit([{"game": 0}, {"game": 1, "game_id": 7}], "csv")
    assert capsys.readouterr().out == "game,game_id\n0,\n1,7\n"
