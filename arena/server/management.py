"""Management: bots, matches, tournaments, rankings and stored games, on a running server.

`Management` is plain Python over one store and one `ArenaServer`: the admin
service (`arena.server.admin`) exposes it over gRPC, so the CLI does the same
thing against `arena serve` or against a server it started in-process. It
launches the managed bots a run needs through `arena.supervisor`.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena import stats, wire
from arena.engine.rules import RuleSet
from arena.game_id import GameId, ScheduledGameId, StoredGameNumber, public_game_id
from arena.ladder.feed import LadderError
from arena.ladder.settings import LadderSettings
from arena.rankings import (
    PoolFit,
    PoolRanking,
    PoolStatistics,
    pool_crosstable,
    pool_fit,
    pool_ranking,
    pool_statistics,
)
from arena.rating.fit import FitError
from arena.record import FAULTS, SeatTermination, count_faults
from arena.server.auth_store import SessionTokens
from arena.server.ladder import LadderRun, is_ladder
from arena.server.policy import BotPolicy
from arena.server.result import GameResult
from arena.stats.sequential import SeparationReport
from arena.stats.sprt import Sprt, SprtError
from arena.store import (
    Bot,
    BotKind,
    BotVersion,
    BuildStatus,
    GameSummary,
    Pool,
    Rating,
    ScheduledGame,
    Store,
    StoredGame,
    StoreError,
    Timetable,
    Tournament,
    UnknownBot,
    UnknownGame,
    UnknownTournament,
)
from arena.submissions import Limits, Submissions, Submitted, launch_command
from arena.supervisor import (
    BotIsolation,
    BotSupervisor,
    ManagedBot,
    ManagedBotError,
    command_words,
)
from arena.tournament import (
    PlayedGame,
    RunHold,
    TournamentSettings,
    check_entrants,
    create_tournament,
    holding,
    run_tournament,
    tournament_settings,
)
from arena.tournament.chunked import WorkerPlan, WorkerPools, run_tournament_on_workers
from arena.tournament.schedule import MAX_GAMES, build_schedule
from arena.tournament.sequential import (
    SprtPlan,
    UntilSeparated,
    run_sprt,
    run_until_separated,
)
from arena.tournament.timetable import stored_settings, timetable_settings

SequentialPlan = UntilSeparated | SprtPlan
"""How long a sequential run goes on."""

if TYPE_CHECKING:
    from arena.server.server import ArenaServer

ProgressListener = Callable[["Progress"], None]


EXIT_POLL = 0.1
"""Seconds between looks, while waiting for bots, at whether a managed bot has exited."""

PAST_TOLERANCE = timedelta(minutes=1)
"""How far in the past a scheduled tournament's start may be (the clocks of the command
and the server may differ a little): it then starts at once."""

RUN_CLEANUP_SECONDS = 10.0
"""How long a stopping server waits for the runs it cancelled to end (workers stopping)."""

CRASH_GRACE = 0.5
"""Seconds a managed bot whose connection dropped is given to finish exiting, so that
its seats' violations are recorded as a crash rather than a disconnect."""


class ManagementError(ValueError):
    """A management request could not be carried out; the message says why."""


@dataclass(frozen=True, slots=True)
class Progress:
    """How far a run of `tournament` has come: `done` of `total` games, and the last game
    stored."""

    done: int
    total: int
    last_game_id: int = 0
    tournament: str = ""
    sprt: Sprt | None = None
    """A match under a sequential test: the test as it stands."""
    unseparated: tuple[str, ...] = ()
    """A run until separated: the adjacent pairs not yet separated at the last look."""
    conclusion: str = ""
    """A sequential run's last word: why it stopped."""
    absence: str = ""
    """A run's last word on the bots that stayed away past its wait (`RunSummary.message`)."""
    faults: Mapping[str, Mapping[SeatTermination, int]] | None = None
    """The bots whose seats ended by their own fault in the games this run played: how
    many games ended with each fault (`arena.record.count_faults`)."""
    notice: str = ""
    """A line to show at once (the store lost its connection to the database, or
    reconnected); such an update repeats how far the run had come."""


VersionLine = tuple[BotVersion | Bot, Rating | None]
"""One line of a bot's versions: a submitted version (or a bot added with a command, its
only version), and its rating in the rule-set pool of its latest rated game."""


class Management:
    """What the admin service can do, over one store and one running server."""

    def __init__(self, store: Store, server: ArenaServer, session_tokens: SessionTokens,
                 log_dir: Path, server_address: Callable[[], str], *,
                 bots_dir: Path | None = None, isolation: BotIsolation | None = None,
                 worker_pools: WorkerPools | None = None) -> None:
        self.store = store
        self.isolation = isolation or BotIsolation()
        """How the managed bots launched here are isolated (see `BotIsolation`)."""
        self.worker_pools = worker_pools
        """Pools of worker processes for runs on more than one worker (None: none)."""
        self.server = server
        self.session_tokens = session_tokens
        self.log_dir = log_dir
        self._server_address = server_address
        # Beside the logs, as `arena.submissions.bots_dir_for` puts it beside the database.
        self.submissions = Submissions(
            store, bots_dir or log_dir.with_name(log_dir.name.removesuffix("-logs") + "-bots"),
            sandbox=self.isolation.sandbox)
        self._supervisor: BotSupervisor | None = None
        self._exits: dict[str, int] = {}
        """The last exit code of each managed bot launched here, once it has exited."""
        self._runs: set[asyncio.Future[Any]] = set()

    # ------------------------------------------------------------------ bots

    def add_bot(self, name: str, kind: str, command: str | None) -> tuple[Bot, str]:
        """Register a bot; return it and its token (shown once). A managed bot's command
        must read as a command line (closed quotes) now, not when it is first launched."""
        if command:
            try:
                command_words(name, command)
            except ManagedBotError as exc:
                raise ManagementError(str(exc)) from None
        return self.store.add_bot(name, kind, command or None)

    def list_bots(self) -> list[tuple[Bot, bool]]:
        """Registered bots, each with whether it is connected now."""
        connected = set(self.server.connected_bots())
        return [(bot, bot.name in connected) for bot in self.store.list_bots()]

    async def remove_bot(self, name: str) -> Bot:
        """Remove a bot (for a submitted bot's base name, its latest built version): its
        tokens stop working and a managed bot this server runs is stopped; its games and
        ratings stay."""
        bot = self.store.remove_bot(name)
        self.session_tokens.revoke(bot.name)
        if self._supervisor is not None:
            await self._supervisor.stop_bot(bot.name)
        return bot

    @property
    def upload_limits(self) -> Limits:
        """What a submitted archive may hold."""
        return self.submissions.limits

    def submit_bot(self, archive: bytes, manifest: str, name: str | None,
                   inherit_rating: bool) -> Submitted:
        """Make the bot in `archive` its next version and build it (see
        `Submissions.submit`); blocks for the build."""
        return self.submissions.submit(archive, manifest=manifest, name=name,
                                       inherit_rating=inherit_rating)

    def bot_versions(self, name: str) -> list[VersionLine]:
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
        for line, _ in self.bot_versions(name):
            if isinstance(line, BotVersion) and line.number == number:
                return line.build_log or "(no build: the manifest has no build command)\n"
        raise UnknownBot(f"bot {name} has no version {number} with a build "
                         f"(`arena bot versions {name}` lists them)")

    def entrants(self, names: Sequence[str]) -> list[str]:
        """The entrant each of `names` stands for (a base name: its latest built version);
        `ManagementError` for a version that is not built, which never plays."""
        entrants = []
        for name in names:
            bot = self.store.bot(name)
            version = self.store.bot_version(bot.name)
            if version is not None and version.build_status is not BuildStatus.OK:
                raise ManagementError(
                    f"bot {bot.name} cannot play: its build {version.build_status.value}"
                    f" (`arena bot versions {version.base_name} --log {version.number}` "
                    "shows why)")
            entrants.append(bot.name)
        return entrants

    # -------------------------------------------------------------- rankings

    def pool_key(self, tournament: str | None = None, pool: str | None = None) -> str:
        """The pool a ranking request means (see `Store.pool_key`)."""
        return self.store.pool_key(tournament or None, pool or None)

    def rankings(self, tournament: str | None = None, pool: str | None = None,
                 confidence: float = stats.CONFIDENCE, all_versions: bool = False
                 ) -> PoolRanking:
        """The leaderboard of one pool: a tournament's own, a pool by key, or else that of
        the latest rated game; each submitted bot's latest version only, unless
        `all_versions`."""
        return pool_ranking(self.store, self.pool_key(tournament, pool), _confidence(confidence),
                            all_versions=all_versions)

    def pools(self) -> list[Pool]:
        """Every rating pool with a rated game."""
        return self.store.pools()

    def crosstable(self, tournament: str | None = None, pool: str | None = None,
                   confidence: float = stats.CONFIDENCE
                   ) -> tuple[Pool, tuple[stats.HeadToHead, ...]]:
        """Every pair of bots that met in one pool, head to head."""
        return pool_crosstable(self.store, self.pool_key(tournament, pool),
                               _confidence(confidence))

    def fit(self, tournament: str | None = None, pool: str | None = None) -> PoolFit:
        """TrueSkill's parameters fitted to one pool's games."""
        key = self.pool_key(tournament, pool)
        try:
            return pool_fit(self.store, key)
        except FitError as exc:
            raise ManagementError(f"cannot fit the pool {key}: {exc}") from None

    def statistics(self, tournament: str | None = None,
                   pool: str | None = None) -> PoolStatistics:
        """Per-seat results and the duplicate design of one pool."""
        return pool_statistics(self.store, self.pool_key(tournament, pool))

    # ----------------------------------------------------------- managed bots

    async def ensure_bots(self, names: Sequence[str], wait_seconds: float) -> None:
        """Launch the managed bots among `names` that are not connected, then wait for all;
        a managed bot that exits during the wait without connecting fails it at once."""
        for name in names:
            self._exits.pop(name, None)
        connected = set(self.server.connected_bots())
        for name in dict.fromkeys(names):
            bot = self.store.bot(name)
            running = self._supervisor is not None and self._supervisor.is_running(name)
            if bot.kind is BotKind.MANAGED and name not in connected and not running:
                await self._launch(bot)
        waiting = asyncio.ensure_future(
            self.server.wait_for_bots(list(dict.fromkeys(names)), timeout=wait_seconds))
        try:
            while not (await asyncio.wait({waiting}, timeout=EXIT_POLL))[0]:
                self._check_exits(names)
            waiting.result()
        except TimeoutError:
            missing = sorted(set(names) - set(self.server.connected_bots()))
            raise ManagementError(
                f"bots not connected after {wait_seconds:g} s: {', '.join(missing)}"
                f"{self._absence_hint(missing)}") from None
        finally:
            waiting.cancel()

    def _absence_hint(self, missing: Sequence[str]) -> str:
        """What to look at for the `missing` bots: the logs of the managed ones arena
        launched; for remote ones, how they connect."""
        kinds = {name: self.store.bot(name).kind for name in missing}
        hints = []
        if self._supervisor is not None and BotKind.MANAGED in kinds.values():
            hints.append(f"see the logs in {self.log_dir}")
        remote = [name for name, kind in kinds.items() if kind is not BotKind.MANAGED]
        if remote:
            port = self.server.port
            address = "HOST:PORT" if port is None else f"HOST:{port}"
            hints.append(f"remote bots ({', '.join(remote)}) are started by their owners and "
                         f"connect with ARENA_TOKEN set to their token from `arena bot add` and "
                         f"ARENA_SERVER={address}, this server's address")
        return f" ({'; '.join(hints)})" if hints else ""

    def _check_exits(self, names: Sequence[str]) -> None:
        """Fail a wait at once if a managed bot it waits for has exited without connecting."""
        connected = set(self.server.connected_bots())
        exited = {name: self._exits[name] for name in names
                  if name in self._exits and name not in connected}
        if exited:
            which = ", ".join(f"{name} (exit code {code})" for name, code in sorted(exited.items()))
            raise ManagementError(f"bots exited before connecting: {which}; see the logs in "
                                  f"{self.log_dir}")

    def has_failed(self, name: str) -> bool:
        """Whether the managed bot `name` this server launched has stopped for good (it
        exited and will not be restarted)."""
        return self._supervisor is not None and self._supervisor.gave_up(name)

    async def launch(self, bot: Bot) -> None:
        """Launch managed `bot` without waiting for it to connect (`ManagementError` if
        its command cannot be started)."""
        await self._launch(bot)

    def bot_command(self, name: str) -> tuple[str, str]:
        """How managed bot `name` is launched: its command, and the folder it runs in (a
        submitted version's own; "" for a bot added with a command)."""
        version = self.store.bot_version(name)
        if version is not None:
            return launch_command(version), version.folder
        command = self.store.bot(name).command
        assert command is not None  # a managed bot has its command
        return command, ""

    def worker_plan(self, bots: Sequence[tuple[str, str]], folders: Mapping[str, str],
                    run: str) -> WorkerPlan:
        """What each worker of run `run` (a tournament's or ladder's name) needs: `bots` to
        launch (name, command), their `folders`, this server's log folder, its bots'
        isolation, and where the run is recorded."""
        return WorkerPlan(
            tuple(bots), str(self.log_dir), dict(folders),
            {"sandbox": self.isolation.sandbox, "limits": self.isolation.limits.to_dict(),
             "hidden_paths": [str(p) for p in self.isolation.hidden_paths]},
            run, self._database())

    def _database(self) -> str:
        """The store's place, the same for every driver of it: a URL, or a file with its
        machine."""
        target = self.store.target
        if self.store.backend == "sqlite":
            return f"{socket.gethostname()}:{os.path.abspath(target)}"
        return target

    async def _launch(self, bot: Bot) -> None:
        if self._supervisor is None:
            self._supervisor = BotSupervisor(self._server_address(), self.log_dir,
                                             on_exit=self._bot_exited,
                                             isolation=self.isolation)
            self.server.crash_check = self._crashed
        assert bot.command is not None
        token = self.session_tokens.mint(bot.name)
        command, folder = self.bot_command(bot.name)
        cwd = Path(folder) if folder else None
        try:
            await self._supervisor.start(ManagedBot(bot.name, command, token, cwd))
        except ManagedBotError as exc:
            raise ManagementError(str(exc)) from None

    def _bot_exited(self, name: str, code: int) -> None:
        self._exits[name] = code
        if code != 0:
            self.server.bot_crashed(name)

    async def _crashed(self, name: str) -> bool:
        if self._supervisor is None:
            return False
        code = await self._supervisor.exit_code(name, CRASH_GRACE)
        return code is not None and code != 0

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

    async def stop_bots(self) -> None:
        """Stop every managed bot this server launched."""
        if self._supervisor is not None:
            await self._supervisor.stop()
            self._supervisor = None

    # --------------------------------------------------------------- playing

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
                raise ManagementError(f"a sequential test is between 2 bots, got {len(bots)}")
            try:
                plan.test()
            except SprtError as exc:
                raise ManagementError(f"sprt: {exc}") from None
            games = len(bots)
        if not 1 <= games <= MAX_GAMES:
            raise ManagementError(f"a match plays 1 to {MAX_GAMES:,} games, got {games:,}")
        if len(bots) < 2:
            raise ManagementError(f"a match needs at least 2 bots, got {len(bots)}")
        bots = self.entrants(bots)
        settings = {
            "format": "round_robin", "table_size": len(bots),
            "deals_per_table": -(-games // len(bots)), "seed": seed,
            "concurrency": concurrency, "workers": max(1, workers), "rules": rules.to_dict(),
            "policy": policy.to_dict()}
        TournamentSettings.from_dict(settings)  # bad settings are refused before the wait
        if workers > 1:
            self._check_workers(bots, plan)
        else:
            await self.ensure_bots(bots, wait_seconds)
        name = f"match-{datetime.now(UTC):%Y%m%d-%H%M%S-%f}"
        await asyncio.to_thread(self.create_tournament, name, bots, settings)
        return await self.run_tournament(name, concurrency, wait_seconds, progress, plan,
                                         workers=workers)

    # ----------------------------------------------------------- tournaments

    def create_tournament(self, name: str, bots: Sequence[str],
                          settings: Mapping[str, Any]) -> Tournament:
        """Create a tournament and its whole schedule, so it can be checked before play."""
        tournament_settings = TournamentSettings.from_dict(settings)
        bot_policy(tournament_settings)
        return create_tournament(self.store, name, tournament_settings, self.entrants(bots))

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
        tournament = self.store.tournament(name)
        if is_ladder(tournament):
            raise ManagementError(f"{tournament.name} is a ladder: `arena ladder run "
                                  f"--name {tournament.name}` plays it")
        if isinstance(plan, UntilSeparated) and not 0.5 <= plan.confidence < 1:
            raise ManagementError(f"confidence: must be at least 0.5 and below 1, got "
                                  f"{plan.confidence}")
        workers = workers or tournament_settings(tournament).workers
        if workers > 1 or cluster:
            if plan is not None:
                self._check_workers([], plan, cluster)
            # A tournament with nothing pending starts no workers.
            if self.store.pending_games(tournament.id):
                return await self._run_on_workers(tournament, concurrency, workers, cluster,
                                                  progress)
        async with holding(self.store, tournament.id) as hold:
            return await self._run(tournament, hold, concurrency, wait_seconds, progress,
                                   plan)

    def _check_workers(self, bots: Sequence[str], plan: SequentialPlan | None,
                       cluster: str = "") -> None:
        """Refuse a run on several workers (or a cluster) that cannot be one."""
        where = f"the cluster {cluster}" if cluster else "more than one worker"
        if plan is not None:
            raise ManagementError(f"a sequential run (--until-separated, --sprt) plays on one "
                                  f"worker, not on {where}: run it with --workers 1")
        remote = sorted(name for name in dict.fromkeys(bots)
                        if self.store.bot(name).kind is not BotKind.MANAGED)
        if remote:
            raise ManagementError(
                f"remote bots ({', '.join(remote)}) cannot play on {where}: each worker "
                "launches its own copies of the managed bots on a match server of its own, "
                "and a remote bot connects to one server only; run it with --workers 1")
        if self.worker_pools is None:
            raise ManagementError(f"this server cannot run games on {where}")

    async def _run_on_workers(self, tournament: Tournament, concurrency: int, workers: int,
                              cluster: str, progress: ProgressListener | None) -> int:
        check_entrants(self.store, tournament)
        pending = {b for g in self.store.pending_games(tournament.id) for b in g.seats}
        self._check_workers(sorted(pending), None, cluster)
        assert self.worker_pools is not None
        commands = []
        folders = {}
        for name in sorted(pending):
            command, folder = self.bot_command(name)
            if folder:
                folders[name] = folder
            commands.append((name, command))
        last_game = 0

        def on_game(summary: GameSummary) -> None:
            nonlocal last_game
            last_game = summary.id

        def on_progress(done: int, total: int) -> None:
            if progress is not None:
                progress(Progress(done, total, last_game, tournament.name))

        async with holding(self.store, tournament.id) as hold:
            plan_for_workers = self.worker_plan(commands, folders, tournament.name)
            try:
                async with self.worker_pools(plan_for_workers, workers, cluster) as pool:
                    summary = await run_tournament_on_workers(
                        self.store, tournament.id, pool, concurrency=concurrency or None,
                        progress=on_progress, on_game=on_game, hold=hold)
            except (StoreError, sqlite3.Error):
                raise
            except Exception as exc:
                where = f"the cluster {cluster}" if cluster else f"{workers} worker processes"
                raise ManagementError(
                    f"the games could not be played on {where}: {type(exc).__name__}: {exc}; "
                    f"the games recorded so far are kept, and running the tournament again "
                    f"resumes it (bot logs in {self.log_dir})") from exc
        return summary.played

    async def _run(self, tournament: Tournament, hold: RunHold, concurrency: int,
                   wait_seconds: float, progress: ProgressListener | None,
                   plan: SequentialPlan | None = None) -> int:
        policy = bot_policy(tournament_settings(tournament))
        check_entrants(self.store, tournament)
        # A sequential run goes on past its schedule: it needs every entrant, even when
        # nothing is pending yet.
        bots = (self.store.tournament_bots(tournament.id) if plan is not None else
                {b for g in self.store.pending_games(tournament.id) for b in g.seats})
        await self.ensure_bots(sorted(bots), wait_seconds)
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
        if plan is None:
            summary = await run_tournament(self.store, tournament.id, play, concurrency=tables,
                                           progress=on_progress, on_game=on_game, hold=hold,
                                           presence=ServerPresence(self.server),
                                           wait=wait_seconds)
            if summary.message:
                report(summary.done, summary.total, absence=summary.message)
            return summary.played
        if isinstance(plan, UntilSeparated):
            outcome = await run_until_separated(
                self.store, tournament.id, play, confidence=plan.confidence,
                max_games=plan.max_games or MAX_GAMES, concurrency=tables,
                progress=on_progress, on_game=on_game, hold=hold, look=on_look,
                presence=ServerPresence(self.server), wait=wait_seconds)
        else:
            first = self.store.scheduled_games(tournament.id)[0].seats[0]
            outcome = await run_sprt(
                self.store, tournament.id, play, plan.test(), first,
                max_games=plan.max_games or MAX_GAMES, concurrency=tables,
                progress=on_progress, on_game=on_game, hold=hold, look=on_look,
                presence=ServerPresence(self.server), wait=wait_seconds)
        report(outcome.games, outcome.games, outcome.conclusion, outcome.absence)
        return outcome.played

    # -------------------------------------------------------------- ladder

    def ladder_settings(self, name: str, given: Mapping[str, Any],
                        tables: int | None = None) -> LadderSettings:
        """The settings ladder `name` plays under: `given` (a TOML table's values), or
        with none given the stored ladder's own (the defaults for a new ladder); `tables`
        overrides theirs. A ladder keeps its table size, deals and rules (`open_ladder`)."""
        if not given:
            try:
                stored = self.store.tournament(name)
            except UnknownTournament:
                return LadderSettings().with_tables(tables)
            if is_ladder(stored):
                return LadderSettings.from_stored(stored.settings, stored.rules
                                                  ).with_tables(tables)
        return LadderSettings.from_dict(given).with_tables(tables)

    async def run_ladder(self, name: str, settings: LadderSettings,
                         progress: ProgressListener | None = None, *,
                         max_games: int = 0, stop: asyncio.Event | None = None,
                         workers: int = 1, cluster: str = "") -> int:
        """Play the ladder `name` (created with `settings` if new) among the latest version
        of every bot until `stop` is set, `max_games` games are in it (0: no end) or the
        call is cancelled; return the games this run recorded (see `arena.server.ladder`).
        With `workers` above 1, or a `cluster`, worker processes play its tables (each
        `settings.tables` at once), and only managed bots are in its field."""
        if (workers > 1 or cluster) and self.worker_pools is None:
            self._check_workers([], None, cluster)
        run = LadderRun(self, name, settings, max_games=max_games or None)
        try:
            if workers > 1 or cluster:
                summary = await run.play_on_workers(workers, cluster, stop=stop,
                                                    progress=progress)
            else:
                summary = await run.play(stop=stop, progress=progress)
        except LadderError as exc:
            raise ManagementError(str(exc)) from None
        return summary.played

    # ------------------------------------------------------------ timetable

    def schedule_tournament(self, name: str, bots: Sequence[str], settings: Mapping[str, Any],
                            start: datetime | None, every: int | None) -> Timetable:
        """Put tournament `name` on the timetable: an edition at `start` (None: now), then
        one every `every` seconds (None: that one only), each between `bots` (none: the
        latest entrants of the moment it starts). A running server starts each (see
        `arena.server.timetable`); the settings may hold `share`, its tables' share."""
        planned = timetable_settings(settings)
        bot_policy(planned.tournament)
        now = datetime.now(UTC)
        if start is not None and start < now - PAST_TOLERANCE:
            raise ManagementError(f"the start {start.isoformat(timespec='seconds')} is in the "
                                  f"past (it is {now.isoformat(timespec='seconds')} here)")
        if bots:
            build_schedule(planned.tournament, self.entrants(bots))  # it can be played
        return self.store.add_timetable(
            name, planned.tournament.format.value, stored_settings(planned.tournament),
            planned.tournament.rules.to_dict(), list(bots) or None, share=planned.share,
            first_due=start or now, every=every)

    def unschedule_tournament(self, name: str) -> Timetable:
        """Take `name` off the timetable; the editions it made stay."""
        return self.store.remove_timetable(name)

    # -------------------------------------------------------------- games

    def games(self, tournament: str | None, bot: str | None, limit: int) -> list[GameSummary]:
        """Stored games, newest first."""
        return self.store.games(tournament=tournament or None, bot=bot or None,
                                limit=limit or None)

    def game(self, game_id: GameId | int) -> StoredGame:
        """One stored game with its replay log, by its public id or its number;
        `UnknownGame` says why there is none."""
        if isinstance(game_id, int):
            return self.store.get_game(game_id)
        if isinstance(game_id, StoredGameNumber):
            return self.store.get_game(game_id.number)
        return self.store.get_game(self._stored_number(game_id))

    def _stored_number(self, game_id: ScheduledGameId) -> int:
        try:
            tournament = self.store.tournament(game_id.tournament)
        except UnknownTournament:
            raise UnknownGame(f"no game {game_id}: there is no tournament "
                              f"{game_id.tournament} (`arena tournament list` lists them)"
                              ) from None
        try:
            entry = self.store.scheduled_game(tournament.id, game_id.game_index)
        except UnknownGame:
            last = self.store.schedule_progress(tournament.id)[1] - 1
            raise UnknownGame(f"no game {game_id}: tournament {tournament.name}'s schedule has "
                              f"games {tournament.name}:0 to {tournament.name}:{last}"
                              if last >= 0 else f"no game {game_id}: {tournament.name}'s "
                              "schedule is empty") from None
        if entry.game_id is None:
            raise UnknownGame(f"game {game_id} has not been played yet: `arena tournament run "
                              f"{tournament.name}` plays it")
        return entry.game_id

    def public_ids(self, games: Sequence[GameSummary]) -> dict[int, str]:
        """The public id of each of `games`, by stored number: `TOURNAMENT:INDEX` for a
        scheduled game, the number itself for any other."""
        places = self.store.schedule_places(g.id for g in games)
        return {g.id: public_game_id(*places[g.id]) if g.id in places else str(g.id)
                for g in games}

    def tournament_faults(self, tournament: str | int) -> dict[str, dict[SeatTermination, int]]:
        """For each bot of a tournament whose seats ended by its own fault, how many of the
        tournament's games ended with each fault."""
        return {bot: faults for bot, endings in self.store.seat_endings(tournament).items()
                if (faults := {e: n for e, n in endings.items() if e in FAULTS})}

    def export(self, tournament: str) -> Iterator[tuple[ScheduledGame, StoredGame]]:
        """Every stored game of a tournament with its schedule entry, in schedule order,
        read one at a time (`UnknownTournament` at once for a tournament there is not)."""
        schedule = self.store.scheduled_games(self.store.tournament(tournament).id)
        return ((entry, self.store.get_game(entry.game_id))
                for entry in schedule if entry.game_id is not None)


class ServerPresence:
    """The server's connected bots and the tables each can play at once, as a tournament
    run asks after them (`BotPresence` and `BotCapacity`)."""

    def __init__(self, server: ArenaServer) -> None:
        self.server = server

    def absent(self, bots: Sequence[str]) -> list[str]:
        """The bots among `bots` with no open connection to the server now."""
        return [bot for bot in bots if self.server.table_slots(bot) == 0]

    def table_slots(self, bot: str) -> int:
        """The games `bot` can play at once: its connections' `max_tables` added up."""
        return self.server.table_slots(bot)

    async def changed(self) -> None:
        """Return once a bot may have connected or disconnected, or a table slot was freed."""
        await self.server.bots_changed()


def _confidence(value: float) -> float:
    if value == 0:
        return stats.CONFIDENCE
    if not 0.5 <= value < 1:
        raise ManagementError(f"confidence: must be at least 0.5 and below 1, got {value}")
    return value


def bot_policy(settings: TournamentSettings) -> BotPolicy:
    """The bot policy a tournament's settings ask for; a bad one is a `ManagementError`."""
    try:
        return BotPolicy.from_dict(settings.policy)
    except (TypeError, ValueError) as exc:
        raise ManagementError(f"policy: {exc}") from None


def played_game(result: GameResult) -> PlayedGame:
    """A server result as the tournament runner records it: JSON events and actions."""
    actions = [wire.action_to_dict(a) for a in result.actions]
    events = [wire.event_to_dict(e) for e in result.events]
    return PlayedGame(result.outcome, events, actions, result.seat_terminations,
                      result.started, result.finished, result.forfeited_seat)
