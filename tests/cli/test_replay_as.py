"""`arena replay ID --as BOT` and `arena bot log BOT`: what an author debugs a bot with.

One real tournament on an SQLite file, through the CLI (its in-process server on
loopback): a sound bot (greedy) against one that prints a line per decision and answers
its first decision of each game too late, under a fallback policy. The view `--as` shows
is checked against the stored game: the bot's own cards and decisions, nothing of the
other seat's cards, no seed.
"""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena import wire
from arena.engine import events as ev
from arena.record import DecisionOutcome
from arena.store import Store, StoredGame
from arena.v1 import uno_pb2
from tests.cli.cli_support import ONE_HAND, add_bots, arena, ok, write_json

pytestmark = pytest.mark.timeout(120)

LATE_BOT = """
import sys
import time

from arena.client import run

asked = {}


def decide(view, legal):
    print(f"deciding among {len(legal)} actions", file=sys.stderr, flush=True)
    if not asked:
        asked["late"] = True
        time.sleep(0.35)
    return legal[0]


if __name__ == "__main__":
    raise SystemExit(run(decide, name="late").exit_code)
"""
"""Logs a line per decision; answers its very first decision after the deadline."""


@dataclass(frozen=True)
class Played:
    db: Path
    games: list[StoredGame]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    tmp = tmp_path_factory.mktemp("replay-as")
    tmp.chmod(0o755)  # a root arena's sandboxed bot runs as another user: it must read its code
    db = tmp / "arena.db"
    add_bots(db, {"greedy": "greedy"})
    script = tmp / "late.py"
    script.write_text(LATE_BOT)
    ok(db, "bot", "add", "late", "--command", f"{shlex.quote(sys.executable)} {script}")
    settings = write_json(tmp / "settings.json", {"rules": ONE_HAND, "policy": {
        "on_violation": "fallback", "max_strikes": None, "decision_timeout": 0.25}})
    ok(db, "tournament", "create", "t", "greedy", "late", "--table-size", "2", "--seed", "5",
       "--settings", str(settings))
    ok(db, "tournament", "run", "t")
    with Store.open(db) as store:
        games = [store.get_game(g.game_id) for g in store.scheduled_games("t")
                 if g.game_id is not None]
    return Played(db, games)


def _cards(event: ev.Event) -> str:
    from arena.cli import render

    assert isinstance(event, ev.CardsReceived)
    return render.cards_text(event.cards, color=False)


def test_the_late_answer_is_kept_as_a_timeout_with_its_fallback(played: Played) -> None:
    timeouts = [d for game in played.games for d in game.decisions or ()
                if d.outcome is DecisionOutcome.TIMEOUT]
    assert timeouts and all(d.penalty == "fallback" and d.elapsed_ms >= 240 for d in timeouts)


def test_replay_as_shows_the_bot_s_cards_and_decisions_and_nothing_of_the_other_seat(
        played: Played) -> None:
    [game] = [g for g in played.games if any(
        d.outcome is DecisionOutcome.TIMEOUT for d in g.decisions or ())]
    seat = game.seats.index("late")
    other = 1 - seat
    events = [wire.event_from_proto(wire.dict_into(e, uno_pb2.Event())) for e in game.events]
    own = [e for e in events if isinstance(e, ev.CardsReceived) and e.seat == seat]
    theirs = [e for e in events if isinstance(e, ev.CardsReceived) and e.seat == other]
    lines = ok(played.db, "replay", str(game.id), "--as", "late").stdout.splitlines()
    assert lines[0].startswith(f"game t:{played.games.index(game)} as late saw it "
                               f"(seat {seat})")
    hands = [line for line in lines if line.startswith("  late's hand: ")]
    assert len(hands) == len(own)
    assert hands[0] == f"  late's hand: {_cards(own[0])}", "the deal"
    assert not any("greedy's hand" in line for line in lines)
    dealt_to_other = _cards(theirs[0])
    assert dealt_to_other not in "\n".join(lines)
    assert game.decisions is not None
    mine = [d for d in game.decisions if d.seat == seat]
    shown = [line for line in lines if line.startswith("  > late decision ")]
    assert len(shown) == len(mine)
    first = mine[0]
    assert shown[0] == (f"  > late decision {first.number}: no answer before the deadline in "
                        f"{first.elapsed_ms} ms; the fallback was played, strike 1")
    answered = [(d, line) for d, line in zip(mine, shown, strict=True)
                if d.outcome is DecisionOutcome.ANSWERED]
    assert answered, "the bot answers in time after its first decision"
    decision, line = answered[-1]
    assert line == (f"  > late decision {decision.number}: answered in {decision.elapsed_ms} ms"
                    f" (strikes so far: {decision.strikes})")
    faulty = sum(1 for d in mine if d.outcome is not DecisionOutcome.ANSWERED)
    assert lines[-1] == (f"late: {len(mine)} decisions, {faulty} faulty, the slowest "
                         f"{max(d.elapsed_ms for d in mine)} ms; its own output: "
                         "arena bot log late")


def test_replay_as_export_is_marked_partial_with_no_seed_and_no_other_seat_s_cards(
        played: Played) -> None:
    game = played.games[1]
    seat = game.seats.index("late")
    lines = ok(played.db, "replay", str(game.id), "--as", "late", "--export",
               "jsonl").stdout.splitlines()
    header = json.loads(lines[0])["header"]
    assert (header["partial"], header["seed"], header["visible_seats"]) == (True, None, [seat])
    assert [d["seat"] for d in header["decisions"]] == [seat] * len(header["decisions"])
    assert game.decisions is not None
    assert [(d["index"], d["outcome"], d["elapsed_ms"]) for d in header["decisions"]] == [
        (d.number, d.outcome.value, d.elapsed_ms) for d in game.decisions if d.seat == seat]
    received = [json.loads(line)["cards_received"] for line in lines[1:]
                if "cards_received" in line]
    assert received and all(entry.get("seat", 0) == seat for entry in received)
    full = ok(played.db, "replay", str(game.id), "--export", "jsonl").stdout.splitlines()
    assert json.loads(full[0])["header"]["seed"] == game.seed
    assert "partial" not in json.loads(full[0])["header"]
    assert len(lines) < len(full)


def test_replay_as_a_bot_that_did_not_play_the_game_is_refused_naming_its_seats(
        played: Played) -> None:
    result = arena(played.db, "replay", str(played.games[0].id), "--as", "nobody")
    assert result.exit_code == 1
    assert "nobody did not play game" in result.output and "greedy" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("flag", ["--hands", "--board"])
def test_replay_as_refuses_every_seat_s_cards_and_the_board(played: Played, flag: str) -> None:
    result = arena(played.db, "replay", str(played.games[0].id), "--as", "late", flag)
    assert result.exit_code == 2
    assert "--as" in result.output and flag in result.output


def test_a_full_replay_still_replays_and_shows_no_decisions(played: Played) -> None:
    result = ok(played.db, "replay", str(played.games[0].id))
    assert "decision" not in result.stdout and "as late saw it" not in result.stdout


def test_bot_log_prints_the_end_of_the_bot_s_own_output(played: Played) -> None:
    written = (played.db.parent / "arena-logs" / "late.log").read_text().splitlines()
    assert sum(1 for line in written if line.startswith("deciding among ")) >= 10
    lines = ok(played.db, "bot", "log", "late", "--lines", "8").stdout.splitlines()
    assert lines == written[-8:]
    assert any(line.startswith("deciding among ") for line in lines)


def test_bot_log_of_a_bot_never_launched_or_remote_says_why(played: Played,
                                                            tmp_path: Path) -> None:
    result = arena(played.db, "bot", "log", "nobody")
    assert result.exit_code == 1 and "nobody" in result.output
    ok(played.db, "bot", "add", "far")
    result = arena(played.db, "bot", "log", "far")
    assert result.exit_code == 1
    assert "far is remote" in result.output and "Traceback" not in result.output
