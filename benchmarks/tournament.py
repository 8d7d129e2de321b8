"""Tournament benchmark: games/s end to end against the decision-throughput bound.

Four managed Python random bots connect to an in-process server over real gRPC.
The bound is measured first, in the same run: the same bots play games four at
a time straight through `ArenaServer.play_game`, with no store and no ratings,
giving decisions/s and decisions per game; their ratio is the games/s the
decision path allows. Then a round-robin tournament of the same size runs end
to end — schedule, four tables at once, every game recorded with its replay
log and rating update in SQLite — and its games/s is set against that bound.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

from arena.engine import RuleSet
from arena.server.manage import Management
from arena.server.policy import BotPolicy
from arena.server.server import ArenaServer
from arena.session import build_server
from arena.store import Store
from benchmarks.stats import median

BOTS = ("random-a", "random-b", "random-c", "random-d")
RULES = RuleSet(target_score=None)
TABLES = 4
RANDOM_BOT = Path(__file__).resolve().parent.parent / "sample_bots" / "python" / "random_bot.py"


async def _measure(games: int, seed: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        store = Store.open(Path(tmp) / "bench.db")
        holder: list[Management] = []
        server = build_server(store, Path(tmp) / "logs", holder.append)
        await server.start("127.0.0.1", 0)
        management = holder[0]
        try:
            for name in BOTS:
                management.add_bot(name, "managed", f"{sys.executable} {RANDOM_BOT}")
            await management.ensure_bots(BOTS, wait_seconds=60)
            bound = await _decision_bound(server, games, seed)
            rate = await _tournament_rate(management, games, seed)
        finally:
            await server.stop(0.5)
            store.close()
    return {**bound, "tournament games/s": rate,
            "vs bound": rate / bound["bound games/s"]}


async def _decision_bound(server: ArenaServer, games: int, seed: int) -> dict[str, float]:
    policy = BotPolicy(decision_timeout=5.0)
    queue = list(range(games))
    decisions = 0

    async def worker() -> None:
        nonlocal decisions
        while queue:
            index = queue.pop()
            seats = [BOTS[(index + k) % len(BOTS)] for k in range(len(BOTS))]
            result = await server.play_game(seats, RULES, seed * 7919 + index, policy)
            decisions += len(result.actions)

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(TABLES)))
    seconds = time.perf_counter() - start
    per_second = decisions / seconds
    per_game = decisions / games
    return {"decisions/s": per_second, "decisions/game": per_game,
            "bound games/s": per_second / per_game}


async def _tournament_rate(management: Management, games: int, seed: int) -> float:
    deals = max(1, games // len(BOTS))
    name = f"bench-{seed}"
    management.create_tournament(name, list(BOTS), {
        "format": "round_robin", "table_size": len(BOTS), "deals_per_table": deals,
        "seed": seed, "concurrency": TABLES, "rules": RULES.to_dict(),
        "policy": {"decision_timeout": 5.0}})
    total = deals * len(BOTS)
    start = time.perf_counter()
    await management.run_tournament(name, TABLES, wait_seconds=60)
    return total / (time.perf_counter() - start)


def run(repeats: int = 3, scale: float = 1.0) -> list[dict[str, object]]:
    """Median over `repeats` runs of the bound and the end-to-end tournament rate."""
    games = max(8, int(120 * scale))
    runs = [asyncio.run(_measure(games, seed)) for seed in range(repeats)]
    keys = list(runs[0])
    return [{"games": games, "tables": TABLES,
             **{key: round(median([r[key] for r in runs]), 2) for key in keys}}]
