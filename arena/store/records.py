"""The values the store hands out: bots, tournaments, run claims, games and ratings."""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol

from arena.engine.outcome import Outcome
from arena.rating import RatingParameters
from arena.record import RECORD_FORMAT, RECORD_VERSION, Decision, GameRecord, SeatTermination

MIN_SEATS = 2
MAX_SEATS = 10


class BotKind(StrEnum):
    """How a bot reaches the arena."""

    MANAGED = "managed"
    """A command the platform launches and watches."""
    REMOTE = "remote"
    """Started by its owner anywhere; connects with its token."""


LADDER_FORMAT = "ladder"
"""The format a ladder is stored under among the tournaments (`arena.ladder`)."""


def tournament_kind(format_: str) -> str:
    """What a stored tournament of `format_` is called: "ladder" or "tournament"."""
    return "ladder" if format_ == LADDER_FORMAT else "tournament"


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
class Bot:
    """A registered bot. Its token is never stored, only a hash of it."""

    id: int
    name: str
    kind: BotKind
    command: str | None
    created_at: datetime
    removed_at: datetime | None
    read_only_paths: tuple[str, ...] = ()
    """Paths an operator's managed bot is shown read-only in its sandbox besides what its
    command names (given when it was added, with `--read-only`)."""
    author_id: int | None = None
    """The author who owns the bot; None for the organizer's bots."""

    @property
    def active(self) -> bool:
        """True until the bot is removed."""
        return self.removed_at is None


class BuildStatus(StrEnum):
    """Where a submitted version's build stands; only a built version plays."""

    BUILDING = "building"
    OK = "ok"
    """Built (or nothing to build): the version can play."""
    FAILED = "failed"
    """The build failed or ran out of time: the version never plays."""


@dataclass(frozen=True, slots=True)
class BotVersion:
    """A submitted version of a bot: an entrant of its own (named `base@number`, so its
    games and ratings are its own) made from files with the hash `sha256`."""

    bot: Bot
    base_name: str
    number: int
    sha256: str
    manifest: dict[str, Any]
    runtime: str
    folder: str
    """Where its files are unpacked, and where its commands run."""
    build_status: BuildStatus
    build_log: str
    inherits_from: str | None
    """The version whose ratings it started from (`--inherit-rating`), if any."""
    created_at: datetime

    @property
    def name(self) -> str:
        """Its entrant name, `base@number`."""
        return self.bot.name

    @property
    def build_command(self) -> str | None:
        """The manifest's build command, if it has one."""
        build = self.manifest.get("build")
        return None if build is None else str(build)


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
    forfeited_seat: int | None
    """The seat whose forfeit ended the game, or None when it ended by the rules."""


@dataclass(frozen=True, slots=True)
class StoredGame(GameSummary):
    """A finished game with everything needed to replay it, and the decisions its seats
    owed (None for a game stored without them, as before they were kept)."""

    events: tuple[dict[str, Any], ...]
    actions: tuple[Any, ...]
    decisions: tuple[Decision, ...] | None = None

    def game_record(self) -> GameRecord:
        """The game in the game-record format, ready to replay or to write to a file;
        a stored rule set or action that does not decode raises `GameRecordError`."""
        return GameRecord.from_dict({
            "format": RECORD_FORMAT, "version": RECORD_VERSION, "rules": self.rules,
            "seed": self.seed, "seats": list(self.seats),
            "teams": None if self.teams is None else [list(team) for team in self.teams],
            "actions": list(self.actions), "forfeited_seat": self.forfeited_seat,
            "seat_terminations": [t.value for t in self.seat_terminations],
            "outcome": {"termination": self.outcome.termination.value,
                        "scores": list(self.outcome.scores), "ranks": list(self.outcome.ranks),
                        "hands_played": self.outcome.hands_played}})


@dataclass(frozen=True, slots=True)
class Pool:
    """A set of games rated together (see `arena.rating.pools`): its key, what it holds
    in words, its tournament (for a tournament's own pool) and its parameters."""

    key: str
    description: str
    tournament_id: int | None
    parameters: RatingParameters
    games: int


@dataclass(frozen=True, slots=True)
class Rating:
    """A bot's rating within one pool."""

    bot: str
    pool: str
    mu: float
    sigma: float
    games: int
    wins: int
    points: int


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """A bot's skill within one pool right after one of its rated games."""

    bot: str
    game_id: int
    pool: str
    mu: float
    sigma: float


@dataclass(frozen=True, slots=True)
class PoolGame:
    """A rated game of a pool as the statistics see it: seats, places and points, and the
    deal block it belongs to (every seat rotation of one duplicate deal shares a block)."""

    game_id: int
    block: tuple[int | str, ...]
    seats: tuple[str, ...]
    ranks: tuple[int, ...]
    scores: tuple[int, ...]
    teams: tuple[tuple[int, ...], ...] | None


class AuthorRole(StrEnum):
    """What someone other than the organizer may do on a hosted server."""

    AUTHOR = "author"
    """Enters bots: submits, runs their own remote bots, reads their own private views."""
    VIEWER = "viewer"
    """Reads what every participant sees."""


@dataclass(frozen=True, slots=True)
class Quota:
    """What one author may submit (each figure more than 0)."""

    submissions_per_hour: int = 10
    submissions_per_day: int = 50
    active_versions: int = 5
    """Versions not retired and not failed, at once."""
    upload_bytes: int = 16 * 1024 * 1024
    """The largest archive (as packed); the server's own limit still applies."""
    build_seconds: int = 300
    """The longest a build may take; the server's own limit still applies."""


@dataclass(frozen=True, slots=True)
class Author:
    """Someone the organizer let in, with a token of their own (kept as a hash)."""

    id: int
    name: str
    role: AuthorRole
    may_run: bool
    """Whether the organizer granted them creating and running tournaments, matches and
    ladders."""
    quota: Quota
    created_at: datetime
    removed_at: datetime | None

    @property
    def active(self) -> bool:
        """True until the author is removed."""
        return self.removed_at is None


@dataclass(frozen=True, slots=True)
class Invite:
    """An invite code's places (the code itself is kept as a hash)."""

    id: int
    role: AuthorRole
    cap: int
    used: int
    created_at: datetime


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One line of the audit trail: who did what, when, and how it ended."""

    at: datetime
    actor: str
    role: str
    action: str
    target: str
    result: str
    detail: str
