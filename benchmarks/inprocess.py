"""In-process lane benchmark: a tournament played in the driver's process against the gRPC path
and against the bare engine.

The same round robin (four seats, single hands, official rules, the same seed) is
created twice in one database: one copy is run over gRPC as `arena tournament run`
runs it (an in-process match server, managed bot processes, four tables at once),
the other with `arena.tournament.inprocess.run_in_process`, one game at a time.
Both record every game with its replay log and rating update in SQLite, and both
run on one core: the benchmark pins itself, and with it the bot processes it
starts, to one CPU (where the platform allows). With deterministic bots both play
the very same games, so games/s compare like for like. Two fields: four random
bots, and the sample bots (greedy, counter, random, random); greedy and counter
learn from every game they see, and over gRPC four tables at once show them the
games in another order, so that field's games differ between the two runs.

The bound is the engine itself: the same deals played straight through `Game` by
a uniformly random policy (`benchmarks.engine.arena_games`' loop), with no bot
interface and no store, measured in each run right after the lane; the lane's
decisions/s is compared to it twice, for the lane's play alone (its
`TableRunner`, no store) and for the whole run (each ratio the median of the
runs'). With the sample bots the ratio says how much of the time their own
decisions take. Both ratios are also given by this process's CPU time (all its
threads: the recording's too), which other processes' load on a shared machine
does not change the way it changes the wall clock.
"""

from __future__ import annotations

import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

from arena.engine import Game, RuleSet
from arena.env.loading import LoadedBot
from arena.server.assembly import build_server
from arena.services import Services
from arena.store import Store
from arena.tournament.inprocess import InProcessTables, load_entrants, run_in_process
from benchmarks.stats import Rate, median, one_core

RULES = RuleSet(target_score=None)
BOTS_DIR = Path(__file__).resolve().parent.parent / "sample_bots" / "python"
FIELDS = {
    "random x4": {"random-a": "random", "random-b": "random", "random-c": "random",
                  "random-d": "random"},
    "greedy counter random x2": {"greedy": "greedy", "counter": "counter",
                                 "random-a": "random", "random-b": "random"},
}
TABLES = 4


def _create(services: Services, name: str, bots: list[str], deals: int, seed: int) -> None:
    services.competitions.create_tournament(name, bots, {
        "format": "round_robin", "table_size": len(bots), "deals_per_table": deals,
        "seed": seed, "concurrency": TABLES, "rules": RULES.to_dict(),
        "policy": {"decision_timeout": 5.0}})


def _decisions(store: Store, name: str) -> int:
    return sum(len(store.get_game(g.id).actions) for g in store.games(tournament=name))


async def measure(field: dict[str, str], deals: int, seed: int) -> dict[str, float]:
    """One run of `field`'s round robin, `deals` deals, both ways (keys with _ are checks)."""
    bots = list(field)
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        store = Store.open(Path(tmp) / "bench.db")
        holder: list[Services] = []
        server = build_server(store, Path(tmp) / "logs", holder.append)
        await server.start("127.0.0.1", 0)
        services = holder[0]
        try:
            for name, script in field.items():
                services.bots.add(name, "managed", f"{sys.executable} "
                                  f"{BOTS_DIR / f'{script}_bot.py'}")
            _create(services, "over-grpc", bots, deals, seed)
            _create(services, "in-process", bots, deals, seed)
            await services.runs.ensure_bots(bots, wait_seconds=60)
            start = time.perf_counter()
            await services.runs.run_tournament("over-grpc", TABLES, wait_seconds=60)
            grpc = Rate(len(store.games(tournament="over-grpc")),
                        _decisions(store, "over-grpc"), time.perf_counter() - start)
        finally:
            await server.stop(0.5)
        loaded = load_entrants(store, bots)
        start, cpu_start = time.perf_counter(), time.process_time()
        await run_in_process(store, "in-process", bots=loaded)
        lane = Rate(len(store.games(tournament="in-process")), _decisions(store, "in-process"),
                    time.perf_counter() - start)
        lane_cpu = time.process_time() - cpu_start
        cpu_start = time.process_time()
        play_only = await _play_only(store, loaded)
        play_only_cpu = time.process_time() - cpu_start
        cpu_start = time.process_time()
        bound = engine_bound(len(bots), [g.seed for g in store.scheduled_games("in-process")])
        bound_cpu = time.process_time() - cpu_start
        store.close()
    return {"grpc games/s": grpc.games_per_s, "in-process games/s": lane.games_per_s,
            "in-process vs grpc": lane.games_per_s / grpc.games_per_s,
            "in-process decisions/s": lane.decisions_per_s,
            "lane play only decisions/s": play_only.decisions_per_s,
            "engine decisions/s": bound.decisions_per_s,
            "lane play only vs engine": play_only.decisions_per_s / bound.decisions_per_s,
            "in-process run vs engine": lane.decisions_per_s / bound.decisions_per_s,
            "play only vs engine, cpu": (play_only.decisions / play_only_cpu)
            / (bound.decisions / bound_cpu),
            "run vs engine, cpu": (lane.decisions / lane_cpu) / (bound.decisions / bound_cpu),
            "_same games": float(grpc.decisions == lane.decisions)}


async def _play_only(store: Store, loaded: dict[str, LoadedBot]) -> Rate:
    """The lane's table runner over the schedule again, with nothing recorded."""
    tables = InProcessTables("in-process", loaded, {})
    games = store.scheduled_games("in-process")
    decisions = 0
    start = time.perf_counter()
    for game in games:
        decisions += len((await tables(game, RULES)).actions)
    return Rate(len(games), decisions, time.perf_counter() - start)


def engine_bound(players: int, seeds: list[int]) -> Rate:
    """The bare engine on the same deals, a uniformly random policy."""
    rng = random.Random(0)
    decisions = 0
    start = time.perf_counter()
    for seed in seeds:
        game = Game.new(RULES, players, seed)
        while game.outcome is None:
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
            decisions += 1
    return Rate(len(seeds), decisions, time.perf_counter() - start)


def run(repeats: int = 3, scale: float = 1.0) -> list[dict[str, object]]:
    """Median over `repeats` runs of each field's figures; the engine bound with random bots."""
    with one_core():
        return _run(repeats, scale)


def _run(repeats: int, scale: float) -> list[dict[str, object]]:
    deals = max(1, int(12 * scale))
    rows: list[dict[str, object]] = []
    for label, field in FIELDS.items():
        runs = [asyncio.run(measure(field, deals, seed)) for seed in range(repeats)]
        row: dict[str, object] = {"field": label, "games": deals * 4}
        for key in runs[0]:
            if not key.startswith("_"):
                row[key] = round(median([r[key] for r in runs]), 2)
        row["same games both ways"] = all(r["_same games"] for r in runs)
        rows.append(row)
    return rows
