"""How far a run has come, as the services report it to whoever started the run."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from arena.record import SeatTermination
from arena.stats.sprt import Sprt


@dataclass(frozen=True, slots=True)
class Progress:
    """How far a run of `tournament` has come: `done` of `total` games, and the last game
    stored."""

    done: int
    total: int
    last_game_id: int = 0
    tournament: str = ""
    sprt: Sprt | None = None
    """A match under a sequential test: the test as it stands."""
    unseparated: tuple[str, ...] = ()
    """A run until separated: the adjacent pairs not yet separated at the last look."""
    conclusion: str = ""
    """A sequential run's last word: why it stopped."""
    absence: str = ""
    """A run's last word on the bots that stayed away past its wait (`RunSummary.message`)."""
    faults: Mapping[str, Mapping[SeatTermination, int]] | None = None
    """The bots whose seats ended by their own fault in the games this run played: how
    many games ended with each fault (`arena.record.count_faults`)."""
    notice: str = ""
    """A line to show at once (the store lost its connection to the database, or
    reconnected); such an update repeats how far the run had come."""


ProgressListener = Callable[[Progress], None]
"""Where a run sends its progress."""
