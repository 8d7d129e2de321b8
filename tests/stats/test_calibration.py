"""The leaderboard's claims hold on synthetic tournaments with known expected scores.

The same runs as `python -m arena.stats.calibration`; run with `-s` to see the figures.
"""

from __future__ import annotations

import random

from arena.stats.calibration import (
    CLEAR_FIELD,
    FIELD,
    SAMPLE_FIELD,
    Design,
    alone_first,
    coverage,
    round_robin_coverage,
    shared_place,
)
from arena.stats.leaderboard import leaderboard
from arena.stats.simulate import round_robin

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


ROUND_ROBINS = 600


def test_stratified_intervals_are_a_fifth_narrower_on_a_sample_bot_round_robin_and_still_hold(
        ) -> None:
    """Heads up, 10 duplicate deals per pair of four bots spread like the sample bots."""
    plain = round_robin_coverage(SAMPLE_FIELD, 10, ROUND_ROBINS, seed=4, stratify=False)
    strata = round_robin_coverage(SAMPLE_FIELD, 10, ROUND_ROBINS, seed=4, stratify=True)
    print(f"\nround robin coverage: {plain.rate:.2%} unstratified, {strata.rate:.2%} "
          f"stratified, width {strata.mean_width / plain.mean_width:.2f}x")
    assert 0.93 <= strata.rate <= 0.97
    assert strata.mean_width <= 0.8 * plain.mean_width


def test_stratified_intervals_still_hold_in_a_close_field() -> None:
    strata = round_robin_coverage(FIELD, 10, ROUND_ROBINS, seed=5, stratify=True)
    assert 0.93 <= strata.rate <= 0.97


def test_identical_bots_still_share_a_place_under_stratification() -> None:
    rng = random.Random(6)
    shared = 0
    for _ in range(RUNS // 2):
        board = leaderboard(round_robin(SAMPLE_FIELD, 10, rng), stratify=True)
        shared += board.standing("random_a").tier == board.standing("random_b").tier
    assert shared >= 0.95 * (RUNS // 2)
