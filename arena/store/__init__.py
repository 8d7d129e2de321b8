"""The store: bots, tournaments, their schedules, finished games and ratings, in an
SQLite file (the default) or a PostgreSQL database (`Store.open` of a `postgresql://`
URL; `backend` says what differs, and the rules SQL keeps to so it runs on both).

One `Store` owns one connection (and, opened with `readers=N`, up to N more that only
read, for callers that must not wait for the writer). Every write is one transaction, and
`record_game` writes a finished game, marks its scheduled game done and
applies the rating update together, so a tournament killed at any moment
resumes without losing or double-counting a game. The schema evolves through
the numbered `MIGRATIONS`, each applied in its own transaction and recorded in
the `schema_migrations` table. A PostgreSQL store whose connection breaks reconnects
for up to `RECONNECT_WITHIN` seconds and runs the call in flight again (`database`
says when that is safe); a run's claim taken over meanwhile raises `ClaimTakenOver`.

The package is split by kind: `errors`, `records` (the values handed out), `values`
(what is accepted), `schema` (migrations), `codec` (columns and row decoders),
`database` (the connection and transactions), `backend` with `sqlite_backend` and
`postgres_backend`, `transfer` (copying a history between databases) and one part of
`Store` for each kind of record (`bots`, `tournaments`, `schedules`, `games`, `ratings`,
`versions`, `timetables`).
"""

from __future__ import annotations

from arena.store.authors import (
    AuthorRecords,
    InviteRefused,
    QuotaExceeded,
    UnknownAuthor,
)
from arena.store.backend import STATEMENT_TIMEOUT, ConnectionSettings
from arena.store.bots import BotRecords
from arena.store.database import RECONNECT_WITHIN
from arena.store.errors import (
    AlreadyRecorded,
    ClaimTakenOver,
    CommitUncertain,
    ConnectionLost,
    DamagedDatabase,
    DatabaseError,
    DuplicateName,
    EntrantRemoved,
    InvalidInput,
    NoDatabase,
    NotOwner,
    NotWritable,
    ReconnectFailed,
    SchemaError,
    StatementTimeout,
    StoreError,
    TournamentBusy,
    UnknownBot,
    UnknownGame,
    UnknownTimetable,
    UnknownTournament,
)
from arena.store.games import GameRecords
from arena.store.ratings import RatingRecords, UnknownPool
from arena.store.records import (
    CLAIM_STALE_AFTER,
    LADDER_FORMAT,
    MAX_SEATS,
    MIN_SEATS,
    AuditEntry,
    Author,
    AuthorRole,
    Bot,
    BotKind,
    BotVersion,
    BuildStatus,
    GameStatus,
    GameSummary,
    Invite,
    Pool,
    PoolGame,
    Quota,
    Rating,
    RatingPoint,
    RunClaim,
    ScheduledGame,
    ScheduleEntry,
    StoredGame,
    Tournament,
    TournamentStatus,
    tournament_kind,
)
from arena.store.schedules import ScheduleRecords
from arena.store.schema import MIGRATIONS, Migration
from arena.store.timetables import MAX_TIMETABLE_NAME, Edition, Timetable, TimetableRecords
from arena.store.tournaments import TournamentRecords
from arena.store.values import NAME, hash_token
from arena.store.versions import VersionRecords

__all__ = [
    "AuditEntry",
    "Author",
    "AuthorRole",
    "Invite",
    "InviteRefused",
    "Quota",
    "QuotaExceeded",
    "UnknownAuthor",
    "AlreadyRecorded",
    "Bot",
    "ClaimTakenOver",
    "CommitUncertain",
    "ConnectionLost",
    "ConnectionSettings",
    "DatabaseError",
    "STATEMENT_TIMEOUT",
    "StatementTimeout",
    "BotKind",
    "BotVersion",
    "BuildStatus",
    "CLAIM_STALE_AFTER",
    "DamagedDatabase",
    "DuplicateName",
    "Edition",
    "EntrantRemoved",
    "GameStatus",
    "GameSummary",
    "InvalidInput",
    "LADDER_FORMAT",
    "MAX_SEATS",
    "MAX_TIMETABLE_NAME",
    "MIGRATIONS",
    "MIN_SEATS",
    "Migration",
    "NAME",
    "NoDatabase",
    "NotOwner",
    "NotWritable",
    "RECONNECT_WITHIN",
    "ReconnectFailed",
    "Rating",
    "Pool",
    "PoolGame",
    "RatingPoint",
    "UnknownPool",
    "RunClaim",
    "ScheduleEntry",
    "ScheduledGame",
    "SchemaError",
    "Store",
    "StoreError",
    "StoredGame",
    "Timetable",
    "Tournament",
    "TournamentBusy",
    "TournamentStatus",
    "UnknownBot",
    "UnknownGame",
    "UnknownTimetable",
    "UnknownTournament",
    "hash_token",
    "tournament_kind",
]


class Store(AuthorRecords, BotRecords, TimetableRecords, TournamentRecords, ScheduleRecords,
            GameRecords, RatingRecords, VersionRecords):
    """The arena database. Open with `Store.open(path_or_url)`; use as a context manager.

    Safe to call from any thread: a lock serialises access to the writer's connection;
    opened with `readers=N`, the methods that only read run on up to N connections of
    their own, side by side, without that lock.
    """
