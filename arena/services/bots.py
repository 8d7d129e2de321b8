"""Bots and their versions: registering, submitting, building, listing and removing.

`BotService` is what a caller may ask about bots. A managed bot added with a
command is its own only version; a submitted bot gets an immutable, built version
per submission (`arena.submissions`). It also tells the supervisor layer how each
bot is launched (`launch_of`).

As in every service, a plain method may block on the store (the admin service runs it
in a worker thread), and a coroutine never blocks the event loop.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.services.errors import ServiceError
from arena.store import (
    Bot,
    BotKind,
    BotVersion,
    BuildStatus,
    NotOwner,
    Quota,
    Rating,
    Store,
    UnknownBot,
)
from arena.submissions import Limits, Submissions, Submitted, launch_command
from arena.supervisor import ManagedBotError, command_words
from arena.supervisor.fleet import Fleet, Launch


class NotYours(NotOwner):
    """A call an author may not make for a bot: it is not theirs, or not theirs to make."""


VersionLine = tuple[BotVersion | Bot, Rating | None]
"""One line of a bot's versions: a submitted version (or a bot added with a command, its
only version), and its rating in the rule-set pool of its latest rated game."""


LOG_TAIL_LINES = 50
"""The lines of a bot's log `BotService.log_tail` reads unless told."""
MAX_LOG_TAIL_LINES = 10_000
"""The most lines of a bot's log one `log_tail` reads."""
_TAIL_BYTES_PER_LINE = 1024
"""The bytes read back from a log's end per line asked for (a longer line is cut)."""
MAX_LOG_TAIL_BYTES = 1024 * 1024
"""The most bytes of a bot's log one `log_tail` reads back from its end."""


@dataclass(frozen=True, slots=True)
class BotLog:
    """The tail of a managed bot's log: the bot (version) that wrote it, its last lines,
    and where the file lies on the server's machine."""

    name: str
    text: str
    path: str


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _tail(path: Path, lines: int) -> str:
    """The last `lines` lines of the file at `path` (undecodable bytes replaced)."""
    try:
        with path.open("rb") as file:
            size = file.seek(0, os.SEEK_END)
            file.seek(max(0, size - min(lines * _TAIL_BYTES_PER_LINE, MAX_LOG_TAIL_BYTES)))
            data = file.read()
    except OSError as exc:
        raise ServiceError(f"the log {path.name} cannot be read: {exc.strerror}") from None
    text = data.decode("utf-8", errors="replace").splitlines(keepends=True)
    return "".join(text[-lines:])


class BotService:
    """Bots and versions over one store; `connected` names the bots connected now."""

    def __init__(self, store: Store, submissions: Submissions,
                 connected: Callable[[], list[str]], revoke_tokens: Callable[[str], None],
                 fleet: Fleet | None = None) -> None:
        self.store = store
        self.submissions = submissions
        self.fleet = fleet
        """The managed bots this server launched (None: set once the fleet exists)."""
        self._connected = connected
        self._revoke_tokens = revoke_tokens

    def add(self, name: str, kind: str, command: str | None,
            read_only_paths: Sequence[str] = (), author_id: int | None = None,
            ) -> tuple[Bot, str]:
        """Register a bot; return it and its token (shown once). A managed bot's command
        must read as a command line (closed quotes) now, not when it is first launched;
        it may be shown `read_only_paths` in its sandbox besides what its command names.
        An author's bot (`author_id`) is remote: their code reaches the server only by
        submission, built and run in a sandbox."""
        if author_id is not None and (kind != BotKind.REMOTE.value or command
                                      or read_only_paths):
            raise NotYours("an author adds remote bots only (they run where the author "
                           "starts them); a bot the server runs is submitted: "
                           "`arena bot submit FOLDER`")
        if command:
            try:
                command_words(name, command)
            except ManagedBotError as exc:
                raise ServiceError(str(exc)) from None
        return self.store.add_bot(name, kind, command or None, read_only_paths,
                                  author_id=author_id)

    def registered(self) -> list[tuple[Bot, bool]]:
        """Registered bots, each with whether it is connected now."""
        connected = set(self._connected())
        return [(bot, bot.name in connected) for bot in self.store.list_bots()]

    async def remove(self, name: str) -> Bot:
        """Remove a bot (for a submitted bot's base name, its latest built version): its
        tokens stop working and a managed bot this server runs is stopped; its games and
        ratings stay."""
        bot = await asyncio.to_thread(self.store.remove_bot, name)
        await self.forget(bot.name)
        return bot

    async def forget(self, name: str) -> None:
        """After bot `name` was retired in the store: its tokens stop working and a
        managed bot this server runs is stopped."""
        self._revoke_tokens(name)
        if self.fleet is not None:
            await self.fleet.stop_bot(name)

    @property
    def upload_limits(self) -> Limits:
        """What a submitted archive may hold."""
        return self.submissions.limits

    def submit(self, archive: bytes, manifest: str, name: str | None,
               inherit_rating: bool, wait: bool = True, author_id: int | None = None,
               quota: Quota | None = None) -> tuple[Submitted, Rating | None]:
        """Make the bot in `archive` its next version and build it (see
        `Submissions.submit`; blocks for the build unless not `wait`); return it with its
        rating. An author's submission is theirs and kept within their `quota`."""
        submitted = self.submissions.submit(archive, manifest=manifest, name=name,
                                            inherit_rating=inherit_rating, wait=wait,
                                            author_id=author_id, quota=quota)
        return submitted, self.store.latest_rating(submitted.version.name)

    def versions(self, name: str) -> list[VersionLine]:
        """The versions of bot `name` (a base name, or one version's name), oldest first,
        each with its latest rating; a bot added with a command is its own only version."""
        version = self.store.bot_version(name)
        base = name if version is None else version.base_name
        versions = self.store.bot_versions(base)
        if versions:
            return [(v, self.store.latest_rating(v.name)) for v in versions]
        bot = self.store.bot(name)
        return [(bot, self.store.latest_rating(bot.name))]

    def build_log(self, name: str, number: int) -> str:
        """The stored build log of version `number` of bot `name`."""
        for line, _ in self.versions(name):
            if isinstance(line, BotVersion) and line.number == number:
                if line.build_status is BuildStatus.BUILDING:
                    live = self.submissions.live_log(line.name)
                    return live if live is not None else (
                        "(the build is not running on this server)\n")
                return line.build_log or "(no build: the manifest has no build command)\n"
        raise UnknownBot(f"bot {name} has no version {number} with a build "
                         f"(`arena bot versions {name}` lists them)")

    def entrants(self, names: Sequence[str]) -> list[str]:
        """The entrant each of `names` stands for (a base name: its latest built version);
        `ServiceError` for a version that is not built, which never plays."""
        entrants = []
        for name in names:
            bot = self.store.bot(name)
            version = self.store.bot_version(bot.name)
            if version is not None and version.build_status is not BuildStatus.OK:
                raise ServiceError(
                    f"bot {bot.name} cannot play: its build {version.build_status.value}"
                    f" (`arena bot versions {version.base_name} --log {version.number}` "
                    "shows why)")
            entrants.append(bot.name)
        return entrants

    def launch_of(self, name: str) -> Launch:
        """How bot `name` is launched: a submitted version from its own folder, a bot
        added with a command by that command, a remote bot by its owner."""
        bot = self.store.bot(name)
        if bot.kind is not BotKind.MANAGED:
            return Launch(managed=False)
        version = self.store.bot_version(name)
        if version is not None:
            return Launch(True, launch_command(version), version.folder)
        assert bot.command is not None  # a managed bot has its command
        return Launch(True, bot.command, "", bot.read_only_paths)

    def log_tail(self, name: str, lines: int = LOG_TAIL_LINES) -> BotLog:
        """The last `lines` lines (at most `MAX_LOG_TAIL_LINES`, and of its last
        `MAX_LOG_TAIL_BYTES`) of bot `name`'s current log, the one its process writes on
        this server or on one of its local workers; for a submitted bot's base name,
        that of whichever of its versions ran last.
        `UnknownBot` for no such bot; `ServiceError` for a remote bot (its owner runs it
        and keeps its output) or a managed one never launched here."""
        bot = self.store.bot(name)
        if bot.kind is not BotKind.MANAGED:
            raise ServiceError(f"bot {bot.name} is remote: its owner runs it, and its "
                               "output stays where they run it")
        names = [name] if "@" in name else [
            name, *(v.name for v in reversed(self.store.bot_versions(name)))]
        files = [] if self.fleet is None else [
            (_modified(path), candidate, path)
            for candidate in names for path in self.fleet.log_files(candidate)]
        if not files:
            raise ServiceError(f"bot {name} has no log on this server: it has not been "
                               "launched here yet (a managed bot is launched, and logs, "
                               "when it is to play)")
        _, writer, latest = max(files, key=lambda found: found[0])
        wanted = max(1, min(lines or LOG_TAIL_LINES, MAX_LOG_TAIL_LINES))
        return BotLog(writer, _tail(latest, wanted), str(latest))

    def is_managed(self, name: str) -> bool:
        """Whether arena launches bot `name` itself."""
        return self.store.bot(name).kind is BotKind.MANAGED
