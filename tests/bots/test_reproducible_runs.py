"""A tournament run again with the same --seed records the same games.

Everything is real: the CLI, the embedded gRPC server, a fresh SQLite file per
run, and the Python sample bots as managed processes. The random bots take
their choices from the GameStart's bot_seed, so they repeat themselves; greedy
learns across games (how often challenges were guilty), so it repeats itself
when the games come in the same order, that is one table at a time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.store import Store
from tests.cli.cli_support import ONE_HAND, add_bots, arena, ok, write_json
from tests.support import ROOT

pytestmark = pytest.mark.timeout(120)

BOT_ENV = {"PYTHONPATH": str(ROOT)}
"""The managed bots import this checkout's SDK, whatever the interpreter has installed."""


def play_tournament(folder: Path, bots: dict[str, str], seed: int,
                    concurrency: int) -> list[dict[str, Any]]:
    """Create and run a single-hand round robin on a fresh database in `folder`;
    return every game of its schedule as it was recorded."""
    folder.mkdir()
    db = folder / "arena.db"
    add_bots(db, bots)
    settings = write_json(folder / "settings.json", {"rules": ONE_HAND})
    ok(db, "tournament", "create", "t", *bots, "--table-size", "3", "--deals", "2",
       "--seed", str(seed), "--settings", str(settings))
    run = arena(db, "tournament", "run", "t", "--concurrency", str(concurrency), env=BOT_ENV)
    assert run.exit_code == 0, run.output
    for log in (folder / "arena-logs").iterdir():
        assert "Traceback" not in log.read_text(), f"{log.name}:\n{log.read_text()}"
    store = Store.open(db)
    try:
        games = [store.get_game(s.game_id) for s in store.scheduled_games("t")
                 if s.game_id is not None]
    finally:
        store.close()
    return [{"seats": g.seats, "seed": g.seed, "actions": g.actions, "events": g.events,
             "outcome": g.outcome, "terminations": g.seat_terminations} for g in games]


RANDOM_AND_GREEDY = {"rnd": "random", "rnd2": "random", "greedy": "greedy"}
RANDOM_ONLY = {"rnd": "random", "rnd2": "random", "rnd3": "random"}


@pytest.fixture(scope="module")
def random_runs(tmp_path_factory: pytest.TempPathFactory
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Three random bots, seed 9: one table at a time, then six at once."""
    tmp = tmp_path_factory.mktemp("random-runs")
    return (play_tournament(tmp / "one", RANDOM_ONLY, seed=9, concurrency=1),
            play_tournament(tmp / "all", RANDOM_ONLY, seed=9, concurrency=6))


def test_the_same_seed_records_the_same_games_twice(tmp_path: Path) -> None:
    first = play_tournament(tmp_path / "first", RANDOM_AND_GREEDY, seed=5, concurrency=1)
    second = play_tournament(tmp_path / "second", RANDOM_AND_GREEDY, seed=5, concurrency=1)
    assert len(first) == 6
    assert all(t.value == "normal" for game in first for t in game["terminations"])
    assert first == second


def test_random_bots_repeat_their_games_however_many_tables_play_at_once(
        random_runs: tuple[list[dict[str, Any]], list[dict[str, Any]]]) -> None:
    one_at_a_time, all_at_once = random_runs
    assert len(one_at_a_time) == 6
    assert one_at_a_time == all_at_once


def test_random_bots_play_one_deal_differently_in_each_seating(
        random_runs: tuple[list[dict[str, Any]], list[dict[str, Any]]]) -> None:
    games = random_runs[1]
    rotations = [g for g in games if g["seed"] == games[0]["seed"]]
    assert len(rotations) == 3
    assert len({str(g["actions"]) for g in rotations}) == 3
