"""Head-to-head results: how each pair of bots did in the games they played against each other.

For an ordered pair (bot, opponent) that met as opponents (teammates do not
count): the games they met in; the bot's wins (placed above), losses and draws
(tied) against the opponent; `score`, the bot's mean result against the
opponent (1, 0.5, 0 per game) with its block-clustered interval; `difference`,
the bot's mean table score minus the opponent's over those same games (who did
better against the whole table, paired deal by deal) with its interval; and the
likelihood of superiority. cutechess and fastchess print
LOS = Φ((wins − losses) / √(wins + losses)) over the decisive games; here it is
taken by deal block, as every other figure is: with `net_b` the bot's wins
minus losses against the opponent in block b, LOS = Φ(Σ net_b / √(Σ net_b²))
(0.5 when no block was decisive). Without duplicate deals every block is one
game and this is cutechess's formula; with them, a deal that both bots won once
counts as no evidence rather than as two decisive games.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

from arena.stats.distributions import normal_cdf
from arena.stats.estimate import block_totals, estimate_difference, estimate_mean
from arena.stats.games import RankedGame
from arena.stats.leaderboard import CONFIDENCE

INTERVAL_METHOD = ("block-clustered Student-t over deal blocks, two pseudo-blocks, "
                   "uncorrected (one pair at a time)")
"""How the crosstable's score and difference intervals are made, as a reader is told."""


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """What `bot` did against `opponent` in the `games` they met (see the module)."""

    bot: str
    opponent: str
    games: int
    wins: int
    losses: int
    draws: int
    score: float
    score_low: float
    score_high: float
    difference: float
    difference_low: float
    difference_high: float
    los: float


def likelihood_of_superiority(wins: int, losses: int) -> float:
    """Φ((wins − losses) / √(wins + losses)): how likely the first is the stronger, counting
    every game apart (cutechess's)."""
    if wins + losses == 0:
        return 0.5
    return normal_cdf((wins - losses) / math.sqrt(wins + losses))


def paired_likelihood_of_superiority(nets: Iterable[float]) -> float:
    """Φ(Σ net / √(Σ net²)) over the blocks' wins-minus-losses: LOS by deal block."""
    nets = list(nets)
    spread = math.sqrt(sum(net * net for net in nets))
    return 0.5 if spread == 0.0 else normal_cdf(sum(nets) / spread)


@dataclass
class _Meetings:
    results: list[tuple[Hashable, float]]
    own_scores: list[tuple[Hashable, float]]
    their_scores: list[tuple[Hashable, float]]


def crosstable(games: Iterable[RankedGame],
               confidence: float = CONFIDENCE) -> tuple[HeadToHead, ...]:
    """Every ordered pair of bots that met, sorted by bot then opponent."""
    meetings: dict[tuple[str, str], _Meetings] = defaultdict(lambda: _Meetings([], [], []))
    for game in games:
        for seat, bot in enumerate(game.seats):
            for other in game.opponents(seat):
                met = meetings[bot, game.seats[other]]
                met.results.append((game.block, game.result(seat, other)))
                met.own_scores.append((game.block, _score(game, seat)))
                met.their_scores.append((game.block, _score(game, other)))
    return tuple(_head_to_head(bot, opponent, meetings[bot, opponent], confidence)
                 for bot, opponent in sorted(meetings))


def _score(game: RankedGame, seat: int) -> float:
    score = game.score(seat)
    assert score is not None, "a seat with an opponent has a score"
    return score


def _head_to_head(bot: str, opponent: str, met: _Meetings, confidence: float) -> HeadToHead:
    results = [result for _, result in met.results]
    wins, losses = results.count(1.0), results.count(0.0)
    score = estimate_mean(block_totals(met.results))
    score_low, score_high = score.interval(confidence, 0.0, 1.0)
    difference = estimate_difference(block_totals(met.own_scores),
                                     block_totals(met.their_scores))
    difference_low, difference_high = difference.interval(confidence, -1.0, 1.0)
    return HeadToHead(
        bot=bot, opponent=opponent, games=len(results), wins=wins, losses=losses,
        draws=len(results) - wins - losses, score=score.value, score_low=score_low,
        score_high=score_high, difference=difference.value, difference_low=difference_low,
        difference_high=difference_high, los=paired_likelihood_of_superiority(
            _block_nets(met.results)))


def _block_nets(results: Iterable[tuple[Hashable, float]]) -> list[float]:
    """Per block, the wins minus the losses (a result of 1, 0.5 or 0 counts 1, 0 or −1)."""
    nets: dict[Hashable, float] = defaultdict(float)
    for block, result in results:
        nets[block] += 2.0 * result - 1.0
    return list(nets.values())
