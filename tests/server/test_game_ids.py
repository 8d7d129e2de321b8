"""A game's id on the server: the one a scheduled game keeps from play to store."""

from __future__ import annotations

import asyncio

import pytest

from arena.server import BotPolicy
from tests.server.bots import TestBot, first_legal, never_answer
from tests.server.server_support import ONE_HAND, TOKENS, running_server


def test_a_game_played_again_under_its_id_replaces_the_finished_one() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            bots = [await TestBot(server.port or 0, TOKENS[name], first_legal).start()
                    for name in ("alice", "bob")]
            await server.wait_for_bots(["alice", "bob"], timeout=5)
            first = await server.play_game(["alice", "bob"], ONE_HAND, 1, game_id="cup:0")
            second = await server.play_game(["bob", "alice"], ONE_HAND, 2, game_id="cup:0")
            table = server.find_table("cup:0")
            for bot in bots:
                await bot.close()
        assert first.game_id == second.game_id == "cup:0"
        assert table is not None and table.players == ("bob", "alice")

    asyncio.run(scenario())


def test_the_id_of_a_game_in_play_is_refused_for_another() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            bots = [await TestBot(server.port or 0, TOKENS[name], never_answer).start()
                    for name in ("alice", "bob")]
            await server.wait_for_bots(["alice", "bob"], timeout=5)
            slow = BotPolicy(decision_timeout=60)
            playing = asyncio.ensure_future(
                server.play_game(["alice", "bob"], ONE_HAND, 1, slow, game_id="cup:0"))
            while not server.tables():
                await asyncio.sleep(0.01)
            with pytest.raises(ValueError, match="game id 'cup:0' is in use"):
                await server.play_game(["carol", "dave"], ONE_HAND, 2, game_id="cup:0")
            playing.cancel()
            for bot in bots:
                await bot.close()

    asyncio.run(scenario())
