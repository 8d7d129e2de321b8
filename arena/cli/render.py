"""Human-readable text for cards and events, with terminal colours.

Used by the CLI to print games hand by hand (`arena demo`, `arena replay`,
`arena watch`). Colour is a choice of the caller: pass ``color=False`` under
NO_COLOR or when the output is not a terminal.
"""

from __future__ import annotations

from collections.abc import Sequence

import click

from arena import narration
from arena.engine import Card, Color
from arena.engine import events as ev

_FG: dict[Color | None, str] = {
    Color.RED: "red",
    Color.YELLOW: "yellow",
    Color.GREEN: "green",
    Color.BLUE: "blue",
    None: "magenta",
}


def card_text(card: Card, color: bool = True) -> str:
    """A card in short notation (R5, W+4), coloured like the card when `color`."""
    text = card.short()
    return click.style(text, fg=_FG[card.color], bold=True) if color else text


def cards_text(cards: Sequence[Card], color: bool = True) -> str:
    """Several cards, space separated."""
    return " ".join(card_text(card, color) for card in cards)


def color_text(value: Color, color: bool = True) -> str:
    """A colour's name, in that colour when `color`."""
    return click.style(value.value, fg=_FG[value], bold=True) if color else value.value


def describe(event: ev.Event, names: Sequence[str], color: bool = True) -> str | None:
    """One line for a public event, or None for events not worth a line of their own.

    The words are `arena.narration.describe`'s, with cards and colours coloured when
    `color`, a ruled heading for each hand, and the running totals at a hand's end.
    """
    return narration.describe(
        event, names, card=lambda card: card_text(card, color),
        colour=lambda value: color_text(value, color),
        hand_heading="── hand {number} ── {dealer} deals", card_kept="keeps it", totals=True)
