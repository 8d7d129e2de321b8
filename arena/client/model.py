"""The SDK's own small, typed picture of a game: cards, actions, rules, outcomes.

Everything here is a frozen dataclass or a string enum, built from the protobuf
messages by `arena.client.convert`; the message it came from stays reachable as
``raw`` (which never takes part in equality). Nothing here imports the engine:
a bot sees only what the wire carries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

# The enums are generated from uno.proto (arena.protogen) and belong to this module's API.
from arena.client._generated_enums import ActionKind as ActionKind
from arena.client._generated_enums import Color as Color
from arena.client._generated_enums import Phase as Phase
from arena.client._generated_enums import Rank as Rank
from arena.v1 import uno_pb2

COLORS: tuple[Color, ...] = tuple(Color)
"""The four colours in their protocol order."""

WILD_RANKS: frozenset[Rank] = frozenset(rank for rank in Rank if rank.name.startswith("WILD"))
"""The ranks that carry no colour."""

_NUMBERS: dict[Rank, int] = {rank: int(rank.value) for rank in Rank if rank.value.isdigit()}
_ACTIONS = frozenset({Rank.SKIP, Rank.REVERSE, Rank.DRAW_TWO, Rank.WILD_DRAW_FOUR})
_POINTS: dict[Rank, int] = {
    **_NUMBERS,
    Rank.SKIP: 20,
    Rank.REVERSE: 20,
    Rank.DRAW_TWO: 20,
    Rank.WILD: 50,
    Rank.WILD_DRAW_FOUR: 50,
    Rank.WILD_SHUFFLE_HANDS: 40,
    Rank.WILD_CUSTOMIZABLE: 40,
}
_SHORT_RANK: dict[Rank, str] = {
    **{rank: rank.value for rank in _NUMBERS},
    Rank.SKIP: "S",
    Rank.REVERSE: "R",
    Rank.DRAW_TWO: "+2",
    Rank.WILD: "W",
    Rank.WILD_DRAW_FOUR: "W+4",
    Rank.WILD_SHUFFLE_HANDS: "WSH",
    Rank.WILD_CUSTOMIZABLE: "WC",
}
_RANK_BY_SHORT = {text: rank for rank, text in _SHORT_RANK.items()}
_COLOR_BY_LETTER = {color.letter: color for color in COLORS}


@dataclass(frozen=True, slots=True)
class Card:
    """One card: a rank and, unless the rank is wild, a colour."""

    rank: Rank
    color: Color | None = None

    def __post_init__(self) -> None:
        if (self.rank in WILD_RANKS) != (self.color is None):
            raise ValueError(f"a {self.rank.value} card with colour {self.color} is not a card")

    @property
    def is_wild(self) -> bool:
        """True for Wild, Wild Draw Four, Shuffle Hands and Customizable."""
        return self.color is None

    @property
    def is_number(self) -> bool:
        """True for the number cards 0–9."""
        return self.rank in _NUMBERS

    @property
    def is_action(self) -> bool:
        """True for Skip, Reverse, Draw Two and Wild Draw Four."""
        return self.rank in _ACTIONS

    @property
    def number(self) -> int | None:
        """The printed number, or None for action and wild cards."""
        return _NUMBERS.get(self.rank)

    @property
    def points(self) -> int:
        """What the card scores when left in a hand."""
        return _POINTS[self.rank]

    def short(self) -> str:
        """Compact notation: R5, Y+2, GS, BR, W, W+4, WSH, WC."""
        text = _SHORT_RANK[self.rank]
        return text if self.color is None else self.color.letter + text

    def __str__(self) -> str:
        return self.short()

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read a card from its compact notation, the inverse of `short` ("R5", "W+4")."""
        text = text.strip().upper()
        rank = _RANK_BY_SHORT.get(text)
        if rank is not None and rank in WILD_RANKS:
            return cls(rank)
        color = _COLOR_BY_LETTER.get(text[:1])
        rank = _RANK_BY_SHORT.get(text[1:])
        if color is None or rank is None or rank in WILD_RANKS:
            raise ValueError(f"not a card: {text!r} (try R5, Y+2, GS, BR, W, W+4)")
        return cls(rank, color)


def cards(text: str) -> tuple[Card, ...]:
    """Parse space-separated cards: ``cards("R5 Y+2 W")``."""
    return tuple(Card.parse(part) for part in text.split())


PASSIVE_KINDS: tuple[ActionKind, ...] = (
    ActionKind.DRAW, ActionKind.KEEP, ActionKind.ACCEPT, ActionKind.PASS,
)
"""The kinds the server itself falls back to; the SDK uses them the same way."""


@dataclass(frozen=True, slots=True)
class Action:
    """One decision. PLAY has `card` (plus `color` for a wild, `target` for a
    Seven-O 7 or a swap-hands wild, `uno` to call UNO with a play that leaves one
    card); CHOOSE_COLOR has `color`; CATCH has `target`, the seat caught."""

    kind: ActionKind
    card: Card | None = None
    color: Color | None = None
    target: int | None = None
    uno: bool = False
    raw: uno_pb2.Action | None = field(default=None, compare=False, repr=False)

    @property
    def is_play(self) -> bool:
        """True for a PLAY action."""
        return self.kind is ActionKind.PLAY

    @property
    def points(self) -> int:
        """The points of the card this action plays (0 when it plays none)."""
        return self.card.points if self.card is not None else 0

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


@dataclass(frozen=True, slots=True)
class Player:
    """A seat at a table and the name of the bot sitting there."""

    seat: int
    name: str


@dataclass(frozen=True, slots=True)
class Rules:
    """The rule set of a game (the protocol's RuleSet; see RULES.md for each option)."""

    deck: str = "classic"
    shuffle_hands_card: str = "shuffle"
    customizable_effect: str = "swap_hands"
    hand_size: int = 7
    uno_penalty: int = 2
    challenge_extra_penalty: int = 2
    wild_draw_four_rule: str = "no_active_color"
    reverse_first_card: str = "dealer"
    going_out_draw_four_challengeable: bool = False
    scoring: str = "standard"
    target_score: int | None = 500
    individual_hands: int = 12
    max_turns_per_hand: int = 1000
    max_hands: int = 200
    choose_first_dealer: bool = True
    progressive: bool = False
    seven_o: bool = False
    jump_in: bool = False
    draw_to_match: bool = False
    force_play: bool = False
    last_card_no_action: bool = False
    draw_four_bluffing: bool = True
    raw: uno_pb2.RuleSet | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: scores, ranks (0 is first; ties share), winners, and why."""

    termination: str
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    winners: tuple[int, ...]
    hands_played: int
    seat_terminations: tuple[str, ...]
    reason: str = ""
    raw: uno_pb2.Outcome | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class ServerError:
    """An in-band error from the server (it never ends the stream)."""

    code: str
    message: str
    request_id: str = ""
    game_id: str = ""


def first_of(legal: Sequence[Action], *kinds: ActionKind) -> Action | None:
    """The first legal action of the first kind in `kinds` that has one, else None.

    A play comes with its UNO call when it leaves one card (see `plays`).
    """
    for kind in kinds:
        for action in legal:
            if action.kind is kind:
                return _calling_uno(action, legal)
    return None


def plays(legal: Sequence[Action]) -> list[Action]:
    """The legal plays in their order, each card, colour and target once, calling UNO
    whenever it can.

    A play that leaves one card in hand is listed twice by the server, with and
    without ``uno``; the one without it is left out here, since a play that
    leaves one card without calling UNO may be caught (the penalty is
    ``rules.uno_penalty`` cards) and calling it costs nothing.
    """
    calling = {_silent(action) for action in legal if action.is_play and action.uno}
    return [action for action in legal
            if action.is_play and (action.uno or action not in calling)]


def call_or_catch(legal: Sequence[Action]) -> Action | None:
    """In a catch window, the action that is always right: your late UNO call when you
    are the one who did not call it, else catching the one who did not; None otherwise."""
    return first_of(legal, ActionKind.CALL_UNO, ActionKind.CATCH)


def _silent(action: Action) -> Action:
    return Action(action.kind, action.card, action.color, action.target, False)


def _calling_uno(action: Action, legal: Sequence[Action]) -> Action:
    """`action` itself, or its twin that calls UNO when `legal` lists one."""
    if not action.is_play or action.uno:
        return action
    for other in legal:
        if other.uno and other.is_play and _silent(other) == action:
            return other
    return action


def passive(legal: Sequence[Action]) -> Action:
    """The action the server itself would fall back to (draw, keep, accept or pass)."""
    return legal[passive_index(legal)]


def passive_index(legal: Sequence[Action]) -> int:
    """The index of the action the server would fall back to (draw, keep, accept or pass)."""
    for kind in PASSIVE_KINDS:
        for index, action in enumerate(legal):
            if action.kind is kind:
                return index
    return 0
