"""The ladder on a running server: its field of bots, and playing it until stopped.

`LadderRun` is what `arena ladder run` and `arena serve --ladder` start: it
opens (or creates) the stored ladder, launches the managed bots of its field —
the latest built version of every bot — as they appear, and plays tables
through the server until it is stopped, the game budget is spent, or the run
is cancelled. A bot is in the field while it is connected: a new version joins
at the next table once it has connected, and a removed, superseded or failed
version leaves at once (its queued games withdrawn; its games and ratings stay).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.engine.rules import RuleSet
from arena.game_id import public_game_id
from arena.ladder.feed import LadderError, LadderFeed, open_ladder
from arena.ladder.settings import LadderSettings
from arena.result import GameAbortedError, played_game
from arena.services.bots import BotService
from arena.services.competitions import bot_policy
from arena.services.errors import ServiceError
from arena.services.match_server import MatchServer, ServerPresence
from arena.services.progress import Progress, ProgressListener
from arena.store import GameSummary, ScheduledGame, Store, StoreError, Tournament, UnknownBot
from arena.supervisor.fleet import Fleet, FleetError
from arena.tournament import PlayedGame, RunSummary, holding, run_tournament
from arena.tournament.chunked import (
    WorkerPlan,
    WorkerPools,
    failure_text,
    run_tournament_on_workers,
)
from arena.tournament.runner import Tables

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LadderPlayers:
    """What a ladder run plays with: the store, the match server, the managed bots and
    the bots' registry; for runs on workers, the pools and what each worker needs."""

    store: Store
    server: MatchServer
    fleet: Fleet
    bots: BotService
    worker_pools: WorkerPools | None = None
    worker_plan: Callable[[Sequence[tuple[str, str]], dict[str, str], str],
                          WorkerPlan] | None = None
    """(The ladder's bots are known only as it goes: its plan names none, and an operator's
    bot that needs extra read-only paths plays it on one worker.)"""


class LadderField:
    """The bots a ladder can seat now: the latest entrants that are connected. Asking
    launches the managed ones this server has not launched yet; one that crashes is
    out of the field until its restart connects, and one whose restarts are spent has
    failed and is not launched again."""

    def __init__(self, players: LadderPlayers,
                 say: Callable[[str], None] | None = None, table_size: int = 2,
                 per_author: int | None = None) -> None:
        self.players = players
        self.per_author = per_author
        """At most this many bots of each author play (None: all)."""
        self.launched: set[str] = set()
        self.failed: set[str] = set()
        self.seated: list[str] | None = None
        """The field at the last ask (None before the first)."""
        self._say = say
        self.table_size = table_size

    async def __call__(self) -> list[str]:
        """The connected latest entrants, after launching the managed ones that are new."""
        players = self.players
        entrants = await asyncio.to_thread(players.store.latest_entrants_per_author,
                                           self.per_author)
        connected = set(players.server.connected_bots())
        for name in entrants:
            if name in connected or name in self.failed:
                continue
            if name in self.launched:
                if players.fleet.has_failed(name):
                    self.failed.add(name)
                    _log.warning("ladder: %s stopped and will not be restarted; it leaves the "
                                 "field (see its log in %s)", name, players.fleet.log_dir)
                continue
            await self._launch(name)
        field = [name for name in entrants
                 if name in connected and players.server.table_slots(name) > 0]
        if self._say is not None and field != self.seated:
            starting = [name for name in self.launched
                        if name not in connected and name not in self.failed]
            self._say(self._change(self.seated or [], field, len(starting)))
        self.seated = field
        return field

    def _change(self, before: Sequence[str], field: Sequence[str], starting: int) -> str:
        """The field's change in words, and what it waits for when it cannot fill a table."""
        joined = sorted(set(field) - set(before))
        left = sorted(set(before) - set(field))
        changes = ([f"{', '.join(joined)} joined"] if joined else []) + \
                  ([f"{', '.join(left)} left"] if left else [])
        count = f"{len(field)} bot{'' if len(field) == 1 else 's'} in the field"
        line = f"ladder: {'; '.join([*changes, count])}"
        if len(field) < self.table_size and starting:
            line += f", {starting} starting"
        elif len(field) < self.table_size:
            line += (f", waiting for {self.table_size}, a table's seats (`arena bot submit` or "
                     "`arena bot add` adds a bot; a managed bot is launched, a remote one "
                     "joins when it connects)")
        return line

    async def _launch(self, name: str) -> None:
        try:
            launch = await asyncio.to_thread(self.players.bots.launch_of, name)
        except UnknownBot:  # removed meanwhile
            return
        if not launch.managed:
            return  # a remote bot joins when its owner connects it
        self.launched.add(name)
        try:
            await self.players.fleet.launch(name, launch)
        except FleetError as exc:  # the command cannot be started
            self.failed.add(name)
            _log.warning("ladder: %s cannot be launched: %s", name, exc)


class WorkerField:
    """The bots a ladder played on workers can seat now: the latest entrants that are
    managed (a remote bot connects to this server only, so it cannot play on workers;
    it is said once and left out). Each worker launches a bot the first time a chunk
    brings it."""

    def __init__(self, players: LadderPlayers,
                 say: Callable[[str], None] | None = None,
                 per_author: int | None = None) -> None:
        self.players = players
        self.per_author = per_author
        self._say = say or _log.warning
        self._remote: set[str] = set()

    async def __call__(self) -> list[str]:
        """The managed latest entrants."""
        return await asyncio.to_thread(self._managed_entrants)

    def _managed_entrants(self) -> list[str]:
        field = []
        for name in self.players.store.latest_entrants_per_author(self.per_author):
            try:
                managed = self.players.bots.is_managed(name)
            except UnknownBot:  # removed meanwhile
                continue
            if managed:
                field.append(name)
            elif name not in self._remote:
                self._remote.add(name)
                self._say(f"ladder: {name} is a remote bot, which cannot play on workers; "
                          "it is left out of this run (play the ladder on one worker for it)")
        return field


class _Reporter:
    """A ladder run's progress as the admin stream carries it: each game recorded, how far
    the run has come, and the field's lines (when the run has no `say` of its own)."""

    def __init__(self, ladder: str, progress: ProgressListener | None) -> None:
        self.ladder = ladder
        self.progress = progress
        self.last_game = 0
        self.done = self.total = 0

    def recorded(self, summary: GameSummary) -> None:
        """Note the last game recorded."""
        self.last_game = summary.id

    def report(self, done: int, total: int) -> None:
        """Pass on how far the run has come."""
        self.done, self.total = done, total
        self._send()

    def tell(self, line: str) -> None:
        """Pass on a line about the field."""
        self._send(line)

    def _send(self, line: str = "") -> None:
        if self.progress is not None:
            self.progress(Progress(self.done, self.total, self.last_game, self.ladder,
                                   absence=line))


class LadderRun:
    """One run of a ladder on a server (see the module's description)."""

    def __init__(self, players: LadderPlayers, name: str, settings: LadderSettings, *,
                 max_games: int | None = None, tables: Tables | None = None,
                 say: Callable[[str], None] | None = None) -> None:
        self.players = players
        self.name = name
        self.settings = settings
        self.max_games = max_games
        self.tables: Tables = settings.tables if tables is None else tables
        self.say = say
        """Where the field's lines go (None: into the run's progress)."""

    def open(self) -> Tournament:
        """The stored ladder, created if new (`LadderError` if it cannot be this one)."""
        return open_ladder(self.players.store, self.name, self.settings)

    async def play(self, *, stop: asyncio.Event | None = None,
                   progress: ProgressListener | None = None) -> RunSummary:
        """Play the ladder until `stop` is set, the budget is spent or the call is
        cancelled (the games in play are then abandoned, and stay queued)."""
        players = self.players
        ladder = await asyncio.to_thread(self.open)
        policy = bot_policy(self.settings.tournament_settings())
        server = players.server
        reporter = _Reporter(ladder.name, progress)

        async def play(game: ScheduledGame, rules: RuleSet) -> PlayedGame:
            result = await server.play_game(
                list(game.seats), rules, game.seed, policy,
                game_id=public_game_id(ladder.name, game.game_index))
            return played_game(result)

        field = LadderField(players, self.say or reporter.tell, self.settings.table_size,
                            self.settings.per_author)
        feed = await asyncio.to_thread(LadderFeed, players.store, ladder, self.settings, field,
                                       max_games=self.max_games, changed=server.bots_changed)
        async with holding(players.store, ladder.id) as hold:
            return await run_tournament(
                players.store, ladder.id, play, concurrency=self.tables,
                progress=reporter.report, on_game=reporter.recorded, stop=stop, hold=hold,
                presence=ServerPresence(server), wait=self.settings.wait, feed=feed)

    async def play_on_workers(self, workers: int, cluster: str = "", *,
                              stop: asyncio.Event | None = None,
                              progress: ProgressListener | None = None) -> RunSummary:
        """Play the ladder as `play` does, its tables played by `workers` worker processes
        (or the workers of the Dask cluster at `cluster`), `settings.tables` at once on
        each; the field is its managed bots (`WorkerField`), which each worker launches as
        its chunks bring them."""
        players = self.players
        assert players.worker_pools is not None and players.worker_plan is not None
        ladder = await asyncio.to_thread(self.open)
        reporter = _Reporter(ladder.name, progress)
        commands: dict[str, tuple[str, str, str]] = {}

        def bots(names: Sequence[str]) -> tuple[tuple[str, str, str], ...]:
            for name in names:  # a version's command never changes: looked up once
                if name not in commands:
                    launch = players.bots.launch_of(name)
                    commands[name] = (name, launch.command, launch.folder)
            return tuple(commands[name] for name in names)

        feed = await asyncio.to_thread(
            LadderFeed, players.store, ladder, self.settings,
            WorkerField(players, self.say or reporter.tell, self.settings.per_author),
            max_games=self.max_games)
        where = f"the cluster {cluster}" if cluster else f"{workers} worker processes"
        # The hold is let go before the workers are stopped, which takes a while: a run
        # cancelled because its server is stopping must be done with the store first.
        def say(line: str) -> None:
            if progress is not None:
                progress(Progress(reporter.done, reporter.total, reporter.last_game,
                                  ladder.name, notice=line))

        try:
            plan = players.worker_plan((), {}, ladder.name)
            async with players.worker_pools(plan, workers, cluster, wait=self.settings.wait,
                                            say=say) as pool, \
                    holding(players.store, ladder.id) as hold:
                return await run_tournament_on_workers(
                    players.store, ladder.id, pool, concurrency=self.settings.tables,
                    progress=reporter.report, on_game=reporter.recorded, stop=stop,
                    hold=hold, feed=feed, bots=bots,
                    on_bot_exit=players.fleet.worker_bot_exited)
        except (StoreError, sqlite3.Error):
            raise
        except Exception as exc:
            raise _ladder_error(ladder.name, where, exc, players.fleet.log_dir) from exc


RESTART_SECONDS = 10.0
"""How long a served ladder whose run failed waits before it starts again."""


def ladder_job(players: LadderPlayers, name: str, settings: LadderSettings,
               tables: Callable[[], int], say: Callable[[str], None]
               ) -> Callable[[asyncio.Event], Awaitable[None]]:
    """The ladder as a background job of `arena serve`: played until the server stops, on
    `tables()` tables (asked before each game); a run that fails is said and started
    again after `RESTART_SECONDS`, and settings the stored ladder refuses end the job
    (said, the server serving on)."""
    async def play(stop: asyncio.Event) -> None:
        say(f"ladder {name}: the latest version of every bot plays, table after table; "
            f"`arena rankings --ladder {name}` shows its leaderboard")
        while not stop.is_set():
            run = LadderRun(players, name, settings, tables=tables, say=say)
            try:
                await run.play(stop=stop)
            except LadderError as exc:
                say(f"ladder {name} cannot be played: {exc}")
                return
            except GameAbortedError:
                return  # the server is stopping
            except Exception as exc:  # said, and played again: the server serves on
                _log.warning("ladder %s failed", name, exc_info=True)
                say(f"ladder {name} stopped: {type(exc).__name__}: {exc}; starting again in "
                    f"{RESTART_SECONDS:g} s")
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(RESTART_SECONDS):
                        await stop.wait()
    return play


def _ladder_error(name: str, where: str, exc: Exception, log_dir: Path) -> Exception:
    return ServiceError(
        f"the ladder {name} could not be played on {where}: {failure_text(exc, log_dir)}; "
        "the games recorded so far are kept, and `arena ladder run` goes on")


__all__ = ["LadderError", "LadderField", "LadderPlayers", "LadderRun", "ladder_job"]
