"""A small run of the SPRT benchmark: the pentanomial against fishtest's GSPRT on the same
simulated duplicate deals (`python -m benchmarks sprt` runs the full table)."""

from __future__ import annotations

import pytest

from arena.stats.sprt import Decision
from benchmarks.sprt import FishtestGsprt, simulate


def test_the_fishtest_transcription_reaches_its_known_figure() -> None:
    """Its LLR gains log(0.51 / 0.50) per pair of wins: 149 pairs to cross log(19)."""
    reference = FishtestGsprt(5)
    while reference.add(4) is Decision.CONTINUE:
        pass
    assert reference.decision is Decision.ACCEPT_H1 and reference.blocks == 149


@pytest.mark.parametrize("truth", [0.55, 0.75, 0.95])
def test_the_pentanomial_needs_at_most_fishtests_deals_and_decides_right(truth: float) -> None:
    tallies = {t.name: t for t in simulate(truth, runs=30, seed=3)}
    ours, fishtest = tallies["arena pentanomial"], tallies["fishtest"]
    assert ours.mean_blocks <= 1.2 * fishtest.mean_blocks
    assert ours.rate(Decision.ACCEPT_H1) == 1.0
