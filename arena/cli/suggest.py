""""Did you mean": a close name for a bot or tournament that a command could not find."""

from __future__ import annotations

import difflib
import re
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.cli.session import Session

_UNKNOWN = (
    (re.compile(r"no bot named '([^']+)'"), "bot"),
    (re.compile(r"no tournament '([^']+)'"), "tournament"),
    (re.compile(r"there is no tournament (\S+?)[ ,;:)]"), "tournament"),
)
"""How the server says a name is unknown, and of what kind the name is."""


def unknown_name(message: str) -> tuple[str, str] | None:
    """The kind ("bot" or "tournament") and the name a failure message says is unknown."""
    for pattern, kind in _UNKNOWN:
        found = pattern.search(message + " ")
        if found:
            return kind, found.group(1)
    return None


def closest(name: str, known: Iterable[str]) -> str | None:
    """The known name closest to `name` (case aside), if one is close enough to be a
    slip of the keyboard; a version suffix (`@2`) is kept from `name`."""
    base, at, version = name.partition("@")
    names = {candidate.partition("@")[0] for candidate in known}
    by_folded = {candidate.casefold(): candidate for candidate in names}
    matches = difflib.get_close_matches(base.casefold(), list(by_folded), n=1, cutoff=0.6)
    if not matches or by_folded[matches[0]] == base:
        return None
    return by_folded[matches[0]] + at + version


async def _bot_names(session: Session) -> list[str]:
    from arena.v1 import admin_pb2

    response = await session.admin.ListBots(admin_pb2.ListBotsRequest())
    return [bot.name for bot in response.bots]


async def _tournament_names(session: Session) -> list[str]:
    from arena.v1 import admin_pb2

    response = await session.admin.ListTournaments(admin_pb2.ListTournamentsRequest())
    return ([t.name for t in response.tournaments]
            + [t.name for t in response.scheduled])


_LISTS: dict[str, Callable[[Session], Awaitable[list[str]]]] = {
    "bot": _bot_names, "tournament": _tournament_names}


async def suggestion(session: Session, message: str) -> str | None:
    """"did you mean 'greedy'?" for a message that names an unknown bot or tournament
    close to a known one; None otherwise, or when the names cannot be listed."""
    unknown = unknown_name(message)
    if unknown is None:
        return None
    kind, name = unknown
    try:
        known = await _LISTS[kind](session)
    except Exception:  # the names are a courtesy: a refused or failed listing says nothing
        return None
    match = closest(name, known)
    return None if match is None else f"did you mean {match!r}?"
