"""A tie-break rule for prizes: an order inside the places the games leave shared.

The leaderboard lets bots share a place when the games cannot tell them apart
(`arena.stats.leaderboard`); that is what the evidence says, and it stays so.
A prize committee may still need one winner. This module orders the bots of
each shared place by a fixed rule, announced before the games:

1. the mean score in the games among the bots sharing the place (a mini-league:
   head to head when two share it);
2. the mean score over all the pool's games;
3. TrueSkill's conservative rating, μ − 3σ;
4. the name, alphabetically.

The order it gives is a rule, not evidence: it never says one bot is better,
only who takes the prize when the games could not decide.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

TIEBREAK_RULE = ("a tie-break rule, not evidence: within each shared place, 1. the mean score in "
                 "the games among the bots sharing it, 2. the mean score over all games, "
                 "3. TrueSkill's μ − 3σ, 4. the name")
"""The rule in one line, as a board prints it."""


@dataclass(frozen=True, slots=True)
class Contender:
    """A bot on a leaderboard, as the rule reads it: its shared place (`tier`), its mean
    score and its conservative TrueSkill rating."""

    bot: str
    tier: int
    score: float
    conservative: float


HeadToHead = Mapping[tuple[str, str], tuple[float, int]]
"""For an ordered pair (bot, opponent): the bot's summed score against it and their games."""


def prize_order(contenders: Sequence[Contender], head_to_head: HeadToHead) -> list[str]:
    """Every bot, best first: tiers in order, and inside each the rule's order."""
    tiers: dict[int, list[Contender]] = {}
    for contender in contenders:
        tiers.setdefault(contender.tier, []).append(contender)
    order: list[str] = []
    for tier in sorted(tiers):
        group = tiers[tier]
        names = {c.bot for c in group}
        order.extend(c.bot for c in sorted(group, key=lambda c: (
            -_mini_league(c.bot, names, head_to_head), -_number(c.score), -c.conservative,
            c.bot)))
    return order


def _mini_league(bot: str, group: set[str], head_to_head: HeadToHead) -> float:
    """`bot`'s mean score in its games against the others of `group` (0.5 without any)."""
    total = games = 0.0
    for other in group - {bot}:
        score, count = head_to_head.get((bot, other), (0.0, 0))
        total += score
        games += count
    return total / games if games else 0.5


def _number(value: float) -> float:
    return value if value == value else 0.0  # a bot without a scored game counts 0
