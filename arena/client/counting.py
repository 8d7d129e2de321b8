"""Card-counting helpers: what the deck holds, what you have not seen, the odds of a hand,
and how often the Wild Draw Four challenges seen so far were right.

These use only what a seat may know (the rule set's deck, your hand, the discard
pile), so a bot can reason about the cards it cannot see::

    pool = unseen(view)
    p = chance_of_any(sum(n for c, n in pool.items() if c.color is Color.RED),
                      sum(pool.values()), view.hand_sizes[view.next_seat])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from math import comb

from arena.client.events import ChallengeResolved, Event
from arena.client.model import COLORS, Card, Rank, Rules
from arena.client.view import View

_NUMBER_RANKS = [rank for rank in Rank if rank.value.isdigit()]
_TWICE = [*_NUMBER_RANKS[1:], Rank.SKIP, Rank.REVERSE, Rank.DRAW_TWO]


def deck(rules: Rules | None = None) -> Counter[Card]:
    """Every card of the deck the rules name: 108 classic cards, or 112 with deck "2018"."""
    counts: Counter[Card] = Counter()
    for color in COLORS:
        counts[Card(Rank.ZERO, color)] = 1
        for rank in _TWICE:
            counts[Card(rank, color)] = 2
    counts[Card(Rank.WILD)] = 4
    counts[Card(Rank.WILD_DRAW_FOUR)] = 4
    if rules is not None and rules.deck == "2018":
        counts[Card(Rank.WILD_SHUFFLE_HANDS)] = 1
        counts[Card(Rank.WILD_CUSTOMIZABLE)] = 3
    return counts


def unseen(view: View, known_elsewhere: Iterable[Card] = ()) -> Counter[Card]:
    """The cards you cannot see: the deck less your hand, the discard pile and `known_elsewhere`.

    They are in the other hands or in the draw pile. Pass cards you know to be in
    someone's hand (e.g. revealed by a challenge) as `known_elsewhere`.
    """
    pool = deck(view.table.rules)
    pool.subtract(view.hand)
    pool.subtract(view.discard_pile)
    pool.subtract(known_elsewhere)
    return +pool  # drop counts that fell to zero or below


def chance_of_none(matching: int, pool: int, drawn: int) -> float:
    """Probability that `drawn` cards taken at random from `pool` include none of `matching`."""
    if drawn <= 0 or matching <= 0:
        return 1.0
    if drawn >= pool:
        return 0.0
    return comb(pool - min(matching, pool), drawn) / comb(pool, drawn)


def chance_of_any(matching: int, pool: int, drawn: int) -> float:
    """Probability that `drawn` random cards from `pool` include at least one of `matching`."""
    return 1.0 - chance_of_none(matching, pool, drawn)


@dataclass
class ChallengeRecord:
    """How the Wild Draw Four challenges a bot has seen went (feed it every table's events)."""

    challenges: int = 0
    guilty: int = 0

    def see(self, events: Iterable[Event]) -> None:
        """Count the challenges among `events`."""
        for event in events:
            if isinstance(event, ChallengeResolved):
                self.challenges += 1
                self.guilty += event.guilty

    @property
    def guilty_rate(self) -> float:
        """The share of challenges that found the accused guilty, starting from 1 in 2."""
        return (self.guilty + 1) / (self.challenges + 2)
