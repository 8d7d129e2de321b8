"""Authors (the people who enter bots in a hosted competition), their invites, quotas
and the audit trail of what every caller did.

The organizer is not an author: they hold the server's admin token, and the bots
they add belong to no author (`Bot.author_id` None). An author's token, like a bot's,
is kept only as a hash.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import asdict, fields
from datetime import UTC, datetime, timedelta
from typing import Any

from arena.store.codec import _json, _now
from arena.store.database import Database, reads
from arena.store.errors import DuplicateName, InvalidInput, StoreError
from arena.store.records import AuditEntry, Author, AuthorRole, Invite, Quota
from arena.store.values import _check_name, hash_token


class UnknownAuthor(StoreError):
    """No active author has that name."""


class QuotaExceeded(StoreError):
    """An author's quota refuses a submission; the message names the quota and when it
    frees."""


class InviteRefused(StoreError):
    """An invite code that is unknown, withdrawn or used up."""


AUDIT_DETAIL_CHARS = 500
"""The longest detail an audit entry keeps."""


def _author(row: Any) -> Author:
    removed = row["removed_at"]
    return Author(
        id=int(row["id"]), name=row["name"], role=AuthorRole(row["role"]),
        may_run=bool(row["may_run"]), quota=quota_from_json(row["quota"]),
        created_at=datetime.fromisoformat(row["created_at"]),
        removed_at=None if removed is None else datetime.fromisoformat(removed))


def quota_from_json(text: str) -> Quota:
    """A quota from its stored JSON; a key the store does not know is refused."""
    data = json.loads(text or "{}")
    known = {f.name for f in fields(Quota)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise InvalidInput(f"unknown quota {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    return Quota(**data)


def _check_quota(quota: Quota) -> None:
    for name, value in asdict(quota).items():
        if value <= 0:
            raise InvalidInput(f"quota {name.replace('_', ' ')} must be more than 0, got {value}")


def _role(role: AuthorRole | str) -> AuthorRole:
    try:
        return AuthorRole(role)
    except ValueError:
        raise InvalidInput(f"role {role!r} is not 'author' or 'viewer'") from None


class AuthorRecords(Database):
    """Authors, invites, submission quotas and the audit trail."""

    def add_author(self, name: str, role: AuthorRole | str = AuthorRole.AUTHOR, *,
                   may_run: bool = False, quota: Quota | None = None) -> tuple[Author, str]:
        """Add an author (or a viewer); return them and their token (shown once)."""
        _check_name("author", name)
        role = _role(role)
        quota = quota or Quota()
        _check_quota(quota)
        token = "author-" + secrets.token_urlsafe(32)
        with self._transaction() as conn:
            if conn.execute("SELECT 1 FROM authors WHERE name = ? AND removed_at IS NULL",
                            (name,)).fetchone() is not None:
                raise DuplicateName(f"an author named {name!r} already exists")
            row = conn.execute(
                "INSERT INTO authors (name, role, token_hash, may_run, quota, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?) RETURNING *",
                (name, role.value, hash_token(token), int(may_run), _json(asdict(quota)),
                 _now())).fetchone()
        return _author(row), token

    def author(self, name: str) -> Author:
        """The active author `name`; `UnknownAuthor` if there is none."""
        with self._lock:
            row = self._conn.execute(
                "SELECT * FROM authors WHERE name = ? AND removed_at IS NULL", (name,)).fetchone()
        if row is None:
            raise UnknownAuthor(f"no author named {name!r}")
        return _author(row)

    def author_by_id(self, author_id: int) -> Author:
        """The author (active or removed) with this id."""
        with self._lock:
            row = self._conn.execute("SELECT * FROM authors WHERE id = ?",
                                     (author_id,)).fetchone()
        if row is None:
            raise UnknownAuthor(f"no author with id {author_id}")
        return _author(row)

    def author_by_token(self, token: str) -> Author | None:
        """The active author holding `token`, or None."""
        if not self._has_authors:
            return None
        with self._lock:
            row = self._conn.execute(
                "SELECT * FROM authors WHERE token_hash = ? AND removed_at IS NULL",
                (hash_token(token),)).fetchone()
        return None if row is None else _author(row)

    @reads
    def list_authors(self) -> list[Author]:
        """The active authors and viewers, by name."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT * FROM authors WHERE removed_at IS NULL").fetchall()
        return sorted((_author(row) for row in rows), key=lambda author: author.name)

    def remove_author(self, name: str) -> tuple[Author, list[str]]:
        """Remove an author: their token stops working and their bots are retired (their
        games and ratings stay). Returns them and the names of the bots retired."""
        with self._transaction() as conn:
            row = conn.execute("SELECT * FROM authors WHERE name = ? AND removed_at IS NULL",
                               (name,)).fetchone()
            if row is None:
                raise UnknownAuthor(f"no author named {name!r}")
            now = _now()
            retired = [str(r[0]) for r in conn.execute(
                "SELECT name FROM bots WHERE author_id = ? AND removed_at IS NULL",
                (row["id"],)).fetchall()]
            conn.execute("UPDATE bots SET removed_at = ? WHERE author_id = ?"
                         " AND removed_at IS NULL", (now, row["id"]))
            conn.execute("UPDATE authors SET removed_at = ? WHERE id = ?", (now, row["id"]))
            removed = conn.execute("SELECT * FROM authors WHERE id = ?",
                                   (row["id"],)).fetchone()
        return _author(removed), sorted(retired)

    def rotate_author_token(self, name: str) -> str:
        """Give author `name` a new token; the old one stops working."""
        token = "author-" + secrets.token_urlsafe(32)
        with self._transaction() as conn:
            updated = conn.execute(
                "UPDATE authors SET token_hash = ? WHERE name = ? AND removed_at IS NULL"
                " RETURNING id", (hash_token(token), name)).fetchone()
            if updated is None:
                raise UnknownAuthor(f"no author named {name!r}")
        return token

    def set_author(self, name: str, *, quota: Quota | None = None,
                   may_run: bool | None = None) -> Author:
        """Change author `name`'s quota and whether they may run competitions."""
        if quota is not None:
            _check_quota(quota)
        with self._transaction() as conn:
            row = conn.execute("SELECT * FROM authors WHERE name = ? AND removed_at IS NULL",
                               (name,)).fetchone()
            if row is None:
                raise UnknownAuthor(f"no author named {name!r}")
            if quota is not None:
                conn.execute("UPDATE authors SET quota = ? WHERE id = ?",
                             (_json(asdict(quota)), row["id"]))
            if may_run is not None:
                conn.execute("UPDATE authors SET may_run = ? WHERE id = ?",
                             (int(may_run), row["id"]))
            row = conn.execute("SELECT * FROM authors WHERE id = ?", (row["id"],)).fetchone()
        return _author(row)

    # ---------------------------------------------------------------- invites

    def create_invite(self, cap: int, role: AuthorRole | str = AuthorRole.AUTHOR,
                      ) -> tuple[Invite, str]:
        """A new invite code letting up to `cap` people register as `role` (shown once)."""
        if cap <= 0:
            raise InvalidInput(f"an invite's cap must be more than 0, got {cap}")
        role = _role(role)
        code = "invite-" + secrets.token_urlsafe(18)
        with self._transaction() as conn:
            row = conn.execute(
                "INSERT INTO invites (code_hash, role, cap, used, created_at)"
                " VALUES (?, ?, ?, 0, ?) RETURNING *",
                (hash_token(code), role.value, cap, _now())).fetchone()
        return _invite(row), code

    def register_author(self, code: str, name: str) -> tuple[Author, str]:
        """Add author `name` on an invite `code`, using one of its places."""
        _check_name("author", name)
        token = "author-" + secrets.token_urlsafe(32)
        with self._transaction() as conn:
            invite = conn.execute(
                "SELECT * FROM invites WHERE code_hash = ? AND removed_at IS NULL",
                (hash_token(code),)).fetchone()
            if invite is None:
                raise InviteRefused("that invite code is not valid (ask the organizer for one)")
            if invite["used"] >= invite["cap"]:
                raise InviteRefused(f"that invite code is used up ({invite['cap']} of "
                                    f"{invite['cap']} places taken)")
            if conn.execute("SELECT 1 FROM authors WHERE name = ? AND removed_at IS NULL",
                            (name,)).fetchone() is not None:
                raise DuplicateName(f"an author named {name!r} already exists; pick another")
            conn.execute("UPDATE invites SET used = used + 1 WHERE id = ?", (invite["id"],))
            row = conn.execute(
                "INSERT INTO authors (name, role, token_hash, may_run, quota, created_at)"
                " VALUES (?, ?, ?, 0, ?, ?) RETURNING *",
                (name, invite["role"], hash_token(token), _json(asdict(Quota())),
                 _now())).fetchone()
        return _author(row), token

    def list_invites(self) -> list[Invite]:
        """Every invite not withdrawn, oldest first."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT * FROM invites WHERE removed_at IS NULL ORDER BY id").fetchall()
        return [_invite(row) for row in rows]

    # ------------------------------------------------------------- ownership

    def bot_author(self, name: str) -> int | None:
        """The id of the author owning bot `name` (a bot, a version or a submitted bot's
        base name); None for the organizer's. `UnknownBot` when no such bot exists."""
        with self._lock:
            row = self._find_bot(self._conn, name)
            if row is None and "@" not in name:
                row = self._conn.execute(
                    "SELECT b.* FROM bots b JOIN bot_versions v ON v.bot_id = b.id"
                    " WHERE v.base_name = ? AND b.removed_at IS NULL ORDER BY v.version DESC"
                    " LIMIT 1", (name,)).fetchone() if self._versioned else None
        if row is None:
            from arena.store.errors import UnknownBot

            raise UnknownBot(f"no bot named {name!r}")
        return _author_id(row)

    def authored_bots(self, author_id: int) -> list[str]:
        """The names of the active bots (and versions) author `author_id` owns."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT name FROM bots WHERE author_id = ? AND removed_at IS NULL",
                (author_id,)).fetchall()
        return sorted(str(row[0]) for row in rows)

    def author_names(self) -> dict[int, str]:
        """Every author's id → name (removed ones too)."""
        if not self._has_authors:
            return {}
        with self._lock:
            rows = self._conn.execute("SELECT id, name FROM authors").fetchall()
        return {int(row[0]): str(row[1]) for row in rows}

    # ------------------------------------------------------------------ audit

    def record_audit(self, actor: str, role: str, author_id: int | None, action: str,
                     target: str, result: str, detail: str = "") -> None:
        """Add one line to the audit trail (none in a store opened read-only, or before
        migration 8)."""
        if not self._has_authors or self._read_only:
            return
        with self._transaction() as conn:
            conn.execute(
                "INSERT INTO audit (at, actor, role, author_id, action, target, result, detail)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (_now(), actor, role, author_id, action, target, result,
                 detail[:AUDIT_DETAIL_CHARS]))

    @reads
    def audit(self, *, author_id: int | None = None, actor: str | None = None,
              limit: int = 100) -> list[AuditEntry]:
        """The newest `limit` audit lines, newest first: all of them, or one author's (by
        id) or one actor's (by name)."""
        query, args = "SELECT * FROM audit", list[object]()
        conditions: list[str] = []
        if author_id is not None:
            conditions.append("author_id = ?")
            args.append(author_id)
        if actor is not None:
            conditions.append("actor = ?")
            args.append(actor)
        if conditions:
            query += " WHERE " + " AND ".join(conditions)
        query += " ORDER BY id DESC LIMIT ?"
        with self._lock:
            rows = self._conn.execute(query, (*args, limit)).fetchall()
        return [AuditEntry(at=datetime.fromisoformat(row["at"]), actor=row["actor"],
                           role=row["role"], action=row["action"], target=row["target"],
                           result=row["result"], detail=row["detail"]) for row in rows]

    @property
    def _has_authors(self) -> bool:
        return self._authored


def check_submission_quota(conn: Any, author_id: int, quota: Quota) -> None:
    """Refuse (`QuotaExceeded`) a submission by author `author_id` past `quota`:
    submissions in the last hour and day, and versions active at once (a failed
    build does not count as active)."""
    now = datetime.now(UTC)
    for window, limit, label in ((timedelta(hours=1), quota.submissions_per_hour,
                                  "submissions per hour"),
                                 (timedelta(days=1), quota.submissions_per_day,
                                  "submissions per day")):
        since = (now - window).isoformat()
        rows = conn.execute(
            "SELECT v.created_at FROM bot_versions v JOIN bots b ON b.id = v.bot_id"
            " WHERE b.author_id = ? AND v.created_at > ? ORDER BY v.created_at",
            (author_id, since)).fetchall()
        if len(rows) >= limit:
            frees = datetime.fromisoformat(rows[len(rows) - limit][0]) + window
            wait = max(0, int((frees - now).total_seconds()) + 1)
            raise QuotaExceeded(
                f"quota reached: {label} ({limit}); the next submission is taken from "
                f"{frees.strftime('%Y-%m-%d %H:%M:%S')} UTC (in {_duration(wait)})")
    active = int(conn.execute(
        "SELECT COUNT(*) FROM bots b JOIN bot_versions v ON v.bot_id = b.id"
        " WHERE b.author_id = ? AND b.removed_at IS NULL AND v.build_status <> 'failed'",
        (author_id,)).fetchone()[0])
    if active >= quota.active_versions:
        raise QuotaExceeded(
            f"quota reached: active versions ({quota.active_versions}); it frees when you "
            "retire one (`arena bot remove NAME@N`)")


def _author_id(row: Any) -> int | None:
    keys: Sequence[str] = row.keys()
    return None if "author_id" not in keys or row["author_id"] is None else int(row["author_id"])


def _invite(row: Any) -> Invite:
    return Invite(id=int(row["id"]), role=AuthorRole(row["role"]), cap=int(row["cap"]),
                  used=int(row["used"]), created_at=datetime.fromisoformat(row["created_at"]))


def _duration(seconds: int) -> str:
    """`seconds` in words: 45 s, 12 min, 3 h 5 min."""
    if seconds < 60:
        return f"{seconds} s"
    minutes = (seconds + 59) // 60
    if minutes <= 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"
