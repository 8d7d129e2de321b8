"""Remote bots that take one table at a time play a whole round robin, each game at its turn:
the run asks the server for a game only when its bots have a slot free."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from arena.result import GameResult
from arena.store import BotKind, TournamentStatus
from tests.server.bots import TestBot
from tests.server.server_support import ONE_HAND
from tests.support import managed_server

pytestmark = pytest.mark.timeout(60)

BOTS = [f"bot{n:02d}" for n in range(20)]
GAMES = 20 * 19 // 2
"""Every pair of `BOTS` once (no rotations)."""
CONCURRENCY = 8


async def round_robin_of_one_table_bots(folder: Path) -> tuple[TournamentStatus, int, int,
                                                                Counter[str]]:
    """Play the round robin of `BOTS`, each connected with max_tables=1; return the
    tournament's status, the games stored, the most games any bot was asked to play at
    once (waiting for a slot or playing), and the games' seat terminations."""
    async with managed_server(folder) as arena:
        tokens = {name: arena.store.add_bot(name, BotKind.REMOTE)[1] for name in BOTS}
        bots = [await TestBot(arena.port, tokens[name], max_tables=1).start() for name in BOTS]
        in_play: Counter[str] = Counter()
        most_at_once = 0
        play_game = arena.server.play_game

        async def watched_play_game(players: Sequence[str], *args: Any,
                                    **kwargs: Any) -> GameResult:
            nonlocal most_at_once
            in_play.update(players)
            most_at_once = max(most_at_once, *(in_play[bot] for bot in players))
            try:
                return await play_game(players, *args, **kwargs)
            finally:
                in_play.subtract(players)

        arena.server.play_game = watched_play_game  # type: ignore[method-assign]
        try:
            arena.services.competitions.create_tournament("cup", BOTS, {
                "table_size": 2, "rotations": False, "seed": 7, "concurrency": CONCURRENCY,
                "rules": ONE_HAND.to_dict()})
            await asyncio.wait_for(
                arena.services.runs.run_tournament("cup", CONCURRENCY, 10.0), 50)
        finally:
            for bot in bots:
                await bot.close()
        games = arena.store.games(tournament="cup")
        terminations = Counter(t.value for game in games for t in game.seat_terminations)
        return arena.store.tournament("cup").status, len(games), most_at_once, terminations


def test_twenty_bots_with_one_table_each_play_a_round_robin_to_its_end(
        tmp_path: Path) -> None:
    status, games, most_at_once, terminations = asyncio.run(
        round_robin_of_one_table_bots(tmp_path))
    assert (status, games) == (TournamentStatus.FINISHED, GAMES)
    assert most_at_once == 1
    assert terminations == {"normal": 2 * GAMES}
