"""Tournament benchmark: a tournament's decisions/s end to end against the bare decision path.

Four managed Python random bots connect to an in-process server over real gRPC.
The bound is measured first, in the same run: the same bots play games four at
a time straight through `ArenaServer.play_game`, with no store and no ratings.
Then a round-robin tournament of the same size runs end to end — schedule, four
tables at once, every game recorded with its replay log and rating update in
SQLite. The two play different random games, and random single hands vary
widely in length, so they are compared by decisions/s (what the tournament
machinery can slow down), not games/s; "tournament games/s" is what was played.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

from arena.engine import RuleSet
from arena.server.assembly import build_server
from arena.services import Services
from arena.store import Store
from benchmarks.stats import Rate, median, play_games

BOTS = ("random-a", "random-b", "random-c", "random-d")
RULES = RuleSet(target_score=None)
TABLES = 4
RANDOM_BOT = Path(__file__).resolve().parent.parent / "sample_bots" / "python" / "random_bot.py"


async def _measure(games: int, seed: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        store = Store.open(Path(tmp) / "bench.db")
        holder: list[Services] = []
        server = build_server(store, Path(tmp) / "logs", holder.append)
        await server.start("127.0.0.1", 0)
        services = holder[0]
        try:
            for name in BOTS:
                services.bots.add(name, "managed", f"{sys.executable} {RANDOM_BOT}")
            await services.runs.ensure_bots(BOTS, wait_seconds=60)
            bound = await play_games(server, BOTS, games, TABLES, seed)
            tournament = await _tournament_rate(services, games, seed)
        finally:
            await server.stop(0.5)
            store.close()
    return {"bound decisions/s": bound.decisions_per_s,
            "tournament decisions/s": tournament.decisions_per_s,
            "tournament games/s": tournament.games_per_s,
            "vs bound": tournament.decisions_per_s / bound.decisions_per_s}


async def _tournament_rate(services: Services, games: int, seed: int) -> Rate:
    deals = max(1, games // len(BOTS))
    name = f"bench-{seed}"
    services.competitions.create_tournament(name, list(BOTS), {
        "format": "round_robin", "table_size": len(BOTS), "deals_per_table": deals,
        "seed": seed, "concurrency": TABLES, "rules": RULES.to_dict(),
        "policy": {"decision_timeout": 5.0}})
    start = time.perf_counter()
    await services.runs.run_tournament(name, TABLES, wait_seconds=60)
    seconds = time.perf_counter() - start
    played = services.store.games(tournament=name)
    decisions = sum(len(services.store.get_game(g.id).actions) for g in played)
    return Rate(len(played), decisions, seconds)


def run(repeats: int = 3, scale: float = 1.0) -> list[dict[str, object]]:
    """Median over `repeats` runs of the bound and the end-to-end tournament rate."""
    games = max(8, int(120 * scale))
    runs = [asyncio.run(_measure(games, seed)) for seed in range(repeats)]
    keys = list(runs[0])
    return [{"games": games, "tables": TABLES,
             **{key: round(median([r[key] for r in runs]), 2) for key in keys}}]
