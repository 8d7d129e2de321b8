"""Submitted bot versions: each an entrant of its own (`base@number`), with its files'
hash, manifest, folder and build."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from arena.store.authors import check_submission_quota
from arena.store.backend import Connection, Row
from arena.store.codec import (
    _VERSION_SELECT,
    _bot_version,
    _json,
    _now,
)
from arena.store.database import (
    Database,
    reads,
)
from arena.store.errors import (
    DuplicateName,
    InvalidInput,
    NotOwner,
    UnknownBot,
)
from arena.store.records import (
    BotKind,
    BotVersion,
    BuildStatus,
    Quota,
    Rating,
)
from arena.store.values import (
    _check_name,
    hash_token,
)

MAX_BUILD_LOG_CHARS = 64 * 1024
"""How much of a build's log is kept: its end, where a failure shows."""


class VersionRecords(Database):
    """Submitted bot versions."""

    def check_version_name(self, base_name: str) -> None:
        """Refuse (`DuplicateName`) to give versions to `base_name` when a bot added with
        `arena bot add` has that name; `InvalidInput` for a name that is not one."""
        _check_name("bot", base_name)
        with self._lock:
            self._check_base_free(self._conn, base_name)

    @staticmethod
    def _check_base_free(conn: Connection, base_name: str) -> None:
        row = conn.execute(
            "SELECT 1 FROM bots b WHERE b.name = ? AND b.removed_at IS NULL AND NOT EXISTS"
            " (SELECT 1 FROM bot_versions v WHERE v.bot_id = b.id)", (base_name,)).fetchone()
        if row is not None:
            raise DuplicateName(
                f"a bot named {base_name!r} was added with `arena bot add`; submit the "
                "versions under another name (--name), or remove it first")

    def add_version(self, base_name: str, sha256: str, manifest: Mapping[str, Any],
                    run: str, runtime: str, folder: str, *,
                    inherit_rating: bool = False, author_id: int | None = None,
                    quota: Quota | None = None) -> BotVersion:
        """Create the next version of `base_name`: a managed entrant `base@number` running
        `run` in `folder`. With a build command in `manifest` it is BUILDING until
        `finish_build`; without one it is built at once. With `inherit_rating`, its first
        game in each pool starts from the skill there of the latest built version.

        A bot's versions belong to whoever submitted its first (`author_id`, None for the
        organizer): `DuplicateName` for anyone else. An author's `quota` is checked in the
        same transaction (`QuotaExceeded`)."""
        self.check_version_name(base_name)
        with self._transaction() as conn:
            self._check_base_free(conn, base_name)
            if self._authored:
                self._check_owner(conn, base_name, author_id)
                if author_id is not None and quota is not None:
                    check_submission_quota(conn, author_id, quota)
            number = int(conn.execute(
                "SELECT COALESCE(MAX(version), 0) + 1 FROM bot_versions WHERE base_name = ?",
                (base_name,)).fetchone()[0])
            parent = (self._latest_row(conn, base_name, built_only=True)
                      if inherit_rating else None)
            token = secrets.token_urlsafe(32)  # a managed bot gets session tokens instead
            owner = ((", author_id", ", ?", (author_id,)) if self._authored
                     else ("", "", ()))
            bot_id = int(conn.execute(
                f"INSERT INTO bots (name, kind, command, token_hash, created_at{owner[0]})"
                f" VALUES (?, ?, ?, ?, ?{owner[1]}) RETURNING id",
                (f"{base_name}@{number}", BotKind.MANAGED.value, run, hash_token(token),
                 _now(), *owner[2])).fetchone()[0])
            status = BuildStatus.OK if manifest.get("build") is None else BuildStatus.BUILDING
            conn.execute(
                "INSERT INTO bot_versions (bot_id, base_name, version, sha256, manifest,"
                " runtime, folder, build_status, build_log, inherits_from, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (bot_id, base_name, number, sha256, _json(dict(manifest)), runtime,
                 folder, status.value, "", None if parent is None else parent["id"], _now()))
            row = conn.execute(f"{_VERSION_SELECT} WHERE v.bot_id = ?",
                               (bot_id,)).fetchone()
        return _bot_version(row)

    def check_version_owner(self, base_name: str, author_id: int | None) -> None:
        """Refuse (`NotOwner`) versions of `base_name` from anyone (`author_id`, None for
        the organizer) but the one who submitted its first."""
        if self._authored:
            with self._lock:
                self._check_owner(self._conn, base_name, author_id)

    def _check_owner(self, conn: Connection, base_name: str, author_id: int | None) -> None:
        """Refuse versions of `base_name` from anyone but the one who submitted its first."""
        row = conn.execute(
            "SELECT b.author_id FROM bots b JOIN bot_versions v ON v.bot_id = b.id"
            " WHERE v.base_name = ? ORDER BY v.version LIMIT 1", (base_name,)).fetchone()
        if row is not None and row[0] != author_id:
            raise NotOwner(f"bot {base_name!r} belongs to someone else: submit your bot "
                           "under a name of your own (--name)")

    def finish_build(self, name: str, ok: bool, log: str) -> BotVersion:
        """Record the end of version `name`'s build: OK or FAILED, and its log's end."""
        status = BuildStatus.OK if ok else BuildStatus.FAILED
        with self._transaction() as conn:
            version = self._version_row(conn, name)
            conn.execute("UPDATE bot_versions SET build_status = ?, build_log = ?"
                         " WHERE bot_id = ?",
                         (status.value, log[-MAX_BUILD_LOG_CHARS:], version["id"]))
            row = self._version_row(conn, name)
        return _bot_version(row)

    def bot_version(self, name: str) -> BotVersion | None:
        """The submitted version with entrant name `name` (`base@number`), or None for a
        bot added with `arena bot add` or an unknown name."""
        with self._lock:
            row = self._conn.execute(f"{_VERSION_SELECT} WHERE b.name = ?"
                                     " ORDER BY b.id DESC LIMIT 1", (name,)).fetchone()
        return None if row is None else _bot_version(row)

    @reads
    def bot_versions(self, base_name: str) -> list[BotVersion]:
        """Every version of `base_name`, oldest first (removed ones too)."""
        with self._lock:
            rows = self._conn.execute(f"{_VERSION_SELECT} WHERE v.base_name = ?"
                                      " ORDER BY v.version", (base_name,)).fetchall()
        return [_bot_version(row) for row in rows]

    def latest_version(self, base_name: str) -> BotVersion | None:
        """The newest version of `base_name`, whatever its build, or None."""
        with self._lock:
            row = self._latest_row(self._conn, base_name, built_only=False)
        return None if row is None else _bot_version(row)

    @staticmethod
    def _latest_row(conn: Connection, base_name: str, *,
                    built_only: bool) -> Row | None:
        built = f" AND v.build_status = '{BuildStatus.OK.value}'" if built_only else ""
        row: Row | None = conn.execute(
            f"{_VERSION_SELECT} WHERE v.base_name = ? AND b.removed_at IS NULL{built}"
            " ORDER BY v.version DESC LIMIT 1", (base_name,)).fetchone()
        return row

    @staticmethod
    def _version_row(conn: Connection, name: str) -> Row:
        row: Row | None = conn.execute(
            f"{_VERSION_SELECT} WHERE b.name = ? ORDER BY b.id DESC LIMIT 1",
            (name,)).fetchone()
        if row is None:
            raise UnknownBot(f"no submitted version {name!r}")
        return row

    def latest_entrants(self) -> list[str]:
        """The entrant every active bot stands for now, sorted: a bot added with `arena bot
        add` itself, a submitted bot its newest built version (a bot with no built version
        yet stands for none). What a ladder plays, and a timetabled tournament enters."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT b.name FROM bots b WHERE b.removed_at IS NULL AND NOT EXISTS"
                " (SELECT 1 FROM bot_versions v WHERE v.bot_id = b.id)"
                " UNION SELECT b.name FROM bots b JOIN bot_versions v ON v.bot_id = b.id"
                " WHERE b.removed_at IS NULL AND v.build_status = ? AND v.version ="
                " (SELECT MAX(w.version) FROM bot_versions w JOIN bots c ON c.id = w.bot_id"
                "  WHERE w.base_name = v.base_name AND c.removed_at IS NULL"
                "  AND w.build_status = ?)",
                (BuildStatus.OK.value, BuildStatus.OK.value)).fetchall()
        return sorted(str(row[0]) for row in rows)

    def latest_entrants_per_author(self, per_author: int | None) -> list[str]:
        """`latest_entrants`, at most `per_author` of each author's bots (their most
        recently created ones); the organizer's bots are not capped."""
        entrants = self.latest_entrants()
        if per_author is None:
            return entrants
        if per_author <= 0:
            raise InvalidInput(f"bots per author must be more than 0, got {per_author}")
        with self._lock:
            rows = self._conn.execute(
                "SELECT name, author_id, created_at, id FROM bots WHERE removed_at IS NULL"
            ).fetchall() if self._authored else []
        owners = {str(row[0]): (row[1], str(row[2]), int(row[3])) for row in rows}
        taken: dict[int, int] = {}
        kept: set[str] = set()
        ordered = sorted(entrants, key=lambda n: owners.get(n, (None, "", 0))[1:],
                         reverse=True)
        for name in ordered:
            owner = owners.get(name, (None, "", 0))[0]
            if owner is None:
                kept.add(name)
                continue
            if taken.get(owner, 0) < per_author:
                taken[owner] = taken.get(owner, 0) + 1
                kept.add(name)
        return sorted(kept)

    @reads
    def version_numbers(self) -> dict[str, tuple[str, int]]:
        """Every submitted version's entrant name → (base name, number)."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT b.name, v.base_name, v.version FROM bot_versions v"
                " JOIN bots b ON b.id = v.bot_id").fetchall()
        return {str(row[0]): (str(row[1]), int(row[2])) for row in rows}

    @reads
    def latest_rating(self, name: str) -> Rating | None:
        """Bot `name`'s rating in the rule-set pool of its latest rated game, or None if it
        has none."""
        with self._lock:
            row = self._conn.execute(
                "SELECT b.name, p.key, r.* FROM bots b"
                " JOIN pool_rating_history h ON h.bot_id = b.id"
                " JOIN pools p ON p.id = h.pool_id AND p.tournament_id IS NULL"
                " JOIN pool_ratings r ON r.pool_id = p.id AND r.bot_id = b.id"
                " WHERE b.name = ? ORDER BY b.removed_at IS NULL DESC, b.id DESC,"
                " h.game_id DESC LIMIT 1", (name,)).fetchone()
        if row is None:
            return None
        return Rating(bot=row["name"], pool=row["key"], mu=row["mu"], sigma=row["sigma"],
                      games=row["games"], wins=row["wins"], points=row["points"])
