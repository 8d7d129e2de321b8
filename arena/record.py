"""What a played game leaves behind, apart from its rules: how each seat's part in it ended."""

from __future__ import annotations

from enum import StrEnum


class SeatTermination(StrEnum):
    """How one seat's participation in a game ended.

    The values are the protocol's `SeatTermination` names in lower case, so a
    server result is stored as it is. Every value but NORMAL and ABORTED is a
    forfeit the bot's own mistake caused.
    """

    NORMAL = "normal"
    """The seat played to the end of the game."""
    TIMEOUT = "timeout"
    """Forfeited after missing decision deadlines."""
    ILLEGAL = "illegal"
    """Forfeited after answering with actions that were not legal."""
    DISCONNECT = "disconnect"
    """Forfeited after its bot's connection closed mid-game."""
    CRASH = "crash"
    """Forfeited after its managed bot's process died."""
    MALFORMED = "malformed"
    """Forfeited after sending decisions that could not be understood."""
    ABORTED = "aborted"
    """The server stopped the game before it ended."""
