"""One worker's match server and managed bots: what plays a chunk of games.

A `WorkerHost` runs an `ArenaServer` on a private loopback port (and its Unix
socket), on an event loop of its own thread, and launches its own copy of every
managed bot of the run against it (and of each bot a chunk brings, the first time
it does: a ladder's field changes as it plays), isolated as the driver's bots are (each
with a session token minted by this host: the server knows no other token, and
its admin service needs one nobody is given). It
plays the games of a chunk, `tables` at once, and hands back each game as the
tournament runner records it. It never touches a store: only the driver writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import threading
import time
from collections.abc import Coroutine, Mapping, Sequence
from concurrent.futures import CancelledError, Future
from pathlib import Path
from typing import Any, TypeVar

from arena.engine.rules import RuleSet
from arena.game_id import public_game_id
from arena.policy import BotPolicy
from arena.result import played_game
from arena.sandbox import Limits
from arena.server.auth_store import SessionTokens
from arena.server.server import ArenaServer
from arena.store import ScheduledGame
from arena.supervisor import BotIsolation, BotSupervisor, ManagedBot
from arena.tournament.chunked import Chunk, ChunkResult
from arena.tournament.runner import PlayedGame

BOT_WAIT = 60.0
"""Seconds a host waits for its bots to connect: at its start, and before each chunk for
a bot that is restarting (its games are then played without it, as its policy says)."""

GAVE_UP_LOOK = 0.5
"""Seconds between two looks, while a chunk waits for its bots, at whether one's restarts
are spent (it is not waited for then)."""

CRASH_GRACE = 0.5
"""Seconds a bot whose connection dropped is given to finish exiting, so that its seats'
violations are recorded as a crash rather than a disconnect."""

_T = TypeVar("_T")


class ChunkAbandoned(Exception):
    """A chunk given up before its end: the run it was for has stopped."""


class WorkerHost:
    """A match server with its own managed bots, for playing chunks from any thread."""

    def __init__(self, bots: Sequence[tuple[str, str]], log_dir: Path, *,
                 bot_wait: float = BOT_WAIT, folders: Mapping[str, str] | None = None,
                 isolation: BotIsolation | None = None,
                 read_only: Mapping[str, tuple[str, ...]] | None = None) -> None:
        self.bots = tuple(bots)
        self.log_dir = log_dir
        self.bot_wait = bot_wait
        self.folders = dict(folders or {})
        """The folder each submitted version runs in, by bot name."""
        self.read_only = dict(read_only or {})
        """The extra read-only paths of each operator's bot, by bot name."""
        self.isolation = isolation or BotIsolation()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True,
                                        name="arena-worker-host")
        self._server: ArenaServer | None = None
        self._supervisor: BotSupervisor | None = None
        self._away: set[str] = set()
        """Bots that stayed away for a whole `bot_wait`: not waited for until they are back."""
        self._tokens = SessionTokens()
        self._launched: set[str] = set()
        self._exits: list[tuple[str, int]] = []
        """The bots' processes that exited on their own since the last chunk: name, code."""
        self._playing: set[Future[ChunkResult]] = set()
        self._abandoned = False

    @property
    def names(self) -> list[str]:
        """The bots this host launches."""
        return [name for name, _ in self.bots]

    @property
    def port(self) -> int | None:
        """The loopback port the host's server listens on, once started."""
        return None if self._server is None else self._server.port

    def start(self) -> None:
        """Start the server and the bots; return once every bot is connected (raise
        `TimeoutError` if one is not within `bot_wait`)."""
        self._thread.start()
        self._run(self._start())

    def play(self, chunk: Chunk) -> ChunkResult:
        """Play every game of `chunk`, at most `chunk.tables` at once (raise
        `ChunkAbandoned` if `abandon` is called meanwhile, or was before)."""
        if self._abandoned:
            raise ChunkAbandoned(f"chunk of {len(chunk.games)} games not started: "
                                 "the run is stopping")
        playing = asyncio.run_coroutine_threadsafe(self._play(chunk), self._loop)
        self._playing.add(playing)
        if self._abandoned:
            playing.cancel()
        try:
            return playing.result()
        except CancelledError:
            raise ChunkAbandoned(f"chunk of {len(chunk.games)} games abandoned: "
                                 "the run is stopping") from None
        finally:
            self._playing.discard(playing)

    def abandon(self) -> None:
        """Give up the chunks in play and any to come, from any thread: the run they
        were for has stopped, and their games stay pending in its store."""
        self._abandoned = True
        for playing in list(self._playing):
            playing.cancel()

    def stop(self) -> None:
        """Stop the bots and the server, then the host's thread (again: a no-op)."""
        if not self._thread.is_alive():
            return
        try:
            self._run(self._stop())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)

    def _run(self, coroutine: Coroutine[Any, Any, _T]) -> _T:
        future: Future[_T] = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        return future.result()

    async def _start(self) -> None:
        tokens = self._tokens
        server = ArenaServer(tokens, admin_token=secrets.token_urlsafe(24))
        await server.start("127.0.0.1", 0)
        self._server = server
        address = server.bot_address
        supervisor = BotSupervisor(address, self.log_dir, on_exit=self._exited,
                                   isolation=self.isolation)
        self._supervisor = supervisor
        server.crash_check = self._crashed
        self.log_dir.mkdir(parents=True, exist_ok=True)
        for name, command in self.bots:
            await self._launch(name, command, self.folders.get(name, ""))
        await server.wait_for_bots(self.names, timeout=self.bot_wait)

    async def _launch(self, name: str, command: str, folder: str) -> None:
        """Launch managed bot `name` (in `folder`, a submitted version's, or "" for none)."""
        assert self._supervisor is not None
        cwd = Path(folder) if folder else None
        files = tuple(Path(path) for path in self.read_only.get(name, ()))
        await self._supervisor.start(ManagedBot(name, command, self._tokens.mint(name), cwd,
                                                files))
        self._launched.add(name)

    async def _play(self, chunk: Chunk) -> ChunkResult:
        server = self._server
        if server is None:
            raise RuntimeError("the worker host is not started")
        start = time.perf_counter()
        for name, command, folder in chunk.bots:
            if name not in self._launched:
                await self._launch(name, command, folder)
        await self._wait_for_bots(server, {b for g in chunk.games for b in g.seats})
        rules = RuleSet.from_dict(chunk.rules)
        policy = BotPolicy.from_dict(chunk.policy)
        tables = asyncio.Semaphore(chunk.tables)

        async def one(game: ScheduledGame) -> tuple[int, PlayedGame]:
            async with tables:
                result = await server.play_game(
                    list(game.seats), rules, game.seed, policy,
                    game_id=(public_game_id(chunk.tournament, game.game_index)
                             if chunk.tournament else None))
            return game.id, played_game(result)

        games = await asyncio.gather(*(one(game) for game in chunk.games))
        exits, self._exits = tuple(self._exits), []
        return ChunkResult(tuple(games), time.perf_counter() - start, exits)

    async def _wait_for_bots(self, server: ArenaServer, bots: set[str]) -> None:
        """Wait up to `bot_wait` for the bots of a chunk that are not connected (restarting
        after a crash), but not for one whose restarts are spent; one still away then is
        played without — its absence recorded as its policy says — and not waited for
        again until it is back."""
        self._away -= set(server.connected_bots())
        deadline = time.monotonic() + self.bot_wait
        while True:
            missing = bots - self._away - set(server.connected_bots()) - self._given_up(bots)
            left = deadline - time.monotonic()
            if not missing or left <= 0:
                break
            with contextlib.suppress(TimeoutError):
                await server.wait_for_bots(missing, timeout=min(GAVE_UP_LOOK, left))
        self._away |= bots - set(server.connected_bots())

    def _given_up(self, bots: set[str]) -> set[str]:
        """The bots among `bots` whose process has exited for good on this host."""
        supervisor = self._supervisor
        return set() if supervisor is None else {b for b in bots if supervisor.gave_up(b)}

    async def _stop(self) -> None:
        if self._supervisor is not None:
            await self._supervisor.stop()
            self._supervisor = None
        if self._server is not None:
            await self._server.stop(0.5)
            self._server = None

    def _exited(self, name: str, code: int) -> None:
        self._exits.append((name, code))
        if code != 0 and self._server is not None:
            self._server.bot_crashed(name)

    async def _crashed(self, name: str) -> bool:
        if self._supervisor is None:
            return False
        code = await self._supervisor.exit_code(name, CRASH_GRACE)
        return code is not None and code != 0


def isolation_of(plan: Mapping[str, object]) -> BotIsolation:
    """The `BotIsolation` a `WorkerPlan.isolation` describes (the default for none)."""
    if not plan:
        return BotIsolation()
    limits = plan.get("limits")
    hidden = plan.get("hidden_paths")
    sandbox = str(plan.get("sandbox", "off"))
    assert sandbox in ("off", "auto", "required")
    return BotIsolation(sandbox,  # type: ignore[arg-type]
                        Limits.from_dict(dict(limits)) if isinstance(limits, Mapping) else Limits(),
                        tuple(Path(str(p)) for p in hidden) if isinstance(hidden, list | tuple)
                        else ())
