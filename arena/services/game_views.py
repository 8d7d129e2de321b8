"""What of a stored game may be shown: everything, what every participant sees, or what
some seats saw.

A game's seed deals every hand, so only the full view carries it (and the actions,
which with it replay the whole game). The public view is what a spectator is shown:
the events every seat sees. A seats view is what those seats were shown while they
played: the public events, their own private events (their cards, a hand revealed to
them), and the decisions they owed, with their times and what came of them. Who may
ask for which view is decided elsewhere; this module only cuts the game to it.

Duplicate deals give several games one seed: a seats view of one of them tells its
bot the cards another seat is dealt in the others. While another seating of the deal
is still to be played, `ResultsService.deal_in_play` says so.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from arena import wire
from arena.record import Decision
from arena.store import GameSummary, StoredGame


class ViewKind(StrEnum):
    """Which cut of a game a view is."""

    FULL = "full"
    """Everything: the seed, the actions, every event, every decision."""
    PUBLIC = "public"
    """The events every seat sees, and nothing else."""
    SEATS = "seats"
    """The public events, plus the private events and the decisions of some seats."""


@dataclass(frozen=True, slots=True)
class GameView:
    """A cut of a game: its kind, and for a seats view the seats it shows."""

    kind: ViewKind
    seats: frozenset[int] = frozenset()

    @classmethod
    def of_seats(cls, seats: Iterable[int]) -> GameView:
        """The view of what `seats` saw while they played."""
        return cls(ViewKind.SEATS, frozenset(seats))

    def shows_seat(self, seat: int) -> bool:
        """Whether the view shows `seat`'s private events and decisions."""
        return self.kind is ViewKind.FULL or (self.kind is ViewKind.SEATS
                                               and seat in self.seats)


FULL = GameView(ViewKind.FULL)
"""Everything of the game."""
PUBLIC = GameView(ViewKind.PUBLIC)
"""What a spectator sees."""


class NotInGame(ValueError):
    """The bot a view is asked for holds no seat of the game."""


@dataclass(frozen=True, slots=True)
class ShownGame:
    """A stored game cut to a view.

    `summary` is the game's summary, its seed hidden (0) unless the view is full;
    `seed` is None unless the view is full, and `actions` are empty then too.
    `events` are the JSON events the view shows, in order. `decisions` are those
    of the seats it shows, or None for a game stored without them (and for the
    public view, which shows none); each one's `events_before` counts the events
    shown before it.
    """

    view: GameView
    summary: GameSummary
    seed: int | None
    events: tuple[Mapping[str, Any], ...]
    actions: tuple[Any, ...]
    decisions: tuple[Decision, ...] | None

    @property
    def full(self) -> bool:
        """Whether the seed and the actions are shown (the game can be replayed)."""
        return self.view.kind is ViewKind.FULL

    @property
    def visible_seats(self) -> tuple[int, ...]:
        """The seats whose private events and decisions are shown, in order."""
        return tuple(seat for seat in range(len(self.summary.seats))
                     if self.view.shows_seat(seat))


def seats_of(game: GameSummary, bot: str) -> frozenset[int]:
    """The seats `bot` holds in `game`: by its exact name, or by its base name any of
    its submitted versions (NAME@N); `NotInGame` when it holds none."""
    seats = frozenset(seat for seat, name in enumerate(game.seats)
                      if name == bot or ("@" not in bot and name.split("@", 1)[0] == bot))
    if not seats:
        raise NotInGame(f"{bot} did not play game {game.id} (its seats: "
                        f"{', '.join(game.seats)})")
    return seats


def bot_view(game: GameSummary, bot: str) -> GameView:
    """The view of what `bot` saw of `game` (its seats'); `NotInGame` when it did not
    play it."""
    return GameView.of_seats(seats_of(game, bot))


def event_audience(event: Mapping[str, Any]) -> frozenset[int] | None:
    """The seats a stored JSON event is addressed to; None for a public event."""
    return wire.stored_event_audience(event)


def show(game: StoredGame, view: GameView) -> ShownGame:
    """`game` cut to `view`."""
    summary = GameSummary(**{name: getattr(game, name)
                             for name in GameSummary.__dataclass_fields__})
    if view.kind is ViewKind.FULL:
        return ShownGame(view, summary, game.seed, game.events, game.actions, game.decisions)
    shown = [(audience := event_audience(event)) is None
             or not audience.isdisjoint(view.seats) for event in game.events]
    events = tuple(event for event, kept in zip(game.events, shown, strict=True) if kept)
    decisions = None
    if game.decisions is not None and view.kind is ViewKind.SEATS:
        # Where each decision falls among the events shown, not among all of them.
        shown_before = list(itertools.accumulate(shown, initial=0))
        decisions = tuple(d._replace(events_before=shown_before[d.events_before])
                          for d in game.decisions if d.seat in view.seats)
    return ShownGame(view, replace(summary, seed=0), None, events, (), decisions)
