"""Elo beside a score, with error bars, as chess testers print them.

*Logistic Elo* is the rating difference whose expected score is `s` under the
logistic curve, `−400 log10(1/s − 1)`; its interval is the score's normal
interval mapped through the same curve (so it is as wide as the score's, and
lopsided far from 0.5). *Normalized Elo* (Van den Bergh's, as fishtest and
fastchess print it with pentanomial statistics) measures the edge in standard
deviations of a single game's score instead, `(s − 0.5) / σ_game · 800 / ln 10`,
which makes it comparable across draw rates and deal designs; with duplicate
pairs `σ_game = √2 · σ_pair`. Its interval is t ± z·se(t) scaled the same way,
with the delta-method standard error of a t-value, `se(t) ≈ √((1 + t²/2) / n)`
(normal approximation).

Every estimate names its level and method, so a reader never has to guess
which interval stands beside a number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

NORMALIZED_ELO_PER_T = 800.0 / math.log(10.0)
"""Normalized Elo per standard deviation of a game's score (about 347.4)."""


@dataclass(frozen=True, slots=True)
class Interval:
    """A point estimate with its interval, the interval's level and how it was made.
    An end that is infinite (a score of 0 or 1 in Elo) is written as None in JSON."""

    value: float
    low: float
    high: float
    level: float
    method: str


def logistic_elo(score: float) -> float:
    """The logistic Elo difference of an expected score: ±inf at 1 and 0."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def elo_interval(score: float, standard_error: float, level: float,
                 method: str = "logistic Elo of the score's normal interval") -> Interval:
    """Logistic Elo of `score` with the normal interval `score ± z·standard_error` at `level`
    (clipped to [0, 1]) mapped to Elo; `method` says where the standard error came from."""
    z = NormalDist().inv_cdf(0.5 + level / 2.0)
    low = max(0.0, score - z * standard_error)
    high = min(1.0, score + z * standard_error)
    return Interval(logistic_elo(score), logistic_elo(low), logistic_elo(high), level, method)


def normalized_elo_interval(score: float, block_variance: float, blocks: int,
                            games_per_block: int, level: float) -> Interval | None:
    """Normalized Elo of `score` from `blocks` blocks of `games_per_block` games whose block
    scores vary by `block_variance`, with its normal interval at `level`; None when the
    scores do not vary (σ = 0) or no block was seen."""
    if blocks == 0 or block_variance <= 0.0:
        return None
    game_sigma = math.sqrt(block_variance * games_per_block)
    t = (score - 0.5) / game_sigma
    # The pair's t-value is √(games) times the game's; its standard error is over blocks.
    block_t = t * math.sqrt(games_per_block)
    se = math.sqrt((1.0 + block_t * block_t / 2.0) / blocks) / math.sqrt(games_per_block)
    z = NormalDist().inv_cdf(0.5 + level / 2.0)
    return Interval(t * NORMALIZED_ELO_PER_T, (t - z * se) * NORMALIZED_ELO_PER_T,
                    (t + z * se) * NORMALIZED_ELO_PER_T, level,
                    "normalized Elo (per-game σ), delta-method normal interval")
