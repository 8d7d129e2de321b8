"""`arena rankings --history`: each bot's rating after each of its games in one pool, through
the CLI's embedded server (real gRPC on loopback, a real SQLite file)."""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path

import pytest

from arena.store import BotKind, Store
from tests.cli.cli_support import arena, ok
from tests.services.test_rating_history import BOTS, record


@pytest.fixture
def rated(tmp_path: Path) -> tuple[Path, str]:
    """A database whose one pool rated 12 two-seat games; its path and the pool's key."""
    path = tmp_path / "arena.db"
    store = Store.open(path)
    try:
        for name in BOTS:
            store.add_bot(name, BotKind.REMOTE)
        pairs = random.Random(8)
        for seed in range(12):
            record(store, pairs.sample(BOTS, 2), seed)
        (pool,) = store.pools()
        return path, pool.key
    finally:
        store.close()


def test_history_lists_each_named_bots_rating_after_each_of_its_games(
        rated: tuple[Path, str]) -> None:
    db, key = rated
    rows = json.loads(ok(db, "rankings", "--history", "--bot", "bot3", "--bot", "bot1",
                         "--format", "json").stdout)
    with Store.open(db) as store:
        start = store.pool(key).parameters.initial_skill
        order = {game: n for n, game in enumerate(store.pool_game_ids(key), 1)}
        expected = []
        for bot in ("bot3", "bot1"):
            expected.append({"pool": key, "bot": bot, "game": 0, "mu": start.mu,
                             "sigma": start.sigma})
            expected += [{"pool": key, "bot": bot, "game": order[p.game_id], "mu": p.mu,
                          "sigma": p.sigma} for p in store.rating_history(bot, pool=key)]
    assert [{k: v for k, v in row.items() if k != "conservative"} for row in rows] == expected
    assert all(row["conservative"] == pytest.approx(row["mu"] - 3 * row["sigma"])
               for row in rows)


def test_history_without_bots_shows_the_leaderboards_first_eight(
        rated: tuple[Path, str]) -> None:
    db, key = rated
    board = json.loads(ok(db, "rankings", "--pool", key, "--format", "json").stdout)
    table = ok(db, "rankings", "--history", "--pool", key).stdout
    assert table.splitlines()[0].endswith(f"12 games (pool {key})")
    rows = list(csv.DictReader(io.StringIO(
        ok(db, "rankings", "--history", "--pool", key, "--format", "csv").stdout)))
    assert list(dict.fromkeys(row["bot"] for row in rows)) == [b["bot"] for b in board][:8]


@pytest.mark.parametrize(("args", "error"), [
    (["--bot", "bot1"], "--bot names the bots --history shows: give --history too"),
    (["--history", "--pools"], "--history lists ratings over the games: it goes with"),
])
def test_history_options_that_do_not_go_together_are_refused(
        rated: tuple[Path, str], args: list[str], error: str) -> None:
    result = arena(rated[0], "rankings", *args)
    assert result.exit_code == 2 and error in result.stderr


def test_history_of_a_bot_there_is_not_says_so(rated: tuple[Path, str]) -> None:
    result = arena(rated[0], "rankings", "--history", "--bot", "ghost")
    assert (result.exit_code, result.stderr) == (1, "Error: no bot named 'ghost'\n")
