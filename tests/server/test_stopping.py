"""A server that has begun to stop starts no new game, so a run between two games ends
saying the server stopped rather than losing its connection."""

from __future__ import annotations

import asyncio

import pytest

from arena.server import ArenaServer, GameAbortedError, TokenTable
from tests.server.server_support import ONE_HAND, TOKENS


def test_a_game_asked_for_while_the_server_stops_is_aborted_not_started() -> None:
    async def scenario() -> None:
        server = ArenaServer(TokenTable(TOKENS))
        await server.start()
        stopping = asyncio.create_task(server.stop(grace=0.5))
        await asyncio.sleep(0)  # stop has begun: it is shutting its health service down
        with pytest.raises(GameAbortedError, match="stopping"):
            await server.play_game(["alice", "bob"], ONE_HAND, seed=1)
        await stopping

    asyncio.run(scenario())


def test_a_run_waiting_for_its_bots_hears_the_server_stop() -> None:
    async def scenario() -> None:
        server = ArenaServer(TokenTable(TOKENS))
        await server.start()
        waiting = asyncio.create_task(server.bots_changed())
        await asyncio.sleep(0)
        stopping = asyncio.create_task(server.stop(grace=0.5))
        with pytest.raises(GameAbortedError, match="stopping"):
            await asyncio.wait_for(waiting, 5)
        await stopping

    asyncio.run(scenario())
