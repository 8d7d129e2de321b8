"""The fixed-size encoding of one seat's view: a float32 vector of `OBS_SIZE` (366) values.

In the spirit of RLCard's planes (a card-by-card picture of hand and pile),
extended to what arena's rules add: phases, targets, catch windows, revealed
hands, partners, 2–10 seats. Seats are relative to the viewer (offset 0 is the
viewer, offset k the seat k places after it in seat order), so a policy learnt
in one seat plays any seat. Card faces are numbered as in `arena.env.actions`
(`FACES`: colour * 13 + rank for coloured cards, 52–55 for the four wilds).

| section | size | values |
|---|---|---|
| hand | 56 | copies of each face in my hand |
| top | 57 | one-hot: the face on top of the pile (the last: none) |
| active_color | 5 | one-hot: red, yellow, green, blue, none |
| phase | 7 | one-hot: play, play_drawn, choose_color, challenge, stack, catch_window, jump_in |
| drawn | 56 | one-hot: the card I just drew (play_drawn) |
| discard | 56 | copies of each face in the discard pile |
| revealed | 56 | copies of each face in hands a challenge showed me |
| hand_sizes | 10 | cards held by the seat at each offset, / 10 |
| active | 10 | 1 for each offset whose seat is still in the game |
| partner | 10 | 1 for each offset whose seat is on my team (partner scoring) |
| scores | 10 | each offset's game score so far, / 500 |
| uno_offender | 10 | one-hot: the offset that may be caught without UNO |
| turn | 10 | one-hot: the offset whose turn it is |
| direction | 1 | +1 or -1 |
| pending_draw | 1 | cards stacked for the next player, / 10 |
| draw_pile | 1 | cards in the draw pile, / 108 |
| players | 9 | one-hot: the table size, 2 to 10 |
| hand_number | 1 | the hand being played, / 100 |

`encode` reads the engine's `SeatView` and the SDK's `View` alike (the same
attribute names, enums compared by value): a bot computes from the `View` it is
given exactly the vector the environment computed from the engine during training.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from arena.env.actions import FACE_COUNT, MAX_SEATS, CardLike, face_index

PHASE_VALUES: tuple[str, ...] = ("play", "play_drawn", "choose_color", "challenge", "stack",
                                 "catch_window", "jump_in")
_PHASE_INDEX = {phase: i for i, phase in enumerate(PHASE_VALUES)}
_COLOR_INDEX = {"red": 0, "yellow": 1, "green": 2, "blue": 3}

SECTIONS: tuple[tuple[str, int], ...] = (
    ("hand", FACE_COUNT), ("top", FACE_COUNT + 1), ("active_color", 5),
    ("phase", len(PHASE_VALUES)), ("drawn", FACE_COUNT), ("discard", FACE_COUNT),
    ("revealed", FACE_COUNT), ("hand_sizes", MAX_SEATS), ("active", MAX_SEATS),
    ("partner", MAX_SEATS), ("scores", MAX_SEATS), ("uno_offender", MAX_SEATS),
    ("turn", MAX_SEATS), ("direction", 1), ("pending_draw", 1), ("draw_pile", 1),
    ("players", MAX_SEATS - 1), ("hand_number", 1),
)
"""Each section of the vector, in order, with its size."""


def _offsets() -> dict[str, int]:
    at, offsets = 0, {}
    for name, size in SECTIONS:
        offsets[name] = at
        at += size
    return offsets


OFFSETS: dict[str, int] = _offsets()
"""Where each section starts."""
OBS_SIZE = sum(size for _, size in SECTIONS)
"""The length of the vector (366)."""

_HAND, _TOP, _COLOR, _PHASE = OFFSETS["hand"], OFFSETS["top"], OFFSETS["active_color"], \
    OFFSETS["phase"]
_DRAWN, _DISCARD, _REVEALED = OFFSETS["drawn"], OFFSETS["discard"], OFFSETS["revealed"]
_SIZES, _ACTIVE, _PARTNER, _SCORES = (OFFSETS["hand_sizes"], OFFSETS["active"],
                                      OFFSETS["partner"], OFFSETS["scores"])
_OFFENDER, _TURN, _DIRECTION = OFFSETS["uno_offender"], OFFSETS["turn"], OFFSETS["direction"]
_PENDING, _PILE, _PLAYERS, _HAND_NUMBER = (OFFSETS["pending_draw"], OFFSETS["draw_pile"],
                                           OFFSETS["players"], OFFSETS["hand_number"])


class ViewLike(Protocol):
    """One seat's view: the engine's `SeatView` or the SDK's `View`."""

    @property
    def seat(self) -> int: ...
    @property
    def num_players(self) -> int: ...
    @property
    def phase(self) -> Any: ...
    @property
    def turn(self) -> int: ...
    @property
    def hand(self) -> Sequence[CardLike]: ...
    @property
    def hand_sizes(self) -> Sequence[int]: ...
    @property
    def top_card(self) -> CardLike | None: ...
    @property
    def active_color(self) -> Any: ...
    @property
    def direction(self) -> int: ...
    @property
    def hand_number(self) -> int: ...
    @property
    def draw_pile_size(self) -> int: ...
    @property
    def discard_pile(self) -> Sequence[CardLike]: ...
    @property
    def scores(self) -> Sequence[int]: ...
    @property
    def active_seats(self) -> Sequence[int]: ...
    @property
    def pending_draw(self) -> int: ...
    @property
    def drawn_card(self) -> CardLike | None: ...
    @property
    def uno_offender(self) -> int | None: ...
    @property
    def revealed(self) -> Sequence[tuple[int, Sequence[CardLike]]]: ...
    @property
    def teams(self) -> Sequence[int] | None: ...


def _counts(cards: Sequence[CardLike]) -> npt.NDArray[np.float32]:
    if not cards:
        return np.zeros(FACE_COUNT, np.float32)
    faces = [face_index(card) for card in cards]
    return np.bincount(faces, minlength=FACE_COUNT).astype(np.float32)


def encode(view: ViewLike) -> npt.NDArray[np.float32]:
    """The view as a float32 vector of `OBS_SIZE` values (see the module's table)."""
    out = np.zeros(OBS_SIZE, np.float32)
    seat, players = view.seat, view.num_players
    out[_HAND:_HAND + FACE_COUNT] = _counts(view.hand)
    top = view.top_card
    out[_TOP + (FACE_COUNT if top is None else face_index(top))] = 1.0
    color = _COLOR_INDEX.get(view.active_color, 4) if view.active_color is not None else 4
    out[_COLOR + color] = 1.0
    phase = _PHASE_INDEX.get(view.phase)
    if phase is not None:
        out[_PHASE + phase] = 1.0
    drawn = view.drawn_card
    if drawn is not None:
        out[_DRAWN + face_index(drawn)] = 1.0
    out[_DISCARD:_DISCARD + FACE_COUNT] = _counts(view.discard_pile)
    revealed = [card for _, cards in view.revealed for card in cards]
    if revealed:
        out[_REVEALED:_REVEALED + FACE_COUNT] = _counts(revealed)
    order = [(seat + k) % players for k in range(players)]
    sizes, scores = view.hand_sizes, view.scores
    out[_SIZES:_SIZES + players] = [sizes[s] / 10 for s in order]
    if scores:
        out[_SCORES:_SCORES + players] = [scores[s] / 500 for s in order]
    for s in view.active_seats:
        out[_ACTIVE + (s - seat) % players] = 1.0
    teams = view.teams
    if teams:
        mine = teams[seat]
        for k, s in enumerate(order):
            if teams[s] == mine:
                out[_PARTNER + k] = 1.0
    offender = view.uno_offender
    if offender is not None:
        out[_OFFENDER + (offender - seat) % players] = 1.0
    out[_TURN + (view.turn - seat) % players] = 1.0
    out[_DIRECTION] = 1.0 if view.direction >= 0 else -1.0
    out[_PENDING] = view.pending_draw / 10
    out[_PILE] = view.draw_pile_size / 108
    out[_PLAYERS + players - 2] = 1.0
    out[_HAND_NUMBER] = view.hand_number / 100
    return out
