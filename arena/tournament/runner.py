"""Running a tournament: play its pending games and record each one as it finishes.

The runner knows nothing of gRPC. It is handed a `TableRunner` — anything that
plays one scheduled game and returns a `PlayedGame` — and records every result
through `Store.record_game`, which writes the game, marks it done and updates
the ratings in one transaction. Games already recorded are skipped, so running
a stopped or killed tournament again finishes it without playing any game
twice. A run holds the store's claim on its tournament while it plays, so a
second run of the same tournament, from this process or another one on the
same database, is refused instead of playing the same games.

Given a `BotPresence`, a run starts a game only once every bot of it is
connected: a game waiting for an absent bot is put off while other pending
games whose bots are all there are played, for up to the run's `wait`; a
game whose bot stays away longer is played anyway, so that its absence is
recorded, and the `RunSummary` names the bots that were absent and for how
many games. A presence that is also a `BotCapacity` bounds each connected bot's
games as well: the run starts no more of a bot's games at once than the bot can
play, and plays the pending games whose bots have room meanwhile, so a bot that
takes one table at a time can enter a field of any size.

Games finish in any order, but they are recorded — and so rated — strictly in
schedule order: a finished game waits in a `ScheduleOrder` until every pending
game before it is recorded. TrueSkill's updates depend on their order, so the
final ratings of deterministic bots are the same however many tables played at
once, and however many workers (`arena.tournament.chunked`) played them. A run
that stops keeps the games recorded in order; a finished game that still waited
for an earlier one stays pending and is played again by the next run.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import sqlite3
from collections import Counter, deque
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Collection,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from arena.engine.outcome import Outcome
from arena.engine.rules import RuleSet
from arena.game_id import public_game_id
from arena.record import FAULTS, Decision, SeatTermination
from arena.store import (
    CLAIM_STALE_AFTER,
    AlreadyRecorded,
    EntrantRemoved,
    GameSummary,
    ReconnectFailed,
    RunClaim,
    ScheduledGame,
    Store,
    StoreError,
    Tournament,
    TournamentBusy,
    TournamentStatus,
)
from arena.tournament.schedule import TournamentSettings, build_schedule


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """What a table runner returns for one game.

    `events` is the replay log as JSON objects, `actions` the decisions as JSON
    values, `seat_terminations[seat]` how each seat's game ended. Timestamps
    left out are taken by the runner around the call. A game that ended by a
    forfeit names the `forfeited_seat`. `decisions` are every decision a seat
    owed, with its time and what came of it, or None when the runner kept none.
    """

    outcome: Outcome
    events: Sequence[Mapping[str, Any]]
    actions: Sequence[Any]
    seat_terminations: Sequence[SeatTermination]
    started_at: datetime | None = None
    finished_at: datetime | None = None
    forfeited_seat: int | None = None
    decisions: Sequence[Decision] | None = None


class TableRunner(Protocol):
    """Plays one scheduled game under a rule set; a plain or an async callable.

    A plain callable runs in a worker thread, so several can play at once.
    Raising stops the tournament (bot failures belong in `seat_terminations`).
    """

    def __call__(
        self, game: ScheduledGame, rules: RuleSet, /
    ) -> PlayedGame | Awaitable[PlayedGame]:
        """Play `game` to its end and return the result."""


class BotPresence(Protocol):
    """Which bots are connected now, for a run that starts a game only once its bots are."""

    def absent(self, bots: Sequence[str]) -> list[str]:
        """The bots among `bots` that are not connected now."""

    async def changed(self) -> None:
        """Return once the connected bots may have changed (returning early is harmless)."""


@runtime_checkable
class BotCapacity(Protocol):
    """How many games a connected bot can play at once: a `BotPresence` that has this
    method too makes a run start a game only when each of its bots has room."""

    def table_slots(self, bot: str) -> int:
        """The games `bot` can play at once now, over all its connections (0: not connected)."""


@dataclass(frozen=True, slots=True)
class FeedChange:
    """What a `ScheduleFeed` did to the schedule: the games it `added` (stored already,
    in schedule order, after every game the run holds), the pending games it `withdrew`
    (by scheduled game id; they are no longer in the schedule) and whether it is
    `finished` (it adds no more: the run ends once the games it holds are played)."""

    added: tuple[ScheduledGame, ...] = ()
    withdrawn: frozenset[int] = frozenset()
    finished: bool = False


class ScheduleFeed(Protocol):
    """A schedule that grows while it is played (the ladder's): a run given one asks it
    for games whenever a table is free, and plays until it is finished or stopped."""

    async def refill(self, pending: Sequence[ScheduledGame], free_tables: int) -> FeedChange:
        """Add games for `free_tables` free tables, given the `pending` games not yet
        started, and withdraw those of them that can no longer be played."""

    async def changed(self) -> None:
        """Return once a refill may add what the last one could not (returning early is
        harmless)."""


Tables = int | Callable[[], int]
"""How many tables a run plays at once: a number, or asked anew before each game starts
(a ladder sharing a server's tables with scheduled tournaments)."""


_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class LiveRun:
    """How a run going on in this process stands now: games started and not yet recorded
    (`in_play`), and games yet to start (`queued`)."""

    run: str
    in_play: int
    queued: int


_live_runs: dict[int, Callable[[], LiveRun]] = {}
"""The runs going on in this process, each by how to look at it."""


@contextlib.contextmanager
def logged_run(run: str, look: Callable[[], LiveRun]
               ) -> Iterator[Callable[[RunSummary], None]]:
    """Log that `run` starts, and how it ended: with the summary given to the function
    the block gets, or the error that ended it."""
    start = look()
    _log.info("run %s started", run, extra={"run": run, "queued": start.queued})
    summary: list[RunSummary] = []
    try:
        yield summary.append
    except BaseException as exc:
        _log.info("run %s stopped: %s", run, type(exc).__name__,
                  extra={"run": run, "error": str(exc) or type(exc).__name__})
        raise
    if summary:
        done = summary[0]
        _log.info("run %s ended: %s", run, done.status.value, extra={
            "run": run, "status": done.status.value, "done": done.done,
            "total": done.total, "played": done.played})


def live_runs() -> list[LiveRun]:
    """The runs going on in this process now (for metrics; it changes nothing)."""
    return [look() for look in list(_live_runs.values())]


@contextlib.contextmanager
def counted_live(look: Callable[[], LiveRun]) -> Iterator[None]:
    """Count, while the block runs, a run among `live_runs`, looked at with `look`."""
    _live_runs[id(look)] = look
    try:
        yield
    finally:
        _live_runs.pop(id(look), None)


HEARTBEAT_EVERY = CLAIM_STALE_AFTER / 6
"""Seconds between a run's heartbeats on its claim."""

Progress = Callable[[int, int], None]
"""Called with (games done, games scheduled) at the start and after every game."""


@dataclass(frozen=True, slots=True)
class RunSummary:
    """How a run of a tournament ended: `played` counts the games this run recorded."""

    tournament: str
    status: TournamentStatus
    done: int
    total: int
    played: int
    absent: Mapping[str, int] = field(default_factory=dict)
    """Bots that stayed away past the run's wait, each with the games it was absent for."""
    wait: float = 0.0
    """The seconds the run waited for an absent bot before playing its games without it."""

    @property
    def message(self) -> str:
        """A line on the bots that were absent, or "" when every game had its bots."""
        if not self.absent:
            return ""
        which = ", ".join(f"{bot} ({games} game{'s' if games != 1 else ''})"
                          for bot, games in sorted(self.absent.items()))
        return (f"not connected after the {self.wait:g} s wait, so recorded absent: {which}; "
                "their seats in those games forfeited or played the fallback")


Item = TypeVar("Item")
T = TypeVar("T")


class ScheduleOrder(Generic[Item]):
    """A reorder buffer: items added in any order, taken out in schedule order.

    Made from the pending games in schedule order; `add` holds the item of a finished
    game, `ready` takes out, in order, every held item whose earlier games have all been
    taken out. An item for a game not in the order, or added again, is ignored.
    """

    def __init__(self, games: Sequence[ScheduledGame]) -> None:
        self._order = deque(game.id for game in games)
        self._expected = set(self._order)
        self._held: dict[int, Item] = {}

    def add(self, game_id: int, item: Item) -> None:
        """Hold `item`, the result of game `game_id`, until its turn."""
        if game_id in self._expected:
            self._held.setdefault(game_id, item)

    def extend(self, games: Sequence[ScheduledGame]) -> None:
        """Expect `games` after every game expected now."""
        for game in games:
            if game.id not in self._expected:
                self._order.append(game.id)
                self._expected.add(game.id)

    def withdraw(self, game_ids: Collection[int]) -> None:
        """Expect the games `game_ids` no more (they left the schedule unplayed)."""
        gone = self._expected & set(game_ids)
        if gone:
            self._order = deque(game_id for game_id in self._order if game_id not in gone)
            self._expected -= gone
            for game_id in gone:
                self._held.pop(game_id, None)

    def ready(self) -> list[Item]:
        """Take out the held items whose turn has come, in schedule order."""
        out = []
        while self._order and self._order[0] in self._held:
            game_id = self._order.popleft()
            self._expected.discard(game_id)
            out.append(self._held.pop(game_id))
        return out

    @property
    def held(self) -> int:
        """How many finished games wait for an earlier one."""
        return len(self._held)


def create_tournament(
    store: Store, name: str, settings: TournamentSettings, bots: Sequence[str]
) -> Tournament:
    """Build the schedule for `bots` and store the tournament with it, in one transaction."""
    schedule = build_schedule(settings, bots)
    stored_settings = {key: value for key, value in settings.to_dict().items() if key != "rules"}
    return store.create_tournament(
        name, settings.format.value, stored_settings, settings.rules.to_dict(), games=schedule
    )


def tournament_settings(tournament: Tournament) -> TournamentSettings:
    """The settings a stored tournament was created with."""
    return TournamentSettings.from_dict({**tournament.settings, "rules": tournament.rules})


async def run_tournament(
    store: Store,
    tournament: str | int,
    play: TableRunner,
    *,
    concurrency: Tables | None = None,
    progress: Progress | None = None,
    on_game: Callable[[GameSummary], None] | None = None,
    stop: asyncio.Event | None = None,
    hold: RunHold | None = None,
    presence: BotPresence | None = None,
    wait: float = 60.0,
    feed: ScheduleFeed | None = None,
) -> RunSummary:
    """Play every pending game of `tournament`, `concurrency` tables at once.

    With `presence`, a game starts only once all its bots are connected; while
    one is not, the pending games whose bots are all there are played instead.
    If `presence` is also a `BotCapacity`, a game starts only while each of its
    connected bots plays fewer of this run's games than its `table_slots`; the
    first pending game whose bots all have room is started meanwhile, and with
    none, the run waits for a game to finish or the bots to change.
    A bot away for more than `wait` seconds has its games played without it
    (its absence recorded as the bot policy says) until it is back, and the
    summary counts them in `absent`.

    `concurrency` defaults to the tournament's setting. Setting `stop` lets
    the games in play finish and starts no more; the tournament is then
    'stopped' and a later run resumes it. If `play` raises, the games in play
    are abandoned (they stay pending), the tournament is 'stopped' and the
    error propagates. `on_game` sees each game as it is recorded.

    The run holds the tournament (`holding`) for as long as it plays, unless
    the caller passes the `hold` it has taken already. Raises `TournamentBusy`
    when another run holds the tournament, and when this run loses its hold
    midway (another run took it over after missed heartbeats); the games
    recorded until then are kept.

    With a `feed`, the schedule grows while it is played: the run asks the feed for
    games whenever a table is free (see `ScheduleFeed`) and goes on until the feed is
    finished or `stop` is set; the feed withdraws the pending games of bots that
    left, and a game in play whose bot is removed before it is recorded is withdrawn
    too. `concurrency` may then be a callable, asked before each game starts.
    """
    stored = await asyncio.to_thread(store.tournament, tournament)
    tables = tournament_settings(stored).concurrency if concurrency is None else concurrency
    if isinstance(tables, int) and tables < 1:
        raise ValueError(f"concurrency must be at least 1, got {tables}")
    if feed is None:
        await asyncio.to_thread(check_entrants, store, stored)
    async with contextlib.AsyncExitStack() as stack:
        if hold is None:
            hold = await stack.enter_async_context(holding(store, stored.id))
        standing = await asyncio.to_thread(schedule_standing, store, stored.id)
        run = _Run(store, stored, play, progress, on_game, stop or asyncio.Event(), hold,
                   standing, feed)
        if presence is not None:
            run.attend(presence, wait)
        return await run.play_all(tables if callable(tables) else _fixed(tables))


def _fixed(tables: int) -> Callable[[], int]:
    return lambda: tables


class RunHold:
    """A run's claim on a tournament, kept alive by a heartbeat (see `holding`)."""

    def __init__(self, store: Store, claim: RunClaim) -> None:
        self.store = store
        self.claim = claim
        self._missed = False
        self._disconnected = False

    @property
    def lost(self) -> bool:
        """True once another run has taken the tournament over (after this one missed
        its heartbeats, or while it was disconnected from the database)."""
        if not self._missed and self.store.claim_lost(self.claim):
            self._missed = self._disconnected = True
        return self._missed

    @lost.setter
    def lost(self, lost: bool) -> None:
        self._missed = lost

    async def beat(self) -> None:
        """Renew the claim every `HEARTBEAT_EVERY` seconds until it is lost; a renewal
        that fails (the database busy) is tried again at the next beat."""
        while not self.lost:
            await asyncio.sleep(HEARTBEAT_EVERY)
            try:
                held = await asyncio.to_thread(self.store.refresh_run, self.claim)
            except (sqlite3.Error, StoreError) as exc:
                _log.warning("tournament %d: heartbeat failed, trying again: %s",
                             self.claim.tournament_id, exc)
                continue
            self.lost = not held

    def check(self, name: str, played: int = 0) -> None:
        """Raise `TournamentBusy` if the hold has been lost."""
        if self.lost:
            by = ("another driver while this one was disconnected from the database"
                  if self._disconnected else "another run after this one missed its heartbeats")
            raise TournamentBusy(f"tournament {name!r} was taken over by {by}; the {played} "
                                 "games this run recorded are kept")


@contextlib.asynccontextmanager
async def holding(store: Store, tournament: int) -> AsyncIterator[RunHold]:
    """Claim `tournament` for a run (`Store.claim_run`, which raises `TournamentBusy`
    while another run holds it), keep the claim alive while the block runs, then
    release it. The store's calls in the block are the run's (`Store.acting_for`): should
    another run take the claim over while the store is disconnected from its database,
    each write raises `ClaimTakenOver`."""
    hold = RunHold(store, await finish_in_thread(store.claim_run, tournament,
                                                 undo=store.release_run))
    with store.acting_for(hold.claim):
        heartbeat = asyncio.create_task(hold.beat())
        try:
            yield hold
        finally:
            await _cancel([heartbeat])
            # Without a connection the claim's lock has lapsed already, and a later run
            # takes the claim over at once.
            with contextlib.suppress(ReconnectFailed):
                await finish_in_thread(store.release_run, hold.claim)


async def finish_in_thread(call: Callable[..., T], /, *args: Any,
                           undo: Callable[[T], object] | None = None) -> T:
    """`call(*args)` run in a worker thread (a store call never holds up the event loop),
    and waited for to its end even when the caller is cancelled meanwhile, as a
    call on the loop would be: the cancellation is raised once it has finished, after
    `undo(result)` (in a thread too) when its result would be lost that way."""
    running = asyncio.ensure_future(asyncio.to_thread(call, *args))
    cancelled = False
    while not running.done():
        try:
            await asyncio.shield(running)
        except asyncio.CancelledError:
            cancelled = True
    result = running.result()
    if cancelled:
        if undo is not None:
            await finish_in_thread(undo, result)
        raise asyncio.CancelledError
    return result


@dataclass(frozen=True, slots=True)
class ScheduleStanding:
    """Where a tournament's schedule stands as a run starts: games done and in all, and
    the pending games in schedule order."""

    done: int
    total: int
    pending: list[ScheduledGame]


def schedule_standing(store: Store, tournament: int) -> ScheduleStanding:
    """Where `tournament`'s schedule stands now (blocks on the store)."""
    done, total = store.schedule_progress(tournament)
    return ScheduleStanding(done, total, store.pending_games(tournament))


def check_entrants(store: Store, tournament: Tournament) -> None:
    """Raise `EntrantRemoved` if a bot the tournament still has games for was removed."""
    removed = store.removed_entrants(tournament.id)
    if removed:
        raise EntrantRemoved(
            f"tournament {tournament.name!r} cannot go on: {', '.join(removed)} "
            f"{'was' if len(removed) == 1 else 'were'} removed after it was created, and "
            "a bot added again under the same name is a different bot")


class _Run:
    """One run of one tournament: a queue of pending games, started one by one as they
    become playable, at most `concurrency` at once."""

    def __init__(
        self,
        store: Store,
        tournament: Tournament,
        play: TableRunner,
        progress: Progress | None,
        on_game: Callable[[GameSummary], None] | None,
        stop: asyncio.Event,
        hold: RunHold,
        standing: ScheduleStanding,
        feed: ScheduleFeed | None = None,
    ) -> None:
        self.store = store
        self.feed = feed
        self.feed_finished = feed is None
        self.tables: Callable[[], int] = _fixed(1)
        self.hold = hold
        self.tournament = tournament
        self.rules = RuleSet.from_dict(tournament.rules)
        self.play = play
        self.progress = progress
        self.on_game = on_game
        self.stop = stop
        self.done, self.total = standing.done, standing.total
        self.played = 0
        self.queue: deque[ScheduledGame] = deque(standing.pending)
        self.order: ScheduleOrder[tuple[ScheduledGame, PlayedGame, datetime, datetime]] = \
            ScheduleOrder(self.queue)
        self.recording = asyncio.Lock()
        """Held while the games whose turn has come are recorded, so they go in order."""
        self.presence: BotPresence | None = None
        self.wait = 0.0
        self.away_since: dict[str, float] = {}
        """Bots seen not connected, with the loop time they were first seen so."""
        self.absent: Counter[str] = Counter()
        self.capacity: BotCapacity | None = None
        self.in_play: Counter[str] = Counter()
        """Each bot's games this run has started and not yet seen finish."""

    async def _set_status(self, status: TournamentStatus) -> None:
        """Store the tournament's status (made in full even if the run is cancelled
        meanwhile)."""
        await finish_in_thread(self.store.set_tournament_status, self.tournament.id, status)

    def attend(self, presence: BotPresence, wait: float) -> None:
        """Start games only for connected bots, waiting `wait` s for an absent one."""
        self.presence = presence
        self.wait = wait
        self.capacity = presence if isinstance(presence, BotCapacity) else None

    async def play_all(self, tables: Callable[[], int]) -> RunSummary:
        with counted_live(self.live), logged_run(self.tournament.name, self.live) as ended:
            summary = await self._play_all(tables)
            ended(summary)
            return summary

    def live(self) -> LiveRun:
        """How the run stands now."""
        queued = len(self.queue)
        return LiveRun(self.tournament.name, max(0, self.total - self.done - queued), queued)

    async def _play_all(self, tables: Callable[[], int]) -> RunSummary:
        self.tables = lambda: max(1, tables())
        hold = self.hold
        hold.check(self.tournament.name)
        self._report()
        if self.queue or self.feed is not None:
            await self._set_status(TournamentStatus.RUNNING)
            games: set[asyncio.Task[None]] = set()
            try:
                await self._deal_out(games)
            except BaseException:
                # Marked stopped before the games are cancelled: a second cancellation
                # arriving during that await must not leave the tournament 'running'.
                try:
                    if not hold.lost:  # else its status is the new holder's
                        await self._set_status(TournamentStatus.STOPPED)
                except ReconnectFailed:
                    pass  # the database is gone: the error that stopped the run says so
                finally:
                    await _cancel(list(games))
                raise
        hold.check(self.tournament.name, self.played)
        finished = self.done == self.total and self.feed_finished
        status = TournamentStatus.FINISHED if finished else TournamentStatus.STOPPED
        await self._set_status(status)
        summary = RunSummary(self.tournament.name, status, self.done, self.total, self.played,
                             dict(self.absent), self.wait)
        if summary.message:
            _log.warning("tournament %s: %s", self.tournament.name, summary.message)
        return summary

    def _may_start(self) -> bool:
        return bool(self.queue) and not self.stop.is_set() and not self.hold.lost

    def _feeding(self) -> bool:
        """Whether the run still asks a feed for games."""
        return not self.feed_finished and not self.stop.is_set() and not self.hold.lost

    async def _deal_out(self, games: set[asyncio.Task[None]]) -> None:
        """Start games, at most `tables()` at once, as they become playable, until none
        is left to start (nor, with a feed, to be added) and those in play (kept in
        `games`) have finished; a game's error is raised as soon as it ends."""
        while True:
            await self._refill(len(games))
            limit = self.tables()
            while len(games) < limit and self._may_start():
                game = self._next_game()
                if game is None:
                    break
                self.in_play.update(game.seats)  # now, before the game's task first runs
                games.add(asyncio.create_task(self._play_one(game)))
            if not games and not self._may_start() and not self._feeding():
                return
            if self._feeding() and len(games) < limit:
                ended = await self._await_change(games)
            elif len(games) >= limit or not self._may_start():
                ended, _ = await asyncio.wait(games, return_when=asyncio.FIRST_COMPLETED)
            else:
                ended = await self._await_change(games)
            for task in ended:
                games.discard(task)
                task.result()

    async def _refill(self, playing: int) -> None:
        """Ask the feed for games for the free tables, and drop the games it withdraws."""
        if self.feed is None or not self._feeding():
            return
        change = await self.feed.refill(tuple(self.queue), max(0, self.tables() - playing))
        self.feed_finished = change.finished
        self.total += apply_change(change, self.queue, self.order)
        if change.added or change.withdrawn:
            self._report()
            if change.withdrawn:
                await self._record_ready()

    async def _play_one(self, game: ScheduledGame) -> None:
        """Play one game counted in `in_play`, then record it and every finished game
        after it whose turn has come."""
        started = datetime.now(UTC)
        try:
            played = await _call(self.play, game, self.rules)
        finally:
            self.in_play.subtract(game.seats)
        self.order.add(game.id, (game, played, started, datetime.now(UTC)))
        await self._record_ready()

    async def _record_ready(self) -> None:
        """Record every finished game whose turn has come, in schedule order; with a feed,
        one whose bot was removed while it was played is withdrawn instead."""
        async with self.recording:
            for item in self.order.ready():
                summary = await asyncio.to_thread(self._record, *item)
                if isinstance(summary, Withdrawn):
                    self.total -= 1
                    self._report()
                    continue
                self.done += 1
                if summary is not None:
                    self.played += 1
                    if self.on_game is not None:
                        self.on_game(summary)
                self._report()

    def _next_game(self) -> ScheduledGame | None:
        """Take the first pending game whose bots are all connected, or whose absent bots
        have been away longer than the wait, and whose connected bots have room; None if
        every game waits for a bot."""
        presence = self.presence
        if presence is None:
            return self.queue.popleft()
        now = asyncio.get_running_loop().time()
        still_away = set(presence.absent(list(self.away_since)))
        self.away_since = {bot: since for bot, since in self.away_since.items()
                           if bot in still_away}
        full = self._full_bots()
        away: dict[str, bool] = {}  # asked of the presence only for the games looked at
        for index, game in enumerate(self.queue):
            unknown = [bot for bot in game.seats if bot not in away]
            if unknown:
                gone = set(presence.absent(unknown))
                away.update((bot, bot in gone) for bot in unknown)
            missing = [bot for bot in game.seats if away[bot]]
            for bot in missing:
                self.away_since.setdefault(bot, now)
            if all(now - self.away_since[bot] >= self.wait for bot in missing) \
                    and self._has_room(game.seats, missing, full):
                del self.queue[index]
                self.absent.update(missing)
                return game
        return None

    def _full_bots(self) -> set[str]:
        """The bots playing as many of this run's games as they can play at once (none
        without a `BotCapacity`; an absent bot is full too, as it has no slots)."""
        capacity = self.capacity
        if capacity is None:
            return set()
        return {bot for bot, games in self.in_play.items()
                if games > 0 and games >= capacity.table_slots(bot)}

    @staticmethod
    def _has_room(seats: Sequence[str], missing: Sequence[str], full: set[str]) -> bool:
        """True when no connected bot among `seats` is full (an absent bot's games wait
        for it, or go on without it, as `wait` says, not for a slot)."""
        return not any(bot in full for bot in seats if bot not in missing)

    async def _await_change(self, games: set[asyncio.Task[None]]) -> set[asyncio.Task[None]]:
        """Wait until one of `games` ends, the connected bots change, a bot's wait runs
        out, the feed may add games or the run stops; return the games that ended."""
        now = asyncio.get_running_loop().time()
        expiries = [since + self.wait - now for since in self.away_since.values()
                    if since + self.wait > now]
        timeout = min([*expiries, HEARTBEAT_EVERY])
        waits: list[asyncio.Future[Any]] = [asyncio.ensure_future(self.stop.wait())]
        if self.presence is not None:
            waits.append(asyncio.ensure_future(self.presence.changed()))
        if self.feed is not None and self._feeding():
            waits.append(asyncio.ensure_future(self.feed.changed()))
        try:
            await asyncio.wait([*waits, *games], timeout=timeout,
                               return_when=asyncio.FIRST_COMPLETED)
        finally:
            await _cancel(waits)
        return {task for task in games if task.done()}

    def _record(
        self, game: ScheduledGame, played: PlayedGame, started: datetime, finished: datetime
    ) -> GameSummary | Withdrawn | None:
        return record_played(self.store, self.tournament, game, played, started, finished,
                             withdraw_removed=self.feed is not None)

    def _report(self) -> None:
        if self.progress is not None:
            self.progress(self.done, self.total)


def apply_change(change: FeedChange, queue: deque[ScheduledGame],
                 order: ScheduleOrder[Any]) -> int:
    """Take the games `change` withdraws out of a run's `queue` and `order` and put the
    games it adds at their end; return how much the run's total of games changes."""
    before = len(queue)
    if change.withdrawn:
        kept = [game for game in queue if game.id not in change.withdrawn]
        queue.clear()
        queue.extend(kept)
        order.withdraw(change.withdrawn)
    queue.extend(change.added)
    order.extend(change.added)
    return len(queue) - before


class Withdrawn:
    """What `record_played` gives for a game whose bot was removed while it was played,
    when asked to withdraw such a game: it is no longer in the schedule."""


def record_played(
    store: Store, tournament: Tournament, game: ScheduledGame, played: PlayedGame,
    started: datetime, finished: datetime, *, withdraw_removed: bool = False,
) -> GameSummary | Withdrawn | None:
    """Record `played` as scheduled `game` of `tournament` (with its rating update, in one
    transaction); `started` and `finished` stand in for timestamps it lacks. None, and
    nothing changed, when the game is recorded already. A game whose bot was removed
    meanwhile raises `EntrantRemoved`, or with `withdraw_removed` (a growing schedule's)
    is taken out of the schedule and gives a `Withdrawn`."""
    try:
        summary = store.record_game(
            seats=game.seats,
            seed=game.seed,
            rules=tournament.rules,
            outcome=played.outcome,
            seat_terminations=played.seat_terminations,
            events=played.events,
            actions=played.actions,
            started_at=played.started_at or started,
            finished_at=played.finished_at or finished,
            scheduled_game_id=game.id,
            teams=game.teams,
            forfeited_seat=played.forfeited_seat,
            decisions=played.decisions,
        )
    except AlreadyRecorded:
        return None
    except EntrantRemoved:
        if not withdraw_removed:
            raise
        store.withdraw_games(tournament.id, [game.id])
        return Withdrawn()
    log_recorded(tournament.name, game, played)
    return summary


def log_recorded(run: str, game: ScheduledGame, played: PlayedGame) -> None:
    """Log a game recorded for `run`, and each seat that ended it by a fault (the event's
    `fault`), each event with the run, the game's public id and the bots (info events:
    the default, human log prints none of them)."""
    game_id = public_game_id(run, game.game_index)
    _log.info("game recorded", extra={
        "run": run, "game": game_id, "bots": list(game.seats),
        "winners": [game.seats[seat] for seat in played.outcome.winners],
        "terminations": [str(t) for t in played.seat_terminations]})
    for bot, termination in zip(game.seats, played.seat_terminations, strict=True):
        if termination in FAULTS:
            _log.info("bot %s forfeited game %s: %s", bot, game_id, termination,
                      extra={"run": run, "game": game_id, "bot": bot,
                             "fault": str(termination)})


async def _call(play: TableRunner, game: ScheduledGame, rules: RuleSet) -> PlayedGame:
    if _is_async(play):
        result = play(game, rules)
    else:
        result = await asyncio.to_thread(play, game, rules)
    if inspect.isawaitable(result):
        result = await result
    if not isinstance(result, PlayedGame):
        raise TypeError(f"the table runner returned {type(result).__name__}, not PlayedGame")
    return result


def _is_async(play: TableRunner) -> bool:
    return inspect.iscoroutinefunction(play) or inspect.iscoroutinefunction(type(play).__call__)


async def _cancel(tasks: Sequence[asyncio.Future[Any]]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
