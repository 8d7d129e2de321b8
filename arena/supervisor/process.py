"""Managed bots: commands arena launches, watches and restarts.

Each bot runs as a subprocess with `ARENA_SERVER` and `ARENA_TOKEN` in its
environment, its stdout and stderr appended to a log file of its own; with a
`BotIsolation` that asks for it, inside a sandbox (`arena.sandbox`) that shows it
only the system, the SDK, its own files and the server's Unix socket. When a
process exits while the supervisor is running, it is started again after a
short back-off, up to a limit of restarts; `on_exit` hears of every exit so the
server can record a crash for the games that bot was playing.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import shutil
import signal
import stat
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import BinaryIO, Literal

from arena.sandbox import (
    SYSTEM_PATHS,
    Limits,
    SandboxError,
    cgroups,
    command_paths,
    popen_kwargs,
    program_path,
    sdk_paths,
    status,
    wrap,
)
from arena.sandbox.limits import LOG_FILES

ExitListener = Callable[[str, int], None]

TOKEN_REFUSED = 2
"""The exit status of a sample bot whose token the server refused: restarting cannot help."""


class ManagedBotError(RuntimeError):
    """A managed bot could not be started (bad command, missing program)."""


def command_words(name: str, command: str) -> list[str]:
    """The words of bot `name`'s command line, split as a POSIX shell would;
    `ManagedBotError` for one that cannot be split (an unclosed quote) or is empty."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise ManagedBotError(f"bot {name}: cannot read command {command!r}: {exc}") from None
    if not argv:
        raise ManagedBotError(f"bot {name}: empty command")
    return argv


SOCKET_INSIDE = "/run/arena/arena.sock"
"""Where a sandboxed bot finds its match server's Unix socket."""

SandboxUse = Literal["off", "auto", "required"]


@dataclass(frozen=True)
class BotIsolation:
    """How managed bots are isolated: `sandbox` ``off`` (plain processes), ``auto`` (in a
    sandbox when this machine has one) or ``required`` (a bot that cannot be sandboxed
    is not started); the sandbox's `limits`, whose `output_bytes` is also the most one log
    file of a bot holds; and `hidden_paths` (the database, token files) covered up should a
    bot's folder hold them. A bot's log folder is never shown."""

    sandbox: SandboxUse = "off"
    limits: Limits = field(default_factory=Limits)
    hidden_paths: tuple[Path, ...] = ()
    log_files: int = LOG_FILES
    """How many log files a bot keeps, its current one included: a log is rotated
    (``bot.log`` → ``bot.log.1`` → …) when a start finds it half full, so a sandboxed
    bot's logs never hold more than `log_files` × `limits.output_bytes` in all, however
    often it restarts."""


RUNTIME_PROGRAMS = frozenset({"node", "nodejs"})
"""Programs outside its folder a submitted version may be started with besides arena's
own Python: the runtimes arena knows, found on arena's PATH."""


@dataclass(frozen=True)
class ManagedBot:
    """What it takes to launch one bot: its name, command line, token and working folder.

    A bot with a working folder `cwd` is a submitted version run from its own folder:
    in a sandbox it sees the system, the SDK, its runtime (arena's Python or a runtime
    of `RUNTIME_PROGRAMS`), that folder and `files` — nothing its command line names;
    its program must be in its folder, its runtime, or a system folder. A bot without
    one is an operator's (added with a command): it is shown what its command line
    names (its program's home and the folders of its arguments) and `files`.
    """

    name: str
    command: str
    token: str
    cwd: Path | None = None
    files: tuple[Path, ...] = ()


@dataclass
class _Running:
    bot: ManagedBot
    process: asyncio.subprocess.Process | None = None
    restarts: int = 0
    watcher: asyncio.Task[None] | None = None
    exits: list[int] = field(default_factory=list)
    group: cgroups.Group | None = None

    async def release(self) -> None:
        """Kill what is left in the bot's cgroup, and remove it."""
        group, self.group = self.group, None
        if group is not None:
            await asyncio.to_thread(group.remove)


class BotSupervisor:
    """Starts managed bots against one server address and keeps them running."""

    def __init__(self, server_address: str, log_dir: Path, *, max_restarts: int = 5,
                 backoff: float = 0.5, on_exit: ExitListener | None = None,
                 isolation: BotIsolation | None = None) -> None:
        self.server_address = server_address
        self.isolation = isolation or BotIsolation()
        self.log_dir = log_dir
        self.max_restarts = max_restarts
        self.backoff = backoff
        self.on_exit = on_exit
        self._bots: dict[str, _Running] = {}
        self._stopping = False

    def log_path(self, name: str) -> Path:
        """Where a bot's stdout and stderr go."""
        return bot_log_path(self.log_dir, name)

    async def start(self, bot: ManagedBot) -> None:
        """Launch `bot` and watch it; raise `ManagedBotError` if it cannot be started."""
        running = _Running(bot)
        self._bots[bot.name] = running
        await self._launch(running)
        running.watcher = asyncio.create_task(self._watch(running))

    def restarts(self, name: str) -> int:
        """How many times the bot has been restarted."""
        return self._bots[name].restarts

    def exit_codes(self, name: str) -> list[int]:
        """Exit codes of the bot's processes so far."""
        return list(self._bots[name].exits)

    def is_running(self, name: str) -> bool:
        """Whether the bot's process is alive (False for a bot never started here)."""
        if name not in self._bots:
            return False
        process = self._bots[name].process
        return process is not None and process.returncode is None

    def gave_up(self, name: str) -> bool:
        """Whether the bot's process has exited for good: its restarts are spent, the
        server refused its token, or it could not be launched again (False for a bot
        never started here)."""
        running = self._bots.get(name)
        return (running is not None and running.watcher is not None
                and running.watcher.done() and not self.is_running(name))

    async def exit_code(self, name: str, within: float) -> int | None:
        """The exit code of the bot's process if it has exited or exits within `within`
        seconds; None if it is still running then (or the bot is not managed here)."""
        running = self._bots.get(name)
        if running is None or running.process is None:
            return None
        process = running.process
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(within):
                await asyncio.shield(process.wait())
        return process.returncode

    async def stop_bot(self, name: str, timeout: float = 3.0) -> None:
        """Stop one bot for good (no restart); nothing happens for an unknown name."""
        running = self._bots.pop(name, None)
        if running is None:
            return
        if running.watcher is not None:
            running.watcher.cancel()
        await _terminate(running.process, timeout)
        if running.watcher is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await running.watcher
        await running.release()

    async def stop(self, timeout: float = 3.0) -> None:
        """Stop every bot: SIGTERM, then SIGKILL after `timeout` seconds."""
        self._stopping = True
        for running in self._bots.values():
            if running.watcher is not None:
                running.watcher.cancel()
        await asyncio.gather(*(_terminate(r.process, timeout) for r in self._bots.values()))
        for running in self._bots.values():
            if running.watcher is not None:
                with contextlib.suppress(asyncio.CancelledError):
                    await running.watcher
        await asyncio.gather(*(running.release() for running in self._bots.values()))

    def sandboxed(self) -> bool:
        """Whether the bots started now run in a sandbox; `ManagedBotError` when one is
        required and this machine has none."""
        if self.isolation.sandbox == "off":
            return False
        found = status()
        if not found.available and self.isolation.sandbox == "required":
            raise ManagedBotError(f"managed bots must run in a sandbox here, and none is "
                                  f"available: {found.reason}")
        return found.available

    async def _launch(self, running: _Running) -> None:
        bot = running.bot
        self.log_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        argv = command_words(bot.name, bot.command)
        env = {"ARENA_SERVER": self.server_address, "ARENA_TOKEN": bot.token,
               "ARENA_BOT_NAME": bot.name, "PYTHONUNBUFFERED": "1"}
        log_path = self.log_path(bot.name)
        allowance = _rotate(log_path, self.isolation.limits.output_bytes,
                            self.isolation.log_files)
        if self.sandboxed():
            argv, env, how, running.group = self._sandboxed_command(bot, argv, env, allowance)
        else:
            env = dict(os.environ, **env)
            if shutil.which(argv[0], path=env.get("PATH")) is None:
                raise ManagedBotError(f"bot {bot.name}: cannot start {argv[0]!r}: no such program")
            how = "start"
        with _open_log(log_path) as log:
            log.write(f"\n--- {time.strftime('%Y-%m-%d %H:%M:%S')} {how}: {bot.command}\n"
                      .encode())
            log.flush()
            try:
                running.process = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "arena.supervisor.launch", str(os.getpid()), *argv,
                    cwd=bot.cwd, env=env,
                    stdin=asyncio.subprocess.DEVNULL, stdout=log, stderr=log,
                    start_new_session=True,
                )
            except OSError as exc:
                await running.release()
                raise ManagedBotError(f"bot {bot.name}: cannot start {argv[0]!r}: {exc}") from None

    def _sandboxed_command(self, bot: ManagedBot, argv: list[str], env: dict[str, str],
                           output_bytes: int
                           ) -> tuple[list[str], dict[str, str], str, cgroups.Group | None]:
        """The launcher's command, environment and log word for `bot` in a sandbox, which
        may write `output_bytes` more to its log, and the cgroup holding its totals."""
        if not self.server_address.startswith("unix:"):
            raise ManagedBotError(f"bot {bot.name}: a sandboxed bot has no network and "
                                  f"reaches its server through a Unix socket; the server "
                                  f"address {self.server_address} is not one")
        cwd = str(bot.cwd or Path.cwd())
        program = program_path(argv[0], cwd=cwd, path=os.environ.get("PATH"))
        if program is None:
            raise ManagedBotError(f"bot {bot.name}: cannot start {argv[0]!r}: no such program")
        argv = [program, *argv[1:]]
        if bot.cwd is None:
            shown = [*sdk_paths(), *command_paths(argv, cwd=cwd), *map(str, bot.files)]
        else:
            shown = [*sdk_paths(), *_runtime_paths(bot.name, argv[0], cwd), cwd,
                     *map(str, bot.files)]
        if status().mode == "root":
            _check_readable_by_others(bot.name, [program, *shown])
        socket = self.server_address.removeprefix("unix:")
        limits = replace(self.isolation.limits, output_bytes=output_bytes)
        try:
            group = cgroups.create(f"bot/{bot.name}", limits)
        except OSError as exc:
            raise ManagedBotError(f"bot {bot.name}: cannot make its cgroup: {exc}") from None
        try:
            wrapped = wrap(argv, workdir=cwd, read_only_paths=shown,
                           hidden_paths=[*map(str, self.isolation.hidden_paths),
                                         str(self.log_dir)],
                           sockets={socket: SOCKET_INSIDE}, limits=limits,
                           key=f"{os.getpid()}/{bot.name}",
                           cgroups=group.procs_files if group is not None else ())
        except SandboxError as exc:
            if group is not None:
                group.remove()
            raise ManagedBotError(f"bot {bot.name}: cannot sandbox it: {exc}") from None
        inside = dict(env, ARENA_SERVER=f"unix:{SOCKET_INSIDE}",
                      PYTHONPATH=str(Path(sdk_paths()[0]).parent))
        outside = popen_kwargs(inside)["env"]
        return wrapped, outside, "start (sandboxed)", group

    async def _watch(self, running: _Running) -> None:
        while True:
            process = running.process
            assert process is not None
            code = await process.wait()
            await running.release()
            running.exits.append(code)
            if self.on_exit is not None:
                self.on_exit(running.bot.name, code)
            if self._stopping or running.restarts >= self.max_restarts or code == TOKEN_REFUSED:
                return
            await asyncio.sleep(self.backoff * (2 ** min(running.restarts, 5)))
            running.restarts += 1
            try:
                await self._launch(running)
            except ManagedBotError:
                return


def _runtime_paths(name: str, program: str, folder: str) -> list[str]:
    """What a submitted version's `program` needs shown beyond its `folder` and the
    system: arena's interpreter's home, or a known runtime's; `ManagedBotError` for a
    program that is none of those nor in the folder or a system folder."""
    real = os.path.realpath(program)
    if _inside_any(program, [folder]):
        return []
    if real == os.path.realpath(sys.executable) or os.path.basename(program) in RUNTIME_PROGRAMS:
        return command_paths([program], cwd=folder)
    if _inside_any(real, SYSTEM_PATHS) and _inside_any(program, SYSTEM_PATHS):
        return []
    raise ManagedBotError(f"bot {name}: its program {program} is neither in its folder nor "
                          "a runtime arena provides: a submitted version starts from either")


def _inside_any(path: str, folders: Sequence[str]) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def _check_readable_by_others(name: str, paths: list[str]) -> None:
    """`ManagedBotError` for a path a root arena's sandboxed bot, which runs as a uid of
    its own, could not read (a folder it could not enter, a program it could not run)."""
    for path in paths:
        try:
            mode = os.stat(path).st_mode
        except OSError as exc:
            raise ManagedBotError(f"bot {name}: cannot show it {path}: {exc}") from None
        needed = 0o005 if stat.S_ISDIR(mode) else 0o004
        if mode & needed != needed:
            raise ManagedBotError(
                f"bot {name}: {path} is not readable by other users (mode "
                f"{stat.S_IMODE(mode):04o}), and a root arena runs sandboxed bots as a user "
                f"of their own: make it readable (chmod o+rX) or run arena as another user")


LOG_HEADER_BYTES = 4096
"""Room left in a log for the line the supervisor writes at each start."""


def bot_log_path(log_dir: Path, name: str) -> Path:
    """The current log file of bot `name` launched with its logs in `log_dir` (older ones
    beside it end in .1, .2, ...)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
    return log_dir / f"{safe}.log"


def _rotate(path: Path, cap: int, files: int) -> int:
    """Rotate the log at `path` if it is half full (or more) of `cap` bytes, keeping
    `files` files in all; how much the next start may write to it."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        size = 0
    if size and size >= cap // 2:
        for index in range(files - 1, 0, -1):
            older = path.with_name(f"{path.name}.{index}")
            newer = path.with_name(f"{path.name}.{index - 1}") if index > 1 else path
            if newer.exists():
                os.replace(newer, older)
        path.unlink(missing_ok=True)
        size = 0
    return max(cap - size - LOG_HEADER_BYTES, 0)


def _open_log(path: Path) -> BinaryIO:
    """The log at `path` opened for appending; a new one is readable by its owner only
    (a bot's output may hold its cards), an existing one keeps its permissions."""
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "ab")


async def _terminate(process: asyncio.subprocess.Process | None, timeout: float) -> None:
    if process is None or process.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        async with asyncio.timeout(timeout):
            await process.wait()
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
