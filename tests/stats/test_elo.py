"""Elo beside a score: the logistic curve, its interval, and normalized Elo."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from arena.stats.elo import (
    NORMALIZED_ELO_PER_T,
    elo_interval,
    logistic_elo,
    normalized_elo_interval,
)
from arena.stats.sprt import Model, Sprt


def test_logistic_elo_is_zero_at_an_even_score_and_infinite_at_the_ends() -> None:
    assert logistic_elo(0.5) == 0.0
    assert logistic_elo(0.75) == pytest.approx(190.85, abs=0.01)
    assert logistic_elo(1.0) == math.inf and logistic_elo(0.0) == -math.inf


def test_the_elo_interval_is_the_scores_interval_mapped_and_names_its_level() -> None:
    interval = elo_interval(0.6, 0.02, 0.95)
    assert interval.low == pytest.approx(logistic_elo(0.6 - 1.959964 * 0.02), abs=1e-3)
    assert interval.high == pytest.approx(logistic_elo(0.6 + 1.959964 * 0.02), abs=1e-3)
    assert interval.level == 0.95 and "normal interval" in interval.method


def test_normalized_elo_counts_standard_deviations_of_a_game() -> None:
    """Pairs whose scores vary by σ² per pair: a game's σ is √(2σ²)."""
    interval = normalized_elo_interval(0.55, 0.02, 400, 2, 0.95)
    assert interval is not None
    assert interval.value == pytest.approx(0.05 / math.sqrt(0.04) * NORMALIZED_ELO_PER_T)
    assert interval.low < interval.value < interval.high
    assert normalized_elo_interval(0.5, 0.0, 10, 2, 0.95) is None


def test_the_normalized_elo_interval_covers_the_truth_about_as_often_as_it_says() -> None:
    """Simulated pairs of fixed pentanomial odds: the 90% interval covers the true normalized
    Elo in 85-95% of 300 runs of 200 pairs."""
    values = (0.0, 0.25, 0.5, 0.75, 1.0)
    odds = (0.05, 0.2, 0.4, 0.25, 0.1)
    mean = sum(v * p for v, p in zip(values, odds, strict=True))
    variance = sum(p * (v - mean) ** 2 for v, p in zip(values, odds, strict=True))
    truth = (mean - 0.5) / math.sqrt(2 * variance) * NORMALIZED_ELO_PER_T
    rng = random.Random(11)
    covered = 0
    for _ in range(300):
        pairs = rng.choices(values, odds, k=200)
        interval = normalized_elo_interval(statistics.fmean(pairs), statistics.pvariance(pairs),
                                           200, 2, 0.9)
        assert interval is not None
        covered += interval.low <= truth <= interval.high
    assert 0.85 <= covered / 300 <= 0.95


def test_an_sprt_reports_its_score_with_a_sequential_interval_once_it_stopped() -> None:
    test = Sprt(model=Model.PENTANOMIAL)
    assert test.extend([0.75, 1.0, 1.0] * 20, games=2).value == "H1"
    estimates = test.estimates(0.95)
    assert estimates.stopped_early
    assert estimates.score.low < test.mean <= estimates.score.high
    assert "any stop" in estimates.score.method
    assert estimates.elo.value > 0 and math.isfinite(estimates.elo.low)
    assert estimates.normalized_elo is not None and estimates.normalized_elo.value > 0
