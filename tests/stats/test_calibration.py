"""The leaderboard's claims hold on synthetic tournaments with known expected scores.

The same runs as `python -m arena.stats.calibration`; run with `-s` to see the figures.
"""

from __future__ import annotations

from arena.stats.calibration import (
    CLEAR_FIELD,
    FIELD,
    Design,
    alone_first,
    coverage,
    shared_place,
)

TOURNAMENTS = 500
RUNS = 400


def test_95_percent_intervals_cover_the_truth_93_to_97_percent_under_duplicate_deals() -> None:
    covered, total = coverage(FIELD, Design(duplicate=True), TOURNAMENTS, seed=1)
    print(f"\ncoverage, duplicate deals: {covered}/{total} = {covered / total:.2%}")
    assert 0.93 <= covered / total <= 0.97


def test_95_percent_intervals_cover_the_truth_93_to_97_percent_under_independent_deals() -> None:
    covered, total = coverage(FIELD, Design(duplicate=False), TOURNAMENTS, seed=1)
    print(f"\ncoverage, independent deals: {covered}/{total} = {covered / total:.2%}")
    assert 0.93 <= covered / total <= 0.97


def test_two_identical_bots_share_a_place_in_at_least_95_percent_of_runs() -> None:
    shared = shared_place(FIELD, "twin_a", "twin_b", Design(), RUNS, seed=2)
    print(f"\nidentical bots share a place: {shared}/{RUNS} = {shared / RUNS:.1%}")
    assert shared >= 0.95 * RUNS


def test_a_clearly_stronger_bot_stands_alone_in_first_in_most_runs() -> None:
    alone = alone_first(CLEAR_FIELD, "clear", Design(deals=20), RUNS, seed=3)
    print(f"\nclearly stronger bot alone in first: {alone}/{RUNS} = {alone / RUNS:.1%}")
    assert alone >= 0.9 * RUNS
