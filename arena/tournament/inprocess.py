"""The in-process lane: a tournament's games played by trusted Python SDK bots in this process.

The lane runs the same schedule through the same `run_tournament` (or `run_sprt`)
as the gRPC path, so games are recorded, rated and counted exactly as they are
there; only the `TableRunner` differs. It loads each bot's SDK object from its
command (`arena.env.loading`: ``python FILE.py`` or ``python -m MODULE`` whose
main calls `arena.client.run`) and plays each game with `arena.env.game.play_game`:
the engine driven directly, every seat told, through `arena.env.seat.SdkSeat`,
exactly what the SDK's client would be told over gRPC. Games are played one at a
time, in schedule order, each bot one object across all its games (as one bot
process serves all its tables), so deterministic bots play the very games the
gRPC path plays at one table at a time.

A remote bot, a bot whose command is not a Python script or module, a submitted
version of another runtime, and a script that never calls `run`, are refused
with `NotAnSdkBot` before any game is played. The bots' code runs in this
process, outside any sandbox: the lane is for bots whose code is trusted.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from arena import wire
from arena.engine.rules import RuleSet
from arena.env.game import play_game
from arena.env.loading import LoadedBot, NotAnSdkBot, load_bot
from arena.env.seat import SdkSeat
from arena.game_id import public_game_id
from arena.record import SeatTermination
from arena.store import LADDER_FORMAT, BotKind, BuildStatus, GameSummary, ScheduledGame, Store
from arena.submissions import launch_command
from arena.tournament.chunked import Chunk, ChunkResult, run_tournament_on_workers
from arena.tournament.runner import (
    PlayedGame,
    Progress,
    RunSummary,
    create_tournament,
    run_tournament,
    tournament_settings,
)
from arena.tournament.schedule import TournamentSettings
from arena.tournament.sequential import (
    SequentialOutcome,
    SprtPlan,
    UntilSeparated,
    run_sprt,
    run_until_separated,
)

__all__ = ["InProcessRefused", "InProcessTables", "LanePool", "NotAnSdkBot", "entrant_commands",
           "load_entrants", "play_match_in_process", "run_in_process"]


class InProcessRefused(ValueError):
    """A run the lane cannot play (a ladder); the message says why, in one line."""


def load_entrants(store: Store, names: Sequence[str]) -> dict[str, LoadedBot]:
    """Each of `names` (stored bots) as an SDK bot loaded in this process; `NotAnSdkBot`
    for the first that cannot be (remote, another runtime, not built, not SDK)."""
    return {name: load_bot(name, command, folder)
            for name, (command, folder) in entrant_commands(store, names).items()}


def entrant_commands(store: Store, names: Sequence[str]) -> dict[str, tuple[str, str]]:
    """How each of `names` is run: its command and the folder it runs in ("" for this
    one); `NotAnSdkBot` for a bot that cannot play in process (remote, another runtime,
    not built)."""
    commands: dict[str, tuple[str, str]] = {}
    for name in dict.fromkeys(names):
        bot = store.bot(name)
        if bot.kind is not BotKind.MANAGED:
            raise NotAnSdkBot(f"bot {name} is a remote bot: only managed Python SDK bots "
                              "can play in this process")
        version = store.bot_version(bot.name)
        folder = ""
        if version is not None:
            if version.build_status is not BuildStatus.OK:
                raise NotAnSdkBot(f"bot {name} cannot play: its build "
                                  f"{version.build_status.value}")
            if version.runtime != "python":
                raise NotAnSdkBot(f"bot {name} is not a Python SDK bot (its runtime is "
                                  f"{version.runtime}), so it cannot play in this process")
            command, folder = launch_command(version), version.folder
        else:
            command = bot.command or ""
        commands[name] = (command, folder)
    return commands


@dataclass(frozen=True, slots=True)
class _Clock:
    decision_timeout_ms: int
    time_bank_ms: int


def _clock(policy: Mapping[str, Any]) -> _Clock:
    """The deadline and bank a tournament's bot policy gives (the server's defaults)."""
    return _Clock(round(float(policy.get("decision_timeout", 1.0)) * 1000),
                  round(float(policy.get("time_bank", 0.0)) * 1000))


class InProcessTables:
    """A `TableRunner` playing each scheduled game of tournament `name` in this process
    with `bots` (by name), under the deadline and bank of `policy`."""

    def __init__(self, name: str, bots: Mapping[str, LoadedBot],
                 policy: Mapping[str, Any]) -> None:
        self.name = name
        self.bots = dict(bots)
        self.clock = _clock(policy)

    async def __call__(self, game: ScheduledGame, rules: RuleSet) -> PlayedGame:
        """Play `game` to its end (at once: games go one at a time, in schedule order)."""
        return self.play(game, rules)

    def play(self, game: ScheduledGame, rules: RuleSet) -> PlayedGame:
        """Play `game` to its end and return its record."""
        started = datetime.now(UTC)
        seats = [SdkSeat(self.bots[bot].bot,
                         auto_single_action=self.bots[bot].auto_single_action)
                 for bot in game.seats]
        played = play_game(seats, game.seats, rules, game.seed,
                           public_game_id(self.name, game.game_index),
                           self.clock.decision_timeout_ms, self.clock.time_bank_ms)
        outcome = played.outcome
        assert outcome is not None
        return PlayedGame(outcome, wire.events_to_dicts(played.events),
                          wire.actions_to_dicts(played.actions),
                          [SeatTermination.NORMAL] * len(game.seats), started,
                          datetime.now(UTC))


async def run_in_process(store: Store, tournament: str | int, *,
                         progress: Progress | None = None,
                         on_game: Callable[[GameSummary], None] | None = None,
                         sprt: SprtPlan | None = None,
                         bots: Mapping[str, LoadedBot] | None = None,
                         workers: int = 0,
                         until_separated: UntilSeparated | None = None,
                         ) -> RunSummary | SequentialOutcome:
    """Play `tournament`'s pending games in this process (see the module's doc); with
    `sprt` (a two-bot match), deal after deal until the test decides; with
    `until_separated`, deal blocks after the schedule until the leaderboard is
    separated (both on one process). The entrants are
    loaded (`load_entrants`) unless `bots` holds them already. Raises `NotAnSdkBot`
    before any game if a bot cannot play here.

    With `workers` above 1 (0: the tournament's setting) and no `sprt`, that many local
    processes play chunks of
    the games, each with its own copy of every bot, and this process records them in
    schedule order (`run_tournament_on_workers`): stateless bots play the very games
    of a one-process run; a bot that learns across games learns from its worker's only.
    """
    stored = store.tournament(tournament)
    if stored.format == LADDER_FORMAT:
        raise InProcessRefused(f"{stored.name} is a ladder: `arena ladder run --name "
                               f"{stored.name}` plays it, over gRPC")
    settings = tournament_settings(stored)
    sequential = sprt is not None or until_separated is not None
    names = (store.tournament_bots(stored.id) if sequential else
             sorted({b for g in store.pending_games(stored.id) for b in g.seats}))
    if (workers or settings.workers) > 1 and not sequential:
        commands = entrant_commands(store, names)
        if bots is None:
            load_entrants(store, names)  # a bot that cannot play is refused here, once
        size = workers or settings.workers
        async with LanePool(stored.name, commands, settings.policy, size) as pool:
            return await run_tournament_on_workers(store, stored.id, pool, concurrency=1,
                                                   progress=progress, on_game=on_game)
    if bots is None or any(name not in bots for name in names):
        bots = load_entrants(store, names)
    tables = InProcessTables(stored.name, bots, settings.policy)
    if until_separated is not None:
        return await run_until_separated(
            store, stored.id, tables, confidence=until_separated.confidence,
            max_games=until_separated.max_games, concurrency=1, progress=progress,
            on_game=on_game)
    if sprt is None:
        return await run_tournament(store, stored.id, tables, concurrency=1,
                                    progress=progress, on_game=on_game)
    first = store.scheduled_games(stored.id)[0].seats[0]
    return await run_sprt(store, stored.id, tables, sprt.test(), first,
                          max_games=sprt.max_games, concurrency=1, progress=progress,
                          on_game=on_game)


def create_match(store: Store, bots: Sequence[str], games: int, seed: int,
                 rules: RuleSet, sequential: bool = False) -> str:
    """Store a match between `bots` as a tournament of its own, as `arena match` does
    (one table, every deal in every rotation; one deal to start a sequential match);
    return its name."""
    deals = 1 if sequential else -(-games // len(bots))
    settings = TournamentSettings.from_dict({
        "format": "round_robin", "table_size": len(bots), "deals_per_table": deals,
        "seed": seed, "concurrency": 1, "rules": rules.to_dict()})
    name = f"match-{datetime.now(UTC):%Y%m%d-%H%M%S-%f}"
    create_tournament(store, name, settings, bots)
    return name


async def play_match_in_process(store: Store, bots: Sequence[str], games: int, seed: int,
                                rules: RuleSet, *, sprt: SprtPlan | None = None,
                                progress: Progress | None = None, workers: int = 1,
                                ) -> tuple[str, RunSummary | SequentialOutcome]:
    """`arena match` in this process: load the bots first (refusing any that cannot play
    here before anything is stored), store the match, play it; return its name and how
    the run ended."""
    entrants = [store.bot(bot).name for bot in bots]  # a submitted bot's latest version
    loaded = load_entrants(store, entrants)
    name = create_match(store, entrants, games, seed, rules, sequential=sprt is not None)
    return name, await run_in_process(store, name, progress=progress, sprt=sprt, bots=loaded,
                                      workers=workers)


# ----------------------------------------------------------------- workers

_WORKER_TABLES: InProcessTables | None = None
"""A lane worker process's bots, loaded once by `_start_worker`."""


def _start_worker(name: str, commands: Mapping[str, tuple[str, str]],
                  policy: Mapping[str, Any]) -> None:
    global _WORKER_TABLES
    bots = {bot: load_bot(bot, command, folder) for bot, (command, folder) in commands.items()}
    _WORKER_TABLES = InProcessTables(name, bots, policy)


def _play_chunk(games: tuple[ScheduledGame, ...], rules: Mapping[str, Any]
                ) -> ChunkResult:
    assert _WORKER_TABLES is not None
    started = time.perf_counter()
    ruleset = RuleSet.from_dict(dict(rules))
    played = tuple((game.id, _WORKER_TABLES.play(game, ruleset)) for game in games)
    return ChunkResult(played, time.perf_counter() - started)


class LanePool:
    """A `WorkerPool` of `size` local processes that each load the bots (`commands`: name
    to command and folder) once and play the chunks they are given with the lane."""

    def __init__(self, name: str, commands: Mapping[str, tuple[str, str]],
                 policy: Mapping[str, Any], size: int) -> None:
        self.size = size
        self._executor = ProcessPoolExecutor(
            size, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker,
            initargs=(name, dict(commands), dict(policy)))

    async def play(self, chunk: Chunk) -> ChunkResult:
        """Play `chunk`'s games, one at a time, on some worker."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, _play_chunk, chunk.games,
                                          dict(chunk.rules))

    async def __aenter__(self) -> LanePool:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self._executor.shutdown, True, cancel_futures=True)
