"""The result of a finished game."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol


class Termination(StrEnum):
    """Why a game ended."""

    TARGET_REACHED = "target_reached"
    """A seat (or team) reached the target score."""
    SINGLE_HAND = "single_hand"
    """The rule set plays one hand and it is over."""
    LAST_STANDING = "last_standing"
    """Challenge UNO: one player is left."""
    HANDS_COMPLETED = "hands_completed"
    """Four-player individual scoring played its fixed number of hands."""
    HAND_LIMIT = "hand_limit"
    """The rule set's limit on hands was reached first."""
    FORFEIT = "forfeit"
    """A seat forfeited (decided by the server's bot policy, not by the rules)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended.

    `scores[seat]` is the seat's final score in the game's scoring mode (for low
    score and elimination, lower is better). `ranks[seat]` is 0 for the best
    place; tied seats share a rank. `winners` holds every seat with rank 0.
    """

    termination: Termination
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    hands_played: int

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats in first place."""
        return tuple(seat for seat, rank in enumerate(self.ranks) if rank == 0)


class SortKey(Protocol):
    """Anything ordered by `<`: a number, or a tuple of numbers compared in turn."""

    def __lt__(self, other: Any, /) -> bool: ...


def ranks_from_keys(keys: Sequence[SortKey]) -> tuple[int, ...]:
    """Competition ranks (0 best, ties share) from sort keys where smaller is better (a
    tuple key compares its parts in turn, so no part can outweigh the one before)."""
    return tuple(sum(1 for other in keys if other < key) for key in keys)
