"""`arena demo`: the whole journey on a fresh database, with the sample bots as real processes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli.demo import sample_bots
from tests.cli.cli_support import invoke, leaderboard_tables, ok

pytestmark = pytest.mark.timeout(60)


def test_demo_registers_the_sample_bots_plays_a_round_robin_and_ranks_them(
        tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    result = invoke("demo", "--games", "1", "--seed", "3", "--db", str(db))
    assert result.exit_code == 0, result.output
    names = [bot.name for bot in sample_bots()[0]]
    assert {"random", "greedy", "counter"} <= set(names)
    out = result.stdout
    assert "registered sample bots: " + ", ".join(names) in out
    [(heading, rows)] = leaderboard_tables(out.split("Rankings:", 1)[1])
    assert heading.startswith("tournament demo:")
    ranked = {row["bot"]: int(row["games"]) for row in rows}
    assert set(ranked) == set(names)
    table_size = min(4, len(names))
    [status] = json.loads(ok(db, "tournament", "status", "demo", "--format", "json").stdout)
    assert status["status"] == "finished" and status["games_done"] == status["games_total"] > 0
    assert sum(ranked.values()) == status["games_total"] * table_size, \
        "every seat of every game rated"
