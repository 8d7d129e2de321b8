"""The managed bots one match server runs: launched when a run needs them, watched,
stopped with the server.

`Fleet` launches each managed bot through a `BotSupervisor` with a token minted for
it, waits for the bots a run needs to connect, and fails that wait at once when a
bot it launched exits without connecting. It knows the bots only through a
`BotDirectory` (what a name launches) and the server only through `BotPresence`
(who is connected), so it holds no rules, no store and no gRPC.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from arena.supervisor.process import (
    BotIsolation,
    BotSupervisor,
    ManagedBot,
    ManagedBotError,
    bot_log_path,
)

EXIT_POLL = 0.1
"""Seconds between looks, while waiting for bots, at whether a managed bot has exited."""

CRASH_GRACE = 0.5
"""Seconds a managed bot whose connection dropped is given to finish exiting, so that
its seats' violations are recorded as a crash rather than a disconnect."""

_log = logging.getLogger("arena.bots")


class FleetError(ValueError):
    """Bots could not be launched, or did not connect; the message says why."""


@dataclass(frozen=True, slots=True)
class Launch:
    """What a bot name launches: whether it is managed (a remote bot is started by its
    owner), its command, the folder it runs in ("" for none of its own), and the paths an
    operator's bot is shown read-only besides what its command names."""

    managed: bool
    command: str = ""
    folder: str = ""
    read_only_paths: tuple[str, ...] = ()


class BotDirectory(Protocol):
    """The registered bots, as far as launching them goes."""

    def launch_of(self, name: str) -> Launch:
        """How bot `name` is launched (an unknown name raises the directory's error)."""


class BotPresence(Protocol):
    """The match server the fleet's bots connect to."""

    port: int | None
    crash_check: Callable[[str], Awaitable[bool]] | None

    def connected_bots(self) -> list[str]:
        """The bots with an open connection now."""

    async def wait_for_bots(self, names: Iterable[str], timeout: float | None) -> None:
        """Return once every bot of `names` is connected (`TimeoutError` after `timeout`)."""

    def bot_crashed(self, bot_name: str) -> None:
        """Note that a bot's process exited with an error."""


class Fleet:
    """The managed bots launched for one server (see the module's description)."""

    def __init__(self, directory: BotDirectory, presence: BotPresence,
                 mint_token: Callable[[str], str], server_address: Callable[[], str],
                 log_dir: Path, isolation: BotIsolation) -> None:
        self.directory = directory
        self.presence = presence
        self.log_dir = log_dir
        self.for_one_command = False
        """Whether the server is one a command started for itself (on a port that is gone
        with it), which no remote bot can be pointed at."""
        self.isolation = isolation
        self._mint_token = mint_token
        self._server_address = server_address
        self._supervisor: BotSupervisor | None = None
        self._exits: dict[str, int] = {}
        """The last exit code of each managed bot launched here, once it has exited."""
        self.exit_listeners: list[Callable[[str, int], None]] = []
        """Told of each managed bot's process that exited on its own: its name and exit
        code (negative: the signal that killed it)."""

    async def ensure(self, names: Sequence[str], wait_seconds: float,
                     launches: dict[str, Launch] | None = None) -> None:
        """Launch the managed bots among `names` that are not connected, then wait for all;
        a managed bot that exits during the wait without connecting fails it at once.
        `launches` may give what each name launches (else the directory is asked)."""
        wanted = list(dict.fromkeys(names))
        launches = dict(launches or {})
        for name in wanted:
            self._exits.pop(name, None)
            if name not in launches:
                launches[name] = await asyncio.to_thread(self.directory.launch_of, name)
        connected = set(self.presence.connected_bots())
        for name in wanted:
            if launches[name].managed and name not in connected and not self.is_running(name):
                await self.launch(name, launches[name])
        waiting = asyncio.ensure_future(self.presence.wait_for_bots(wanted, wait_seconds))
        try:
            while not (await asyncio.wait({waiting}, timeout=EXIT_POLL))[0]:
                self._check_exits(wanted)
            waiting.result()
        except TimeoutError:
            missing = sorted(set(wanted) - set(self.presence.connected_bots()))
            raise FleetError(f"bots not connected after {wait_seconds:g} s: "
                             f"{', '.join(missing)}"
                             f"{self._absence_hint(missing, launches)}") from None
        finally:
            waiting.cancel()

    def _absence_hint(self, missing: Sequence[str], launches: dict[str, Launch]) -> str:
        """What to look at for the `missing` bots: the logs of the managed ones arena
        launched; for remote ones, how they connect."""
        hints = []
        if self._supervisor is not None and any(launches[n].managed for n in missing):
            hints.append(f"see the logs in {self.log_dir}")
        remote = [name for name in missing if not launches[name].managed]
        if remote and self.for_one_command:
            hints.append(f"remote bots ({', '.join(remote)}) connect to a running `arena serve`, "
                         "and this command started a server of its own for this run only: "
                         "start `arena serve` and run the command with --server HOST:PORT")
        elif remote:
            port = self.presence.port
            address = "HOST:PORT" if port is None else f"HOST:{port}"
            hints.append(f"remote bots ({', '.join(remote)}) are started by their owners and "
                         f"connect with ARENA_TOKEN set to their token from `arena bot add` and "
                         f"ARENA_SERVER={address}, this server's address")
        return f" ({'; '.join(hints)})" if hints else ""

    def _check_exits(self, names: Sequence[str]) -> None:
        """Fail a wait at once if a managed bot it waits for has exited without connecting."""
        connected = set(self.presence.connected_bots())
        exited = {name: self._exits[name] for name in names
                  if name in self._exits and name not in connected}
        if exited:
            which = ", ".join(f"{name} (exit code {code})" for name, code in sorted(exited.items()))
            raise FleetError(f"bots exited before connecting: {which}; see the logs in "
                             f"{self.log_dir}")

    def log_files(self, name: str) -> list[Path]:
        """The current log files of managed bot `name` that exist: the one this server's
        supervisor writes, and those of the local workers that launched their own copies
        (in `worker-N` folders of the same log folder), newest first."""
        folders = [self.log_dir, *sorted(self.log_dir.glob("worker-*"))]
        found = []
        for folder in folders:
            path = bot_log_path(folder, name)
            with contextlib.suppress(OSError):
                found.append((path.stat().st_mtime, path))
        return [path for _, path in sorted(found, key=lambda item: item[0], reverse=True)]

    def is_running(self, name: str) -> bool:
        """Whether managed bot `name`'s process, launched here, is alive."""
        return self._supervisor is not None and self._supervisor.is_running(name)

    def has_failed(self, name: str) -> bool:
        """Whether the managed bot `name` launched here has stopped for good (it exited
        and will not be restarted)."""
        return self._supervisor is not None and self._supervisor.gave_up(name)

    async def launch(self, name: str, launch: Launch) -> None:
        """Launch managed bot `name` as `launch` says, without waiting for it to connect
        (`FleetError` if its command cannot be started)."""
        if self._supervisor is None:
            self._supervisor = BotSupervisor(self._server_address(), self.log_dir,
                                             on_exit=self._bot_exited,
                                             isolation=self.isolation)
            self.presence.crash_check = self._crashed
        cwd = Path(launch.folder) if launch.folder else None
        bot = ManagedBot(name, launch.command, self._mint_token(name), cwd,
                         tuple(Path(path) for path in launch.read_only_paths))
        try:
            await self._supervisor.start(bot)
        except ManagedBotError as exc:
            raise FleetError(str(exc)) from None

    async def stop_bot(self, name: str) -> None:
        """Stop managed bot `name` for good, if it runs here."""
        if self._supervisor is not None:
            await self._supervisor.stop_bot(name)

    async def stop(self) -> None:
        """Stop every managed bot launched here."""
        if self._supervisor is not None:
            await self._supervisor.stop()
            self._supervisor = None

    def worker_bot_exited(self, name: str, code: int) -> None:
        """A copy of managed bot `name` that a worker of a run of this server launched
        exited on its own with `code`: the exit listeners hear of it (this server's own
        bot, if it runs one, is untouched)."""
        _log.info("managed bot %s exited on a worker with code %d", name, code,
                  extra={"bot": name, "exit_code": code, "on_worker": True})
        for listener in list(self.exit_listeners):
            listener(name, code)

    def _bot_exited(self, name: str, code: int) -> None:
        self._exits[name] = code
        _log.info("managed bot %s exited with code %d", name, code,
                     extra={"bot": name, "exit_code": code})
        for listener in list(self.exit_listeners):
            listener(name, code)
        if code != 0:
            self.presence.bot_crashed(name)

    async def _crashed(self, name: str) -> bool:
        if self._supervisor is None:
            return False
        code = await self._supervisor.exit_code(name, CRASH_GRACE)
        return code is not None and code != 0
