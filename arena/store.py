"""The SQLite store: bots, tournaments, their schedules, finished games and ratings.

One `Store` owns one connection. Every write is one transaction, and
`record_game` writes a finished game, marks its scheduled game done and
applies the rating update together, so a tournament killed at any moment
resumes without losing or double-counting a game. The schema evolves through
the numbered `MIGRATIONS`, each applied in its own transaction and recorded in
the `schema_migrations` table.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import secrets
import socket
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from os import PathLike
from types import TracebackType
from typing import Any, ParamSpec, Protocol, TypeVar

from arena import rating
from arena.engine.outcome import Outcome, Termination
from arena.record import SeatTermination

MIN_SEATS = 2
MAX_SEATS = 10


class StoreError(Exception):
    """Base of every error the store raises on bad input or a bad database."""


class DuplicateName(StoreError):
    """A bot or tournament with that name already exists."""


class UnknownBot(StoreError):
    """No active bot has that name."""


class UnknownTournament(StoreError):
    """No tournament has that name or id."""


class UnknownGame(StoreError):
    """No game or scheduled game has that id."""


class InvalidInput(StoreError):
    """A value the store was given is malformed or inconsistent."""


class AlreadyRecorded(StoreError):
    """The scheduled game already has a recorded result."""


class SchemaError(StoreError):
    """The database schema is newer than this code, or a migration failed."""


class DamagedDatabase(StoreError):
    """A row of the database cannot be read back: it was changed or broken outside arena."""


class EntrantRemoved(StoreError):
    """A bot a tournament still has games for has been removed."""


class TournamentBusy(StoreError):
    """Another run, in this process or another, is playing the tournament's games."""


class BotKind(StrEnum):
    """How a bot reaches the arena."""

    MANAGED = "managed"
    """A command the platform launches and watches."""
    REMOTE = "remote"
    """Started by its owner anywhere; connects with its token."""


class TournamentStatus(StrEnum):
    """Where a tournament is in its life."""

    CREATED = "created"
    RUNNING = "running"
    FINISHED = "finished"
    STOPPED = "stopped"


class GameStatus(StrEnum):
    """Whether a scheduled game has been played and recorded."""

    PENDING = "pending"
    DONE = "done"


@dataclass(frozen=True, slots=True)
class Migration:
    """One numbered schema change: its statements run in a single transaction."""

    version: int
    description: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "bots, tournaments, schedules, games and ratings",
        (
            """CREATE TABLE bots (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('managed', 'remote')),
                command TEXT,
                token_hash TEXT NOT NULL UNIQUE,
                created_at TEXT NOT NULL,
                removed_at TEXT,
                CHECK ((kind = 'managed') = (command IS NOT NULL))
            )""",
            "CREATE UNIQUE INDEX bots_active_name ON bots (name) WHERE removed_at IS NULL",
            """CREATE TABLE tournaments (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                format TEXT NOT NULL,
                settings TEXT NOT NULL,
                rules TEXT NOT NULL,
                status TEXT NOT NULL
                    CHECK (status IN ('created', 'running', 'finished', 'stopped')),
                created_at TEXT NOT NULL
            )""",
            """CREATE TABLE games (
                id INTEGER PRIMARY KEY,
                tournament_id INTEGER REFERENCES tournaments (id),
                rules TEXT NOT NULL,
                seed INTEGER NOT NULL,
                teams TEXT,
                termination TEXT NOT NULL,
                hands_played INTEGER NOT NULL,
                rated INTEGER NOT NULL CHECK (rated IN (0, 1)),
                events TEXT NOT NULL,
                actions TEXT NOT NULL,
                started_at TEXT NOT NULL,
                finished_at TEXT NOT NULL
            )""",
            """CREATE TABLE game_seats (
                game_id INTEGER NOT NULL REFERENCES games (id),
                seat INTEGER NOT NULL,
                bot_id INTEGER NOT NULL REFERENCES bots (id),
                score INTEGER NOT NULL,
                rank INTEGER NOT NULL,
                termination TEXT NOT NULL,
                PRIMARY KEY (game_id, seat)
            )""",
            "CREATE INDEX game_seats_bot ON game_seats (bot_id)",
            """CREATE TABLE scheduled_games (
                id INTEGER PRIMARY KEY,
                tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
                round INTEGER NOT NULL,
                table_number INTEGER NOT NULL,
                game_index INTEGER NOT NULL,
                bot_ids TEXT NOT NULL,
                teams TEXT,
                seed INTEGER NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('pending', 'done')),
                game_id INTEGER UNIQUE REFERENCES games (id),
                UNIQUE (tournament_id, game_index),
                CHECK ((status = 'done') = (game_id IS NOT NULL))
            )""",
            """CREATE TABLE ratings (
                id INTEGER PRIMARY KEY,
                bot_id INTEGER NOT NULL REFERENCES bots (id),
                tournament_id INTEGER REFERENCES tournaments (id),
                mu REAL NOT NULL,
                sigma REAL NOT NULL,
                games INTEGER NOT NULL,
                wins INTEGER NOT NULL,
                points INTEGER NOT NULL
            )""",
            "CREATE UNIQUE INDEX ratings_scope ON ratings (bot_id, IFNULL(tournament_id, 0))",
            """CREATE TABLE rating_history (
                game_id INTEGER NOT NULL REFERENCES games (id),
                bot_id INTEGER NOT NULL REFERENCES bots (id),
                tournament_id INTEGER REFERENCES tournaments (id),
                mu REAL NOT NULL,
                sigma REAL NOT NULL
            )""",
            "CREATE INDEX rating_history_bot ON rating_history (bot_id, tournament_id)",
        ),
    ),
    Migration(
        2,
        "which run is playing a tournament",
        (
            """CREATE TABLE tournament_runs (
                tournament_id INTEGER PRIMARY KEY REFERENCES tournaments (id),
                token TEXT NOT NULL,
                host TEXT NOT NULL,
                pid INTEGER NOT NULL,
                claimed_at TEXT NOT NULL,
                heartbeat_at TEXT NOT NULL
            )""",
        ),
    ),
)
"""Every schema change in order; a new one goes at the end with the next version."""


@dataclass(frozen=True, slots=True)
class Bot:
    """A registered bot. Its token is never stored, only a hash of it."""

    id: int
    name: str
    kind: BotKind
    command: str | None
    created_at: datetime
    removed_at: datetime | None

    @property
    def active(self) -> bool:
        """True until the bot is removed."""
        return self.removed_at is None


@dataclass(frozen=True, slots=True)
class Tournament:
    """A tournament: its settings and rule set as stored (plain JSON values)."""

    id: int
    name: str
    format: str
    settings: dict[str, Any]
    rules: dict[str, Any]
    status: TournamentStatus
    """'running' only while a run holds the tournament (`Store.claim_run`): one that
    was killed reads as 'stopped', and running it again resumes it."""
    created_at: datetime
    run_by: str = ""
    """The run holding the tournament now (see `RunClaim.describe`); empty when none."""


CLAIM_STALE_AFTER = 60.0
"""Seconds without a heartbeat after which a run's claim on a tournament lapses."""


@dataclass(frozen=True, slots=True)
class RunClaim:
    """A run's claim on a tournament: while it holds, no other run plays its games."""

    tournament_id: int
    token: str
    host: str
    pid: int
    claimed_at: datetime
    heartbeat_at: datetime

    def lapsed(self, now: datetime, stale_after: float = CLAIM_STALE_AFTER) -> bool:
        """True once the run is known to be gone: its process on this host has
        exited, or it has sent no heartbeat for `stale_after` seconds."""
        if (now - self.heartbeat_at).total_seconds() > stale_after:
            return True
        return self.host == socket.gethostname() and not _process_exists(self.pid)

    def describe(self) -> str:
        """Who holds the claim, for an error message."""
        return (f"process {self.pid} on {self.host}, running since "
                f"{self.claimed_at:%Y-%m-%d %H:%M:%S} UTC")


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:  # it exists, under another user
        return True
    return True


class ScheduleEntry(Protocol):
    """One game of a schedule as the store needs it (a `ScheduledTable` fits)."""

    @property
    def round(self) -> int:
        """Round number."""

    @property
    def table(self) -> int:
        """Table number within the round."""

    @property
    def game_index(self) -> int:
        """Position of the game in the whole schedule, unique per tournament."""

    @property
    def seats(self) -> Sequence[str]:
        """Bot names in seat order."""

    @property
    def seed(self) -> int:
        """The deal seed."""

    @property
    def teams(self) -> Sequence[Sequence[int]] | None:
        """The seats of each team, or None when every seat plays for itself."""


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    """A game of a tournament's schedule; `game_id` links its result once done."""

    id: int
    tournament_id: int
    round: int
    table: int
    game_index: int
    seats: tuple[str, ...]
    bot_ids: tuple[int, ...]
    seed: int
    teams: tuple[tuple[int, ...], ...] | None
    status: GameStatus
    game_id: int | None


@dataclass(frozen=True, slots=True)
class GameSummary:
    """A finished game without its replay log."""

    id: int
    tournament_id: int | None
    scheduled_game_id: int | None
    rules: dict[str, Any]
    seed: int
    seats: tuple[str, ...]
    teams: tuple[tuple[int, ...], ...] | None
    outcome: Outcome
    seat_terminations: tuple[SeatTermination, ...]
    rated: bool
    started_at: datetime
    finished_at: datetime


@dataclass(frozen=True, slots=True)
class StoredGame(GameSummary):
    """A finished game with everything needed to replay it."""

    events: tuple[dict[str, Any], ...]
    actions: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Rating:
    """A bot's rating, over all games (`tournament_id` None) or within one tournament."""

    bot: str
    tournament_id: int | None
    mu: float
    sigma: float
    games: int
    wins: int
    points: int


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """A bot's skill right after one of its rated games."""

    bot: str
    game_id: int
    tournament_id: int | None
    mu: float
    sigma: float


NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""Bot and tournament names: a letter or digit, then up to 63 letters, digits, '_', '.'
or '-', so a name is one word on a command line and never looks like an option."""


def hash_token(token: str) -> str:
    """The SHA-256 hex digest under which a bot token is stored."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _decoding(what: str) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Make a row decoder raise `DamagedDatabase` for a row it cannot read."""
    def decorate(decode: Callable[_P, _R]) -> Callable[_P, _R]:
        @functools.wraps(decode)
        def decoded(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            try:
                return decode(*args, **kwargs)
            except (ValueError, KeyError, TypeError, IndexError) as exc:
                raise DamagedDatabase(
                    f"the database holds a damaged {what}: {type(exc).__name__}: {exc}; "
                    "it was changed outside arena") from None
        return decoded
    return decorate


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _timestamp(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise InvalidInput(f"timestamp {moment} has no time zone")
    return moment.astimezone(UTC).isoformat()


def _json(value: object) -> str:
    try:
        return json.dumps(value, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"value is not plain JSON: {exc}") from None


def _teams_tuple(teams: Sequence[Sequence[int]] | None) -> tuple[tuple[int, ...], ...] | None:
    return None if teams is None else tuple(tuple(team) for team in teams)


class Store:
    """The arena database. Open with `Store.open(path)`; use as a context manager.

    Safe to call from any thread, one call at a time: a lock serialises access
    to the single connection.
    """

    def __init__(
        self, path: str | PathLike[str], *, migrations: Sequence[Migration] | None = None
    ) -> None:
        self._lock = threading.RLock()
        self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._conn.row_factory = sqlite3.Row
        try:
            self._conn.execute("PRAGMA foreign_keys = ON")
            self._conn.execute("PRAGMA busy_timeout = 5000")
            self._conn.execute("PRAGMA journal_mode = WAL")
            # In WAL mode a commit survives a killed process either way; NORMAL only
            # lets a power cut undo the latest commits, never half of one.
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self._migrate(MIGRATIONS if migrations is None else migrations)
        except BaseException:
            self._conn.close()
            raise

    @classmethod
    def open(
        cls, path: str | PathLike[str], *, migrations: Sequence[Migration] | None = None
    ) -> Store:
        """Open (creating if needed) the database at `path` and bring its schema up to date."""
        return cls(path, migrations=migrations)

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    # -- schema ---------------------------------------------------------------

    def _migrate(self, migrations: Sequence[Migration]) -> None:
        with self._transaction() as conn:
            tables = {str(row[0]) for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
                " AND name NOT LIKE 'sqlite_%'")}
            if tables and "schema_migrations" not in tables:
                raise SchemaError("this is not an arena database: it holds tables of its "
                                  f"own ({', '.join(sorted(tables)[:5])})")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version INTEGER PRIMARY KEY, description TEXT NOT NULL,"
                " applied_at TEXT NOT NULL)"
            )
        known = max((m.version for m in migrations), default=0)
        if self.schema_version > known:
            raise SchemaError(
                f"the database has schema version {self.schema_version}, "
                f"newer than this arena knows ({known}); upgrade arena"
            )
        for migration in sorted(migrations, key=lambda m: m.version):
            if migration.version > self.schema_version:
                self._apply(migration)

    def _apply(self, migration: Migration) -> None:
        try:
            with self._transaction() as conn:
                for statement in migration.statements:
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO schema_migrations (version, description, applied_at)"
                    " VALUES (?, ?, ?)",
                    (migration.version, migration.description, _now()),
                )
        except sqlite3.Error as exc:
            raise SchemaError(
                f"migration {migration.version} ({migration.description}) failed: {exc}"
            ) from exc

    @property
    def schema_version(self) -> int:
        """The version of the newest migration applied to this database."""
        with self._lock:
            row = self._conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
        try:
            return int(row[0] or 0)
        except ValueError:
            raise SchemaError(f"schema_migrations holds a version arena cannot read: "
                              f"{row[0]!r}") from None

    @property
    def journal_mode(self) -> str:
        """SQLite's journal mode for this database ('wal' for a file)."""
        with self._lock:
            return str(self._conn.execute("PRAGMA journal_mode").fetchone()[0])

    # -- bots -----------------------------------------------------------------

    def add_bot(
        self, name: str, kind: BotKind | str, command: str | None = None
    ) -> tuple[Bot, str]:
        """Register a bot; return it and its new token (shown once: only its hash is kept).

        A managed bot needs the `command` that launches it; a remote bot has none.
        """
        kind = _bot_kind(kind)
        _check_name("bot", name)
        if kind is BotKind.MANAGED and not (command and command.strip()):
            raise InvalidInput(f"managed bot {name!r} needs a command to launch it")
        if kind is BotKind.REMOTE and command is not None:
            raise InvalidInput(f"remote bot {name!r} is started by its owner; it takes no command")
        token = secrets.token_urlsafe(32)
        with self._transaction() as conn:
            if self._find_bot(conn, name) is not None:
                raise DuplicateName(f"a bot named {name!r} already exists")
            cursor = conn.execute(
                "INSERT INTO bots (name, kind, command, token_hash, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (name, kind.value, command, hash_token(token), _now()),
            )
            row = conn.execute("SELECT * FROM bots WHERE id = ?", (cursor.lastrowid,)).fetchone()
        return _bot(row), token

    def bot(self, name: str) -> Bot:
        """The active bot with this name; `UnknownBot` if there is none."""
        with self._lock:
            row = self._find_bot(self._conn, name)
        if row is None:
            raise UnknownBot(f"no bot named {name!r}")
        return _bot(row)

    def bot_by_token(self, token: str) -> Bot | None:
        """The active bot this token belongs to, or None."""
        with self._lock:
            row = self._conn.execute(
                "SELECT * FROM bots WHERE token_hash = ? AND removed_at IS NULL",
                (hash_token(token),),
            ).fetchone()
        return None if row is None else _bot(row)

    def list_bots(self, *, include_removed: bool = False) -> list[Bot]:
        """Bots by name; removed ones only when asked."""
        query = "SELECT * FROM bots"
        if not include_removed:
            query += " WHERE removed_at IS NULL"
        with self._lock:
            rows = self._conn.execute(query + " ORDER BY name, id").fetchall()
        return [_bot(row) for row in rows]

    def remove_bot(self, name: str) -> Bot:
        """Retire a bot: its token stops working and its name becomes free.

        Its games, ratings and history stay, still under its name.
        """
        with self._transaction() as conn:
            row = self._find_bot(conn, name)
            if row is None:
                raise UnknownBot(f"no bot named {name!r}")
            conn.execute("UPDATE bots SET removed_at = ? WHERE id = ?", (_now(), row["id"]))
            removed = conn.execute("SELECT * FROM bots WHERE id = ?", (row["id"],)).fetchone()
        return _bot(removed)

    def reset_token(self, name: str) -> str:
        """Give an active bot a new token; the old one stops working."""
        token = secrets.token_urlsafe(32)
        with self._transaction() as conn:
            row = self._find_bot(conn, name)
            if row is None:
                raise UnknownBot(f"no bot named {name!r}")
            conn.execute(
                "UPDATE bots SET token_hash = ? WHERE id = ?", (hash_token(token), row["id"])
            )
        return token

    @staticmethod
    def _find_bot(conn: sqlite3.Connection, name: str) -> sqlite3.Row | None:
        row: sqlite3.Row | None = conn.execute(
            "SELECT * FROM bots WHERE name = ? AND removed_at IS NULL", (name,)
        ).fetchone()
        return row

    def _active_bot_ids(self, conn: sqlite3.Connection, names: Sequence[str]) -> list[int]:
        ids = []
        for name in names:
            row = self._find_bot(conn, name)
            if row is None:
                raise UnknownBot(f"no bot named {name!r}")
            ids.append(int(row["id"]))
        return ids

    def _bot_names(self, conn: sqlite3.Connection, bot_ids: Iterable[int]) -> dict[int, str]:
        wanted = sorted(set(bot_ids))
        marks = ",".join("?" * len(wanted))
        rows = conn.execute(f"SELECT id, name FROM bots WHERE id IN ({marks})", wanted)
        return {int(row["id"]): str(row["name"]) for row in rows}

    # -- tournaments ----------------------------------------------------------

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
            cursor = conn.execute(
                "INSERT INTO tournaments (name, format, settings, rules, status, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (name, format, _json(dict(settings)), _json(dict(rules)),
                 TournamentStatus.CREATED.value, _now()),
            )
            tournament_id = int(cursor.lastrowid or 0)
            self._insert_scheduled(conn, tournament_id, games)
            return _tournament(self._tournament_row(conn, tournament_id))

    def tournament(self, tournament: str | int) -> Tournament:
        """The tournament with this name (str) or id (int)."""
        with self._lock:
            return _tournament(self._tournament_row(self._conn, tournament))

    def list_tournaments(self) -> list[Tournament]:
        """Every tournament, oldest first."""
        with self._lock:
            rows = self._conn.execute(f"{_TOURNAMENT_SELECT} ORDER BY t.id").fetchall()
        return [_tournament(row) for row in rows]

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
            return _tournament(self._tournament_row(conn, tournament_id))

    @staticmethod
    def _tournament_row(conn: sqlite3.Connection, tournament: str | int) -> sqlite3.Row:
        column = "id" if isinstance(tournament, int) else "name"
        row: sqlite3.Row | None = conn.execute(
            f"{_TOURNAMENT_SELECT} WHERE t.{column} = ?", (tournament,)
        ).fetchone()
        if row is None:
            raise UnknownTournament(f"no tournament {tournament!r}")
        return row

    @classmethod
    def _tournament_id(cls, conn: sqlite3.Connection, tournament: str | int) -> int:
        return int(cls._tournament_row(conn, tournament)["id"])

    # -- runs -----------------------------------------------------------------

    def claim_run(self, tournament: str | int, *,
                  stale_after: float = CLAIM_STALE_AFTER) -> RunClaim:
        """Claim the right to play `tournament`'s games for this run.

        Raises `TournamentBusy` while another run's claim holds, whether that
        run is in this process or another one on the same database. A claim
        left by a run that is gone (see `RunClaim.lapsed`) is taken over.
        """
        with self._transaction() as conn:
            tournament_id = self._tournament_id(conn, tournament)
            row = conn.execute("SELECT * FROM tournament_runs WHERE tournament_id = ?",
                               (tournament_id,)).fetchone()
            now = datetime.now(UTC)
            if row is not None and (holder := _live_claim(row, now, stale_after)) is not None:
                raise TournamentBusy(
                    f"tournament {self._tournament_row(conn, tournament_id)['name']!r} is "
                    f"already being run by {holder.describe()}; a run that was killed is "
                    f"taken over once its process is gone, or after {stale_after:g} s "
                    "without a heartbeat")
            claim = RunClaim(tournament_id, secrets.token_hex(8), socket.gethostname(),
                             os.getpid(), now, now)
            conn.execute(
                "INSERT OR REPLACE INTO tournament_runs (tournament_id, token, host, pid,"
                " claimed_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?)",
                (tournament_id, claim.token, claim.host, claim.pid, _timestamp(now),
                 _timestamp(now)))
        return claim

    def refresh_run(self, claim: RunClaim) -> bool:
        """Renew `claim`'s heartbeat; False if it no longer holds (another run took over)."""
        with self._transaction() as conn:
            cursor = conn.execute(
                "UPDATE tournament_runs SET heartbeat_at = ? WHERE tournament_id = ? AND token = ?",
                (_now(), claim.tournament_id, claim.token))
            return cursor.rowcount == 1

    def release_run(self, claim: RunClaim) -> None:
        """Give `claim` up (nothing happens if another run holds the tournament now)."""
        with self._transaction() as conn:
            conn.execute("DELETE FROM tournament_runs WHERE tournament_id = ? AND token = ?",
                         (claim.tournament_id, claim.token))

    def run_claim(self, tournament: str | int) -> RunClaim | None:
        """The claim on `tournament` as stored (it may have lapsed), or None."""
        with self._lock:
            tournament_id = self._tournament_id(self._conn, tournament)
            row = self._conn.execute("SELECT * FROM tournament_runs WHERE tournament_id = ?",
                                     (tournament_id,)).fetchone()
        return None if row is None else _run_claim(row)

    # -- schedules ------------------------------------------------------------

    def add_scheduled_games(
        self, tournament: str | int, games: Iterable[ScheduleEntry]
    ) -> list[ScheduledGame]:
        """Add games to a tournament's schedule; every seat must name an active bot."""
        with self._transaction() as conn:
            tournament_id = self._tournament_id(conn, tournament)
            self._insert_scheduled(conn, tournament_id, games)
        return self.scheduled_games(tournament_id)

    def _insert_scheduled(
        self, conn: sqlite3.Connection, tournament_id: int, games: Iterable[ScheduleEntry]
    ) -> None:
        for game in games:
            _check_seat_count(len(game.seats))
            bot_ids = self._active_bot_ids(conn, game.seats)
            try:
                conn.execute(
                    "INSERT INTO scheduled_games (tournament_id, round, table_number,"
                    " game_index, bot_ids, teams, seed, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (tournament_id, game.round, game.table, game.game_index, _json(bot_ids),
                     None if game.teams is None else _json(_teams_tuple(game.teams)),
                     game.seed, GameStatus.PENDING.value),
                )
            except sqlite3.IntegrityError:
                raise InvalidInput(
                    f"game index {game.game_index} is already in the schedule"
                ) from None

    def scheduled_games(self, tournament: str | int) -> list[ScheduledGame]:
        """The whole schedule of a tournament, by game index."""
        return self._scheduled(tournament, pending_only=False)

    def pending_games(self, tournament: str | int) -> list[ScheduledGame]:
        """The scheduled games not yet recorded, by game index."""
        return self._scheduled(tournament, pending_only=True)

    def tournament_bots(self, tournament: str | int) -> list[str]:
        """The names of the bots in `tournament`'s schedule, sorted."""
        return self._scheduled_bot_names(tournament, "")

    def removed_entrants(self, tournament: str | int) -> list[str]:
        """Names of the bots in `tournament`'s pending games that have been removed since.

        Those games cannot be played: a bot added again under the same name is a
        different bot, and the games stay credited to the one scheduled.
        """
        return self._scheduled_bot_names(
            tournament, " AND sg.status = 'pending' AND b.removed_at IS NOT NULL")

    def _scheduled_bot_names(self, tournament: str | int, condition: str) -> list[str]:
        """Sorted names of the bots in `tournament`'s scheduled games that meet `condition`
        (SQL on `sg`, the scheduled game, and `b`, the bot; empty for all)."""
        with self._lock:
            tournament_id = self._tournament_id(self._conn, tournament)
            rows = self._conn.execute(
                "SELECT DISTINCT b.name FROM scheduled_games sg, json_each(sg.bot_ids) j"
                " JOIN bots b ON b.id = j.value WHERE sg.tournament_id = ?" + condition
                + " ORDER BY b.name",
                (tournament_id,),
            ).fetchall()
        return [str(row["name"]) for row in rows]

    def schedule_progress(self, tournament: str | int) -> tuple[int, int]:
        """(games done, games scheduled) for a tournament."""
        with self._lock:
            tournament_id = self._tournament_id(self._conn, tournament)
            row = self._conn.execute(
                "SELECT COALESCE(SUM(status = 'done'), 0), COUNT(*)"
                " FROM scheduled_games WHERE tournament_id = ?",
                (tournament_id,),
            ).fetchone()
        return int(row[0]), int(row[1])

    def _scheduled(self, tournament: str | int, *, pending_only: bool) -> list[ScheduledGame]:
        query = "SELECT * FROM scheduled_games WHERE tournament_id = ?"
        if pending_only:
            query += " AND status = 'pending'"
        with self._lock:
            tournament_id = self._tournament_id(self._conn, tournament)
            rows = self._conn.execute(query + " ORDER BY game_index", (tournament_id,)).fetchall()
            names = self._bot_names(
                self._conn, (bot for row in rows for bot in json.loads(row["bot_ids"]))
            )
        return [_scheduled_game(row, names) for row in rows]

    def _scheduled_row(self, conn: sqlite3.Connection, scheduled_id: int) -> sqlite3.Row:
        row: sqlite3.Row | None = conn.execute(
            "SELECT * FROM scheduled_games WHERE id = ?", (scheduled_id,)
        ).fetchone()
        if row is None:
            raise UnknownGame(f"no scheduled game {scheduled_id}")
        return row

    # -- games ----------------------------------------------------------------

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
    ) -> GameSummary:
        """Store a finished game and, if `rated`, update the ratings; all or nothing.

        For a scheduled game (`scheduled_game_id`), the seats, seed and teams
        must be the schedule's, the scheduled game is marked done, and the
        game counts for the tournament's own ratings as well as the overall
        ones. Recording a scheduled game twice raises `AlreadyRecorded` and
        changes nothing. `events` is the replay log as JSON objects.
        """
        terminations = _seat_terminations(seat_terminations)
        _check_game_shape(seats, outcome, terminations)
        with self._transaction() as conn:
            tournament_id, bot_ids = self._game_participants(
                conn, scheduled_game_id, seats, seed, teams
            )
            game_id = self._insert_game(
                conn, tournament_id, rules, seed, teams, outcome, rated, events, actions,
                started_at, finished_at,
            )
            self._insert_seats(conn, game_id, bot_ids, outcome, terminations)
            if scheduled_game_id is not None:
                conn.execute(
                    "UPDATE scheduled_games SET status = 'done', game_id = ? WHERE id = ?",
                    (game_id, scheduled_game_id),
                )
            if rated:
                for scope in (None, tournament_id) if tournament_id is not None else (None,):
                    self._apply_ratings(conn, game_id, scope, bot_ids, outcome, teams)
            return self._summaries(conn, "WHERE g.id = ?", (game_id,))[0]

    def _game_participants(
        self,
        conn: sqlite3.Connection,
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
            raise InvalidInput(
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
        conn: sqlite3.Connection,
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
    ) -> int:
        cursor = conn.execute(
            "INSERT INTO games (tournament_id, rules, seed, teams, termination, hands_played,"
            " rated, events, actions, started_at, finished_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (tournament_id, _json(dict(rules)), seed,
             None if teams is None else _json(_teams_tuple(teams)),
             Termination(outcome.termination).value, outcome.hands_played, int(rated),
             _json([dict(event) for event in events]), _json(list(actions)),
             _timestamp(started_at), _timestamp(finished_at)),
        )
        return int(cursor.lastrowid or 0)

    @staticmethod
    def _insert_seats(
        conn: sqlite3.Connection,
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

    def _apply_ratings(
        self,
        conn: sqlite3.Connection,
        game_id: int,
        tournament_id: int | None,
        bot_ids: Sequence[int],
        outcome: Outcome,
        teams: Sequence[Sequence[int]] | None,
    ) -> None:
        before = {bot: self._skill(conn, bot, tournament_id) for bot in bot_ids}
        try:
            after = rating.rate_game(before, bot_ids, outcome.ranks, teams)
        except rating.RatingError as exc:
            raise InvalidInput(f"game can't be rated: {exc}") from None
        for bot, skill in after.items():
            seat = bot_ids.index(bot)
            won = int(outcome.ranks[seat] == 0)
            self._save_rating(conn, bot, tournament_id, skill, won, outcome.scores[seat])
            conn.execute(
                "INSERT INTO rating_history (game_id, bot_id, tournament_id, mu, sigma)"
                " VALUES (?, ?, ?, ?, ?)",
                (game_id, bot, tournament_id, skill.mu, skill.sigma),
            )

    @staticmethod
    def _skill(conn: sqlite3.Connection, bot_id: int, tournament_id: int | None) -> rating.Skill:
        row = conn.execute(
            "SELECT mu, sigma FROM ratings WHERE bot_id = ? AND tournament_id IS ?",
            (bot_id, tournament_id),
        ).fetchone()
        return rating.DEFAULT_SKILL if row is None else rating.Skill(row["mu"], row["sigma"])

    @staticmethod
    def _save_rating(
        conn: sqlite3.Connection,
        bot_id: int,
        tournament_id: int | None,
        skill: rating.Skill,
        won: int,
        points: int,
    ) -> None:
        updated = conn.execute(
            "UPDATE ratings SET mu = ?, sigma = ?, games = games + 1, wins = wins + ?,"
            " points = points + ? WHERE bot_id = ? AND tournament_id IS ?",
            (skill.mu, skill.sigma, won, points, bot_id, tournament_id),
        )
        if updated.rowcount == 0:
            conn.execute(
                "INSERT INTO ratings (bot_id, tournament_id, mu, sigma, games, wins, points)"
                " VALUES (?, ?, ?, ?, 1, ?, ?)",
                (bot_id, tournament_id, skill.mu, skill.sigma, won, points),
            )

    def get_game(self, game_id: int) -> StoredGame:
        """A finished game with its replay log; `UnknownGame` if there is none."""
        if not 0 <= game_id < 2**63:  # beyond SQLite's integers
            raise UnknownGame(f"no game {game_id}")
        with self._lock:
            summaries = self._summaries(self._conn, "WHERE g.id = ?", (game_id,))
            if not summaries:
                raise UnknownGame(f"no game {game_id}")
            logs = self._conn.execute(
                "SELECT events, actions FROM games WHERE id = ?", (game_id,)
            ).fetchone()
        return _with_logs(summaries[0], logs)

    def games(
        self,
        *,
        tournament: str | int | None = None,
        bot: str | None = None,
        limit: int | None = None,
    ) -> list[GameSummary]:
        """Finished games, newest first, optionally of one tournament and/or one bot."""
        clauses: list[str] = []
        params: list[Any] = []
        with self._lock:
            if tournament is not None:
                clauses.append("g.tournament_id = ?")
                params.append(self._tournament_id(self._conn, tournament))
            if bot is not None:
                clauses.append("g.id IN (SELECT s.game_id FROM game_seats s"
                               " JOIN bots b ON b.id = s.bot_id WHERE b.name = ?)")
                params.append(bot)
            where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
            where += " ORDER BY g.id DESC"
            if limit is not None:
                where += " LIMIT ?"
                params.append(limit)
            return self._summaries(self._conn, where, tuple(params))

    def _summaries(
        self, conn: sqlite3.Connection, where: str, params: tuple[Any, ...]
    ) -> list[GameSummary]:
        rows = conn.execute(
            "SELECT g.id, g.tournament_id, g.rules, g.seed, g.teams, g.termination,"
            " g.hands_played, g.rated, g.started_at, g.finished_at, sg.id AS scheduled_game_id"
            " FROM games g LEFT JOIN scheduled_games sg ON sg.game_id = g.id " + where,
            params,
        ).fetchall()
        return [self._summary(conn, row) for row in rows]

    @staticmethod
    @_decoding("game")
    def _summary(conn: sqlite3.Connection, row: sqlite3.Row) -> GameSummary:
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
        )

    # -- ratings --------------------------------------------------------------

    def ratings(self, tournament: str | int | None = None) -> list[Rating]:
        """Ratings of every bot with a rated game, overall or within one tournament.

        Ordered best first, as `rating.ranked` orders them (the leaderboard's order).
        """
        with self._lock:
            tournament_id = (
                None if tournament is None else self._tournament_id(self._conn, tournament)
            )
            rows = self._conn.execute(
                "SELECT b.name, r.* FROM ratings r JOIN bots b ON b.id = r.bot_id"
                " WHERE r.tournament_id IS ?",
                (tournament_id,),
            ).fetchall()
        return rating.ranked(
            Rating(bot=row["name"], tournament_id=row["tournament_id"], mu=row["mu"],
                   sigma=row["sigma"], games=row["games"], wins=row["wins"],
                   points=row["points"])
            for row in rows
        )

    def rating_history(self, bot: str, tournament: str | int | None = None) -> list[RatingPoint]:
        """A bot's skill after each of its rated games, oldest first.

        `bot` names an active bot, or else the most recently removed bot of that name.
        """
        with self._lock:
            row = self._conn.execute(
                "SELECT id FROM bots WHERE name = ? ORDER BY removed_at IS NULL DESC, id DESC",
                (bot,),
            ).fetchone()
            if row is None:
                raise UnknownBot(f"no bot named {bot!r}")
            tournament_id = (
                None if tournament is None else self._tournament_id(self._conn, tournament)
            )
            rows = self._conn.execute(
                "SELECT game_id, mu, sigma FROM rating_history"
                " WHERE bot_id = ? AND tournament_id IS ? ORDER BY game_id",
                (row["id"], tournament_id),
            ).fetchall()
        return [
            RatingPoint(bot=bot, game_id=r["game_id"], tournament_id=tournament_id,
                        mu=r["mu"], sigma=r["sigma"])
            for r in rows
        ]


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


@_decoding("bot")
def _bot(row: sqlite3.Row) -> Bot:
    removed = row["removed_at"]
    return Bot(
        id=row["id"],
        name=row["name"],
        kind=BotKind(row["kind"]),
        command=row["command"],
        created_at=datetime.fromisoformat(row["created_at"]),
        removed_at=None if removed is None else datetime.fromisoformat(removed),
    )


_TOURNAMENT_SELECT = (
    "SELECT t.*, r.tournament_id, r.token, r.host, r.pid, r.claimed_at, r.heartbeat_at"
    " FROM tournaments t LEFT JOIN tournament_runs r ON r.tournament_id = t.id"
)
"""A tournament with the claim of the run playing it, if any (for its live status)."""


@_decoding("tournament")
def _tournament(row: sqlite3.Row) -> Tournament:
    status = TournamentStatus(row["status"])
    claim = None if row["token"] is None else _live_claim(row, datetime.now(UTC))
    if status is TournamentStatus.RUNNING and claim is None:
        status = TournamentStatus.STOPPED  # the run that set it was killed
    return Tournament(
        id=row["id"],
        name=row["name"],
        format=row["format"],
        settings=json.loads(row["settings"]),
        rules=json.loads(row["rules"]),
        status=status,
        created_at=datetime.fromisoformat(row["created_at"]),
        run_by="" if claim is None else claim.describe(),
    )


def _live_claim(row: sqlite3.Row, now: datetime,
                stale_after: float = CLAIM_STALE_AFTER) -> RunClaim | None:
    """The claim in `row` if it still holds; None if it lapsed or cannot be read (a
    damaged claim holds nothing)."""
    try:
        claim = _run_claim(row)
        return None if claim.lapsed(now, stale_after) else claim
    except (DamagedDatabase, TypeError, OverflowError):
        return None


@_decoding("tournament run")
def _run_claim(row: sqlite3.Row) -> RunClaim:
    return RunClaim(
        tournament_id=row["tournament_id"],
        token=row["token"],
        host=row["host"],
        pid=row["pid"],
        claimed_at=datetime.fromisoformat(row["claimed_at"]),
        heartbeat_at=datetime.fromisoformat(row["heartbeat_at"]),
    )


def _teams_from_json(text: str | None) -> tuple[tuple[int, ...], ...] | None:
    return None if text is None else _teams_tuple(json.loads(text))


@_decoding("scheduled game")
def _scheduled_game(row: sqlite3.Row, names: Mapping[int, str]) -> ScheduledGame:
    bot_ids = tuple(int(bot) for bot in json.loads(row["bot_ids"]))
    return ScheduledGame(
        id=row["id"],
        tournament_id=row["tournament_id"],
        round=row["round"],
        table=row["table_number"],
        game_index=row["game_index"],
        seats=tuple(names[bot] for bot in bot_ids),
        bot_ids=bot_ids,
        seed=row["seed"],
        teams=_teams_from_json(row["teams"]),
        status=GameStatus(row["status"]),
        game_id=row["game_id"],
    )


@_decoding("game log")
def _with_logs(summary: GameSummary, logs: sqlite3.Row) -> StoredGame:
    fields = {name: getattr(summary, name) for name in GameSummary.__dataclass_fields__}
    return StoredGame(
        **fields,
        events=tuple(json.loads(logs["events"])),
        actions=tuple(json.loads(logs["actions"])),
    )
