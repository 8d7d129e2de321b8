"""Shared helpers for the engine tests: stacked deals in a line, and short card names."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from arena.engine import (
    OFFICIAL,
    Card,
    Color,
    Game,
    RuleSet,
    cards,
    events,
)

RED, YELLOW, GREEN, BLUE = Color.RED, Color.YELLOW, Color.GREEN, Color.BLUE

FILL = "Y1 Y2 Y3"
"""A filler hand for seats that only need cards: it matches no red, green or blue card."""

SEAT1, SEAT2 = "Y1 YS W", "B9 W+4 G+2"
"""Hands for seats 1 and 2, worth 1 + 20 + 50 = 71 and 9 + 50 + 20 = 79 points when
the hand is scored."""

E = TypeVar("E", bound=events.Event)


def card(text: str) -> Card:
    """One card from its short notation: ``card("R5")``."""
    return Card.parse(text)


def rules(**changes: Any) -> RuleSet:
    """The official rules with some settings changed."""
    return OFFICIAL.with_changes(**changes)


def table(*hands: str, starter: str, draw: str = "", dealer: int | None = None,
          rule_set: RuleSet = OFFICIAL, seed: int = 0) -> Game:
    """A stacked game: one string of cards per seat, the first face-up card, the
    draw pile (top card first). The dealer defaults to the last seat, so that
    seat 0 (left of the dealer) plays first after a number card."""
    return Game.stacked(
        rule_set,
        hands=[cards(h) for h in hands],
        starter=card(starter),
        draw_pile=cards(draw),
        dealer=len(hands) - 1 if dealer is None else dealer,
        seed=seed,
    )


def hand(game: Game, seat: int) -> str:
    """A seat's hand in short notation, in hand order."""
    return " ".join(c.short() for c in game.hands[seat])


def of_type(evs: Iterable[events.Event], kind: type[E]) -> list[E]:
    """The events of one type, in order."""
    return [e for e in evs if isinstance(e, kind)]


def snapshot(game: Game) -> tuple[object, ...]:
    """Everything an illegal action must leave unchanged: every card's place, the
    logs, whose decision is due, and the deciding seat's view."""
    return (
        tuple(tuple(h) for h in game.hands),
        tuple(game.draw_pile),
        tuple(game.discard_pile),
        len(game.events),
        len(game.actions),
        game.phase,
        game.decider,
        game.active_color,
        game.direction,
        game.totals[:],
        game.outcome,
        None if game.decider is None else game.view(game.decider),
        tuple(game.legal_actions()),
    )
