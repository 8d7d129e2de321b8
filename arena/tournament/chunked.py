"""Running a tournament on workers: chunks of scheduled games out, finished games back.

The process that runs the tournament (the *driver*) holds the run's claim,
hands the pending games to a `WorkerPool` in chunks — each worker plays a
chunk with its own match server and its own copies of the managed bots — and
alone records what comes back. A chunk is sized to take about `CHUNK_SECONDS`
of play (measured on the chunks already back), so a worker is not asked once
per game, with at least a game for each of a worker's tables; at most
`in_flight` chunks are out at once (two per worker by default), so a schedule
of any length never floods the workers' queue.

Recording is idempotent and ordered: results are kept by scheduled game, a
game recorded already (by an earlier, killed run, or because a chunk was played
twice after a worker died) changes nothing, and games are recorded — and rated
— strictly in schedule order through a `ScheduleOrder`, so the final ratings
of deterministic bots are identical whatever order chunks finish in and however
many workers played them; they equal a one-process run's (`run_tournament`).
Progress lives in the store: a killed driver loses only the games it had not
recorded, and `run_tournament_on_workers` run again resumes from there.

The tournament layer knows no processes: `WorkerPool` is whatever plays a chunk
(`arena.distributed` has pools of local processes and of Dask workers).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import math
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, TypeVar

from arena.store import (
    GameSummary,
    ReconnectFailed,
    ScheduledGame,
    Store,
    Tournament,
    TournamentStatus,
)
from arena.tournament.runner import (
    LiveRun,
    PlayedGame,
    Progress,
    RunHold,
    RunSummary,
    ScheduleFeed,
    ScheduleOrder,
    ScheduleStanding,
    Withdrawn,
    apply_change,
    check_entrants,
    counted_live,
    finish_in_thread,
    holding,
    logged_run,
    record_played,
    schedule_standing,
    tournament_settings,
)

_T = TypeVar("_T")

_log = logging.getLogger("arena.worker")

CHUNK_SECONDS = 0.25
"""The play a chunk is sized to take, once the first chunks have shown how long a game takes."""

MAX_CHUNK_GAMES = 512
"""The most games in one chunk."""

CHUNKS_PER_WORKER = 2
"""Chunks out at once per worker by default: one playing, one waiting its turn."""


@dataclass(frozen=True, slots=True)
class WorkerPlan:
    """What every worker of a run needs before its first chunk: the managed bots it
    launches, as (name, command) pairs, the folder each submitted version runs in
    (`folders`, by bot name), a folder for their logs (on a machine of the worker's own,
    a folder of its own is used), how the bots are isolated (`isolation`: plain data,
    `sandbox`, `limits` and `hidden_paths`, as the driver's own bots are), and which run
    it is (`run`, `database`)."""

    bots: tuple[tuple[str, str], ...]
    log_dir: str
    folders: Mapping[str, str] = field(default_factory=dict)
    isolation: Mapping[str, Any] = field(default_factory=dict)
    run: str = ""
    """The tournament or ladder the workers play, by name."""
    database: str = ""
    """Where the run is recorded (a database file, with its machine, or a URL): with `run`,
    what tells one run from another on a cluster that plays several at once."""
    read_only: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """The paths each operator's bot is shown read-only besides what its command names,
    by bot name."""


@dataclass(frozen=True, slots=True)
class Chunk:
    """Scheduled games for one worker: played under `rules` and bot `policy` (plain
    tables, as stored with the tournament), at most `tables` at once."""

    games: tuple[ScheduledGame, ...]
    rules: Mapping[str, Any]
    policy: Mapping[str, Any]
    tables: int
    tournament: str = ""
    """The tournament's name: a game is played under its public id (`TOURNAMENT:GAME`)."""
    bots: tuple[tuple[str, str, str], ...] = ()
    """Managed bots the worker launches before it plays the chunk, unless it runs them
    already: (name, command, the folder a submitted version runs in or ""). A ladder's
    field changes as it plays, so its bots come with its chunks, not with the plan."""


@dataclass(frozen=True, slots=True)
class ChunkResult:
    """A chunk played: each game's result by scheduled game id, and the seconds of play;
    with the managed bots' processes on its worker that exited on their own since the
    worker's last chunk, as (name, exit code) pairs (a negative code: killed by that
    signal), for the driver's metrics."""

    games: tuple[tuple[int, PlayedGame], ...]
    seconds: float
    bot_exits: tuple[tuple[str, int], ...] = ()


class WorkerPool(Protocol):
    """Workers that play chunks: `size` of them, each a chunk at a time."""

    @property
    def size(self) -> int:
        """How many workers there are now (at least 1)."""

    async def play(self, chunk: Chunk) -> ChunkResult:
        """Play every game of `chunk` on some worker; raise if it cannot be played."""


WORKER_WAIT = 30.0
"""Seconds a run waits by default for a cluster to have a worker."""


class PoolEvent(enum.StrEnum):
    """What happens to a run's workers, as operators count it
    (``arena_worker_events_total{event=...}``)."""

    WORKER_DIED = "worker_died"
    """A local worker process died (the run stops)."""
    WORKER_LEFT = "worker_left"
    """A worker left the Dask cluster."""
    WORKER_JOINED = "worker_joined"
    """A worker joined the Dask cluster while the run played."""
    CHUNK_REPLAYED = "chunk_replayed"
    """A chunk is played again: the worker playing it died, or the scheduler was lost."""
    SCHEDULER_LOST = "scheduler_lost"
    """The connection to the Dask scheduler was lost."""
    SCHEDULER_BACK = "scheduler_back"
    """The connection to the Dask scheduler is back."""


class PoolNews:
    """How a pool tells what happens to its workers: a line for the person running the
    run (`say`), an event of the `arena.worker` log (with the run's name, and the
    `PoolEvent` when it is one) and a count of the event (`note`)."""

    def __init__(self, run: str, say: Callable[[str], None] | None = None,
                 note: Callable[[PoolEvent], None] | None = None) -> None:
        self.run = run
        self._say = say
        self._note = note

    def __call__(self, line: str, event: PoolEvent | None = None) -> None:
        """Tell `line`, the news of `event` if it is one."""
        extra: dict[str, str] = {"run": self.run}
        if event is not None:
            extra["event"] = event.value
        _log.info("%s", line, extra=extra)
        if event is not None and self._note is not None:
            self._note(event)
        if self._say is not None:
            self._say(line)


class WorkerPools(Protocol):
    """``pools(plan, workers, cluster, wait=, say=, note=)``: a pool of `workers` local
    processes, or of the workers of the Dask cluster at address `cluster` when it is not
    empty, which waits up to `wait` seconds for a first worker; what the pool has to tell
    while it plays (a worker waited for, lost or back, a chunk played again) goes to `say`
    as one line each, and to the log (see `PoolNews`); `note` counts each `PoolEvent`."""

    def __call__(self, plan: WorkerPlan, workers: int, cluster: str, *,
                 wait: float = WORKER_WAIT, say: Callable[[str], None] | None = None,
                 note: Callable[[PoolEvent], None] | None = None
                 ) -> contextlib.AbstractAsyncContextManager[WorkerPool]:
        """The pool, as an async context manager."""


class WorkersFailed(RuntimeError):
    """The workers could not play: a worker died, none joined, a chunk failed. Its
    message is written for the person running the tournament, and says where the bot
    logs are."""


SLOW_START = 5.0
"""Seconds a pool may take to start before it says what it waits for."""


async def said_if_slow(work: Awaitable[_T], line: str, say: Callable[[str], None] | None,
                       after: float = SLOW_START) -> _T:
    """The result of `work`; `line` is said if it takes more than `after` seconds."""
    task = asyncio.ensure_future(work)
    done, _ = await asyncio.wait({task}, timeout=after)
    if not done and say is not None:
        say(line)
    return await task


def failure_text(exc: BaseException, log_dir: Path | str) -> str:
    """Why workers could not play, for the person running the run: a pool's own words
    (`WorkersFailed`, which say where the bot logs are), else the error's first line and
    the log folder `log_dir` — never an exception's name or traceback."""
    if isinstance(exc, WorkersFailed):
        return str(exc)
    lines = str(exc).strip().splitlines()
    return f"{lines[0] if lines else 'the workers failed'} (bot logs in {log_dir})"


@dataclass
class ChunkSizer:
    """How many games the next chunk gets: about `seconds` of play at the mean game
    time seen so far, but never fewer than `first` (a game for each of a worker's
    tables: a chunk of fewer games than the tables leaves tables idle, and then takes
    as long as its longest game), and never so many that fewer chunks than `spread` are
    left for what remains, so the last ones end together."""

    first: int
    seconds: float = CHUNK_SECONDS
    spread: int = 1
    _games: int = 0
    _played: float = 0.0

    def seen(self, games: int, seconds: float) -> None:
        """Count a chunk of `games` games that took `seconds` to play."""
        self._games += games
        self._played += seconds

    def next(self, remaining: int) -> int:
        """The size of the next chunk when `remaining` games are left to hand out."""
        size = self.first
        if self._games and self._played > 0:
            size = max(size, math.ceil(self.seconds * self._games / self._played))
        balanced = math.ceil(remaining / max(1, self.spread))
        return max(1, min(size, balanced, MAX_CHUNK_GAMES, remaining))


async def run_tournament_on_workers(
    store: Store,
    tournament: str | int,
    pool: WorkerPool,
    *,
    concurrency: int | None = None,
    progress: Progress | None = None,
    on_game: Callable[[GameSummary], None] | None = None,
    stop: asyncio.Event | None = None,
    hold: RunHold | None = None,
    in_flight: int | None = None,
    chunk_seconds: float = CHUNK_SECONDS,
    feed: ScheduleFeed | None = None,
    bots: BotCommands | None = None,
    on_bot_exit: Callable[[str, int], None] | None = None,
) -> RunSummary:
    """Play every pending game of `tournament` on `pool`'s workers and record each one.

    Each worker plays `concurrency` tables at once (default: the tournament's
    setting); at most `in_flight` chunks are out at once (default: two per
    worker). Games are recorded in schedule order; one recorded already is
    skipped. Setting `stop` lets the chunks out finish and hands out no more;
    the tournament is then 'stopped'. If a chunk cannot be played, the chunks
    out are abandoned (their games stay pending), the tournament is 'stopped'
    and the error propagates. Holding and `TournamentBusy` are as in
    `run_tournament`.

    With a `feed` the schedule grows as it is played (see `ScheduleFeed`): the run asks
    it for games whenever chunks could be handed out and goes on until the feed is
    finished or `stop` is set; a game whose bot was removed before it was recorded is
    withdrawn. `bots` names the managed bots each chunk's worker is to launch (see
    `Chunk.bots`). `on_bot_exit` hears of each managed bot's process on a worker that
    exited on its own (`ChunkResult.bot_exits`).
    """
    stored = await asyncio.to_thread(store.tournament, tournament)
    tables = tournament_settings(stored).concurrency if concurrency is None else concurrency
    if tables < 1:
        raise ValueError(f"concurrency must be at least 1, got {tables}")
    if in_flight is not None and in_flight < 1:
        raise ValueError(f"in_flight must be at least 1, got {in_flight}")
    if feed is None:
        await asyncio.to_thread(check_entrants, store, stored)
    async with contextlib.AsyncExitStack() as stack:
        if hold is None:
            hold = await stack.enter_async_context(holding(store, stored.id))
        standing = await asyncio.to_thread(schedule_standing, store, stored.id)
        run = _ChunkedRun(store, stored, pool, hold, tables, stop or asyncio.Event(),
                          progress, on_game, standing, feed, bots, on_bot_exit)
        return await run.play_all(in_flight, chunk_seconds)


@dataclass
class _ChunkedRun:
    store: Store
    tournament: Tournament
    pool: WorkerPool
    hold: RunHold
    tables: int
    stop: asyncio.Event
    progress: Progress | None
    on_game: Callable[[GameSummary], None] | None
    standing: ScheduleStanding
    feed: ScheduleFeed | None = None
    bots: BotCommands | None = None
    on_bot_exit: Callable[[str, int], None] | None = None
    done: int = 0
    total: int = 0
    played: int = 0
    queue: deque[ScheduledGame] = field(default_factory=deque)

    def __post_init__(self) -> None:
        self.done, self.total = self.standing.done, self.standing.total
        self.queue = deque(self.standing.pending)
        self.order: ScheduleOrder[tuple[ScheduledGame, PlayedGame]] = ScheduleOrder(self.queue)
        self.by_id = {game.id: game for game in self.queue}
        settings = tournament_settings(self.tournament)
        self.policy = dict(settings.policy)
        self.feed_finished = self.feed is None

    async def play_all(self, in_flight: int | None, chunk_seconds: float) -> RunSummary:
        with counted_live(self.live), logged_run(self.tournament.name, self.live) as ended:
            summary = await self._play_all(in_flight, chunk_seconds)
            ended(summary)
            return summary

    def live(self) -> LiveRun:
        """How the run stands now: games in chunks out, or back and not yet recorded,
        are in play."""
        queued = len(self.queue)
        return LiveRun(self.tournament.name, max(0, self.total - self.done - queued), queued)

    async def _play_all(self, in_flight: int | None, chunk_seconds: float) -> RunSummary:
        self.hold.check(self.tournament.name)
        self._report()
        if self.queue or self.feed is not None:
            await self._set_status(TournamentStatus.RUNNING)
            chunks: set[asyncio.Task[ChunkResult]] = set()
            try:
                await self._deal_out(in_flight, chunk_seconds, chunks)
            except BaseException:
                try:
                    if not self.hold.lost:
                        await self._set_status(TournamentStatus.STOPPED)
                except ReconnectFailed:
                    pass  # the database is gone: the error that stopped the run says so
                finally:
                    for task in chunks:
                        task.cancel()
                    await asyncio.gather(*chunks, return_exceptions=True)
                raise
        self.hold.check(self.tournament.name, self.played)
        finished = self.done == self.total and self.feed_finished
        status = TournamentStatus.FINISHED if finished else TournamentStatus.STOPPED
        await self._set_status(status)
        return RunSummary(self.tournament.name, status, self.done, self.total, self.played)

    async def _set_status(self, status: TournamentStatus) -> None:
        """Store the tournament's status (made in full even if the run is cancelled
        meanwhile)."""
        await finish_in_thread(self.store.set_tournament_status, self.tournament.id, status)

    def _may_hand_out(self) -> bool:
        return bool(self.queue) and not self.stop.is_set() and not self.hold.lost

    def _feeding(self) -> bool:
        return not self.feed_finished and not self.stop.is_set() and not self.hold.lost

    async def _refill(self, wanted: int) -> None:
        """Ask the feed for games until `wanted` wait to be handed out; drop those it
        withdraws."""
        if self.feed is None or not self._feeding():
            return
        change = await self.feed.refill(tuple(self.queue), wanted)
        self.feed_finished = change.finished
        self.by_id.update((game.id, game) for game in change.added)
        self.total += apply_change(change, self.queue, self.order)
        if change.added or change.withdrawn:
            self._report()
            await self._record_ready()

    def _chunk_bots(self, games: Sequence[ScheduledGame]) -> tuple[tuple[str, str, str], ...]:
        if self.bots is None:
            return ()
        return self.bots(sorted({bot for game in games for bot in game.seats}))

    async def _deal_out(self, in_flight: int | None, chunk_seconds: float,
                        chunks: set[asyncio.Task[ChunkResult]]) -> None:
        sizer = ChunkSizer(first=self.tables, seconds=chunk_seconds)
        while True:
            cap = in_flight or CHUNKS_PER_WORKER * max(1, self.pool.size)
            sizer.spread = 1 if self.feed is not None else cap
            if len(chunks) < cap:
                await self._refill((cap - len(chunks)) * sizer.next(MAX_CHUNK_GAMES))
            while len(chunks) < cap and self._may_hand_out():
                size = sizer.next(len(self.queue))
                games = tuple(self.queue.popleft() for _ in range(size))
                chunk = Chunk(games, self.tournament.rules, self.policy, self.tables,
                              self.tournament.name, self._chunk_bots(games))
                chunks.add(asyncio.ensure_future(self.pool.play(chunk)))
            if not chunks and not self._feeding():
                return
            waits: set[asyncio.Future[Any]] = set(chunks)
            if self.feed is not None and self._feeding() and len(chunks) < cap:
                waits.add(asyncio.ensure_future(self.feed.changed()))
            ended, _ = await asyncio.wait(waits, timeout=_WAKE_EVERY,
                                          return_when=asyncio.FIRST_COMPLETED)
            for task in waits - set(chunks):
                task.cancel()
            ended = {task for task in ended if task in chunks}
            for task in ended:
                chunks.discard(task)
                result = task.result()
                sizer.seen(len(result.games), result.seconds)
                if self.on_bot_exit is not None:
                    for name, code in result.bot_exits:
                        self.on_bot_exit(name, code)
                for game_id, played in result.games:
                    game = self.by_id.get(game_id)
                    if game is not None:
                        self.order.add(game_id, (game, played))
            await self._record_ready()

    async def _record_ready(self) -> None:
        ready = self.order.ready()
        if ready:
            summaries = await asyncio.to_thread(self._record_all, ready)
            for summary in summaries:
                if isinstance(summary, Withdrawn):
                    self.total -= 1
                    continue
                self.done += 1
                if summary is not None:
                    self.played += 1
                    if self.on_game is not None:
                        self.on_game(summary)
            self._report()

    def _record_all(self, ready: Sequence[tuple[ScheduledGame, PlayedGame]]
                    ) -> list[GameSummary | None | Withdrawn]:
        return [self._record(game, played) for game, played in ready]

    def _record(self, game: ScheduledGame, played: PlayedGame
                ) -> GameSummary | None | Withdrawn:
        now = datetime.now(UTC)
        return record_played(self.store, self.tournament, game, played, now, now,
                             withdraw_removed=self.feed is not None)

    def _report(self) -> None:
        if self.progress is not None:
            self.progress(self.done, self.total)


BotCommands = Callable[[Sequence[str]], tuple[tuple[str, str, str], ...]]
"""The managed bots among the names given, as a chunk carries them (`Chunk.bots`)."""

_WAKE_EVERY = 1.0
"""Seconds between looks at `stop` and the run's hold while every chunk out still plays."""
