"""`View`: what a seat may know when a decision is due, read from its DecisionRequest.

A view is built for every decision, and most bots read a few of its fields, so
each field is converted from the request (by `arena.client.convert`) the first
time it is read and kept after that: a bot that never looks at the discard pile
never pays for it.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from arena.client.convert import (
    cards_from_proto,
    color_from_proto,
    optional_card,
    optional_int,
    phase_from_proto,
)
from arena.client.model import Card, Color, Phase
from arena.v1 import bot_pb2, uno_pb2

if TYPE_CHECKING:
    from arena.client.table import Table


class View:
    """Everything your seat may know when a decision is due.

    Other seats' cards appear only as counts (`hand_sizes`), except hands shown
    to you by a Wild Draw Four challenge (`revealed`). `table` is the game this
    decision belongs to (seat, players, rules and every event seen so far);
    `raw` is the protocol's SeatView and `request` the whole DecisionRequest.
    A view is read-only; two views are equal when their requests are.
    """

    request: bot_pb2.DecisionRequest
    raw: uno_pb2.SeatView
    table: Table

    def __init__(self, request: bot_pb2.DecisionRequest, table: Table) -> None:
        object.__setattr__(self, "request", request)
        object.__setattr__(self, "raw", request.view)
        object.__setattr__(self, "table", table)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a View is read-only (cannot set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a View is read-only (cannot delete {name!r})")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, View) and self.request == other.request

    __hash__ = None  # type: ignore[assignment]  # equal views may differ in table

    def __repr__(self) -> str:
        hand = " ".join(card.short() for card in self.hand)
        return (f"View(game {self.game_id}, seat {self.seat}, {self.phase.value}, "
                f"hand [{hand}], top {self.top_card}, colour {self.active_color})")

    # ------------------------------------------------------ the request

    @property
    def game_id(self) -> str:
        """The game this decision belongs to."""
        return self.request.game_id

    @property
    def request_id(self) -> str:
        """The id the answer must carry (the SDK sends it for you)."""
        return self.request.request_id

    @property
    def time_left_ms(self) -> int:
        """Milliseconds allowed for this decision, before any time bank."""
        return self.request.time_left_ms

    @property
    def time_bank_ms(self) -> int:
        """Milliseconds left in this seat's time bank for the game."""
        return self.request.time_bank_ms

    # ------------------------------------------------------ the table

    @property
    def seat(self) -> int:
        """Your seat."""
        return self.raw.seat

    @property
    def num_players(self) -> int:
        """How many seats the table has."""
        return self.raw.num_players

    @cached_property
    def phase(self) -> Phase:
        """What kind of decision is due."""
        return phase_from_proto(self.raw.phase)

    @cached_property
    def decider(self) -> int | None:
        """The seat whose decision is due (yours; None once the game is over)."""
        return optional_int(self.raw, "decider")

    @property
    def turn(self) -> int:
        """The seat whose turn it is."""
        return self.raw.turn

    @cached_property
    def hand(self) -> tuple[Card, ...]:
        """Your cards."""
        return cards_from_proto(self.raw.hand)

    @cached_property
    def hand_sizes(self) -> tuple[int, ...]:
        """How many cards each seat holds, by seat."""
        return tuple(self.raw.hand_sizes)

    @cached_property
    def top_card(self) -> Card | None:
        """The card on top of the discard pile."""
        return optional_card(self.raw, "top_card")

    @cached_property
    def active_color(self) -> Color | None:
        """The colour to match (a wild's chosen colour once chosen)."""
        return color_from_proto(self.raw.active_color)

    @property
    def direction(self) -> int:
        """+1 for ascending seat order, -1 after a Reverse."""
        return self.raw.direction or 1

    @property
    def dealer(self) -> int:
        """The seat that dealt this hand."""
        return self.raw.dealer

    @property
    def hand_number(self) -> int:
        """Which hand of the game this is, from 1."""
        return self.raw.hand_number

    @property
    def draw_pile_size(self) -> int:
        """Cards left in the draw pile."""
        return self.raw.draw_pile_size

    @cached_property
    def discard_pile(self) -> tuple[Card, ...]:
        """The discard pile, bottom first (its last card is `top_card`)."""
        return cards_from_proto(self.raw.discard_pile)

    @cached_property
    def scores(self) -> tuple[int, ...]:
        """Each seat's game score from the hands played so far, by seat."""
        return tuple(self.raw.scores)

    @cached_property
    def active_seats(self) -> tuple[int, ...]:
        """The seats still in the game (elimination scoring removes seats)."""
        return tuple(self.raw.active_seats)

    @property
    def pending_draw(self) -> int:
        """Cards the next player must draw from stacked draw cards (house rule)."""
        return self.raw.pending_draw

    @cached_property
    def drawn_card(self) -> Card | None:
        """The card you just drew, while deciding whether to play it."""
        return optional_card(self.raw, "drawn_card")

    @cached_property
    def uno_offender(self) -> int | None:
        """The seat that may be caught without UNO in a catch window."""
        return optional_int(self.raw, "uno_offender")

    @cached_property
    def revealed(self) -> tuple[tuple[int, tuple[Card, ...]], ...]:
        """(seat, cards) of hands a Wild Draw Four challenge showed you this hand."""
        return tuple((r.seat, cards_from_proto(r.cards)) for r in self.raw.revealed)

    @cached_property
    def teams(self) -> tuple[int, ...] | None:
        """Each seat's team under partner scoring, else None."""
        return tuple(self.raw.teams) or None

    # ------------------------------------------------------ derived

    def seat_after(self, seat: int, steps: int = 1, direction: int | None = None) -> int:
        """The active seat `steps` places after `seat` in the direction of play
        (or in `direction`, +1 or -1, when given)."""
        active = set(self.active_seats) or set(range(self.num_players))
        step = 1 if (self.direction if direction is None else direction) >= 0 else -1
        current = seat
        for _ in range(steps):
            current = (current + step) % self.num_players
            while current not in active:
                current = (current + step) % self.num_players
        return current

    @property
    def next_seat(self) -> int:
        """The seat that plays after yours if nothing skips or reverses."""
        return self.seat_after(self.seat)

    @property
    def opponents(self) -> tuple[int, ...]:
        """The other active seats, in the direction of play starting after yours."""
        order: list[int] = []
        current = self.next_seat
        while current != self.seat and current not in order:
            order.append(current)
            current = self.seat_after(current)
        return tuple(order)

    def hand_without(self, card: Card) -> list[Card]:
        """Your hand less one copy of `card` (what is left after playing it)."""
        rest = list(self.hand)
        if card in rest:
            rest.remove(card)
        return rest

    def count(self, color: Color) -> int:
        """How many cards of `color` are in your hand."""
        return sum(1 for card in self.hand if card.color is color)

    def revealed_hand(self, seat: int) -> tuple[Card, ...] | None:
        """The hand of `seat` as a challenge showed it to you this hand, if it did."""
        for shown_seat, shown in self.revealed:
            if shown_seat == seat:
                return shown
        return None
