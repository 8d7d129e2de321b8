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
`encode_seat` computes the same vector straight from a `Game` (what the environment
does at every step, without building the `SeatView`).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from arena.env.actions import FACE_COUNT, MAX_SEATS, CardLike, face_index

if TYPE_CHECKING:
    from arena.engine.game import Game

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


class _Placed(dict[object, int]):
    """Where each card counts in one card section: its face index plus the section's start."""

    def __init__(self, start: int) -> None:
        super().__init__()
        self.start = start

    def __missing__(self, card: object) -> int:
        place = self[card] = self.start + face_index(card)  # type: ignore[arg-type]
        return place


_AT_HAND, _AT_TOP, _AT_DRAWN, _AT_DISCARD, _AT_REVEALED = (
    _Placed(_HAND), _Placed(_TOP), _Placed(_DRAWN), _Placed(_DISCARD), _Placed(_REVEALED))


class _PileCounts:
    """The face counts of the last discard pile encoded, brought up to date from the cards
    added since when the next pile begins with it (a pile only grows between reshuffles):
    counting a long pile afresh at every step is most of an encoding's cost."""

    def __init__(self) -> None:
        self.pile: Sequence[CardLike] = ()
        """A copy of the last pile, of its type (a list and a tuple never compare equal: a
        pile of the other type is counted afresh)."""
        self.counts = array("f", bytes(4 * FACE_COUNT))

    def of(self, pile: Sequence[CardLike]) -> array[float]:
        """The face counts of `pile` (the caller copies them: they change with the next)."""
        known, size = len(self.pile), len(pile)
        if known and size >= known and pile[known - 1] is self.pile[-1]:
            if size == known and pile == self.pile:
                return self.counts
            if size > known and pile[:known] == self.pile:
                counts = self.counts
                for face in map(_AT_DISCARD.__getitem__, pile[known:]):
                    counts[face - _DISCARD] += 1.0
                self.pile = pile[:]
                return counts
        counts = array("f", bytes(4 * FACE_COUNT))
        for face in map(_AT_DISCARD.__getitem__, pile):
            counts[face - _DISCARD] += 1.0
        self.pile, self.counts = pile[:], counts
        return counts


_DISCARD_COUNTS = _PileCounts()
_ZEROS = np.zeros(OBS_SIZE, np.float32)
_items: Callable[[npt.NDArray[np.float32]], Any] = memoryview  # type: ignore[assignment]
"""A float32 vector's items as floats (typeshed's memoryview would take only ints)."""


def encode(view: ViewLike) -> npt.NDArray[np.float32]:
    """The view as a float32 vector of `OBS_SIZE` values (see the module's table)."""
    # Filled one value at a time through a memoryview (whose items are plain floats):
    # a handful of values each step costs numpy's own indexing far more per call.
    seat, players = view.seat, view.num_players
    vector = _ZEROS.copy()
    out = _items(vector)
    for place in map(_AT_HAND.__getitem__, view.hand):
        out[place] += 1.0
    for _, cards in view.revealed:
        for place in map(_AT_REVEALED.__getitem__, cards):
            out[place] += 1.0
    top, drawn = view.top_card, view.drawn_card
    out[_TOP + FACE_COUNT if top is None else _AT_TOP[top]] = 1.0
    if drawn is not None:
        out[_AT_DRAWN[drawn]] = 1.0
    color = view.active_color
    out[_COLOR + (4 if color is None else _COLOR_INDEX.get(color, 4))] = 1.0
    phase = _PHASE_INDEX.get(view.phase)
    if phase is not None:
        out[_PHASE + phase] = 1.0
    pile = view.discard_pile
    if pile:
        out[_DISCARD:_DISCARD + FACE_COUNT] = _DISCARD_COUNTS.of(pile)
    order, relative = _ORDERS[players][seat], _RELATIVE[players][seat]
    sizes, scores = view.hand_sizes, view.scores
    for k, s in enumerate(order):
        out[_SIZES + k] = sizes[s] / 10
    for s in view.active_seats:
        out[_ACTIVE + relative[s]] = 1.0
    teams = view.teams
    if teams:
        mine = teams[seat]
        for s in range(players):
            if teams[s] == mine:
                out[_PARTNER + relative[s]] = 1.0
    if any(scores):  # all 0 (or none) leaves the section as it is
        for k, s in enumerate(order):
            out[_SCORES + k] = scores[s] / 500
    offender = view.uno_offender
    if offender is not None:
        out[_OFFENDER + relative[offender]] = 1.0
    out[_TURN + relative[view.turn]] = 1.0
    out[_DIRECTION] = 1.0 if view.direction >= 0 else -1.0
    out[_PENDING] = view.pending_draw / 10
    out[_PILE] = view.draw_pile_size / 108
    out[_PLAYERS + players - 2] = 1.0
    out[_HAND_NUMBER] = view.hand_number / 100
    return vector


_ORDERS = {n: [tuple((seat + k) % n for k in range(n)) for seat in range(n)]
           for n in range(1, MAX_SEATS + 1)}
"""The seats in order from each seat's own, by table size."""
_RELATIVE = {n: [tuple((s - seat) % n for s in range(n)) for seat in range(n)]
             for n in range(1, MAX_SEATS + 1)}
"""Each seat's offset from each seat, by table size."""


def encode_seat(game: Game, seat: int) -> npt.NDArray[np.float32]:
    """`encode(game.view(seat))`, read straight from the game (no view is built)."""
    # The same steps as `encode`, over the state `Game.view` copies: tests hold the two equal.
    players = game.num_players
    vector = _ZEROS.copy()
    out = _items(vector)
    for place in map(_AT_HAND.__getitem__, game.hands[seat]):
        out[place] += 1.0
    revealed = game.revealed_to(seat)
    if revealed:
        for cards in revealed.values():
            for place in map(_AT_REVEALED.__getitem__, cards):
                out[place] += 1.0
    pile = game.discard_pile
    out[_AT_TOP[pile[-1]] if pile else _TOP + FACE_COUNT] = 1.0
    if game.decider == seat:
        drawn = game.drawn_card
        if drawn is not None:
            out[_AT_DRAWN[drawn]] = 1.0
    color = game.active_color
    out[_COLOR + (4 if color is None else _COLOR_INDEX.get(color, 4))] = 1.0
    phase = _PHASE_INDEX.get(game.phase)
    if phase is not None:
        out[_PHASE + phase] = 1.0
    if pile:
        out[_DISCARD:_DISCARD + FACE_COUNT] = _DISCARD_COUNTS.of(pile)
    order, relative = _ORDERS[players][seat], _RELATIVE[players][seat]
    hands, scores = game.hands, game.totals
    k = _SIZES
    for s in order:
        out[k] = len(hands[s]) / 10
        k += 1
    for s in game.active_seats:
        out[_ACTIVE + relative[s]] = 1.0
    teams = game.teams
    if teams:
        mine = teams[seat]
        for s in range(players):
            if teams[s] == mine:
                out[_PARTNER + relative[s]] = 1.0
    if any(scores):  # all 0 (or none) leaves the section as it is
        k = _SCORES
        for s in order:
            out[k] = scores[s] / 500
            k += 1
    offender = game.uno_offender
    if offender is not None:
        out[_OFFENDER + relative[offender]] = 1.0
    out[_TURN + relative[game.turn]] = 1.0
    out[_DIRECTION] = 1.0 if game.direction >= 0 else -1.0
    out[_PENDING] = game.pending_draw / 10
    out[_PILE] = len(game.draw_pile) / 108
    out[_PLAYERS + players - 2] = 1.0
    out[_HAND_NUMBER] = game.hand_number / 100
    return vector
