"""Typed game events, one frozen dataclass per kind of the protocol's `Event`.

A bot receives public events and the private ones addressed to its seat
(`CardsReceived`, `HandReplaced`, `HandRevealed`). Every event keeps the
protobuf message it was read from as ``raw`` (equal events share one). Match
on the class::

    match event:
        case CardPlayed(seat=seat, card=card):
            ...
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from arena.client.model import Card, Color
from arena.v1 import uno_pb2


class DrawReason(StrEnum):
    """Why a seat drew cards."""

    UNSPECIFIED = "unspecified"
    DEAL = "deal"
    CHOICE = "choice"
    DRAW_TWO = "draw_two"
    DRAW_FOUR = "draw_four"
    CHALLENGE_GUILTY = "challenge_guilty"
    CHALLENGE_FAILED = "challenge_failed"
    UNO_PENALTY = "uno_penalty"
    STACK = "stack"


class HandEndReason(StrEnum):
    """How a hand ended."""

    UNSPECIFIED = "unspecified"
    WENT_OUT = "went_out"
    DEAD = "dead"
    TURN_LIMIT = "turn_limit"


@dataclass(frozen=True, slots=True)
class Event:
    """Base class of every event; `raw` is the protocol's Event message."""

    raw: uno_pb2.Event | None = field(default=None, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class UnknownEvent(Event):
    """An event this SDK cannot read: a kind it does not know, or one holding a card it
    does not know (both from a newer server); see `raw`."""

    kind: str


@dataclass(frozen=True, slots=True)
class DealerChosen(Event):
    """Each seat drew a card (several rounds when tied); the highest number deals."""

    rounds: tuple[tuple[tuple[int, Card], ...], ...]
    dealer: int


@dataclass(frozen=True, slots=True)
class HandStarted(Event):
    """A new hand was dealt."""

    hand_number: int
    dealer: int
    hand_sizes: tuple[int, ...]
    active_seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CardsReceived(Event):
    """Private: the cards your seat took into its hand (deal or draw)."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class HandReplaced(Event):
    """Private: your whole hand after hands moved (Seven-O, Shuffle or Swap Hands)."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class StarterReturned(Event):
    """A Wild Draw Four turned up first went back into the deck."""

    card: Card


@dataclass(frozen=True, slots=True)
class FirstCard(Event):
    """The first card of the discard pile was turned up."""

    card: Card
    first_seat: int
    direction: int


@dataclass(frozen=True, slots=True)
class CardPlayed(Event):
    """A seat played a card; `color` is the colour now active (declared, for a wild)."""

    seat: int
    card: Card
    color: Color | None
    uno: bool
    jump_in: bool = False
    target: int | None = None


@dataclass(frozen=True, slots=True)
class ColorChosen(Event):
    """A seat declared the colour of a wild turned up first."""

    seat: int
    color: Color | None


@dataclass(frozen=True, slots=True)
class CardsDrawn(Event):
    """A seat drew `count` cards (fewer than asked when the piles ran dry)."""

    seat: int
    count: int
    reason: DrawReason


@dataclass(frozen=True, slots=True)
class CardKept(Event):
    """A seat kept the card it drew and ended its turn."""

    seat: int


@dataclass(frozen=True, slots=True)
class TurnSkipped(Event):
    """A seat lost its turn."""

    seat: int


@dataclass(frozen=True, slots=True)
class DirectionChanged(Event):
    """Play reversed; `direction` is +1 (increasing seats) or -1."""

    direction: int


@dataclass(frozen=True, slots=True)
class ChallengeResolved(Event):
    """A Wild Draw Four was challenged; `guilty` says whether the accused had the old colour."""

    challenger: int
    accused: int
    guilty: bool


@dataclass(frozen=True, slots=True)
class HandRevealed(Event):
    """Private to the challenger: the accused's hand as the challenge showed it."""

    seat: int
    to_seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class ChallengeDeclined(Event):
    """The seat hit by a Wild Draw Four accepted the draw."""

    seat: int


@dataclass(frozen=True, slots=True)
class UnoCalled(Event):
    """A seat called UNO late, inside the catch window."""

    seat: int


@dataclass(frozen=True, slots=True)
class UnoCaught(Event):
    """`catcher` caught `seat`, who had not called UNO."""

    catcher: int
    seat: int


@dataclass(frozen=True, slots=True)
class HandsSwapped(Event):
    """Two seats swapped hands (Seven-O 7, Swap Hands)."""

    seat: int
    other: int


@dataclass(frozen=True, slots=True)
class HandsRotated(Event):
    """Every hand passed to the next seat in `direction` (Seven-O 0)."""

    direction: int


@dataclass(frozen=True, slots=True)
class HandsShuffled(Event):
    """All hands were collected, shuffled and dealt again by `seat` (Shuffle Hands)."""

    seat: int
    hand_sizes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DeckReshuffled(Event):
    """The discard pile, all but its top card, became the new draw pile of `cards` cards."""

    cards: int


@dataclass(frozen=True, slots=True)
class HandEnded(Event):
    """A hand is over; `points[seat]` is what it scored for that seat."""

    hand_number: int
    winner: int | None
    reason: HandEndReason
    points: tuple[int, ...]
    totals: tuple[int, ...]
    cards_left: tuple[tuple[Card, ...], ...]


@dataclass(frozen=True, slots=True)
class PlayerEliminated(Event):
    """Challenge UNO: a seat reached the target and is out of the game."""

    seat: int


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    """The game is over."""

    winners: tuple[int, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    termination: str
