"""Cards, colours and decks (RULES.md section 1)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Color(StrEnum):
    """One of the four card colours."""

    RED = "red"
    YELLOW = "yellow"
    GREEN = "green"
    BLUE = "blue"


COLORS: tuple[Color, ...] = (Color.RED, Color.YELLOW, Color.GREEN, Color.BLUE)


class Rank(StrEnum):
    """What is printed on a card: a number, an action symbol or a wild."""

    ZERO = "0"
    ONE = "1"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    SKIP = "skip"
    REVERSE = "reverse"
    DRAW_TWO = "draw_two"
    WILD = "wild"
    WILD_DRAW_FOUR = "wild_draw_four"
    WILD_SHUFFLE_HANDS = "wild_shuffle_hands"
    WILD_CUSTOMIZABLE = "wild_customizable"


NUMBER_RANKS: tuple[Rank, ...] = tuple(Rank(str(n)) for n in range(10))
ACTION_RANKS: tuple[Rank, ...] = (Rank.SKIP, Rank.REVERSE, Rank.DRAW_TWO)
WILD_RANKS: frozenset[Rank] = frozenset(
    {Rank.WILD, Rank.WILD_DRAW_FOUR, Rank.WILD_SHUFFLE_HANDS, Rank.WILD_CUSTOMIZABLE}
)

_POINTS: dict[Rank, int] = {
    **{rank: int(rank.value) for rank in NUMBER_RANKS},
    Rank.SKIP: 20,
    Rank.REVERSE: 20,
    Rank.DRAW_TWO: 20,
    Rank.WILD: 50,
    Rank.WILD_DRAW_FOUR: 50,
    Rank.WILD_SHUFFLE_HANDS: 40,
    Rank.WILD_CUSTOMIZABLE: 40,
}

_SHORT_RANK: dict[Rank, str] = {
    **{rank: rank.value for rank in NUMBER_RANKS},
    Rank.SKIP: "S",
    Rank.REVERSE: "R",
    Rank.DRAW_TWO: "+2",
    Rank.WILD: "W",
    Rank.WILD_DRAW_FOUR: "W+4",
    Rank.WILD_SHUFFLE_HANDS: "WSH",
    Rank.WILD_CUSTOMIZABLE: "WC",
}
_SHORT_COLOR: dict[Color, str] = {
    Color.RED: "R",
    Color.YELLOW: "Y",
    Color.GREEN: "G",
    Color.BLUE: "B",
}


_INTERNED: dict[tuple[Rank, Color | None], Card] = {}


class CardParseError(ValueError):
    """A card's short notation could not be read."""


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One card. Wild cards have no colour; every other card has one.

    Cards are interned: equal cards are the same object, so comparing and
    hashing them is as cheap as for any object.
    """

    rank: Rank
    color: Color | None = None

    def __new__(cls, rank: Rank, color: Color | None = None) -> Card:
        key = (rank, color)
        card = _INTERNED.get(key)
        if card is None:
            if (rank in WILD_RANKS) != (color is None):
                raise ValueError(f"{rank} card with colour {color} is not a card")
            card = object.__new__(cls)
            _INTERNED[key] = card
        return card

    def __reduce__(self) -> tuple[type[Card], tuple[Rank, Color | None]]:
        return (Card, (self.rank, self.color))

    def __repr__(self) -> str:
        return f"Card({self.short()})"

    @property
    def is_wild(self) -> bool:
        """True for Wild, Wild Draw Four, Shuffle Hands and Customizable."""
        return self.color is None

    @property
    def is_number(self) -> bool:
        """True for the number cards 0–9."""
        return self.rank in _NUMBER_SET

    @property
    def is_action(self) -> bool:
        """True for Skip, Reverse, Draw Two and Wild Draw Four (the 'last card' house rule)."""
        return self.rank in _ACTION_SET

    @property
    def points(self) -> int:
        """The card's value when scoring a hand."""
        return _POINTS[self.rank]

    @property
    def number(self) -> int | None:
        """The printed number, or None for action and wild cards."""
        return int(self.rank.value) if self.rank in _NUMBER_SET else None

    def short(self) -> str:
        """Compact notation: R5, Y+2, GS, BR, W, W+4, WSH, WC."""
        if self.color is None:
            return _SHORT_RANK[self.rank]
        return _SHORT_COLOR[self.color] + _SHORT_RANK[self.rank]

    def __str__(self) -> str:
        return self.short()

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read a card from its compact notation (the inverse of `short`)."""
        text = text.strip().upper()
        if text in _WILD_BY_SHORT:
            return cls(_WILD_BY_SHORT[text])
        color = _COLOR_BY_SHORT.get(text[:1])
        rank = _RANK_BY_SHORT.get(text[1:])
        if color is None or rank is None or rank in WILD_RANKS:
            raise CardParseError(f"not a card: {text!r} (try R5, Y+2, GS, BR, W, W+4)")
        return cls(rank, color)


_NUMBER_SET = frozenset(NUMBER_RANKS)
_ACTION_SET = frozenset({Rank.SKIP, Rank.REVERSE, Rank.DRAW_TWO, Rank.WILD_DRAW_FOUR})
_COLOR_BY_SHORT = {v: k for k, v in _SHORT_COLOR.items()}
_RANK_BY_SHORT = {v: k for k, v in _SHORT_RANK.items() if k not in WILD_RANKS}
_WILD_BY_SHORT = {v: k for k, v in _SHORT_RANK.items() if k in WILD_RANKS}


def cards(text: str) -> list[Card]:
    """Parse a space-separated list of cards: ``cards("R5 Y+2 W")``."""
    return [Card.parse(part) for part in text.split()]


def classic_deck() -> list[Card]:
    """The 108-card deck, in a fixed order."""
    return list(_CLASSIC_DECK)


def deck_2018() -> list[Card]:
    """The 112-card 2018 deck: the classic deck, one Shuffle Hands and three Customizable."""
    return list(_DECK_2018)


def _build_classic_deck() -> tuple[Card, ...]:
    deck: list[Card] = []
    for color in COLORS:
        deck.append(Card(Rank.ZERO, color))
        for rank in NUMBER_RANKS[1:] + ACTION_RANKS:
            deck.extend((Card(rank, color), Card(rank, color)))
    deck.extend(Card(Rank.WILD) for _ in range(4))
    deck.extend(Card(Rank.WILD_DRAW_FOUR) for _ in range(4))
    return tuple(deck)


_CLASSIC_DECK = _build_classic_deck()
_DECK_2018 = _CLASSIC_DECK + (Card(Rank.WILD_SHUFFLE_HANDS),) + (Card(Rank.WILD_CUSTOMIZABLE),) * 3
