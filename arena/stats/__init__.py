"""Statistics over finished games: what the results support, and no more.

Pure functions over results; the standard library only (no store, no gRPC, no
engine). The caller turns stored games into `RankedGame` values — the deal
block (all rotations of one duplicate deal; or the game itself), the bot in
each seat, each seat's rank (0 best, ties share) and, for partner games, the
teams — and asks:

- `leaderboard(games, confidence=0.95) -> Leaderboard`: bots sorted by mean
  score (the mean over a game's opponents of 1 placed higher, 0.5 tie, 0 placed
  lower; 0.5 is average), each `Standing` with `score`, `ci_low`, `ci_high`,
  `place` ("2–3"), `place_low`, `place_high` and `tier`; adjacent bots whose
  difference the games cannot establish (Bonferroni over the adjacent pairs)
  share a tier and a place. `Leaderboard.separations` holds those tests.
- `crosstable(games) -> tuple[HeadToHead, ...]`: for every ordered pair that
  met, games, wins/losses/draws, score against the opponent with its interval,
  the paired difference of their table scores with its interval, and LOS.
- `seat_tables(games) -> tuple[SeatTable, ...]`: mean score and win rate per
  seat, and a chi-square test of "no seat effect" on wins.
- `duplicate_effect(games) -> DuplicateEffect | None`: the correlation between
  the rotations of a deal and the share of games duplicate deals save.

Two sequential tests decide how long to play: `arena.stats.sequential`
(a confidence sequence per adjacent pair, for "play until separated") and
`arena.stats.sprt` (a sequential probability ratio test between two bots on
their per-deal-block scores: fishtest's pentanomial GSPRT on duplicate pairs,
the trinomial on single games). `arena.stats.elo` puts logistic and
normalized Elo with their intervals beside a score; `arena.stats.tiebreak`
orders shared places for prizes by an announced rule, which is not evidence.
Every interval names its level and method (`Leaderboard.interval_method`,
`Separation.level` and `.method`), and a schedule that fixes who meets whom
(a tournament's own pool) is estimated stratified by pairing.

Intervals are block-clustered Student-t intervals (see `arena.stats.estimate`
for why not a bootstrap, and why two pseudo-blocks); the deal block is the unit,
so duplicate deals are credited with exactly the variance they remove. They are
deterministic: the same games give the same board. `arena.stats.simulate` is a
synthetic game model with known expected scores, and `python -m
arena.stats.calibration` measures interval coverage, how often identical bots
share a place, and how often a stronger bot is separated.
"""

from __future__ import annotations

from arena.stats.duplicate import DuplicateEffect, duplicate_effect
from arena.stats.games import RankedGame
from arena.stats.headtohead import HeadToHead, crosstable, likelihood_of_superiority
from arena.stats.leaderboard import (
    CONFIDENCE,
    SCORE_INTERVAL_METHOD,
    Leaderboard,
    Separation,
    Standing,
    leaderboard,
    place_text,
)
from arena.stats.seats import SeatResult, SeatTable, seat_tables

__all__ = [
    "CONFIDENCE", "SCORE_INTERVAL_METHOD", "DuplicateEffect", "HeadToHead", "Leaderboard",
    "RankedGame", "SeatResult", "SeatTable", "Separation", "Standing", "crosstable",
    "duplicate_effect", "leaderboard", "likelihood_of_superiority", "place_text", "seat_tables",
]
