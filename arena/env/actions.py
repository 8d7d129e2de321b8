"""The fixed action space: every action any seat may ever take, as one integer.

A learning agent needs the same number for the same decision whatever the seat,
the table size or the moment, so actions are numbered relative to the acting
seat (a target is "the seat N places after mine"), and the space covers every
rule set (both decks, Seven-O, Swap Hands, progressive stacking, jump-in):

| index | action |
|---|---|
| 0 – 1359 | PLAY: ``(slot * 10 + offset) * 2 + uno`` (below) |
| 1360 | DRAW |
| 1361 | KEEP (the card just drawn) |
| 1362 | CHALLENGE (a Wild Draw Four) |
| 1363 | ACCEPT (a Wild Draw Four, or a stack of Draw Twos) |
| 1364 | CALL_UNO (late, in a catch window) |
| 1365 | PASS (a catch or jump-in window) |
| 1366 – 1369 | CHOOSE_COLOR red, yellow, green, blue (a wild turned up first) |
| 1370 – 1378 | CATCH the seat 1 – 9 places after mine |

A PLAY's `slot` is the card for a coloured card (``colour * 13 + rank``, colours
red, yellow, green, blue; ranks 0–9, skip, reverse, draw two: slots 0–51) and the
card with its declared colour for a wild (``52 + wild * 4 + colour``, wilds wild,
wild draw four, shuffle hands, customizable: slots 52–67); `offset` is 0 for a
play without a target and 1–9 for one aimed at the seat that many places after
mine (Seven-O sevens, swap-hands wilds); `uno` is 1 for a play that calls UNO.
The same play in the jump-in phase is the jump-in.

Everything here is keyed by the enums' values, so it reads the engine's actions
and the SDK's alike (a bot computes the same numbers from its `legal` list as
the environment does), and it imports neither.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

COLOR_VALUES: tuple[str, ...] = ("red", "yellow", "green", "blue")
COLORED_RANK_VALUES: tuple[str, ...] = (*(str(n) for n in range(10)), "skip", "reverse",
                                        "draw_two")
WILD_RANK_VALUES: tuple[str, ...] = ("wild", "wild_draw_four", "wild_shuffle_hands",
                                     "wild_customizable")
MAX_SEATS = 10

FACE_COUNT = len(COLOR_VALUES) * len(COLORED_RANK_VALUES) + len(WILD_RANK_VALUES)
"""Distinct card faces: 52 coloured, 4 wild (56)."""
PLAY_SLOTS = len(COLOR_VALUES) * len(COLORED_RANK_VALUES) + len(WILD_RANK_VALUES) * 4
"""Ways a card leaves the hand, colour declared: 52 coloured cards, 16 wild-and-colour (68)."""
PLAY_COUNT = PLAY_SLOTS * MAX_SEATS * 2

DRAW = PLAY_COUNT
KEEP = DRAW + 1
CHALLENGE = DRAW + 2
ACCEPT = DRAW + 3
CALL_UNO = DRAW + 4
PASS = DRAW + 5
CHOOSE_COLOR = DRAW + 6
CATCH = CHOOSE_COLOR + len(COLOR_VALUES) - 1
"""CATCH + offset (1–9) catches the seat `offset` places after mine."""
ACTION_COUNT = CATCH + MAX_SEATS
"""The size of the action space (1379)."""

_SIMPLE = {"draw": DRAW, "keep": KEEP, "challenge": CHALLENGE, "accept": ACCEPT,
           "call_uno": CALL_UNO, "pass": PASS}

FACES: dict[tuple[str, str | None], int] = {
    **{(rank, color): c * len(COLORED_RANK_VALUES) + r
       for c, color in enumerate(COLOR_VALUES) for r, rank in enumerate(COLORED_RANK_VALUES)},
    **{(rank, None): 52 + w for w, rank in enumerate(WILD_RANK_VALUES)},
}
"""Card face index by (rank value, colour value or None); StrEnum members hash and compare
as their values, so a tuple of the engine's or the SDK's enums finds its entry too."""

_COLOR_INDEX: dict[str | None, int] = {color: i for i, color in enumerate(COLOR_VALUES)}


class CardLike(Protocol):
    """A card of the engine or of the SDK."""

    @property
    def rank(self) -> Any: ...
    @property
    def color(self) -> Any: ...


class ActionLike(Protocol):
    """An action of the engine or of the SDK."""

    @property
    def kind(self) -> Any: ...
    @property
    def card(self) -> CardLike | None: ...
    @property
    def color(self) -> Any: ...
    @property
    def target(self) -> int | None: ...
    @property
    def uno(self) -> bool: ...


FACE_OF: dict[object, int] = {}
"""Face index by card object, filled by `face_index` as cards are met (the engine's cards
are interned and the SDK's compare by value, so it stays small)."""


def face_index(card: CardLike) -> int:
    """The face index (0–55) of an engine or SDK card."""
    face = FACE_OF.get(card)
    if face is None:
        face = FACE_OF[card] = FACES[(card.rank, card.color)]
    return face


def _offset(target: int, seat: int, num_players: int) -> int:
    return (target - seat) % num_players


def action_index(action: ActionLike, seat: int, num_players: int) -> int:
    """The index of `action`, taken by `seat` at a table of `num_players`."""
    kind = action.kind
    if kind == "play":
        card = action.card
        assert card is not None
        face = face_index(card)
        slot = face if face < 52 else 52 + (face - 52) * 4 + _COLOR_INDEX[action.color]
        offset = 0 if action.target is None else _offset(action.target, seat, num_players)
        return (slot * MAX_SEATS + offset) * 2 + int(action.uno)
    simple = _SIMPLE.get(kind)
    if simple is not None:
        return simple
    if kind == "choose_color":
        return CHOOSE_COLOR + _COLOR_INDEX[action.color]
    if kind == "catch":
        assert action.target is not None
        return CATCH + _offset(action.target, seat, num_players)
    raise ValueError(f"no index for an action of kind {kind!r}")


def legal_indices(legal: Sequence[ActionLike], seat: int, num_players: int) -> list[int]:
    """The index of each action of `legal`, in order (distinct, as the actions are)."""
    return [action_index(action, seat, num_players) for action in legal]


def describe(index: int) -> str:
    """What action `index` stands for, in words ("play slot 12 -> +2 UNO", "draw")."""
    if not 0 <= index < ACTION_COUNT:
        raise ValueError(f"no action {index}: the space has {ACTION_COUNT}")
    if index < PLAY_COUNT:
        slot, uno = divmod(index, 2)
        slot, offset = divmod(slot, MAX_SEATS)
        if slot < 52:
            color, rank = divmod(slot, len(COLORED_RANK_VALUES))
            what = f"{COLOR_VALUES[color]} {COLORED_RANK_VALUES[rank]}"
        else:
            wild, color = divmod(slot - 52, 4)
            what = f"{WILD_RANK_VALUES[wild]} as {COLOR_VALUES[color]}"
        return (f"play {what}" + (f" -> +{offset}" if offset else "")
                + (" UNO" if uno else ""))
    for name, value in _SIMPLE.items():
        if value == index:
            return name
    if index < CATCH + 1:
        return f"choose_color {COLOR_VALUES[index - CHOOSE_COLOR]}"
    return f"catch +{index - CATCH}"
