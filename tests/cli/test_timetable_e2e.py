"""Tournaments on a timetable end to end: a real `arena serve` process, commands sent to
it over gRPC on 127.0.0.1, SQLite, and the Python sample bots as managed bots."""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from tests.cli.cli_support import (
    ONE_HAND,
    add_bots,
    invoke,
    marked_env,
    ok,
    serving,
    wait_for_line,
    write_json,
)
from tests.support import free_port

pytestmark = pytest.mark.timeout(90)

STARTED = re.compile(r"^(?P<at>\S+ \S+) timetable: started (?P<name>\S+) \(due (?P<due>\S+ \S+)\)",
                     re.MULTILINE)
LATE_BOUND = timedelta(seconds=5)
"""How late an edition may start and still be on time: a behaviour bound, generous."""


def _read_until(server: subprocess.Popen[bytes], said: str, pattern: str, count: int,
                timeout: float) -> str:
    """Read the server's stderr until `pattern` matches `count` of its lines; return all
    it said."""
    assert server.stderr is not None
    seen = said.encode()
    deadline = time.monotonic() + timeout
    while len(re.findall(pattern, seen.decode(errors="replace"), re.MULTILINE)) < count:
        if time.monotonic() > deadline:
            raise AssertionError(f"{pattern!r} not said {count} times; the server said "
                                 f"{seen.decode(errors='replace')!r}")
        ready, _, _ = select.select([server.stderr], [], [], 0.1)
        if ready:
            chunk = os.read(server.stderr.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
    return seen.decode(errors="replace")


def test_a_scheduled_tournament_starts_on_time_on_a_running_server(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    add_bots(db, {"greedy": "greedy", "rnd": "random"})
    settings = write_json(tmp_path / "one-hand.json", {"rules": ONE_HAND})
    port = free_port()
    remote = ("--server", f"127.0.0.1:{port}", "--db", str(db))
    with marked_env(f"timetable-{port}") as env, \
            serving(db, port, env, "--tables", "2") as server:
        said = wait_for_line(server, "Ctrl-C stops", timeout=20)
        due = (datetime.now() + timedelta(seconds=3)).replace(microsecond=0)
        soon = invoke(*remote, "tournament", "create", "soon", "--at", f"{due:%Y-%m-%d %H:%M:%S}",
                      "--table-size", "2", "--settings", str(settings))
        assert soon.exit_code == 0, soon.output
        assert soon.stdout.startswith(
            f"scheduled round_robin tournament soon: its first edition, soon-{due:%Y-%m-%d}, "
            f"starts at {due:%Y-%m-%d %H:%M} (local time), on 50% of the server's tables; "
            "entrants: the latest version of every bot at that moment\n")
        often = invoke(*remote, "tournament", "create", "often", "greedy", "rnd", "--every",
                       "2s", "--share", "0.5", "--table-size", "2", "--settings", str(settings))
        assert often.exit_code == 0, often.output
        assert ", starts now, then every 2s, on 50% of the server's tables; entrants: " \
            "greedy, rnd\n" in often.stdout
        before = json.loads(ok(db, *remote[:2], "tournament", "list", "--format",
                               "json").stdout)
        assert [(row["name"], row["status"], row["bots"], row["every_seconds"])
                for row in before if row["status"] == "scheduled"] == [
            ("soon", "scheduled", None, None), ("often", "scheduled", ["greedy", "rnd"], 2)]

        said = _read_until(server, said, r"timetable: often-\S+ finished", 2, timeout=40)
        said = _read_until(server, said, r"timetable: soon-\S+ finished", 1, timeout=20)
        started = {m["name"]: m for m in STARTED.finditer(said)}
        soon_edition = f"soon-{due:%Y-%m-%d}"
        start = datetime.strptime(started[soon_edition]["at"], "%Y-%m-%d %H:%M:%S")
        assert started[soon_edition]["due"] == f"{due:%Y-%m-%d %H:%M:%S}"
        assert due <= start <= due + LATE_BOUND, (due, start)
        assert f"timetable: {soon_edition} finished (2 games played)" in said
        often_editions = [name for name in started if name.startswith("often-")]
        assert len(often_editions) >= 2

        listed = json.loads(invoke(*remote, "tournament", "list", "--format", "json").stdout)
        rows = {row["name"]: row for row in listed}
        assert (rows["soon"]["status"], rows["soon"]["editions"],
                rows["soon"]["last_edition"], rows["soon"]["next_start"]) == (
            "ended", 1, soon_edition, None)
        assert rows["often"]["status"] == "scheduled" and rows["often"]["editions"] >= 2
        for edition in (soon_edition, *often_editions[:2]):
            assert (rows[edition]["status"], rows[edition]["games_done"],
                    sorted(rows[edition]["bots"])) == ("finished", 2, ["greedy", "rnd"])
        standings = json.loads(invoke(*remote, "rankings", "--tournament", soon_edition,
                                      "--format", "json").stdout)
        assert sorted(row["bot"] for row in standings) == ["greedy", "rnd"]
        assert {row["games"] for row in standings} == {2}

        table = invoke(*remote, "tournament", "list").stdout
        assert "\non the timetable:\n" in table
        assert re.search(r"^often +round_robin +\S+ \S+ +2s +greedy rnd +50% ", table,
                         re.MULTILINE)
        assert re.search(r"^soon +round_robin +- +- +latest versions +50% +1 +"
                         f"{soon_edition}$", table, re.MULTILINE)

        taken_off = invoke(*remote, "tournament", "unschedule", "often")
        assert taken_off.exit_code == 0
        assert taken_off.stdout.startswith("took often off the timetable; its ")
        listed = json.loads(invoke(*remote, "tournament", "list", "--format", "json").stdout)
        assert "often" not in {row["name"] for row in listed}
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=15) == 0


def test_scheduling_mistakes_are_clear_errors(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    add_bots(db, {"greedy": "greedy"})
    past = invoke("--db", str(db), "tournament", "create", "x", "--at", "2020-01-01 10:00")
    assert past.exit_code == 2
    assert "Invalid value for '--at': 2020-01-01 10:00 is in the past (it is " in past.stderr
    period = invoke("--db", str(db), "tournament", "create", "x", "--every", "daily")
    assert period.exit_code == 2
    assert "Invalid value for '--every': 'daily' is not a period" in period.stderr
    unknown = invoke("--db", str(db), "tournament", "create", "x", "greedy", "nobody",
                     "--every", "1h")
    assert (unknown.exit_code, unknown.stderr) == (1, "Error: no bot named 'nobody'\n")
    share = invoke("--db", str(db), "tournament", "create", "x", "greedy", "--share", "0.5")
    assert share.exit_code == 2 and "only a tournament on the timetable" in share.stderr
    bots = invoke("--db", str(db), "tournament", "create", "x")
    assert bots.exit_code == 2 and "Missing argument 'BOTS...'" in bots.stderr
    settings = write_json(tmp_path / "s.json", {"share": 2})
    bad_share = invoke("--db", str(db), "tournament", "create", "x", "--every", "1h",
                       "--settings", str(settings))
    assert (bad_share.exit_code, bad_share.stderr) == (
        1, "Error: share: must be a number above 0 and at most 1, got 2\n")
    ok(db, "tournament", "create", "x", "--every", "1h")
    again = invoke("--db", str(db), "tournament", "create", "x", "--every", "1h")
    assert (again.exit_code, again.stderr) == (
        1, "Error: a tournament named 'x' is already on the timetable\n")
    gone = invoke("--db", str(db), "tournament", "unschedule", "y")
    assert (gone.exit_code, gone.stderr) == (
        1, "Error: no tournament 'y' on the timetable (`arena tournament list` shows what "
           "is scheduled)\n")
