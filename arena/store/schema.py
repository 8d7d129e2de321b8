"""The schema, as numbered migrations applied in order, each in one transaction."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from arena.store.backend import Connection
from arena.store.pools import POOL_TABLES, rebuild_pools_before_versions


@dataclass(frozen=True, slots=True)
class Migration:
    """One numbered schema change: its statements, then its `rebuild` of data derived
    from what is stored (if any), run in a single transaction.

    The statements are SQLite's, and PostgreSQL runs them with its own column types
    (`Backend.ddl`). Only where SQLite's SQL has no portable form does a migration
    give `postgres`, the statements PostgreSQL runs instead.
    """

    version: int
    description: str
    statements: tuple[str, ...]
    rebuild: Callable[[Connection], None] | None = None
    postgres: tuple[str, ...] | None = None

    def statements_for(self, backend: str) -> tuple[str, ...]:
        """The statements `backend` ('sqlite' or 'postgresql') runs."""
        if backend == "postgresql" and self.postgres is not None:
            return self.postgres
        return self.statements


TIMESTAMP_COLUMNS: dict[str, tuple[str, ...]] = {
    "schema_migrations": ("applied_at",),
    "bots": ("created_at", "removed_at"),
    "tournaments": ("created_at",),
    "games": ("started_at", "finished_at"),
    "tournament_runs": ("claimed_at", "heartbeat_at"),
    "bot_versions": ("created_at",),
    "timetables": ("first_due_at", "next_due_at", "created_at", "removed_at"),
    "timetable_editions": ("due_at",),
    "authors": ("created_at", "removed_at"),
    "invites": ("created_at", "removed_at"),
    "audit": ("at",),
}
"""The columns that hold a moment, per table: ISO 8601 text in UTC on SQLite, and from
migration 10 on, `timestamptz` on PostgreSQL (read back as the same text)."""

_INDEXES_10 = (
    # a tournament's games, newest first: its game list, its seat endings, its export
    "CREATE INDEX games_tournament ON games (tournament_id, id)",
    # the pools a game was rated in, and the latest game of any pool (the leaderboard's
    # default pool)
    "CREATE INDEX pool_games_game ON pool_games (game_id)",
)

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
            "CREATE UNIQUE INDEX ratings_scope ON ratings (bot_id, COALESCE(tournament_id, 0))",
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
    Migration(
        3,
        "a forfeit is a column of its game, not a marker after its actions",
        (
            "ALTER TABLE games ADD COLUMN forfeited_seat INTEGER",
            """UPDATE games SET forfeited_seat = json_extract(actions, '$[#-1].forfeit'),
                    actions = json_remove(actions, '$[#-1]')
                WHERE json_type(actions, '$[#-1].forfeit') = 'integer'""",
        ),
        # A PostgreSQL store starts at this version or later: it holds no marker to move.
        postgres=("ALTER TABLE games ADD COLUMN forfeited_seat INTEGER",),
    ),
    Migration(
        4,
        "ratings live in pools: each tournament, and each rule set and table size",
        (*POOL_TABLES, "DROP TABLE rating_history", "DROP TABLE ratings"),
        rebuild=rebuild_pools_before_versions,
    ),
    Migration(
        5,
        "submitted bots: each version an entrant of its own, with its files and build",
        (
            """CREATE TABLE bot_versions (
                bot_id INTEGER PRIMARY KEY REFERENCES bots (id),
                base_name TEXT NOT NULL,
                version INTEGER NOT NULL,
                sha256 TEXT NOT NULL,
                manifest TEXT NOT NULL,
                runtime TEXT NOT NULL,
                folder TEXT NOT NULL,
                build_status TEXT NOT NULL
                    CHECK (build_status IN ('building', 'ok', 'failed')),
                build_log TEXT NOT NULL,
                inherits_from INTEGER REFERENCES bots (id),
                created_at TEXT NOT NULL,
                UNIQUE (base_name, version)
            )""",
        ),
    ),
    Migration(
        6,
        "tournaments on a timetable, and the editions each has made",
        (
            """CREATE TABLE timetables (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                format TEXT NOT NULL,
                settings TEXT NOT NULL,
                rules TEXT NOT NULL,
                entrants TEXT,
                share REAL NOT NULL CHECK (share > 0 AND share <= 1),
                first_due_at TEXT NOT NULL,
                every_seconds INTEGER CHECK (every_seconds > 0),
                next_due_at TEXT,
                editions INTEGER NOT NULL,
                created_at TEXT NOT NULL,
                removed_at TEXT
            )""",
            "CREATE UNIQUE INDEX timetables_active_name ON timetables (name)"
            " WHERE removed_at IS NULL",
            """CREATE TABLE timetable_editions (
                tournament_id INTEGER PRIMARY KEY REFERENCES tournaments (id),
                timetable_id INTEGER NOT NULL REFERENCES timetables (id),
                number INTEGER NOT NULL,
                due_at TEXT NOT NULL,
                UNIQUE (timetable_id, number)
            )""",
        ),
    ),
    Migration(
        7,
        "an operator's bot may be shown extra read-only paths, named when it is added",
        ("ALTER TABLE bots ADD COLUMN read_only_paths TEXT",),
    ),
    Migration(
        8,
        "authors with their roles, tokens and quotas; who owns each bot; invites; audit;"
        " at most K bots per author in a timetabled tournament",
        (
            """CREATE TABLE authors (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                role TEXT NOT NULL CHECK (role IN ('author', 'viewer')),
                token_hash TEXT NOT NULL UNIQUE,
                may_run INTEGER NOT NULL CHECK (may_run IN (0, 1)),
                quota TEXT NOT NULL,
                created_at TEXT NOT NULL,
                removed_at TEXT
            )""",
            "CREATE UNIQUE INDEX authors_active_name ON authors (name) WHERE removed_at IS NULL",
            "ALTER TABLE bots ADD COLUMN author_id INTEGER REFERENCES authors (id)",
            "CREATE INDEX bots_author ON bots (author_id)",
            """CREATE TABLE invites (
                id INTEGER PRIMARY KEY,
                code_hash TEXT NOT NULL UNIQUE,
                role TEXT NOT NULL CHECK (role IN ('author', 'viewer')),
                cap INTEGER NOT NULL CHECK (cap > 0),
                used INTEGER NOT NULL,
                created_at TEXT NOT NULL,
                removed_at TEXT
            )""",
            """CREATE TABLE audit (
                id INTEGER PRIMARY KEY,
                at TEXT NOT NULL,
                actor TEXT NOT NULL,
                role TEXT NOT NULL,
                author_id INTEGER REFERENCES authors (id),
                action TEXT NOT NULL,
                target TEXT NOT NULL,
                result TEXT NOT NULL,
                detail TEXT NOT NULL
            )""",
            "CREATE INDEX audit_author ON audit (author_id, id)",
            "ALTER TABLE timetables ADD COLUMN per_author INTEGER CHECK (per_author > 0)",
        ),
    ),
    Migration(
        9,
        "every decision of a game, with its time and what came of it (none for older games)",
        ("ALTER TABLE games ADD COLUMN decisions TEXT",),
    ),
    Migration(
        10,
        "indexes for a tournament's games and a game's pools; on PostgreSQL, moments are"
        " timestamptz",
        _INDEXES_10,
        postgres=(*_INDEXES_10, *(
            f"ALTER TABLE {table} " + ", ".join(
                f"ALTER COLUMN {column} TYPE timestamptz USING {column}::timestamptz"
                for column in columns)
            for table, columns in TIMESTAMP_COLUMNS.items())),
    ),
)
"""Every schema change in order; a new one goes at the end with the next version."""
