"""A synthetic tournament with known expected scores, for checking the statistics.

A Thurstone model with deal luck: in a game, each bot's performance is its
strength, plus the luck of the seat it holds in this deal, plus its own noise,
all normal; the higher performance places higher. Seat luck belongs to the
deal, so the rotations of one deal (duplicate deals) share it and their results
are correlated exactly as duplicate UNO deals are: the bot that gets the good
hand in one rotation gets a worse one in the next.

Because performances are normal, the chance that bot i places above bot j is
Φ((θ_i − θ_j) / √(2·luck² + 2·noise²)) whatever the seat, so every bot's
expected score is known exactly (`expected_scores`).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping, Sequence

from arena.stats.distributions import normal_cdf
from arena.stats.games import RankedGame


def expected_scores(strengths: Mapping[str, float], luck: float,
                    noise: float) -> dict[str, float]:
    """Every bot's exact expected score when all of `strengths` sit at each table."""
    spread = math.sqrt(2.0 * luck * luck + 2.0 * noise * noise)
    return {bot: sum(normal_cdf((theta - other) / spread)
                     for rival, other in strengths.items() if rival != bot)
            / (len(strengths) - 1)
            for bot, theta in strengths.items()}


def tournament(strengths: Mapping[str, float], deals: int, rng: random.Random,
               duplicate: bool = True, luck: float = 1.0,
               noise: float = 1.0) -> list[RankedGame]:
    """`deals` deals at one table of all `strengths`' bots, each in every seat rotation.

    With `duplicate` the rotations of a deal share its seat luck and form one
    block; without, every game has its own deal and is its own block.
    """
    bots = list(strengths)
    games = []
    for deal in range(deals):
        seat_luck = [rng.gauss(0.0, luck) for _ in bots]
        for turn in range(len(bots)):
            if not duplicate:
                seat_luck = [rng.gauss(0.0, luck) for _ in bots]
            seats = tuple(bots[turn:] + bots[:turn])
            performance = [strengths[bot] + seat_luck[seat] + rng.gauss(0.0, noise)
                           for seat, bot in enumerate(seats)]
            block = deal if duplicate else (deal, turn)
            games.append(RankedGame(block, seats, ranks_of(performance)))
    return games


def round_robin(strengths: Mapping[str, float], deals: int, rng: random.Random,
                luck: float = 1.0, noise: float = 1.0) -> list[RankedGame]:
    """A heads-up round robin: every pair of `strengths`' bots plays `deals` duplicate deals,
    each in both seatings (one block). Every bot meets every other equally often, so its
    expected score is `expected_scores` of the whole field."""
    bots = list(strengths)
    games = []
    for first, second in itertools.combinations(bots, 2):
        for deal in range(deals):
            seat_luck = [rng.gauss(0.0, luck) for _ in range(2)]
            for seats in ((first, second), (second, first)):
                performance = [strengths[bot] + seat_luck[seat] + rng.gauss(0.0, noise)
                               for seat, bot in enumerate(seats)]
                games.append(RankedGame((first, second, deal), seats, ranks_of(performance)))
    return games


def ranks_of(performance: Sequence[float]) -> tuple[int, ...]:
    """Competition ranks (0 best, ties share) where higher performance is better."""
    return tuple(sum(1 for other in performance if other > mine) for mine in performance)
