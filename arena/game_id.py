"""Game ids: the one id a game has, live on a server and once stored.

A scheduled game's id is `TOURNAMENT:GAME_INDEX` (its place in the tournament's
schedule): bots, `tables` and `watch` know the game by it while it is played, and
`games`, `replay` and `export` once it is stored. A stored game's number is still
accepted, and is the only id of a game stored outside any schedule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

GAME_ID_SEPARATOR = ":"
"""Between a tournament's name and a game's index in a public game id; no name holds it."""


class GameIdError(ValueError):
    """A text is not a game id; the message says what a game id looks like."""


@dataclass(frozen=True, slots=True)
class ScheduledGameId:
    """A game by its place in a tournament's schedule: the public id `TOURNAMENT:INDEX`,
    the same while the game is played live and once it is stored."""

    tournament: str
    game_index: int

    def __str__(self) -> str:
        return f"{self.tournament}{GAME_ID_SEPARATOR}{self.game_index}"


@dataclass(frozen=True, slots=True)
class StoredGameNumber:
    """A stored game by the store's own number (accepted for scripts written before
    public ids; a game outside any schedule has only this)."""

    number: int

    def __str__(self) -> str:
        return str(self.number)


GameId = ScheduledGameId | StoredGameNumber
"""What a game id names: a scheduled game, or a stored game by its number."""

GAME_ID_HELP = ("a game id is TOURNAMENT:GAME as `arena games`, `arena tables` and "
                "`arena tournament schedule` show it (e.g. spring:3), or a stored game's number")
"""What a game id looks like, for messages about one that is not."""

_GAME_ID = re.compile(r"(?P<tournament>[A-Za-z0-9][A-Za-z0-9_.-]{0,63}):(?P<index>\d{1,18})")


def public_game_id(tournament: str, game_index: int) -> str:
    """The public id of the game at `game_index` of `tournament`'s schedule."""
    return str(ScheduledGameId(tournament, game_index))


def parse_game_id(text: str) -> GameId:
    """The game `text` names: `TOURNAMENT:INDEX`, or a stored game's number (digits);
    anything else raises `GameIdError` saying what a game id looks like."""
    value = text.strip()
    if value.isascii() and value.isdigit() and len(value) <= 19:
        return StoredGameNumber(int(value))
    match = _GAME_ID.fullmatch(value)
    if match is None:
        raise GameIdError(f"{text!r} is not a game id: {GAME_ID_HELP}")
    return ScheduledGameId(match["tournament"], int(match["index"]))

