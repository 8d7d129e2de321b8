"""The in-process lane: SDK bots found from their commands, and a tournament played in this
process recording exactly the games the gRPC path records (real gRPC, real bot processes
and real SQLite files on the other side of the comparison)."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.client import FunctionBot
from arena.env.loading import NotAnSdkBot, entry_point, load_bot
from tests.cli.cli_support import ROOT, add_bots, arena, ok, query, write_json

pytestmark = pytest.mark.timeout(120)

PYTHON = shlex.quote(sys.executable)


def test_a_script_and_a_module_give_the_bot_their_main_code_runs() -> None:
    script = load_bot("r", f"{PYTHON} -u sample_bots/python/random_bot.py", ROOT)
    module = load_bot("g", "python3 -m sample_bots.python.greedy_bot", ROOT)
    assert isinstance(script.bot, FunctionBot) and script.bot.name == "random"
    assert type(module.bot).__name__ == "GreedyBot"
    assert not script.auto_single_action


def test_the_hello_settings_the_script_passes_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_AUTO_SINGLE_ACTION", "1")
    assert load_bot("r", f"{PYTHON} random_bot.py", ROOT / "sample_bots" / "python"
                    ).auto_single_action


@pytest.mark.parametrize(("command", "says"), [
    ("node bot.js", "is not a Python SDK bot"),
    ("python", "is not a Python SDK bot"),
    ("python missing.py", "does not exist"),
    ("python -c 'print(1)'", "is not a Python SDK bot"),
    ("python 'unclosed", "cannot read its command"),
])
def test_a_command_that_is_not_a_python_sdk_bot_is_refused(command: str, says: str) -> None:
    with pytest.raises(NotAnSdkBot, match=says):
        entry_point("x", command, ROOT)


def test_a_script_that_never_calls_run_or_fails_first_is_refused(tmp_path: Path) -> None:
    (tmp_path / "quiet.py").write_text("x = 1\n")
    (tmp_path / "broken.py").write_text("raise RuntimeError('no weights')\n")
    with pytest.raises(NotAnSdkBot, match="never calls arena.client.run"):
        load_bot("q", "python quiet.py", tmp_path)
    with pytest.raises(NotAnSdkBot, match="RuntimeError: no weights"):
        load_bot("b", "python broken.py", tmp_path)


def _games(db: Path, tournament: str) -> list[dict[str, Any]]:
    """The exported games, less what differs between two runs of the same games: the
    time they were played."""
    lines = [json.loads(line) for line in ok(db, "export", tournament).stdout.splitlines()]
    games = [line["game"] for line in lines if "game" in line]
    for game in games:
        for key in [k for k in game if k.endswith("_at")]:
            del game[key]
    return games


def test_in_process_records_exactly_the_games_the_grpc_path_records(tmp_path: Path) -> None:
    first, second = tmp_path / "in-process.db", tmp_path / "grpc.db"
    add_bots(first, {"greedy": "greedy", "rnd": "random", "counter": "counter"})
    rules = write_json(tmp_path / "rules.json", {"target_score": None})
    ok(first, "tournament", "create", "cup", "greedy", "rnd", "counter", "--table-size", "3",
       "--deals", "2", "--seed", "5", "--rules", str(rules))
    shutil.copy(first, second)
    here = ok(first, "tournament", "run", "cup", "--in-process")
    ok(second, "tournament", "run", "cup", "--concurrency", "1")
    assert "greedy" in here.stdout  # the standings
    games = _games(first, "cup")
    assert len(games) == 6
    assert games == _games(second, "cup")
    ranked = [line for line in ok(first, "rankings", "--tournament", "cup").stdout.splitlines()
              if "rnd" in line]
    assert ranked == [line for line in ok(second, "rankings", "--tournament", "cup"
                                          ).stdout.splitlines() if "rnd" in line]


def test_a_match_in_process_with_sprt_decides(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    add_bots(db, {"greedy": "greedy", "rnd": "random"})
    rules = write_json(tmp_path / "rules.json", {"target_score": None})
    result = ok(db, "match", "greedy", "rnd", "--in-process", "--sprt", "--h0", "0.5",
                "--h1", "0.7", "--rules", str(rules))
    assert "SPRT: " in result.stdout and "H1" in result.stdout


def test_a_bot_that_cannot_play_here_is_refused_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    add_bots(db, {"rnd": "random"})
    ok(db, "bot", "add", "far")
    ok(db, "bot", "add", "node", "--command", "node bot.js")
    for other, says in (("far", "far is a remote bot"), ("node", "node is not a Python SDK")):
        result = arena(db, "match", "rnd", other, "--in-process")
        assert result.exit_code == 1
        assert result.output.count("\n") == 1 and says in result.output, result.output
    assert "match-" not in ok(db, "tournament", "list").stdout  # nothing was stored


def test_in_process_refuses_a_server_and_several_workers(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    result = arena(db, "--server", "127.0.0.1:1", "match", "a", "b", "--in-process")
    assert result.exit_code == 2 and "leave out --server" in result.output
    result = arena(db, "match", "a", "b", "--in-process", "--sprt", "--workers", "2")
    assert result.exit_code == 2 and "leave out --workers" in result.output


def test_in_process_workers_record_the_games_one_process_records(tmp_path: Path) -> None:
    one, two = tmp_path / "one.db", tmp_path / "two.db"
    add_bots(one, {"r1": "random", "r2": "random", "r3": "random"})
    rules = write_json(tmp_path / "rules.json", {"target_score": None})
    ok(one, "tournament", "create", "cup", "r1", "r2", "r3", "--table-size", "3",
       "--deals", "1", "--seed", "9", "--rules", str(rules))
    shutil.copy(one, two)
    ok(one, "tournament", "run", "cup", "--in-process")
    ok(two, "tournament", "run", "cup", "--in-process", "--workers", "2")
    assert _games(one, "cup") == _games(two, "cup")


def test_a_submitted_python_version_plays_in_process_by_its_base_name(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    ok(db, "bot", "submit", str(ROOT / "sample_bots" / "python"), "--manifest",
       "random.arena-bot.toml")
    add_bots(db, {"greedy": "greedy"})
    rules = write_json(tmp_path / "rules.json", {"target_score": None})
    result = ok(db, "match", "random", "greedy", "--games", "2", "--in-process",
                "--rules", str(rules))
    assert "random@1" in result.stdout and "greedy" in result.stdout


def test_a_ladder_is_left_to_the_ladder_command(tmp_path: Path) -> None:
    from arena.store import LADDER_FORMAT, Store

    db = tmp_path / "arena.db"
    with Store.open(db) as store:
        store.create_tournament("weekly", LADDER_FORMAT, {}, {})
    result = arena(db, "tournament", "run", "weekly", "--in-process")
    assert result.exit_code == 1 and "weekly is a ladder" in result.output, result.output


def test_until_separated_in_process_appends_deals_until_the_pair_is_separated(
        tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    add_bots(db, {"greedy": "greedy", "rnd": "random"})
    rules = write_json(tmp_path / "rules.json", {"target_score": None})
    ok(db, "tournament", "create", "duel", "greedy", "rnd", "--table-size", "2", "--deals", "2",
       "--rules", str(rules))
    result = ok(db, "tournament", "run", "duel", "--in-process", "--until-separated",
                "--max-games", "200")
    assert "until separated: every adjacent pair is separated" in result.stdout
    games = int(query(db, "SELECT COUNT(*) FROM games")[0][0])
    assert 4 < games <= 200  # deal blocks were appended to the 4 scheduled games
