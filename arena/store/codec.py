"""Between Python values and SQLite columns: JSON, timestamps, and the row decoders that
turn a damaged row into `DamagedDatabase`."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import ParamSpec, TypeVar

from arena.record import decisions_from_json
from arena.store.backend import Row
from arena.store.errors import (
    DamagedDatabase,
    InvalidInput,
)
from arena.store.records import (
    CLAIM_STALE_AFTER,
    Bot,
    BotKind,
    BotVersion,
    BuildStatus,
    GameStatus,
    GameSummary,
    RunClaim,
    ScheduledGame,
    StoredGame,
    Tournament,
    TournamentStatus,
)

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


@_decoding("bot")
def _bot(row: Row) -> Bot:
    removed = row["removed_at"]
    return Bot(
        id=row["id"],
        name=row["name"],
        kind=BotKind(row["kind"]),
        command=row["command"],
        created_at=datetime.fromisoformat(row["created_at"]),
        removed_at=None if removed is None else datetime.fromisoformat(removed),
        # A store opened at a version before migration 7 has no such column.
        read_only_paths=tuple(json.loads(row["read_only_paths"] or "[]"))
        if "read_only_paths" in row.keys() else (),  # noqa: SIM118 (`in` reads values)
        author_id=row["author_id"] if "author_id" in row.keys() else None,  # noqa: SIM118
    )


_VERSION_SELECT = (
    "SELECT b.*, v.base_name, v.version, v.sha256, v.manifest, v.runtime, v.folder,"
    " v.build_status, v.build_log, v.created_at AS version_created_at,"
    " p.name AS inherits_from_name FROM bot_versions v JOIN bots b ON b.id = v.bot_id"
    " LEFT JOIN bots p ON p.id = v.inherits_from"
)
"""A submitted version with its entrant row and the name of the version it inherits from."""


@_decoding("bot version")
def _bot_version(row: Row) -> BotVersion:
    return BotVersion(
        bot=_bot(row), base_name=row["base_name"], number=row["version"],
        sha256=row["sha256"], manifest=json.loads(row["manifest"]), runtime=row["runtime"],
        folder=row["folder"], build_status=BuildStatus(row["build_status"]),
        build_log=row["build_log"], inherits_from=row["inherits_from_name"],
        created_at=datetime.fromisoformat(row["version_created_at"]))


_TOURNAMENT_SELECT = (
    "SELECT t.*, r.tournament_id, r.token, r.host, r.pid, r.claimed_at, r.heartbeat_at"
    " FROM tournaments t LEFT JOIN tournament_runs r ON r.tournament_id = t.id"
)
"""A tournament with the claim of the run playing it, if any (for its live status)."""


ClaimAlive = Callable[[str], bool]
"""Whether the connection of the run whose claim has this token is still there (on
PostgreSQL; on SQLite always True, and the claim's pid and heartbeat tell)."""


@_decoding("tournament")
def _tournament(row: Row, alive: ClaimAlive) -> Tournament:
    status = TournamentStatus(row["status"])
    claim = None if row["token"] is None else _live_claim(row, datetime.now(UTC), alive)
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


def _live_claim(row: Row, now: datetime, alive: ClaimAlive,
                stale_after: float = CLAIM_STALE_AFTER) -> RunClaim | None:
    """The claim in `row` if it still holds; None if it lapsed, its run's connection is
    gone, or it cannot be read (a damaged claim holds nothing)."""
    try:
        claim = _run_claim(row)
        if claim.lapsed(now, stale_after) or not alive(claim.token):
            return None
        return claim
    except (DamagedDatabase, TypeError, OverflowError):
        return None


@_decoding("tournament run")
def _run_claim(row: Row) -> RunClaim:
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
def _scheduled_game(row: Row, names: Mapping[int, str]) -> ScheduledGame:
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
def _with_logs(summary: GameSummary, logs: Row) -> StoredGame:
    fields = {name: getattr(summary, name) for name in GameSummary.__dataclass_fields__}
    return StoredGame(
        **fields,
        events=tuple(json.loads(logs["events"])),
        actions=tuple(json.loads(logs["actions"])),
        decisions=None if logs["decisions"] is None else decisions_from_json(logs["decisions"]),
    )
