"""`arena bot submit` and `arena bot versions`, end to end: the greedy sample bot's folder
submitted, changed and submitted again, both versions playing in a tournament as the
real sample bot, then listed with their ratings."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import Result

from tests.cli.cli_support import PYTHON_BOTS, ROOT, arena, bot_command, ok

SINGLE_HANDS = str(ROOT / "examples" / "single-hands.toml")


@dataclass
class Played:
    db: Path
    first: Result
    unchanged: Result
    second: Result


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """greedy@1, greedy@2 (one comment added) and random@1 submitted, and a round robin
    of pairs between greedy@1, `greedy` and `random` played."""
    root = tmp_path_factory.mktemp("submitted")
    db = root / "arena.db"
    folder = root / "greedy"
    shutil.copytree(PYTHON_BOTS, folder, ignore=shutil.ignore_patterns("__pycache__"))
    first = ok(db, "bot", "submit", str(folder))
    unchanged = ok(db, "bot", "submit", str(folder))
    with (folder / "greedy_bot.py").open("a") as source:
        source.write("\n# the second version\n")
    second = ok(db, "bot", "submit", str(folder))
    ok(db, "bot", "submit", str(PYTHON_BOTS), "--manifest", "random.arena-bot.toml")
    ok(db, "tournament", "create", "cup", "greedy@1", "greedy", "random", "--table-size", "2",
       "--deals", "1", "--settings", SINGLE_HANDS)
    ok(db, "tournament", "run", "cup")
    return Played(db, first, unchanged, second)


def versions(db: Path, name: str) -> list[dict[str, object]]:
    listed: list[dict[str, object]] = json.loads(
        ok(db, "bot", "versions", name, "--format", "json").stdout)
    return listed


def test_a_submitted_folder_is_version_1_and_its_name_is_printed(played: Played) -> None:
    assert played.first.stdout == "greedy@1\n"
    assert played.first.stderr.startswith("submitted greedy@1 (sha256 ")


def test_a_manifest_named_by_its_path_is_read_from_the_bots_folder(played: Played) -> None:
    submitted = ok(played.db, "bot", "submit", str(PYTHON_BOTS), "--manifest",
                   str(PYTHON_BOTS / "counter.arena-bot.toml"))
    assert submitted.stdout == "counter@1\n"


def test_unchanged_files_make_no_new_version(played: Played) -> None:
    assert played.unchanged.stdout == "greedy@1\n"
    assert "unchanged: greedy@1" in played.unchanged.stderr


def test_a_changed_folder_is_the_next_version(played: Played) -> None:
    assert played.second.stdout == "greedy@2\n"


def test_the_schedule_names_the_version_of_each_seat_the_base_name_the_latest(
        played: Played) -> None:
    schedule = json.loads(ok(played.db, "tournament", "schedule", "cup", "--format",
                             "json").stdout)
    assert {bot for game in schedule for bot in game["seats"]} == {
        "greedy@1", "greedy@2", "random@1"}


def test_bot_versions_lists_both_with_hash_date_build_and_rating(played: Played) -> None:
    listed = versions(played.db, "greedy")
    assert [(v["name"], v["version"], v["build_status"]) for v in listed] == [
        ("greedy@1", 1, "ok"), ("greedy@2", 2, "ok")]
    assert listed[0]["sha256"] != listed[1]["sha256"]
    assert all(v["games"] == 4 and isinstance(v["mu"], float) for v in listed)
    table = ok(played.db, "bot", "versions", "greedy").stdout
    assert table.splitlines()[0].split() == ["version", "sha256", "created", "build", "rating"]
    assert "(4 games)" in table.splitlines()[3]


def test_the_rule_set_leaderboard_shows_the_latest_version(played: Played) -> None:
    rows = json.loads(ok(played.db, "rankings", "--format", "json").stdout)
    assert sorted(row["bot"] for row in rows) == ["greedy@2", "random@1"]
    assert all(row["place_high"] <= 2 and row["tier"] <= 2 for row in rows), \
        "places are counted among the lines shown"


def test_all_versions_shows_every_version(played: Played) -> None:
    rows = json.loads(ok(played.db, "rankings", "--all-versions", "--format", "json").stdout)
    assert sorted(row["bot"] for row in rows) == ["greedy@1", "greedy@2", "random@1"]


def test_a_tournaments_standings_show_its_entrants_as_entered(played: Played) -> None:
    rows = json.loads(ok(played.db, "rankings", "--tournament", "cup", "--format",
                         "json").stdout)
    assert sorted(row["bot"] for row in rows) == ["greedy@1", "greedy@2", "random@1"]


def test_games_and_replays_name_the_version_that_played(played: Played) -> None:
    games = json.loads(ok(played.db, "games", "--format", "json").stdout)
    assert {bot for game in games for bot in game["seats"]} == {
        "greedy@1", "greedy@2", "random@1"}
    replay = ok(played.db, "replay", str(games[0]["id"])).stdout
    assert all(bot in replay for bot in games[0]["seats"])


def test_an_export_names_each_seats_base_name_and_version(played: Played) -> None:
    lines = [json.loads(line) for line in ok(played.db, "export", "cup").stdout.splitlines()]
    seats = {(seat["bot"], seat["base_name"], seat["version"])
             for line in lines[1:] for seat in line["game"]["seats"]}
    assert seats == {("greedy@1", "greedy", 1), ("greedy@2", "greedy", 2),
                     ("random@1", "random", 1)}


def test_a_failed_build_never_plays_and_its_log_is_shown(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "arena-bot.toml").write_text(
        'name = "broken"\nbuild = "echo compiling bot.c; exit 3"\nrun = "./bot"\n')
    submitted = arena(db, "bot", "submit", str(folder))
    assert submitted.exit_code == 1
    assert "broken@1: the build failed, and this version will not play" in submitted.stderr
    log = ok(db, "bot", "versions", "broken", "--log", "1").stdout
    assert log.startswith("compiling bot.c\n") and "failed with exit code 3" in log
    assert versions(db, "broken")[0]["build_status"] == "failed"
    assert "broken@1 failed its build" in ok(db, "bot", "versions", "broken").stdout
    ok(db, "bot", "add", "other", "--command", bot_command("random"))
    refused = arena(db, "tournament", "create", "cup", "broken@1", "other")
    assert refused.exit_code == 1
    assert "bot broken@1 cannot play: its build failed" in refused.stderr
    match = arena(db, "match", "broken@1", "other", "--games", "2")
    assert "bot broken@1 cannot play: its build failed" in match.stderr


def test_a_manifest_error_is_a_clear_message_and_stores_nothing(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "arena-bot.toml").write_text('name = "b"\n')
    result = arena(db, "bot", "submit", str(folder))
    assert (result.exit_code, result.stderr) == (1, "Error: arena-bot.toml: missing 'run'\n")
    missing = arena(db, "bot", "submit", str(folder), "--manifest", "other.toml")
    assert "no other.toml at the top of the bot's folder" in missing.stderr
    outside = arena(db, "bot", "submit", str(folder), "--manifest", str(db.parent / "x.toml"))
    assert f"no {db.parent / 'x.toml'} at the top of the bot's folder" in outside.stderr
    (tmp_path / "elsewhere.toml").write_text('name = "b"\nrun = "x"\n')
    elsewhere = arena(db, "bot", "submit", str(folder), "--manifest",
                      str(tmp_path / "elsewhere.toml"))
    assert "elsewhere.toml is not in the bot's folder" in elsewhere.stderr
    assert not (tmp_path / "arena-bots").exists()


def test_a_bot_added_with_a_command_is_its_own_only_version(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    ok(db, "bot", "add", "dev", "--command", bot_command("greedy"))
    listed = versions(db, "dev")
    assert [(v["name"], v["version"], v["build_status"]) for v in listed] == [("dev", 0, "ok")]
    folder = tmp_path / "greedy"
    shutil.copytree(PYTHON_BOTS, folder, ignore=shutil.ignore_patterns("__pycache__"))
    refused = arena(db, "bot", "submit", str(folder), "--name", "dev")
    assert "a bot named 'dev' was added with `arena bot add`" in refused.stderr
