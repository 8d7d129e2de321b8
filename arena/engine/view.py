"""What one seat may know: the only picture of a game a bot is ever given."""

from __future__ import annotations

from typing import NamedTuple

from arena.engine.actions import Phase
from arena.engine.cards import Card, Color


class SeatView(NamedTuple):
    """One seat's view of a game in progress.

    It holds the seat's own hand, public facts (card counts, the discard pile,
    scores) and hands revealed to this seat by a Wild Draw Four challenge in the
    current hand. It never holds another seat's cards otherwise.
    """

    seat: int
    num_players: int
    phase: Phase
    decider: int | None
    turn: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    top_card: Card | None
    active_color: Color | None
    direction: int
    dealer: int
    hand_number: int
    draw_pile_size: int
    discard_pile: tuple[Card, ...]
    scores: tuple[int, ...]
    active_seats: tuple[int, ...]
    pending_draw: int
    drawn_card: Card | None
    uno_offender: int | None
    revealed: tuple[tuple[int, tuple[Card, ...]], ...]
    teams: tuple[int, ...] | None
