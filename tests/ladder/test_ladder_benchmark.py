"""The ladder benchmark: its running leaderboard is the leaderboard's, and a tiny run works."""

from __future__ import annotations

import random

from arena.stats import leaderboard
from arena.stats.games import RankedGame
from benchmarks import ladder as bench


def test_a_block_is_one_deal_in_every_rotation_of_the_table() -> None:
    games = bench.play_block(("a", "b", "c", "d"), {"a": 0.0, "b": 0.1, "c": 0.2, "d": 0.3},
                             7, random.Random(0))
    assert [game.seats for game in games] == [("a", "b", "c", "d"), ("b", "c", "d", "a"),
                                              ("c", "d", "a", "b"), ("d", "a", "b", "c")]
    assert {game.block for game in games} == {7}


def test_the_running_board_is_the_leaderboard_of_the_blocks_so_far() -> None:
    rng = random.Random(1)
    strengths = bench.even_field(6, 0.6)(rng)
    bots = list(strengths)
    board, games = bench.Board(), []
    separated_once = False
    for block in range(150):
        played = bench.play_block(tuple(rng.sample(bots, 4)), strengths, block, rng)
        board.add_block(played)
        games.extend(played)
        if block % 10 and block != 149:
            continue
        expected = leaderboard(games)
        assert board.order() == [standing.bot for standing in expected.standings]
        corrected = 1.0 - (1.0 - expected.confidence) / (len(bots) - 1)
        for test in expected.separations:
            low, high = board.difference(test.upper, test.lower).interval(corrected, -1.0, 1.0)
            assert abs(low - test.ci_low) < 1e-9 and abs(high - test.ci_high) < 1e-9
        separated = all(test.separated for test in expected.separations)
        assert (board.separated() is not None) == separated
        separated_once |= separated
    assert separated_once


def test_the_board_counts_bots_that_sat_out_and_blocks_of_a_partial_field() -> None:
    board = bench.Board()
    board.add_block([RankedGame(0, ("a", "b"), (0, 1))])
    assert board.order() == ["a", "b"] and board.separated() is None


def test_the_benchmark_runs_at_a_tiny_scale() -> None:
    rows = bench.run(repeats=1, scale=0.05)
    assert [row["field"] for row in rows] == [field.name for field in bench.FIELDS]
    for row, field in zip(rows, bench.FIELDS, strict=True):
        keys = ["matchmaking games", "random games", "ratio", "matchmaking errors",
                "random errors"]
        if field.sequential:
            keys += ["sequential: matchmaking", "sequential: random", "sequential ratio"]
        for key in keys:
            value = row[key]
            assert isinstance(value, int | float) and value >= 0, (key, row)
        assert isinstance(row["matchmaking games"], int) and row["matchmaking games"] > 0
