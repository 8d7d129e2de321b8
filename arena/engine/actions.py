"""Decisions: the phase a game waits in, and the actions a seat may take."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from arena.engine.cards import Card, Color


class Phase(StrEnum):
    """What kind of decision the game is waiting for."""

    PLAY = "play"
    """Play a matching card or draw one."""
    PLAY_DRAWN = "play_drawn"
    """Play the card just drawn, or keep it."""
    CHOOSE_COLOR = "choose_color"
    """Declare the colour of a wild turned up as the first card."""
    CHALLENGE = "challenge"
    """Challenge the Wild Draw Four just played, or accept the draw (or stack, if progressive)."""
    STACK = "stack"
    """Progressive only: answer a Draw Two with a Draw Two, or draw the total."""
    CATCH_WINDOW = "catch_window"
    """A player left with one card did not call UNO: late call, catch, or pass."""
    JUMP_IN = "jump_in"
    """Jump-In only: play a card identical to the top card out of turn, or pass."""
    GAME_OVER = "game_over"
    """No decision is due."""


class ActionKind(StrEnum):
    """The verbs of the game."""

    PLAY = "play"
    DRAW = "draw"
    KEEP = "keep"
    CHOOSE_COLOR = "choose_color"
    CHALLENGE = "challenge"
    ACCEPT = "accept"
    CALL_UNO = "call_uno"
    CATCH = "catch"
    PASS = "pass"


@dataclass(frozen=True, slots=True)
class Action:
    """One decision. Unused fields stay None / False.

    - PLAY: `card`; `color` when the card is wild; `target` for a Seven-O 7 or a
      swap-hands wild; `uno` to call UNO with a play that leaves one card.
      In the JUMP_IN phase a PLAY is the jump-in.
    - CHOOSE_COLOR: `color`.
    - CATCH: `target` is the seat caught.
    """

    kind: ActionKind
    card: Card | None = None
    color: Color | None = None
    target: int | None = None
    uno: bool = False

    def __str__(self) -> str:
        parts = [self.kind.value]
        if self.card is not None:
            parts.append(self.card.short())
        if self.color is not None:
            parts.append(f"as {self.color.value}")
        if self.target is not None:
            parts.append(f"-> seat {self.target}")
        if self.uno:
            parts.append("UNO!")
        return " ".join(parts)


DRAW = Action(ActionKind.DRAW)
KEEP = Action(ActionKind.KEEP)
CHALLENGE = Action(ActionKind.CHALLENGE)
ACCEPT = Action(ActionKind.ACCEPT)
CALL_UNO = Action(ActionKind.CALL_UNO)
PASS = Action(ActionKind.PASS)


def play(card: Card, color: Color | None = None, *, target: int | None = None,
         uno: bool = False) -> Action:
    """Shorthand for a PLAY action."""
    return Action(ActionKind.PLAY, card=card, color=color, target=target, uno=uno)


def choose_color(color: Color) -> Action:
    """Shorthand for a CHOOSE_COLOR action."""
    return Action(ActionKind.CHOOSE_COLOR, color=color)


def catch(seat: int) -> Action:
    """Shorthand for catching `seat` who did not call UNO."""
    return Action(ActionKind.CATCH, target=seat)


class IllegalActionError(ValueError):
    """The action is not one of the legal actions of the decision that is due."""
