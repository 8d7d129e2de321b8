"""A tournament's schedule: its games, which are pending, and who plays them."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from arena.store.backend import Connection
from arena.store.codec import (
    _json,
    _scheduled_game,
)
from arena.store.database import (
    Database,
    reads,
    repeatable,
)
from arena.store.errors import (
    UnknownGame,
)
from arena.store.records import (
    ScheduledGame,
    ScheduleEntry,
)

_BATCH = 500
"""Game numbers looked up per query (SQLite bounds the parameters of one statement)."""


class ScheduleRecords(Database):
    """A tournament's schedule: its games, which are pending, and who plays them."""

    def add_scheduled_games(
        self, tournament: str | int, games: Iterable[ScheduleEntry]
    ) -> list[ScheduledGame]:
        """Add games to a tournament's schedule; every seat must name an active bot."""
        with self._transaction() as conn:
            tournament_id = self._tournament_id(conn, tournament)
            self._insert_scheduled(conn, tournament_id, games)
            return self.scheduled_games(tournament_id)

    @repeatable
    def extend_schedule(self, tournament: str | int, settings: Mapping[str, Any],
                        games: Iterable[ScheduleEntry]) -> None:
        """Append games to a tournament's schedule and store the settings that now describe
        it, in one transaction (a run that plays until its bots are separated grows its
        schedule this way, so a resumed run sees what was added)."""
        entries = list(games)
        with self._transaction() as conn:
            tournament_id = self._tournament_id(conn, tournament)
            if not self._appended_before(conn, tournament_id, entries):
                self._insert_scheduled(conn, tournament_id, entries)
            conn.execute("UPDATE tournaments SET settings = ? WHERE id = ?",
                         (_json(dict(settings)), tournament_id))

    @repeatable
    def append_games(self, tournament: str | int,
                     games: Iterable[ScheduleEntry]) -> list[ScheduledGame]:
        """Append games to a tournament's schedule in one transaction and return them as
        stored, by game index (a ladder grows its schedule table by table this way)."""
        entries = list(games)
        with self._transaction() as conn:
            tournament_id = self._tournament_id(conn, tournament)
            if not self._appended_before(conn, tournament_id, entries):
                self._insert_scheduled(conn, tournament_id, entries)
            if not entries:
                return []
            added = {entry.game_index for entry in entries}
            return [game for game in self._scheduled(tournament_id, pending_only=True,
                                                     from_index=min(added))
                    if game.game_index in added]

    def _appended_before(self, conn: Connection, tournament_id: int,
                         entries: Sequence[ScheduleEntry]) -> bool:
        """Whether `entries` are in the schedule already because the commit that appended
        them was cut off yet took effect (the call then runs again: see `repeatable`)."""
        if not entries or not self._rerun_after_commit:
            return False
        wanted = {entry.game_index: entry.seed for entry in entries}
        stored: dict[int, int] = {}
        indexes = sorted(wanted)
        for start in range(0, len(indexes), _BATCH):
            batch = indexes[start:start + _BATCH]
            stored.update((int(row[0]), int(row[1])) for row in conn.execute(
                "SELECT game_index, seed FROM scheduled_games WHERE tournament_id = ?"
                f" AND game_index IN ({','.join('?' * len(batch))})", (tournament_id, *batch)))
        return stored == wanted

    @repeatable
    def withdraw_games(self, tournament: str | int, game_ids: Iterable[int]) -> int:
        """Take the pending games `game_ids` out of a tournament's schedule (a game
        recorded already stays); return how many were taken out."""
        wanted = list(dict.fromkeys(game_ids))
        removed = 0
        with self._transaction() as conn:
            tournament_id = self._tournament_id(conn, tournament)
            for start in range(0, len(wanted), _BATCH):
                batch = wanted[start:start + _BATCH]
                removed += conn.execute(
                    "DELETE FROM scheduled_games WHERE tournament_id = ? AND status = 'pending'"
                    f" AND id IN ({','.join('?' * len(batch))})",
                    (tournament_id, *batch)).rowcount
        return removed

    @reads
    def scheduled_games(self, tournament: str | int) -> list[ScheduledGame]:
        """The whole schedule of a tournament, by game index."""
        return self._scheduled(tournament, pending_only=False)

    def pending_games(self, tournament: str | int) -> list[ScheduledGame]:
        """The scheduled games not yet recorded, by game index."""
        return self._scheduled(tournament, pending_only=True)

    @reads
    def tournament_bots(self, tournament: str | int) -> list[str]:
        """The names of the bots in `tournament`'s schedule, sorted."""
        return self._scheduled_bot_names(tournament, pending_only=False, removed_only=False)

    def removed_entrants(self, tournament: str | int) -> list[str]:
        """Names of the bots in `tournament`'s pending games that have been removed since.

        Those games cannot be played: a bot added again under the same name is a
        different bot, and the games stay credited to the one scheduled.
        """
        return self._scheduled_bot_names(tournament, pending_only=True, removed_only=True)

    def _scheduled_bot_names(self, tournament: str | int, *, pending_only: bool,
                             removed_only: bool) -> list[str]:
        """Sorted names of the bots in `tournament`'s scheduled games (its pending ones
        only, and only bots removed since, when asked)."""
        query = "SELECT DISTINCT bot_ids FROM scheduled_games WHERE tournament_id = ?"
        if pending_only:
            query += " AND status = 'pending'"
        with self._lock:
            tournament_id = self._tournament_id(self._conn, tournament)
            lists = self._conn.execute(query, (tournament_id,)).fetchall()
            wanted = sorted({int(bot) for row in lists for bot in json.loads(row[0])})
            if not wanted:
                return []
            rows = self._conn.execute(
                f"SELECT DISTINCT name FROM bots WHERE id IN ({','.join('?' * len(wanted))})"
                + (" AND removed_at IS NOT NULL" if removed_only else ""),
                wanted,
            ).fetchall()
        return sorted(str(row["name"]) for row in rows)

    @reads
    def schedule_progress(self, tournament: str | int) -> tuple[int, int]:
        """(games done, games scheduled) for a tournament."""
        with self._lock:
            tournament_id = self._tournament_id(self._conn, tournament)
            row = self._conn.execute(
                "SELECT COALESCE(SUM(CASE WHEN status = 'done' THEN 1 ELSE 0 END), 0), COUNT(*)"
                " FROM scheduled_games WHERE tournament_id = ?",
                (tournament_id,),
            ).fetchone()
        return int(row[0]), int(row[1])

    def scheduled_game(self, tournament: str | int, game_index: int) -> ScheduledGame:
        """The game at `game_index` of a tournament's schedule; `UnknownGame` if the
        schedule has none there (`UnknownTournament` without the tournament)."""
        with self._lock:
            tournament_id = self._tournament_id(self._conn, tournament)
            row = None if not 0 <= game_index < 2**63 else self._conn.execute(
                "SELECT * FROM scheduled_games WHERE tournament_id = ? AND game_index = ?",
                (tournament_id, game_index),
            ).fetchone()
            if row is None:
                raise UnknownGame(f"no game {game_index} in the schedule of {tournament}")
            names = self._bot_names(self._conn, json.loads(row["bot_ids"]))
        return _scheduled_game(row, names)

    def unplayed_games_of_deal(self, tournament_id: int, seed: int) -> int:
        """How many games of tournament `tournament_id`'s schedule dealt from `seed` (the
        other seatings of one duplicate deal) are not recorded yet."""
        with self._lock:
            row = self._conn.execute(
                "SELECT COUNT(*) FROM scheduled_games WHERE tournament_id = ? AND seed = ?"
                " AND status = 'pending'", (tournament_id, seed)).fetchone()
        return int(row[0])

    @reads
    def schedule_places(self, game_ids: Iterable[int]) -> dict[int, tuple[str, int]]:
        """Where each of the stored games `game_ids` sits in a schedule: (tournament name,
        game index), by game number; a game outside any schedule is left out."""
        wanted = list(dict.fromkeys(game_ids))
        places: dict[int, tuple[str, int]] = {}
        with self._lock:
            for start in range(0, len(wanted), _BATCH):
                batch = wanted[start:start + _BATCH]
                rows = self._conn.execute(
                    "SELECT sg.game_id, t.name, sg.game_index FROM scheduled_games sg"
                    " JOIN tournaments t ON t.id = sg.tournament_id"
                    f" WHERE sg.game_id IN ({','.join('?' * len(batch))})", batch)
                places.update((row[0], (row[1], row[2])) for row in rows)
        return places

    def _scheduled(self, tournament: str | int, *, pending_only: bool,
                   from_index: int = 0) -> list[ScheduledGame]:
        query = "SELECT * FROM scheduled_games WHERE tournament_id = ? AND game_index >= ?"
        if pending_only:
            query += " AND status = 'pending'"
        with self._lock:
            tournament_id = self._tournament_id(self._conn, tournament)
            rows = self._conn.execute(query + " ORDER BY game_index",
                                      (tournament_id, from_index)).fetchall()
            names = self._bot_names(
                self._conn, (bot for row in rows for bot in json.loads(row["bot_ids"]))
            )
        return [_scheduled_game(row, names) for row in rows]
