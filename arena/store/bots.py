"""Registering, finding and removing bots."""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence

from arena.store.codec import (
    _bot,
    _now,
)
from arena.store.database import (
    Database,
    reads,
)
from arena.store.errors import (
    DuplicateName,
    InvalidInput,
    UnknownBot,
)
from arena.store.records import (
    Bot,
    BotKind,
)
from arena.store.values import (
    _bot_kind,
    _check_name,
    hash_token,
)


class BotRecords(Database):
    """Registering, finding and removing bots."""

    def add_bot(
        self, name: str, kind: BotKind | str, command: str | None = None,
        read_only_paths: Sequence[str] = (), author_id: int | None = None,
    ) -> tuple[Bot, str]:
        """Register a bot; return it and its new token (shown once: only its hash is kept).

        A managed bot needs the `command` that launches it; a remote bot has none. A
        managed bot may be shown `read_only_paths` (absolute) in its sandbox besides what
        its command names. A bot added for an author (`author_id`) is theirs.
        """
        kind = _bot_kind(kind)
        if read_only_paths and kind is not BotKind.MANAGED:
            raise InvalidInput(f"remote bot {name!r} runs where its owner starts it: it takes "
                               "no read-only paths")
        for path in read_only_paths:
            if not path.startswith("/") or "\0" in path:
                raise InvalidInput(f"bot {name!r}: a read-only path must be absolute, "
                                   f"got {path!r}")
        _check_name("bot", name)
        if kind is BotKind.MANAGED and not (command and command.strip()):
            raise InvalidInput(f"managed bot {name!r} needs a command to launch it")
        if kind is BotKind.REMOTE and command is not None:
            raise InvalidInput(f"remote bot {name!r} is started by its owner; it takes no command")
        token = secrets.token_urlsafe(32)
        with self._transaction() as conn:
            if self._find_bot(conn, name) is not None:
                raise DuplicateName(f"a bot named {name!r} already exists")
            if self._versioned and conn.execute(
                    "SELECT 1 FROM bot_versions WHERE base_name = ?", (name,)
            ).fetchone() is not None:
                raise DuplicateName(f"{name!r} names submitted versions ({name}@1, ...); "
                                    "give the bot another name")
            # Named only when given: a store opened before migration 7 lacks the column.
            columns, marks, values = "", "", list[object]()
            if read_only_paths:
                columns, marks = columns + ", read_only_paths", marks + ", ?"
                values.append(json.dumps(list(read_only_paths)))
            if author_id is not None:
                columns, marks = columns + ", author_id", marks + ", ?"
                values.append(author_id)
            row = conn.execute(
                f"INSERT INTO bots (name, kind, command, token_hash, created_at{columns})"
                f" VALUES (?, ?, ?, ?, ?{marks}) RETURNING *",
                (name, kind.value, command, hash_token(token), _now(), *values),
            ).fetchone()
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

    @reads
    def list_bots(self, *, include_removed: bool = False) -> list[Bot]:
        """Bots by name; removed ones only when asked."""
        query = "SELECT * FROM bots"
        if not include_removed:
            query += " WHERE removed_at IS NULL"
        with self._lock:
            rows = self._conn.execute(query).fetchall()
        # Sorted here, not by the database, whose collation may order names otherwise.
        return sorted((_bot(row) for row in rows), key=lambda bot: (bot.name, bot.id))

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
