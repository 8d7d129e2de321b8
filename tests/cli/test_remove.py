"""Removing a bot stops the managed process this server runs and revokes its tokens."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.cli.cli_support import bot_command
from tests.support import managed_server


def test_removing_a_managed_bot_stops_it_and_its_session_token_no_longer_works(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        async with managed_server(tmp_path) as (store, server, services, port, tokens):
            services.bots.add("rnd", "managed", bot_command("random"))
            await services.runs.ensure_bots(["rnd"], wait_seconds=30)
            assert server.connected_bots() == ["rnd"]
            token = tokens.mint("rnd")
            await services.bots.remove("rnd")
            assert tokens.bot_name(token) is None
            for _ in range(100):
                if "rnd" not in server.connected_bots():
                    break
                await asyncio.sleep(0.05)
            assert "rnd" not in server.connected_bots()

    asyncio.run(scenario())
