"""Tournaments and the claim a run holds on one while it plays it."""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from arena.store.backend import Connection, Row
from arena.store.codec import (
    _TOURNAMENT_SELECT,
    ClaimAlive,
    _json,
    _live_claim,
    _now,
    _run_claim,
    _timestamp,
    _tournament,
)
from arena.store.database import (
    Database,
    reads,
    repeatable,
)
from arena.store.errors import (
    DuplicateName,
    InvalidInput,
    TournamentBusy,
)
from arena.store.records import (
    CLAIM_STALE_AFTER,
    RunClaim,
    ScheduleEntry,
    Tournament,
    TournamentStatus,
    tournament_kind,
)
from arena.store.values import (
    _check_name,
)


class TournamentRecords(Database):
    """Tournaments and the claim a run holds on one while it plays it."""

    def create_tournament(
        self,
        name: str,
        format: str,
        settings: Mapping[str, Any],
        rules: Mapping[str, Any],
        games: Iterable[ScheduleEntry] = (),
    ) -> Tournament:
        """Create a tournament, with its schedule if `games` is given, in one transaction."""
        _check_name("tournament", name)
        with self._transaction() as conn:
            if conn.execute("SELECT 1 FROM tournaments WHERE name = ?", (name,)).fetchone():
                raise DuplicateName(f"a tournament named {name!r} already exists")
            tournament_id = self._insert_tournament(conn, name, format, settings, rules, games)
            return self._tournament_value(conn, self._tournament_row(conn, tournament_id))

    def _insert_tournament(self, conn: Connection, name: str, format: str,
                           settings: Mapping[str, Any], rules: Mapping[str, Any],
                           games: Iterable[ScheduleEntry]) -> int:
        """Insert a tournament (whose name is free) and its schedule; return its id."""
        tournament_id = int(conn.execute(
            "INSERT INTO tournaments (name, format, settings, rules, status, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            (name, format, _json(dict(settings)), _json(dict(rules)),
             TournamentStatus.CREATED.value, _now()),
        ).fetchone()[0])
        self._insert_scheduled(conn, tournament_id, games)
        return tournament_id

    def tournament(self, tournament: str | int) -> Tournament:
        """The tournament with this name (str) or id (int)."""
        with self._lock:
            return self._tournament_value(self._conn,
                                          self._tournament_row(self._conn, tournament))

    @reads
    def list_tournaments(self) -> list[Tournament]:
        """Every tournament, oldest first."""
        with self._lock:
            rows = self._conn.execute(f"{_TOURNAMENT_SELECT} ORDER BY t.id").fetchall()
            return [self._tournament_value(self._conn, row) for row in rows]

    @repeatable
    def set_tournament_status(
        self, tournament: str | int, status: TournamentStatus | str
    ) -> Tournament:
        """Move a tournament to `status` and return it."""
        try:
            status = TournamentStatus(status)
        except ValueError:
            choices = ", ".join(s.value for s in TournamentStatus)
            raise InvalidInput(f"tournament status {status!r} is not one of {choices}") from None
        with self._transaction() as conn:
            tournament_id = self._tournament_id(conn, tournament)
            conn.execute(
                "UPDATE tournaments SET status = ? WHERE id = ?", (status.value, tournament_id)
            )
            return self._tournament_value(conn, self._tournament_row(conn, tournament_id))

    @repeatable
    def claim_run(self, tournament: str | int, *,
                  stale_after: float = CLAIM_STALE_AFTER) -> RunClaim:
        """Claim the right to play `tournament`'s games for this run.

        Raises `TournamentBusy` while another run's claim holds, whether that
        run is in this process or another one on the same database. A claim
        left by a run that is gone (see `RunClaim.lapsed`; on PostgreSQL, also one
        whose connection has ended) is taken over.
        """
        with self._transaction() as conn:
            tournament_id = self._tournament_id(conn, tournament)
            row = conn.execute("SELECT * FROM tournament_runs WHERE tournament_id = ?",
                               (tournament_id,)).fetchone()
            now = datetime.now(UTC)
            if row is not None and (holder := _live_claim(
                    row, now, self._claim_alive(conn), stale_after)) is not None:
                held = self._tournament_row(conn, tournament_id)
                raise TournamentBusy(
                    f"{tournament_kind(held['format'])} {held['name']!r} is "
                    f"already being run by {holder.describe()}; a run that was killed is "
                    f"taken over once its process is gone, or after {stale_after:g} s "
                    "without a heartbeat")
            claim = RunClaim(tournament_id, secrets.token_hex(8), socket.gethostname(),
                             os.getpid(), now, now)
            conn.execute(
                "INSERT INTO tournament_runs (tournament_id, token, host, pid, claimed_at,"
                " heartbeat_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (tournament_id) DO UPDATE"
                " SET token = excluded.token, host = excluded.host, pid = excluded.pid,"
                " claimed_at = excluded.claimed_at, heartbeat_at = excluded.heartbeat_at",
                (tournament_id, claim.token, claim.host, claim.pid, _timestamp(now),
                 _timestamp(now)))
            self._backend.hold_claim(conn, claim.token)
        # Only once committed: a claim whose commit was cut off is claimed again afresh.
        self._held_claims[claim.token] = tournament_id
        return claim

    @repeatable
    def refresh_run(self, claim: RunClaim) -> bool:
        """Renew `claim`'s heartbeat; False if it no longer holds (another run took over)."""
        if claim.token in self._lost_claims:
            return False
        with self._transaction() as conn:
            cursor = conn.execute(
                "UPDATE tournament_runs SET heartbeat_at = ? WHERE tournament_id = ? AND token = ?",
                (_now(), claim.tournament_id, claim.token))
            return cursor.rowcount == 1

    @repeatable
    def release_run(self, claim: RunClaim) -> None:
        """Give `claim` up (nothing happens if another run holds the tournament now)."""
        if self._lost_claims.pop(claim.token, None) is not None:
            return
        with self._transaction() as conn:
            conn.execute("DELETE FROM tournament_runs WHERE tournament_id = ? AND token = ?",
                         (claim.tournament_id, claim.token))
            if claim.token in self._held_claims:
                self._backend.drop_claim(conn, claim.token)
        self._held_claims.pop(claim.token, None)

    def _claim_alive(self, conn: Connection) -> ClaimAlive:
        return lambda token: self._backend.claim_alive(conn, token)

    def _tournament_value(self, conn: Connection, row: Row) -> Tournament:
        return _tournament(row, self._claim_alive(conn))

    def run_claim(self, tournament: str | int) -> RunClaim | None:
        """The claim on `tournament` as stored (it may have lapsed), or None."""
        with self._lock:
            tournament_id = self._tournament_id(self._conn, tournament)
            row = self._conn.execute("SELECT * FROM tournament_runs WHERE tournament_id = ?",
                                     (tournament_id,)).fetchone()
        return None if row is None else _run_claim(row)
