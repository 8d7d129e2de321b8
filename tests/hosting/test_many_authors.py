"""A hosted competition of many authors, as `benchmarks/hosting.py` plays it, small: a
real `arena serve` process with its ladder and a timetabled final, each author signed in
with their own token, submitting, reading and attempting every call that is not theirs
— on both store backends."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.hosting import Plan, measure, read_rows, refused_methods, rows_of

PLAN = Plan(authors=6, phase_seconds=4.0, periods=(0.0, 1.5), submitters=3, warm_games=8)


@pytest.mark.timeout(300)
def test_every_author_sees_their_own_and_every_attempt_at_another_s_is_refused(
        store_target: Path | str) -> None:
    outcome = measure(str(store_target), PLAN, seed=3)
    tally = outcome.tally
    assert tally.let_through == []
    assert tally.attempted == set(refused_methods())
    assert tally.refused >= PLAN.authors * len(refused_methods())
    assert tally.read_failures == []
    authors = {f"a{number:03d}" for number in range(PLAN.authors)}
    assert tally.saw_leaderboard == authors
    assert tally.saw_build_log == authors
    assert tally.saw_private_view, "no author saw their own game's private view"
    assert tally.failed_builds >= 1 and tally.submitted > PLAN.authors
    assert outcome.organizer_touches == 0
    # The final takes the house bot and each author's newest bot (a remote one, if added last).
    entered = sorted(bot[:6] for bot in tally.final_entrants)
    assert entered == sorted(["house@", *(f"bot{number:03d}" for number in range(PLAN.authors))])
    (row,) = rows_of("backend", outcome, PLAN)
    assert row["let through"] == 0
    assert isinstance(row["p99 ms quiet"], int | float) and row["p99 ms quiet"] > 0
    assert [load.period for load in outcome.loads] == list(PLAN.periods)
    assert all(load.server_cpu > 0 and load.seconds >= PLAN.phase_seconds
               for load in outcome.loads)
    assert outcome.loads[1].reads > 0 == outcome.loads[0].reads
    assert isinstance(row["server ms per read"], float)
    assert {read["read"] for read in read_rows("backend", outcome)} >= {
        "GetRankings", "ListBotVersions", "ListGames"}


def test_the_clients_niceness_reaches_every_thread_of_their_process() -> None:
    niceness = min(19, os.getpriority(os.PRIO_PROCESS, 0) + 3)
    script = (
        "import os, threading, time\n"
        "from benchmarks.hosting import nice_threads\n"
        "threading.Thread(target=time.sleep, args=(3,), daemon=True).start()\n"
        f"nice_threads({niceness})\n"
        "print(sorted({os.getpriority(os.PRIO_PROCESS, int(t))"
        " for t in os.listdir('/proc/self/task')}), len(os.listdir('/proc/self/task')))\n")
    shown = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           check=True, cwd=Path(__file__).resolve().parents[2]).stdout.split()
    assert shown == [f"[{niceness}]", "2"]
