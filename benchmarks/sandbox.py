"""Sandbox benchmark: what running bots in a sandbox costs, against the same bots unsandboxed.

Start-up: ms from launching a managed Python random bot to its connection being
welcomed (its first Hello answered), sandboxed and not, alternating. Throughput:
four managed random bots play games four tables at a time, once sandboxed and
once not, alternating in the same run; "sandboxed vs not" is the ratio of games/s
(the same seeds, so the same games). Both take the median of the repeats.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

from arena.sandbox import status
from arena.server import ArenaServer
from arena.server.assembly import SANDBOXED, build_server
from arena.server.auth_store import SessionTokens
from arena.services import Services
from arena.store import Store
from arena.supervisor import BotIsolation, BotSupervisor, ManagedBot
from benchmarks.stats import median, play_games
from benchmarks.tournament import BOTS, RANDOM_BOT, TABLES

UNSANDBOXED = BotIsolation(sandbox="off")
STARTS = 5
"""Bot starts per repeat for the start-up figure (at full scale)."""


async def _start_ms(server: ArenaServer, tokens: SessionTokens, log_dir: Path,
                    isolation: BotIsolation, name: str) -> float:
    supervisor = BotSupervisor(server.bot_address, log_dir, max_restarts=0,
                               isolation=isolation)
    token = tokens.mint(name)
    started = time.perf_counter()
    await supervisor.start(ManagedBot(name, f"{sys.executable} {RANDOM_BOT}", token))
    await server.wait_for_bots([name], timeout=60)
    seconds = time.perf_counter() - started
    await supervisor.stop()
    return seconds * 1000


async def _games_per_s(isolation: BotIsolation, games: int, seed: int) -> float:
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        store = Store.open(Path(tmp) / "bench.db")
        holder: list[Services] = []
        server = build_server(store, Path(tmp) / "logs", holder.append, isolation=isolation)
        await server.start("127.0.0.1", 0)
        services = holder[0]
        try:
            for name in BOTS:
                services.bots.add(name, "managed", f"{sys.executable} {RANDOM_BOT}")
            await services.runs.ensure_bots(BOTS, wait_seconds=60)
            rate = await play_games(server, BOTS, games, TABLES, seed)
        finally:
            await server.stop(0.5)
            store.close()
    return rate.games_per_s


async def _start_up(starts: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"sandboxed": [], "unsandboxed": []}
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        store = Store.open(Path(tmp) / "bench.db")
        tokens = SessionTokens()
        server = build_server(store, Path(tmp) / "logs", session_tokens=tokens)
        await server.start("127.0.0.1", 0)
        try:
            for index in range(starts):
                for label, isolation in (("sandboxed", SANDBOXED), ("unsandboxed", UNSANDBOXED)):
                    times[label].append(await _start_ms(server, tokens, Path(tmp) / "logs",
                                                        isolation, f"{label}-{index}"))
        finally:
            await server.stop(0.5)
            store.close()
    return times


def run(repeats: int = 3, scale: float = 1.0) -> list[dict[str, object]]:
    """Start-up ms and games/s, sandboxed and not, each the median of its runs."""
    found = status()
    if not found.available:
        return [{"sandbox": f"none ({found.reason})"}]
    starts = asyncio.run(_start_up(max(1, round(repeats * STARTS * scale))))
    games = max(8, int(200 * scale))
    rates: dict[str, list[float]] = {"sandboxed": [], "unsandboxed": []}
    for seed in range(repeats):
        for label, isolation in (("sandboxed", SANDBOXED), ("unsandboxed", UNSANDBOXED)):
            rates[label].append(asyncio.run(_games_per_s(isolation, games, seed)))
    sandboxed, unsandboxed = median(rates["sandboxed"]), median(rates["unsandboxed"])
    return [{"sandbox": found.mode, "ms to Hello sandboxed": round(median(starts["sandboxed"]), 1),
             "ms to Hello unsandboxed": round(median(starts["unsandboxed"]), 1),
             "games": games, "games/s sandboxed": round(sandboxed, 2),
             "games/s unsandboxed": round(unsandboxed, 2),
             "sandboxed vs not": round(sandboxed / unsandboxed, 3)}]
