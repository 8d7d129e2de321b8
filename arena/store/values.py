"""What the store accepts: names, token hashes, seat counts and the shape of a finished game."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from arena.engine.outcome import Outcome
from arena.record import SeatTermination
from arena.store.errors import (
    InvalidInput,
)
from arena.store.records import (
    MAX_SEATS,
    MIN_SEATS,
    BotKind,
)

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""Bot and tournament names: a letter or digit, then up to 63 letters, digits, '_', '.'
or '-', so a name is one word on a command line and never looks like an option."""


def hash_token(token: str) -> str:
    """The SHA-256 hex digest under which a bot token is stored."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _bot_kind(kind: BotKind | str) -> BotKind:
    try:
        return BotKind(kind)
    except ValueError:
        raise InvalidInput(f"bot kind {kind!r} is not 'managed' or 'remote'") from None


def _check_name(kind: str, name: str) -> None:
    if not NAME.fullmatch(name):
        raise InvalidInput(
            f"{kind} name {name!r} must start with a letter or digit and use only letters, "
            "digits, '_', '.' and '-' (at most 64 characters)"
        )


def _check_seat_count(count: int) -> None:
    if not MIN_SEATS <= count <= MAX_SEATS:
        raise InvalidInput(f"a game has {MIN_SEATS} to {MAX_SEATS} seats, got {count}")


def _seat_terminations(values: Sequence[SeatTermination | str]) -> tuple[SeatTermination, ...]:
    try:
        return tuple(SeatTermination(value) for value in values)
    except ValueError as exc:
        choices = ", ".join(t.value for t in SeatTermination)
        raise InvalidInput(f"{exc}; a seat ends as one of {choices}") from None


def _check_forfeited_seat(seat: int | None, seats: int) -> None:
    if seat is not None and not 0 <= seat < seats:
        raise InvalidInput(f"forfeited seat {seat} is not one of the game's {seats} seats")


def _check_game_shape(
    seats: Sequence[str], outcome: Outcome, terminations: Sequence[SeatTermination]
) -> None:
    _check_seat_count(len(seats))
    counts = {
        "scores": len(outcome.scores),
        "ranks": len(outcome.ranks),
        "seat terminations": len(terminations),
    }
    wrong = {what: count for what, count in counts.items() if count != len(seats)}
    if wrong:
        details = ", ".join(f"{count} {what}" for what, count in wrong.items())
        raise InvalidInput(f"{len(seats)} seats but {details}")
