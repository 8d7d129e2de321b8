"""Tournaments on a timetable, the pure part: reading `--at` and `--every`, naming
editions, when the next one is due, and how many tables an edition plays on.

A timetable entry is due at a moment (stored in UTC); a running server makes
each due entry an *edition*, a tournament of its own named after the moment it
was due, and plays it on its `share` of the server's tables, beside whatever
else the server plays (the ladder).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from arena.tournament.schedule import (
    Schedule,
    TournamentSettings,
    build_schedule,
    derive_seed,
)

DEFAULT_SHARE = 0.5
"""The share of the server's tables a scheduled tournament plays on unless told."""

DAY = 86_400
"""Seconds in a day: editions of a daily (or longer) timetable are named by date alone."""

MIN_EVERY = 1
"""The shortest period, in seconds (under a minute is for trying a timetable out)."""

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": DAY, "w": 7 * DAY}
_PERIOD_PART = re.compile(r"(\d+)\s*([smhdw])")
_AT_FORMATS = ("%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d")


class TimetableError(ValueError):
    """A time, period or share that cannot be a timetable's; the message says why."""


def parse_at(text: str, now: datetime | None = None) -> datetime:
    """The moment `--at` names, in UTC: "2026-12-24 18:00" (also with seconds, or a
    date alone for midnight) or an ISO 8601 time ("2026-12-24T18:00", with an offset
    or "Z"); without an offset it is this machine's local time. A moment before `now`
    (default: the present) is refused."""
    given = text.strip()
    moment = _read_moment(given)
    if moment is None:
        raise TimetableError(
            f"{text!r} is not a time: write it as \"2026-12-24 18:00\" (local time), "
            "or in ISO 8601 (\"2026-12-24T18:00:00+01:00\")")
    if moment.tzinfo is None:
        moment = moment.astimezone()  # a naive moment is this machine's local time
    moment = moment.astimezone(UTC)
    current = now or datetime.now(UTC)
    if moment < current:
        raise TimetableError(
            f"{given} is in the past (it is {local_text(current, seconds=True)} now); "
            "give a time to come")
    return moment


def _read_moment(text: str) -> datetime | None:
    for form in _AT_FORMATS:
        try:
            return datetime.strptime(text, form)
        except ValueError:
            continue
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def parse_every(text: str) -> int:
    """The seconds `--every` names: a number and a unit, s, m, h, d or w ("90s", "30m",
    "24h", "7d"), or several ("1h30m")."""
    compact = text.strip().lower()
    parts = _PERIOD_PART.findall(compact)
    if not compact or _PERIOD_PART.sub("", compact).strip():
        raise TimetableError(
            f"{text!r} is not a period: write a number and a unit, s, m, h, d or w "
            "(\"24h\", \"30m\", \"7d\", \"1h30m\")")
    seconds = sum(int(number) * _UNITS[unit] for number, unit in parts)
    if seconds < MIN_EVERY:
        raise TimetableError(f"{text}: a period must be at least {MIN_EVERY} s")
    return seconds


def period_text(seconds: int | None) -> str:
    """A period as `--every` takes it, in its largest whole units ("1d", "1h30m");
    "-" for none."""
    if seconds is None:
        return "-"
    words = []
    left = seconds
    for unit, size in sorted(_UNITS.items(), key=lambda item: -item[1]):
        if left >= size:
            count, left = divmod(left, size)
            words.append(f"{count}{unit}")
    return "".join(words)


def local_text(moment: datetime, *, seconds: bool = False) -> str:
    """A moment in this machine's local time, as `--at` takes it."""
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")


def edition_name(name: str, due: datetime, every: int | None) -> str:
    """The name of the edition of timetable `name` due at `due` (read in local time):
    `NAME-YYYY-MM-DD` for a single edition or a period of a day or longer,
    `NAME-YYYY-MM-DD-HHMM` for a shorter one (the store adds `-2`, ... if taken)."""
    local = due.astimezone()
    if every is None or every >= DAY:
        return f"{name}-{local:%Y-%m-%d}"
    return f"{name}-{local:%Y-%m-%d-%H%M}"


def next_due(due: datetime, every: int | None, now: datetime) -> datetime | None:
    """When the edition after the one due at `due` is due, given that it is `now`: one
    period later, or the first moment of the period grid after `now` (editions a
    stopped server missed are not made up for); None for a single edition."""
    if every is None:
        return None
    step = timedelta(seconds=every)
    following = due + step
    if following <= now:
        following += step * math.ceil((now - following) / step)
        if following <= now:
            following += step
    return following


def check_share(share: float) -> float:
    """`share` if it is a share of tables (above 0, at most 1)."""
    if isinstance(share, bool) or not isinstance(share, int | float) or not 0 < share <= 1:
        raise TimetableError(f"share: must be a number above 0 and at most 1, got {share!r}")
    return float(share)


def share_tables(share: float, tables: int) -> int:
    """The tables an edition plays on: its `share` of the server's `tables`, rounded
    down, at least 1 (and at most all of them)."""
    return max(1, min(tables, math.floor(share * tables + 1e-9)))


@dataclass(frozen=True, slots=True)
class TimetableSettings:
    """What a scheduled tournament's settings say: those of each edition, and its share."""

    tournament: TournamentSettings
    share: float


def timetable_settings(settings: Mapping[str, Any]) -> TimetableSettings:
    """Split a settings table (as `tournament create` reads it, rules folded in) into
    the editions' tournament settings and the timetable's `share` (default 0.5);
    bad settings raise `SettingsError`, a bad share `TimetableError`."""
    values = dict(settings)
    share = check_share(values.pop("share", DEFAULT_SHARE))
    return TimetableSettings(TournamentSettings.from_dict(values), share)


def stored_settings(settings: TournamentSettings) -> dict[str, Any]:
    """Tournament settings as a tournament stores them: without the rules, which it
    stores apart (as `arena.tournament.create_tournament` does)."""
    return {key: value for key, value in settings.to_dict().items() if key != "rules"}


def edition_schedule(settings: Mapping[str, Any], rules: Mapping[str, Any],
                     entrants: Sequence[str],
                     edition: str | None = None) -> tuple[TournamentSettings, Schedule]:
    """An edition's settings, read back from a timetable's stored ones, and its schedule
    between `entrants` (`ScheduleError` if they cannot make one).

    An edition named `edition` gets a seed of its own, derived from the timetable's
    seed and its name: editions deal different cards, and each is reproducible from
    its stored settings."""
    tournament = TournamentSettings.from_dict({**settings, "rules": dict(rules)})
    if edition is not None:
        tournament = replace(tournament, seed=derive_seed(tournament.seed, "edition", edition))
    return tournament, build_schedule(tournament, entrants)
