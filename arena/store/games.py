"""Finished games: recorded with their rating update in one transaction, and read back."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from arena.engine.outcome import Outcome, Termination
from arena.record import Decision, SeatTermination, decisions_to_json
from arena.store.backend import Connection, Row
from arena.store.codec import (
    _decoding,
    _json,
    _scheduled_game,
    _teams_from_json,
    _teams_tuple,
    _timestamp,
    _with_logs,
)
from arena.store.database import (
    Database,
    reads,
    repeatable,
)
from arena.store.errors import (
    AlreadyRecorded,
    CommitUncertain,
    EntrantRemoved,
    InvalidInput,
    UnknownGame,
)
from arena.store.pools import rate_game_in_its_pools
from arena.store.records import (
    MIN_SEATS,
    GameStatus,
    GameSummary,
    StoredGame,
)
from arena.store.values import (
    _check_forfeited_seat,
    _check_game_shape,
    _seat_terminations,
)


class GameRecords(Database):
    """Finished games: recorded with their rating update in one transaction, and read back."""

    @repeatable
    def record_game(
        self,
        *,
        seats: Sequence[str],
        seed: int,
        rules: Mapping[str, Any],
        outcome: Outcome,
        seat_terminations: Sequence[SeatTermination | str],
        events: Sequence[Mapping[str, Any]],
        actions: Sequence[Any],
        started_at: datetime,
        finished_at: datetime,
        scheduled_game_id: int | None = None,
        teams: Sequence[Sequence[int]] | None = None,
        rated: bool = True,
        forfeited_seat: int | None = None,
        decisions: Sequence[Decision] | None = None,
    ) -> GameSummary:
        """Store a finished game and, if `rated`, update the ratings; all or nothing.

        For a scheduled game (`scheduled_game_id`), the seats, seed and teams
        must be the schedule's, the scheduled game is marked done, and the
        game is rated in the tournament's own pool as well as in the pool of its
        rule set and table size (`arena.rating.pools`). Recording a scheduled
        game twice raises `AlreadyRecorded` and changes nothing. `events` is the
        replay log as JSON objects; a game that ended by a forfeit names the
        `forfeited_seat`. `decisions`, when given, are every decision a seat owed
        (with its time and what came of it), kept with the game.

        Should the connection break while the game is committed, a scheduled game is
        recorded again, as is safe: if the commit took effect, the game recorded then
        is the one returned; a game outside any schedule raises `CommitUncertain`.
        """
        terminations = _seat_terminations(seat_terminations)
        _check_game_shape(seats, outcome, terminations)
        _check_forfeited_seat(forfeited_seat, len(seats))
        if scheduled_game_id is None and self._rerun_after_commit:
            raise CommitUncertain("the connection to the database broke while a game was "
                                  "committed: it may or may not have been recorded")
        began = time.perf_counter()
        try:
            recorded = self._record(seats, seed, rules, outcome, terminations, events,
                                    actions, started_at, finished_at, scheduled_game_id,
                                    teams, rated, forfeited_seat, decisions)
        except AlreadyRecorded:
            if scheduled_game_id is None or not self._rerun_after_commit:
                raise
            before = self._recorded_before(scheduled_game_id, outcome, started_at,
                                           finished_at)
            if before is None:
                raise
            recorded = before
        self._tell_recorded(seats, decisions, time.perf_counter() - began)
        return recorded

    def _recorded_before(self, scheduled_game_id: int, outcome: Outcome,
                         started_at: datetime, finished_at: datetime) -> GameSummary | None:
        """The game recorded as `scheduled_game_id` if it is this very game (its outcome
        and times), recorded by a commit that was cut off yet took effect; else None."""
        with self._lock:
            found = self._summaries(self._conn, "WHERE sg.id = ?", (scheduled_game_id,))
        if not found:
            return None
        game = found[0]
        same = (game.outcome.termination, tuple(game.outcome.scores),
                tuple(game.outcome.ranks), game.outcome.hands_played,
                _timestamp(game.started_at), _timestamp(game.finished_at)) == (
            Termination(outcome.termination), tuple(outcome.scores), tuple(outcome.ranks),
            outcome.hands_played, _timestamp(started_at), _timestamp(finished_at))
        return game if same else None

    def _record(
        self,
        seats: Sequence[str],
        seed: int,
        rules: Mapping[str, Any],
        outcome: Outcome,
        terminations: Sequence[SeatTermination],
        events: Sequence[Mapping[str, Any]],
        actions: Sequence[Any],
        started_at: datetime,
        finished_at: datetime,
        scheduled_game_id: int | None,
        teams: Sequence[Sequence[int]] | None,
        rated: bool,
        forfeited_seat: int | None,
        decisions: Sequence[Decision] | None,
    ) -> GameSummary:
        with self._transaction() as conn:
            tournament_id, bot_ids = self._game_participants(
                conn, scheduled_game_id, seats, seed, teams
            )
            game_id = self._insert_game(
                conn, tournament_id, rules, seed, teams, outcome, rated, events, actions,
                started_at, finished_at, forfeited_seat, decisions,
            )
            self._insert_seats(conn, game_id, bot_ids, outcome, terminations)
            if scheduled_game_id is not None:
                conn.execute(
                    "UPDATE scheduled_games SET status = 'done', game_id = ? WHERE id = ?",
                    (game_id, scheduled_game_id),
                )
            if rated:
                rate_game_in_its_pools(conn, game_id, tournament_id, rules, bot_ids, outcome,
                                       teams, inherit=self._versioned)
            return self._summaries(conn, "WHERE g.id = ?", (game_id,))[0]

    def _game_participants(
        self,
        conn: Connection,
        scheduled_game_id: int | None,
        seats: Sequence[str],
        seed: int,
        teams: Sequence[Sequence[int]] | None,
    ) -> tuple[int | None, list[int]]:
        if scheduled_game_id is None:
            return None, self._active_bot_ids(conn, seats)
        row = self._scheduled_row(conn, scheduled_game_id)
        bot_ids: list[int] = json.loads(row["bot_ids"])
        scheduled = _scheduled_game(row, self._bot_names(conn, bot_ids))
        if scheduled.status is GameStatus.DONE:
            raise AlreadyRecorded(
                f"scheduled game {scheduled_game_id} is already recorded as game {row['game_id']}"
            )
        removed = [str(row["name"]) for row in conn.execute(
            f"SELECT name FROM bots WHERE removed_at IS NOT NULL AND id IN "
            f"({','.join('?' * len(bot_ids))})", bot_ids)]
        if removed:
            raise EntrantRemoved(
                f"scheduled game {scheduled_game_id} cannot be recorded: "
                f"{', '.join(removed)} has been removed since it was scheduled")
        played = (tuple(seats), seed, _teams_tuple(teams))
        if played != (scheduled.seats, scheduled.seed, scheduled.teams):
            raise InvalidInput(
                f"scheduled game {scheduled_game_id} is seats {list(scheduled.seats)}, seed "
                f"{scheduled.seed}, teams {scheduled.teams}; got seats {list(seats)}, "
                f"seed {seed}, teams {played[2]}"
            )
        return scheduled.tournament_id, bot_ids

    @staticmethod
    def _insert_game(
        conn: Connection,
        tournament_id: int | None,
        rules: Mapping[str, Any],
        seed: int,
        teams: Sequence[Sequence[int]] | None,
        outcome: Outcome,
        rated: bool,
        events: Sequence[Mapping[str, Any]],
        actions: Sequence[Any],
        started_at: datetime,
        finished_at: datetime,
        forfeited_seat: int | None,
        decisions: Sequence[Decision] | None,
    ) -> int:
        row = conn.execute(
            "INSERT INTO games (tournament_id, rules, seed, teams, termination, hands_played,"
            " rated, events, actions, started_at, finished_at, forfeited_seat, decisions)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (tournament_id, _json(dict(rules)), seed,
             None if teams is None else _json(_teams_tuple(teams)),
             Termination(outcome.termination).value, outcome.hands_played, int(rated),
             _json([dict(event) for event in events]), _json(list(actions)),
             _timestamp(started_at), _timestamp(finished_at), forfeited_seat,
             None if decisions is None else decisions_to_json(decisions)),
        ).fetchone()
        return int(row[0])

    @staticmethod
    def _insert_seats(
        conn: Connection,
        game_id: int,
        bot_ids: Sequence[int],
        outcome: Outcome,
        terminations: Sequence[SeatTermination],
    ) -> None:
        conn.executemany(
            "INSERT INTO game_seats (game_id, seat, bot_id, score, rank, termination)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [
                (game_id, seat, bot_id, outcome.scores[seat], outcome.ranks[seat], ending.value)
                for seat, (bot_id, ending) in enumerate(zip(bot_ids, terminations, strict=True))
            ],
        )

    @reads
    def get_game(self, game_id: int) -> StoredGame:
        """A finished game with its replay log and its decisions (None for a game stored
        without them); `UnknownGame` if there is none."""
        if not 0 <= game_id < 2**63:  # beyond SQLite's integers
            raise UnknownGame(f"no game {game_id}")
        with self._lock:
            summaries = self._summaries(self._conn, "WHERE g.id = ?", (game_id,))
            if not summaries:
                raise UnknownGame(f"no game {game_id}")
            logs = self._conn.execute(
                "SELECT events, actions, decisions FROM games WHERE id = ?", (game_id,)
            ).fetchone()
        return _with_logs(summaries[0], logs)

    @reads
    def seat_endings(self, tournament: str | int) -> dict[str, dict[SeatTermination, int]]:
        """For each bot with a seat of `tournament`'s games that did not end normally, how
        many of its games ended each such way (one query, however many games)."""
        counts: dict[str, dict[SeatTermination, int]] = {}
        with self._lock:
            tournament_id = self._tournament_id(self._conn, tournament)
            rows = self._conn.execute(
                "SELECT b.name, s.termination, COUNT(*) FROM game_seats s"
                " JOIN games g ON g.id = s.game_id JOIN bots b ON b.id = s.bot_id"
                " WHERE g.tournament_id = ? AND s.termination != 'normal'"
                " GROUP BY b.name, s.termination ORDER BY b.name", (tournament_id,)).fetchall()
        for name, ending, count in rows:
            counts.setdefault(name, {})[SeatTermination(ending)] = count
        return counts

    @reads
    def games(
        self,
        *,
        tournament: str | int | None = None,
        bot: str | None = None,
        limit: int | None = None,
        author_id: int | None = None,
    ) -> list[GameSummary]:
        """Finished games, newest first, optionally of one tournament and/or one bot (the
        base name of a submitted bot: any of its versions) and/or a bot of one author's."""
        clauses: list[str] = []
        params: list[Any] = []
        with self._lock:
            if tournament is not None:
                clauses.append("g.tournament_id = ?")
                params.append(self._tournament_id(self._conn, tournament))
            if bot is not None:
                versions = (" OR b.id IN (SELECT bot_id FROM bot_versions WHERE base_name = ?)"
                            if self._versioned else "")
                clauses.append("g.id IN (SELECT s.game_id FROM game_seats s"
                               f" JOIN bots b ON b.id = s.bot_id WHERE b.name = ?{versions})")
                params.extend([bot, bot] if versions else [bot])
            if author_id is not None:
                clauses.append("g.id IN (SELECT s.game_id FROM game_seats s"
                               " JOIN bots b ON b.id = s.bot_id WHERE b.author_id = ?)")
                params.append(author_id)
            where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
            where += " ORDER BY g.id DESC"
            if limit is not None:
                where += " LIMIT ?"
                params.append(limit)
            return self._summaries(self._conn, where, tuple(params))

    def _summaries(
        self, conn: Connection, where: str, params: tuple[Any, ...]
    ) -> list[GameSummary]:
        rows = conn.execute(
            "SELECT g.id, g.tournament_id, g.rules, g.seed, g.teams, g.termination,"
            " g.hands_played, g.rated, g.started_at, g.finished_at, g.forfeited_seat,"
            " sg.id AS scheduled_game_id"
            " FROM games g LEFT JOIN scheduled_games sg ON sg.game_id = g.id " + where,
            params,
        ).fetchall()
        return [self._summary(conn, row) for row in rows]

    @staticmethod
    @_decoding("game")
    def _summary(conn: Connection, row: Row) -> GameSummary:
        seats = conn.execute(
            "SELECT b.name, s.score, s.rank, s.termination FROM game_seats s"
            " JOIN bots b ON b.id = s.bot_id WHERE s.game_id = ? ORDER BY s.seat",
            (row["id"],),
        ).fetchall()
        if len(seats) < MIN_SEATS:
            raise ValueError(f"game {row['id']} has {len(seats)} seats")
        return GameSummary(
            id=row["id"],
            tournament_id=row["tournament_id"],
            scheduled_game_id=row["scheduled_game_id"],
            rules=json.loads(row["rules"]),
            seed=row["seed"],
            seats=tuple(seat["name"] for seat in seats),
            teams=_teams_from_json(row["teams"]),
            outcome=Outcome(
                termination=Termination(row["termination"]),
                scores=tuple(seat["score"] for seat in seats),
                ranks=tuple(seat["rank"] for seat in seats),
                hands_played=row["hands_played"],
            ),
            seat_terminations=tuple(SeatTermination(seat["termination"]) for seat in seats),
            rated=bool(row["rated"]),
            started_at=datetime.fromisoformat(row["started_at"]),
            finished_at=datetime.fromisoformat(row["finished_at"]),
            forfeited_seat=row["forfeited_seat"],
        )
