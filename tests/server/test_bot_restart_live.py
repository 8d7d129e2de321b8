"""A remote SDK bot killed mid-tournament and restarted a second later keeps its games."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from arena.engine import RuleSet
from arena.services import Progress
from arena.store import BotKind
from tests.support import ROOT, managed_server

pytestmark = pytest.mark.timeout(90)

BOT = ROOT / "sample_bots" / "python" / "random_bot.py"
GAMES = 30
CONCURRENCY = 2
KILL_AFTER = 5
"""Games recorded before one bot's process is killed."""
RESTART_AFTER = 1.0
"""Seconds between the kill and the restart."""


async def start_bot(port: int, token: str) -> asyncio.subprocess.Process:
    """The Python sample bot as a process of its own, connected to the server at `port`."""
    env = {**os.environ, "ARENA_SERVER": f"127.0.0.1:{port}", "ARENA_TOKEN": token,
           "PYTHONPATH": str(ROOT)}
    env.pop("ARENA_TLS", None)
    env.pop("ARENA_TLS_CA", None)
    return await asyncio.create_subprocess_exec(
        sys.executable, str(BOT), env=env, cwd=ROOT,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def stop(process: asyncio.subprocess.Process) -> None:
    """Kill one bot process this test started, and reap it."""
    if process.returncode is None:
        process.kill()
    await process.wait()


async def tournament_with_a_restart(folder: Path) -> Counter[str]:
    """Play the tournament, killing 'restarted' after `KILL_AFTER` games and starting it
    again `RESTART_AFTER` s later; count its games' seat terminations."""
    async with managed_server(folder) as arena:
        tokens = {name: arena.store.add_bot(name, BotKind.REMOTE)[1]
                  for name in ("steady", "restarted")}
        processes = {name: await start_bot(arena.port, token) for name, token in tokens.items()}
        restart: list[asyncio.Task[None]] = []

        async def kill_then_restart() -> None:
            process = processes["restarted"]
            process.kill()
            await process.wait()
            await asyncio.sleep(RESTART_AFTER)
            processes["restarted"] = await start_bot(arena.port, tokens["restarted"])

        def on_progress(progress: Progress) -> None:
            if progress.done >= KILL_AFTER and not restart:
                restart.append(asyncio.ensure_future(kill_then_restart()))

        try:
            arena.services.competitions.create_tournament("cup", list(tokens), {
                "format": "round_robin", "table_size": 2, "deals_per_table": GAMES // 2,
                "seed": 3, "concurrency": CONCURRENCY,
                "rules": RuleSet(target_score=None).to_dict()})
            await arena.services.runs.run_tournament("cup", CONCURRENCY, 20.0, on_progress)
            assert restart, "the bot was killed"
            await restart[0]
        finally:
            for process in processes.values():
                await stop(process)
        games = arena.store.games(tournament="cup")
        assert len(games) == GAMES
        return Counter(t.value for game in games for t in game.seat_terminations)


def test_a_bot_restarted_a_second_after_a_kill_loses_at_most_the_games_then_in_play(
        tmp_path: Path) -> None:
    terminations = asyncio.run(tournament_with_a_restart(tmp_path))
    assert terminations["disconnect"] <= CONCURRENCY, terminations
    assert terminations["normal"] >= 2 * GAMES - CONCURRENCY
