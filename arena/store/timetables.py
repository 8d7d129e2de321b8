"""Tournaments on a timetable: what each plays and when it is next due, and the
editions (tournaments of their own) it has made."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from arena.store.backend import Connection, Row
from arena.store.codec import _decoding, _json, _now, _timestamp
from arena.store.database import reads
from arena.store.errors import DuplicateName, InvalidInput, UnknownTimetable
from arena.store.records import ScheduleEntry, Tournament, TournamentStatus
from arena.store.tournaments import TournamentRecords
from arena.store.values import _check_name

MAX_TIMETABLE_NAME = 40
"""The longest timetable name: its editions add a date, a time and a suffix to it
(`NAME-2026-12-24-1800-2`), and a tournament name has at most 64 characters."""


@dataclass(frozen=True, slots=True)
class Timetable:
    """A tournament on a timetable: the settings and rules each edition is created with
    (as `tournament create` stores them), its entrants, and when it is due."""

    id: int
    name: str
    format: str
    settings: dict[str, Any]
    rules: dict[str, Any]
    entrants: tuple[str, ...] | None
    """The bots every edition enters; None: the latest entrants when it is due."""
    share: float
    """The share of the server's tables its editions play on."""
    first_due: datetime
    every: int | None
    """Seconds between editions; None for a single edition."""
    next_due: datetime | None
    """When the next edition is due; None once a single edition has been made."""
    editions: int
    created_at: datetime
    removed_at: datetime | None
    last_edition: str | None
    """The name of its latest edition, if it has made one."""
    per_author: int | None = None
    """With the latest entrants: at most this many bots of each author (None: all)."""

    @property
    def active(self) -> bool:
        """Whether it has not been removed."""
        return self.removed_at is None


@dataclass(frozen=True, slots=True)
class Edition:
    """One edition of a timetable: the tournament it made, numbered from 1."""

    timetable: str
    number: int
    tournament: str
    due: datetime
    """When it was due (it started then, or as soon as it could after)."""
    status: TournamentStatus


_TIMETABLE_SELECT = (
    "SELECT tt.*, (SELECT t.name FROM timetable_editions e JOIN tournaments t"
    " ON t.id = e.tournament_id WHERE e.timetable_id = tt.id ORDER BY e.number DESC"
    " LIMIT 1) AS last_edition FROM timetables tt"
)


def _moment(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


@_decoding("timetable")
def _timetable(row: Row) -> Timetable:
    entrants = None if row["entrants"] is None else tuple(json.loads(row["entrants"]))
    first_due = datetime.fromisoformat(row["first_due_at"])
    return Timetable(
        id=int(row["id"]), name=row["name"], format=row["format"],
        settings=json.loads(row["settings"]), rules=json.loads(row["rules"]),
        entrants=entrants, share=float(row["share"]), first_due=first_due,
        every=None if row["every_seconds"] is None else int(row["every_seconds"]),
        next_due=_moment(row["next_due_at"]), editions=int(row["editions"]),
        created_at=datetime.fromisoformat(row["created_at"]),
        removed_at=_moment(row["removed_at"]), last_edition=row["last_edition"],
        per_author=row["per_author"] if "per_author" in row.keys() else None)  # noqa: SIM118


class TimetableRecords(TournamentRecords):
    """Tournaments on a timetable, and the editions each has made."""

    def add_timetable(self, name: str, format: str, settings: Mapping[str, Any],
                      rules: Mapping[str, Any], entrants: Sequence[str] | None, *,
                      share: float, first_due: datetime, every: int | None,
                      per_author: int | None = None) -> Timetable:
        """Put a tournament on the timetable: its first edition due at `first_due`, then
        one every `every` seconds (None: that edition only). `entrants` None enters the
        latest entrants at each edition's start (at most `per_author` of each author's)."""
        if per_author is not None and (entrants is not None or per_author < 1):
            raise InvalidInput("per_author: goes with the latest entrants (no bots named), "
                               "and must be at least 1")
        _check_name("timetable", name)
        if len(name) > MAX_TIMETABLE_NAME:
            raise InvalidInput(f"timetable name {name!r} is longer than {MAX_TIMETABLE_NAME} "
                               "characters (its editions add a date and time to it)")
        if not 0 < share <= 1:
            raise InvalidInput(f"share: must be above 0 and at most 1, got {share}")
        if every is not None and every < 1:
            raise InvalidInput(f"every: must be at least 1 second, got {every}")
        due = _timestamp(first_due)
        with self._transaction() as conn:
            if conn.execute("SELECT 1 FROM timetables WHERE name = ? AND removed_at IS NULL",
                            (name,)).fetchone():
                raise DuplicateName(f"a tournament named {name!r} is already on the timetable")
            extra = ((", per_author", ", ?", (per_author,)) if per_author is not None
                     else ("", "", ()))
            timetable_id = int(conn.execute(
                "INSERT INTO timetables (name, format, settings, rules, entrants, share,"
                f" first_due_at, every_seconds, next_due_at, editions, created_at{extra[0]})"
                f" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?{extra[1]}) RETURNING id",
                (name, format, _json(dict(settings)), _json(dict(rules)),
                 None if entrants is None else _json(list(entrants)), share, due, every, due,
                 _now(), *extra[2])).fetchone()[0])
            return self._timetable_at(conn, timetable_id)

    @reads
    def timetables(self, *, removed: bool = False) -> list[Timetable]:
        """Every tournament on the timetable, oldest first (with `removed`, also those
        taken off it)."""
        where = "" if removed else " WHERE tt.removed_at IS NULL"
        with self._lock:
            rows = self._conn.execute(f"{_TIMETABLE_SELECT}{where} ORDER BY tt.id").fetchall()
        return [_timetable(row) for row in rows]

    def timetable(self, name: str) -> Timetable:
        """The tournament on the timetable named `name`."""
        with self._lock:
            row = self._conn.execute(
                f"{_TIMETABLE_SELECT} WHERE tt.name = ? AND tt.removed_at IS NULL",
                (name,)).fetchone()
        if row is None:
            raise UnknownTimetable(f"no tournament {name!r} on the timetable "
                                   "(`arena tournament list` shows what is scheduled)")
        return _timetable(row)

    def due_timetables(self, now: datetime) -> list[Timetable]:
        """The tournaments on the timetable whose next edition is due at `now`, the
        longest due first."""
        due = [t for t in self.timetables() if t.next_due is not None and t.next_due <= now]
        return sorted(due, key=lambda t: (t.next_due or now, t.id))

    def start_edition(self, timetable: Timetable, name: str, next_due: datetime | None,
                      settings: Mapping[str, Any], rules: Mapping[str, Any],
                      games: Iterable[ScheduleEntry]) -> Tournament | None:
        """Make `timetable`'s due edition: create its tournament with its schedule, named
        `name` (`name-2`, `name-3`, ... if that is taken), count it, and move the next
        edition to `next_due` (None: no more), in one transaction. None, and nothing
        written, if the edition was made meanwhile (by another server on the same
        database) or the timetable was removed: an edition is made exactly once."""
        with self._transaction() as conn:
            row = conn.execute("SELECT * FROM timetables WHERE id = ?",
                               (timetable.id,)).fetchone()
            if (row is None or row["removed_at"] is not None or timetable.next_due is None
                    or row["next_due_at"] != _timestamp(timetable.next_due)
                    or int(row["editions"]) != timetable.editions):
                return None
            free = self._free_tournament_name(conn, name)
            tournament_id = self._insert_tournament(conn, free, timetable.format, settings,
                                                    rules, games)
            conn.execute(
                "INSERT INTO timetable_editions (tournament_id, timetable_id, number, due_at)"
                " VALUES (?, ?, ?, ?)", (tournament_id, timetable.id, timetable.editions + 1,
                                         row["next_due_at"]))
            conn.execute(
                "UPDATE timetables SET editions = editions + 1, next_due_at = ? WHERE id = ?",
                (None if next_due is None else _timestamp(next_due), timetable.id))
            return self._tournament_value(conn, self._tournament_row(conn, tournament_id))

    @staticmethod
    def _free_tournament_name(conn: Connection, name: str) -> str:
        _check_name("tournament", name)
        candidate, number = name, 1
        while conn.execute("SELECT 1 FROM tournaments WHERE name = ?",
                           (candidate,)).fetchone():
            number += 1
            candidate = f"{name}-{number}"
        return candidate

    @reads
    def editions(self, timetable: str | None = None) -> list[Edition]:
        """The editions of the active timetable `timetable` (None: of every timetable,
        removed ones too), oldest first."""
        where = ""
        params: tuple[int, ...] = ()
        if timetable is not None:
            where = " WHERE e.timetable_id = ?"
            params = (self.timetable(timetable).id,)
        with self._lock:
            rows = self._conn.execute(
                "SELECT tt.name AS timetable, e.number, e.due_at, e.tournament_id"
                f" FROM timetable_editions e JOIN timetables tt ON tt.id = e.timetable_id{where}"
                " ORDER BY e.due_at, e.tournament_id", params).fetchall()
            return [self._edition(row) for row in rows]

    def unfinished_editions(self) -> list[tuple[Timetable, Tournament]]:
        """The latest edition of each active timetable, with the timetable, where that
        edition is not finished: one a stopped server left to be resumed, or one in play."""
        found = []
        with self._lock:
            rows = self._conn.execute(
                "SELECT e.timetable_id, e.tournament_id FROM timetable_editions e"
                " JOIN timetables tt ON tt.id = e.timetable_id"
                " JOIN tournaments t ON t.id = e.tournament_id"
                " WHERE tt.removed_at IS NULL AND t.status <> ? AND e.number ="
                " (SELECT MAX(f.number) FROM timetable_editions f"
                "  WHERE f.timetable_id = e.timetable_id) ORDER BY e.due_at",
                (TournamentStatus.FINISHED.value,)).fetchall()
            for row in rows:
                found.append((self._timetable_at(self._conn, int(row["timetable_id"])),
                              self._tournament_value(self._conn, self._tournament_row(
                                  self._conn, int(row["tournament_id"])))))
        return found

    def remove_timetable(self, name: str) -> Timetable:
        """Take `name` off the timetable: no more editions; those it made stay, ordinary
        tournaments."""
        with self._transaction() as conn:
            row = conn.execute("SELECT id FROM timetables WHERE name = ? AND removed_at IS NULL",
                               (name,)).fetchone()
            if row is None:
                raise UnknownTimetable(f"no tournament {name!r} on the timetable "
                                       "(`arena tournament list` shows what is scheduled)")
            conn.execute("UPDATE timetables SET removed_at = ? WHERE id = ?",
                         (_now(), int(row["id"])))
            return self._timetable_at(conn, int(row["id"]))

    @staticmethod
    def _timetable_at(conn: Connection, timetable_id: int) -> Timetable:
        return _timetable(conn.execute(f"{_TIMETABLE_SELECT} WHERE tt.id = ?",
                                       (timetable_id,)).fetchone())

    def _edition(self, row: Row) -> Edition:
        tournament = self._tournament_value(self._conn, self._tournament_row(
            self._conn, int(row["tournament_id"])))
        return Edition(timetable=row["timetable"], number=int(row["number"]),
                       tournament=tournament.name, due=datetime.fromisoformat(row["due_at"]),
                       status=tournament.status)
