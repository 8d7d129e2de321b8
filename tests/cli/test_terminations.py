"""A bot that fails mid-game is visible: in `games`, `replay`, the standings, and at the end
of the run that played it.

One real tournament on an SQLite file: a sound bot (greedy) against one that answers too
late and one that answers with actions that are not legal, under a policy that forfeits a
game at the first fault. What each command prints is checked against the seat
terminations the store recorded.
"""

from __future__ import annotations

import csv
import io
import json
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import Result

from arena.store import Store, StoredGame
from tests.cli.cli_support import ONE_HAND, add_bots, leaderboard_tables, ok, write_json

pytestmark = pytest.mark.timeout(120)

SLEEPING_BOT = """
import time

from arena.client import run


def decide(view, legal):
    time.sleep(0.6)
    return legal[0]


if __name__ == "__main__":
    raise SystemExit(run(decide, name="sleeper").exit_code)
"""
"""Answers every decision after the deadline (the tournament's is 0.15 s)."""

CHEATING_BOT = """
import arena.client.connection as connection
from arena.client import run

connection.resolve_choice = lambda choice, legal: len(legal) + 3


def decide(view, legal):
    return legal[0]


if __name__ == "__main__":
    raise SystemExit(run(decide, name="cheater").exit_code)
"""
"""Answers every decision with an index past the legal actions: an illegal action."""


@dataclass(frozen=True)
class Faulty:
    """A finished tournament `t` whose games two faulty bots forfeited."""

    db: Path
    run: Result
    games: list[StoredGame]


def _add_faulty_bots(db: Path, bots: dict[str, str]) -> None:
    """Register managed bots run from the sources `bots` maps their names to."""
    for name, source in bots.items():
        script = db.parent / f"{name}.py"
        script.write_text(source)
        ok(db, "bot", "add", name, "--command", f"{shlex.quote(sys.executable)} {script}")


@pytest.fixture(scope="module")
def faulty(tmp_path_factory: pytest.TempPathFactory) -> Faulty:
    tmp = tmp_path_factory.mktemp("faulty")
    tmp.chmod(0o755)  # a root arena's sandboxed bot runs as another user: it must read its code
    db = tmp / "arena.db"
    add_bots(db, {"greedy": "greedy"})
    _add_faulty_bots(db, {"sleeper": SLEEPING_BOT, "cheater": CHEATING_BOT})
    settings = write_json(tmp / "settings.json", {"rules": ONE_HAND, "policy": {
        "on_violation": "forfeit", "decision_timeout": 0.15}})
    ok(db, "tournament", "create", "t", "greedy", "sleeper", "cheater", "--table-size", "2",
       "--seed", "3", "--settings", str(settings))
    run = ok(db, "tournament", "run", "t")
    with Store.open(db) as store:
        games = [store.get_game(g.game_id) for g in store.scheduled_games("t")
                 if g.game_id is not None]
    return Faulty(db, run, games)


def _faults(faulty: Faulty, bot: str, ending: str) -> int:
    """How many of the tournament's games `bot`'s seat ended as `ending`, as stored."""
    return sum(1 for game in faulty.games for name, seat_ending in zip(
        game.seats, game.seat_terminations, strict=True)
        if name == bot and seat_ending == ending)


def _counted(count: int, one: str, several: str) -> str:
    return f"{count} {one if count == 1 else several}"


def _timeouts(faulty: Faulty) -> str:
    return _counted(_faults(faulty, "sleeper", "timeout"), "timeout", "timeouts")


def _illegal(faulty: Faulty) -> str:
    return _counted(_faults(faulty, "cheater", "illegal"), "illegal action", "illegal actions")


def test_the_faulty_bots_forfeit_games_and_the_sound_one_none(faulty: Faulty) -> None:
    assert len(faulty.games) == 6
    assert _faults(faulty, "sleeper", "timeout") >= 2, "it loses both its games against greedy"
    assert _faults(faulty, "cheater", "illegal") >= 2
    assert _faults(faulty, "greedy", "normal") == 4


def test_the_run_ends_with_a_warning_naming_each_failed_bot_and_its_faults(
        faulty: Faulty) -> None:
    [warning] = [line for line in faulty.run.stderr.splitlines() if "failed" in line]
    assert warning == (
        f"warning: bots failed in this run's games: cheater ({_illegal(faulty)}); "
        f"sleeper ({_timeouts(faulty)}); `arena games --tournament t` shows which games, "
        "the bots' logs why")


def test_the_standings_count_each_bots_timeouts_crashes_and_illegal_actions(
        faulty: Faulty) -> None:
    rows = json.loads(ok(faulty.db, "tournament", "standings", "t", "--format", "json").stdout)
    counts = {row["bot"]: (row["timeouts"], row["crashes"], row["illegal"]) for row in rows}
    assert counts == {"greedy": (0, 0, 0),
                      "sleeper": (_faults(faulty, "sleeper", "timeout"), 0, 0),
                      "cheater": (0, 0, _faults(faulty, "cheater", "illegal"))}


def test_the_standings_table_and_the_runs_own_show_a_faults_column(faulty: Faulty) -> None:
    expected = {"greedy": "-", "sleeper": _timeouts(faulty), "cheater": _illegal(faulty)}
    for output in (ok(faulty.db, "tournament", "standings", "t").stdout, faulty.run.stdout):
        [(_, rows)] = leaderboard_tables(output)
        assert {row["bot"]: row["faults"] for row in rows} == expected


def test_games_shows_who_failed_in_each_game(faulty: Faulty) -> None:
    text = ok(faulty.db, "games", "--tournament", "t", "--format", "csv").stdout
    listed = {row["id"]: row for row in csv.DictReader(io.StringIO(text))}
    with Store.open(faulty.db) as store:
        ids = {g.game_id: f"t:{g.game_index}" for g in store.scheduled_games("t")}
    for game in faulty.games:
        row = listed[ids[game.id]]
        assert row["seat_terminations"] == " ".join(t.value for t in game.seat_terminations)
        assert row["termination"] == game.outcome.termination.value
    table = ok(faulty.db, "games", "--tournament", "t").stdout.splitlines()
    assert table[0].split() == ["id", "seats", "scores", "winner", "ended", "faults",
                                "finished"]
    faults = [line for line in table[2:] if "sleeper timeout" in line or "cheater illegal" in line]
    assert len(faults) == sum(1 for g in faulty.games if g.forfeited_seat is not None)


def test_replay_of_a_forfeited_game_says_who_forfeited_and_why(faulty: Faulty) -> None:
    reasons = {"timeout": "missed its decision deadlines",
               "illegal": "answered with actions that were not legal"}
    forfeited = [g for g in faulty.games if g.forfeited_seat is not None]
    assert forfeited
    for game in forfeited:
        seat = game.forfeited_seat
        assert seat is not None
        ending = game.seat_terminations[seat].value
        winner = game.seats[game.outcome.ranks.index(0)]
        last = ok(faulty.db, "replay", str(game.id)).stdout.splitlines()[-1]
        assert last == (f"game over: {game.seats[seat]} forfeited ({ending}: "
                        f"{reasons[ending]}); {winner} wins")


def test_export_gives_each_seat_how_its_game_ended(faulty: Faulty) -> None:
    lines = ok(faulty.db, "export", "t").stdout.splitlines()
    exported = {game["number"]: game for game in
                (json.loads(line)["game"] for line in lines[1:])}
    assert sorted(exported) == sorted(g.id for g in faulty.games)
    for game in faulty.games:
        seats = exported[game.id]["seats"]
        assert [seat["termination"] for seat in seats] == [
            t.value for t in game.seat_terminations]
        assert exported[game.id]["forfeited_seat"] == game.forfeited_seat
        assert exported[game.id]["record"]["seat_terminations"] == [
            t.value for t in game.seat_terminations]


def test_a_match_prints_its_standings_with_the_faults_and_warns_of_them(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)  # a root arena's sandboxed bot runs as another user: it must read
    db = tmp_path / "arena.db"
    add_bots(db, {"greedy": "greedy"})
    _add_faulty_bots(db, {"cheater": CHEATING_BOT})
    rules = write_json(tmp_path / "one-hand.json", ONE_HAND)
    result = ok(db, "match", "greedy", "cheater", "--games", "2", "--rules", str(rules))
    [(_, rows)] = leaderboard_tables(result.stdout)
    assert {row["bot"]: row["faults"] for row in rows} == {
        "greedy": "-", "cheater": "2 illegal actions"}, "three strikes forfeit each game"
    assert "warning: bots failed in this run's games: cheater (2 illegal actions); " \
           "`arena games --tournament match-" in result.stderr
