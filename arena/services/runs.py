"""Playing competitions: matches, tournaments (to the end of their schedule, until
separated, under a sequential test), on this server or on workers, and the ladder.

`RunService` plays through a `MatchServer` and the `Fleet` of managed bots, and
records through `arena.tournament`. Its coroutines never block the event loop:
every store call they make runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.engine.rules import RuleSet
from arena.game_id import public_game_id
from arena.ladder.feed import LadderError
from arena.ladder.settings import LadderSettings, is_ladder
from arena.policy import BotPolicy
from arena.record import SeatTermination, count_faults
from arena.result import played_game
from arena.services.bots import BotService
from arena.services.competitions import CompetitionService, bot_policy
from arena.services.errors import ServiceError
from arena.services.ladder import LadderPlayers, LadderRun
from arena.services.match_server import MatchServer, ServerPresence
from arena.services.progress import Progress, ProgressListener
from arena.stats.sequential import SeparationReport
from arena.stats.sprt import Sprt, SprtError
from arena.store import GameSummary, ScheduledGame, Store, StoreError, Tournament
from arena.supervisor import BotIsolation
from arena.supervisor.fleet import Fleet, FleetError
from arena.tournament import (
    PlayedGame,
    RunHold,
    TournamentSettings,
    check_entrants,
    holding,
    run_tournament,
    tournament_settings,
)
from arena.tournament.chunked import (
    WORKER_WAIT,
    WorkerPlan,
    WorkerPools,
    failure_text,
    run_tournament_on_workers,
)
from arena.tournament.schedule import MAX_GAMES
from arena.tournament.sequential import SprtPlan, UntilSeparated, run_sprt, run_until_separated

SequentialPlan = UntilSeparated | SprtPlan
"""How long a sequential run goes on."""

RUN_CLEANUP_SECONDS = 10.0
"""How long a stopping server waits for the runs it cancelled to end (workers stopping)."""


class RunService:
    """Plays matches, tournaments and the ladder on one server (see the module)."""

    def __init__(self, store: Store, server: MatchServer, fleet: Fleet, bots: BotService,
                 competitions: CompetitionService, *,
                 worker_pools: WorkerPools | None = None) -> None:
        self.store = store
        self.server = server
        self.fleet = fleet
        self.bots = bots
        self.competitions = competitions
        self.worker_pools = worker_pools
        """Pools of worker processes for runs on more than one worker (None: none)."""
        self._runs: set[asyncio.Future[Any]] = set()

    @property
    def log_dir(self) -> Path:
        """Where the managed bots' logs go."""
        return self.fleet.log_dir

    @property
    def isolation(self) -> BotIsolation:
        """How the managed bots launched here are isolated."""
        return self.fleet.isolation

    async def ensure_bots(self, names: Sequence[str], wait_seconds: float) -> None:
        """Launch the managed bots among `names` that are not connected and wait for all
        (`ServiceError` when they do not connect)."""
        try:
            await self.fleet.ensure(names, wait_seconds)
        except FleetError as exc:
            raise ServiceError(str(exc)) from None

    # ------------------------------------------------------------- tracking

    def track(self, run: asyncio.Future[Any]) -> None:
        """Count `run` (a run started for an admin call) among those `finish_runs` waits
        for."""
        self._runs.add(run)
        run.add_done_callback(self._runs.discard)

    async def finish_runs(self, timeout: float = RUN_CLEANUP_SECONDS) -> None:
        """Wait up to `timeout` seconds for the runs started here to end: a run cancelled
        because its server stopped writes its last status and lets go of its tournament
        before the store is closed under it."""
        if self._runs:
            await asyncio.wait(set(self._runs), timeout=timeout)

    # -------------------------------------------------------------- matches

    async def play_match(self, bots: Sequence[str], games: int, seed: int, rules: RuleSet,
                         policy: BotPolicy, concurrency: int, wait_seconds: float,
                         progress: ProgressListener | None = None,
                         plan: SprtPlan | None = None, workers: int = 1) -> int:
        """Play rated games between `bots`: a one-table tournament of its own.

        Each deal is played in every seat rotation (duplicate deals), so the
        number of games is `games` rounded up to a multiple of the table size.
        With a sequential test (`plan`, two bots only) the match starts with one
        deal and plays deal after deal until the test decides. With `workers`
        above 1, that many worker processes play the games (see `run_tournament`).
        """
        if plan is not None:
            if len(bots) != 2:
                raise ServiceError(f"a sequential test is between 2 bots, got {len(bots)}")
            try:
                plan.test()
            except SprtError as exc:
                raise ServiceError(f"sprt: {exc}") from None
            games = len(bots)
        if not 1 <= games <= MAX_GAMES:
            raise ServiceError(f"a match plays 1 to {MAX_GAMES:,} games, got {games:,}")
        if len(bots) < 2:
            raise ServiceError(f"a match needs at least 2 bots, got {len(bots)}")
        bots = await asyncio.to_thread(self.bots.entrants, bots)
        settings = {
            "format": "round_robin", "table_size": len(bots),
            "deals_per_table": -(-games // len(bots)), "seed": seed,
            "concurrency": concurrency, "workers": max(1, workers), "rules": rules.to_dict(),
            "policy": policy.to_dict()}
        TournamentSettings.from_dict(settings)  # bad settings are refused before the wait
        if workers > 1:
            await asyncio.to_thread(self._check_workers, bots, plan)
        else:
            await self.ensure_bots(bots, wait_seconds)
        name = f"match-{datetime.now(UTC):%Y%m%d-%H%M%S-%f}"
        await asyncio.to_thread(self.competitions.create_tournament, name, bots, settings)
        return await self.run_tournament(name, concurrency, wait_seconds, progress, plan,
                                         workers=workers)

    # ----------------------------------------------------------- tournaments

    async def run_tournament(self, name: str, concurrency: int, wait_seconds: float,
                             progress: ProgressListener | None = None,
                             plan: SequentialPlan | None = None, *, workers: int = 0,
                             cluster: str = "") -> int:
        """Play every pending game of a tournament; a stopped run resumes where it ended.
        With a `plan`, go on appending deal blocks until it is met (`arena.tournament.
        sequential`); the last progress update then says why the run stopped.

        `workers` worker processes play the games (0: the tournament's setting), or the
        workers of the Dask cluster at `cluster` when it is given; each has its own match
        server and its own copies of the managed bots, and this server alone records
        the games. With more than one worker, or a cluster, every bot must be managed
        and there can be no `plan`; this server must have `worker_pools`.

        A tournament that another run is playing, on this server or in another
        process on the same database, is refused (`TournamentBusy`) before any
        bot is launched: two runs would both play its pending games.

        `wait_seconds` bounds the wait for every bot at the start, and, without a
        `plan`, each wait for a bot that drops off mid-run: its games are put off
        while others are played, and played without it once it has been away
        longer (the last progress update's `absence` then names it).
        """
        tournament = await asyncio.to_thread(self.store.tournament, name)
        if is_ladder(tournament):
            raise ServiceError(f"{tournament.name} is a ladder: `arena ladder run "
                               f"--name {tournament.name}` plays it")
        if isinstance(plan, UntilSeparated) and not 0.5 <= plan.confidence < 1:
            raise ServiceError(f"confidence: must be at least 0.5 and below 1, got "
                               f"{plan.confidence}")
        workers = workers or tournament_settings(tournament).workers
        if workers > 1 or cluster:
            if plan is not None:
                self._check_workers([], plan, cluster)
            # A tournament with nothing pending starts no workers.
            if await asyncio.to_thread(self.store.pending_games, tournament.id):
                return await self._run_on_workers(tournament, concurrency, workers, cluster,
                                                  progress, wait_seconds)
        async with holding(self.store, tournament.id) as hold:
            return await self._run(tournament, hold, concurrency, wait_seconds, progress,
                                   plan)

    def _check_workers(self, bots: Sequence[str], plan: SequentialPlan | None,
                       cluster: str = "") -> None:
        """Refuse a run on several workers (or a cluster) that cannot be one."""
        where = f"the cluster {cluster}" if cluster else "more than one worker"
        if plan is not None:
            raise ServiceError(f"a sequential run (--until-separated, --sprt) plays on one "
                               f"worker, not on {where}: run it with --workers 1")
        remote = sorted(name for name in dict.fromkeys(bots) if not self.bots.is_managed(name))
        if remote:
            raise ServiceError(
                f"remote bots ({', '.join(remote)}) cannot play on {where}: each worker "
                "launches its own copies of the managed bots on a match server of its own, "
                "and a remote bot connects to one server only; run it with --workers 1")
        if self.worker_pools is None:
            raise ServiceError(f"this server cannot run games on {where}")

    def worker_plan(self, bots: Sequence[tuple[str, str]], folders: Mapping[str, str],
                    run: str, read_only: Mapping[str, tuple[str, ...]] | None = None
                    ) -> WorkerPlan:
        """What each worker of run `run` (a tournament's or ladder's name) needs: `bots` to
        launch (name, command), their `folders` and extra `read_only` paths, this server's
        log folder, its bots' isolation, and where the run is recorded."""
        isolation = self.isolation
        return WorkerPlan(
            tuple(bots), str(self.log_dir), dict(folders),
            {"sandbox": isolation.sandbox, "limits": isolation.limits.to_dict(),
             "hidden_paths": [str(p) for p in isolation.hidden_paths]},
            run, self._database(), dict(read_only or {}))

    def _database(self) -> str:
        """The store's place, the same for every driver of it: a URL, or a file with its
        machine."""
        target = self.store.target
        if self.store.backend == "sqlite":
            return f"{socket.gethostname()}:{os.path.abspath(target)}"
        return target

    def _worker_commands(self, tournament: Tournament, workers: int, cluster: str
                         ) -> tuple[list[tuple[str, str]], dict[str, str],
                                    dict[str, tuple[str, ...]]]:
        """The pending bots of a run on workers, each with its command, their folders and
        their extra read-only paths (refused as `_check_workers` says)."""
        check_entrants(self.store, tournament)
        pending = sorted({b for g in self.store.pending_games(tournament.id) for b in g.seats})
        self._check_workers(pending, None, cluster)
        commands = []
        folders = {}
        read_only = {}
        for name in pending:
            launch = self.bots.launch_of(name)
            if launch.folder:
                folders[name] = launch.folder
            if launch.read_only_paths:
                read_only[name] = launch.read_only_paths
            commands.append((name, launch.command))
        return commands, folders, read_only

    async def _run_on_workers(self, tournament: Tournament, concurrency: int, workers: int,
                              cluster: str, progress: ProgressListener | None,
                              wait_seconds: float = WORKER_WAIT) -> int:
        commands, folders, read_only = await asyncio.to_thread(
            self._worker_commands, tournament, workers, cluster)
        assert self.worker_pools is not None
        last = Progress(0, 0, tournament=tournament.name)

        def on_game(summary: GameSummary) -> None:
            nonlocal last
            last = replace(last, last_game_id=summary.id)

        def on_progress(done: int, total: int) -> None:
            nonlocal last
            last = replace(last, done=done, total=total)
            if progress is not None:
                progress(last)

        def say(line: str) -> None:
            if progress is not None:
                progress(replace(last, notice=line))

        async with holding(self.store, tournament.id) as hold:
            plan_for_workers = self.worker_plan(commands, folders, tournament.name, read_only)
            try:
                async with self.worker_pools(plan_for_workers, workers, cluster,
                                             wait=wait_seconds, say=say) as pool:
                    summary = await run_tournament_on_workers(
                        self.store, tournament.id, pool, concurrency=concurrency or None,
                        progress=on_progress, on_game=on_game, hold=hold,
                        on_bot_exit=self.fleet.worker_bot_exited)
            except (StoreError, sqlite3.Error):
                raise
            except Exception as exc:
                raise ServiceError(
                    f"the games could not be played on {_workers_text(workers, cluster)}: "
                    f"{failure_text(exc, self.log_dir)}; the games recorded so far are kept, "
                    "and running the tournament again resumes it") from exc
        return summary.played

    def _entrants_to_wait_for(self, tournament: Tournament, sequential: bool) -> list[str]:
        check_entrants(self.store, tournament)
        # A sequential run goes on past its schedule: it needs every entrant, even when
        # nothing is pending yet.
        bots = (self.store.tournament_bots(tournament.id) if sequential else
                {b for g in self.store.pending_games(tournament.id) for b in g.seats})
        return sorted(bots)

    async def _run(self, tournament: Tournament, hold: RunHold, concurrency: int,
                   wait_seconds: float, progress: ProgressListener | None,
                   plan: SequentialPlan | None = None) -> int:
        policy = bot_policy(tournament_settings(tournament))
        bots = await asyncio.to_thread(self._entrants_to_wait_for, tournament, plan is not None)
        await self.ensure_bots(bots, wait_seconds)
        last_game = 0
        played: list[tuple[tuple[str, ...], tuple[SeatTermination, ...]]] = []

        async def play(game: ScheduledGame, rules: RuleSet) -> PlayedGame:
            result = await self.server.play_game(
                list(game.seats), rules, game.seed, policy,
                game_id=public_game_id(tournament.name, game.game_index))
            return played_game(result)

        def on_game(summary: GameSummary) -> None:
            nonlocal last_game
            last_game = summary.id
            played.append((summary.seats, summary.seat_terminations))

        looked: list[Sprt | tuple[str, ...]] = []

        def on_look(seen: SeparationReport | Sprt) -> None:
            looked[:] = [seen if isinstance(seen, Sprt)
                         else tuple(f"{p.upper} ~ {p.lower}" for p in seen.unseparated)]

        def report(done: int, total: int, conclusion: str = "", absence: str = "") -> None:
            if progress is None:
                return
            seen = looked[0] if looked else None
            progress(Progress(done, total, last_game, tournament.name,
                              sprt=seen if isinstance(seen, Sprt) else None,
                              unseparated=seen if isinstance(seen, tuple) else (),
                              conclusion=conclusion, absence=absence,
                              faults=count_faults(played)))

        def on_progress(done: int, total: int) -> None:
            report(done, total)

        tables = concurrency or None
        presence = ServerPresence(self.server)
        if plan is None:
            summary = await run_tournament(self.store, tournament.id, play, concurrency=tables,
                                           progress=on_progress, on_game=on_game, hold=hold,
                                           presence=presence, wait=wait_seconds)
            if summary.message:
                report(summary.done, summary.total, absence=summary.message)
            return summary.played
        if isinstance(plan, UntilSeparated):
            outcome = await run_until_separated(
                self.store, tournament.id, play, confidence=plan.confidence,
                max_games=plan.max_games or MAX_GAMES, concurrency=tables,
                progress=on_progress, on_game=on_game, hold=hold, look=on_look,
                presence=presence, wait=wait_seconds)
        else:
            schedule = await asyncio.to_thread(self.store.scheduled_games, tournament.id)
            outcome = await run_sprt(
                self.store, tournament.id, play, plan.test(), schedule[0].seats[0],
                max_games=plan.max_games or MAX_GAMES, concurrency=tables,
                progress=on_progress, on_game=on_game, hold=hold, look=on_look,
                presence=presence, wait=wait_seconds)
        report(outcome.games, outcome.games, outcome.conclusion, outcome.absence)
        return outcome.played

    # -------------------------------------------------------------- ladder

    async def run_ladder(self, name: str, settings: LadderSettings,
                         progress: ProgressListener | None = None, *,
                         max_games: int = 0, stop: asyncio.Event | None = None,
                         workers: int = 1, cluster: str = "") -> int:
        """Play the ladder `name` (created with `settings` if new) among the latest version
        of every bot until `stop` is set, `max_games` games are in it (0: no end) or the
        call is cancelled; return the games this run recorded (see `arena.services.ladder`).
        With `workers` above 1, or a `cluster`, worker processes play its tables (each
        `settings.tables` at once), and only managed bots are in its field."""
        if (workers > 1 or cluster) and self.worker_pools is None:
            self._check_workers([], None, cluster)
        run = LadderRun(self.ladder_players(), name, settings, max_games=max_games or None)
        try:
            if workers > 1 or cluster:
                summary = await run.play_on_workers(workers, cluster, stop=stop,
                                                    progress=progress)
            else:
                summary = await run.play(stop=stop, progress=progress)
        except LadderError as exc:
            raise ServiceError(str(exc)) from None
        return summary.played

    def ladder_players(self) -> LadderPlayers:
        """What a ladder run on this server plays with."""
        return LadderPlayers(self.store, self.server, self.fleet, self.bots,
                             self.worker_pools, self.worker_plan)


def _workers_text(workers: int, cluster: str) -> str:
    """Where a run on workers played: "the cluster ADDRESS" or "N worker processes"."""
    return f"the cluster {cluster}" if cluster else f"{workers} worker processes"

