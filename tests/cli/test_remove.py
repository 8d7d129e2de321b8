"""Removing a bot stops the managed process this server runs and revokes its tokens."""

from __future__ import annotations

import asyncio
from pathlib import Path

from cli_support import bot_command

from arena.server.manage import Management
from arena.session import build_server
from arena.store import Store


def test_removing_a_managed_bot_stops_it_and_its_session_token_no_longer_works(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        store = Store.open(tmp_path / "arena.db")
        holder: list[Management] = []
        server = build_server(store, tmp_path / "logs", holder.append)
        await server.start("127.0.0.1", 0)
        management = holder[0]
        try:
            management.add_bot("rnd", "managed", bot_command("random"))
            await management.ensure_bots(["rnd"], wait_seconds=30)
            assert server.connected_bots() == ["rnd"]
            token = management.session_tokens.mint("rnd")
            await management.remove_bot("rnd")
            assert management.session_tokens.bot_name(token) is None
            for _ in range(100):
                if "rnd" not in server.connected_bots():
                    break
                await asyncio.sleep(0.05)
            assert "rnd" not in server.connected_bots()
        finally:
            await server.stop(0.5)
            store.close()

    asyncio.run(scenario())
