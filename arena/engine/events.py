"""Events: frozen records of everything that happens, each saying who may see it.

`audience` is None for a public event and the set of seats otherwise, so the wire
layer can hide private events without knowing any rule. Private facts (which
cards a seat drew) travel in private events; the matching public event carries
only what everyone may know (how many).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from arena.engine.cards import Card, Color


class DrawReason(StrEnum):
    """Why a seat drew cards."""

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

    WENT_OUT = "went_out"
    DEAD = "dead"
    TURN_LIMIT = "turn_limit"


@dataclass(frozen=True, slots=True)
class Event:
    """Base class of every event."""

    @property
    def audience(self) -> frozenset[int] | None:
        """The seats that may see this event; None means everyone."""
        return None


@dataclass(frozen=True, slots=True)
class DealerChosen(Event):
    """Each seat drew a card (several rounds when tied); the highest deals."""

    draws: tuple[tuple[tuple[int, Card], ...], ...]
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
    """Private: the cards a seat took into its hand (deal or draw)."""

    seat: int
    cards: tuple[Card, ...]

    @property
    def audience(self) -> frozenset[int] | None:
        return frozenset((self.seat,))


@dataclass(frozen=True, slots=True)
class HandReplaced(Event):
    """Private: a seat's whole hand after hands moved (Seven-O, Shuffle/Swap Hands)."""

    seat: int
    cards: tuple[Card, ...]

    @property
    def audience(self) -> frozenset[int] | None:
        return frozenset((self.seat,))


@dataclass(frozen=True, slots=True)
class StarterReturned(Event):
    """A Wild Draw Four turned up first went back into the deck."""

    card: Card


@dataclass(frozen=True, slots=True)
class FirstCard(Event):
    """The first card of the discard pile was turned up; `first_seat` plays the first turn
    (after declaring the colour, when the card is a wild)."""

    card: Card
    first_seat: int
    direction: int


@dataclass(frozen=True, slots=True)
class CardPlayed(Event):
    """A seat played a card (declaring `color` for a wild)."""

    seat: int
    card: Card
    color: Color
    uno: bool
    jump_in: bool = False
    target: int | None = None


@dataclass(frozen=True, slots=True)
class ColorChosen(Event):
    """A seat declared the colour of a wild turned up first."""

    seat: int
    color: Color


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
    """Play reversed; `direction` is +1 (clockwise) or -1."""

    direction: int


@dataclass(frozen=True, slots=True)
class ChallengeResolved(Event):
    """A Wild Draw Four was challenged."""

    challenger: int
    accused: int
    guilty: bool


@dataclass(frozen=True, slots=True)
class HandRevealed(Event):
    """Private to the challenger: the accused's hand, as the challenge shows it."""

    seat: int
    to_seat: int
    cards: tuple[Card, ...]

    @property
    def audience(self) -> frozenset[int] | None:
        return frozenset((self.to_seat,))


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
    """The discard pile (all but its top card) became the new draw pile."""

    cards: int


@dataclass(frozen=True, slots=True)
class HandEnded(Event):
    """A hand is over. `points[seat]` is what the hand scored for that seat."""

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
    """The game is over; `winners` and `ranks` come from the outcome."""

    winners: tuple[int, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    termination: str
