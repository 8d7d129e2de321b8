"""What the server tests share: a real ArenaServer on a loopback port, and tokens."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from arena.engine import RuleSet
from arena.server import ArenaServer, TokenTable

TOKENS = {name: f"token-{name}" for name in ("alice", "bob", "carol", "dave", "eve", "spy")}
"""Bot name → token for every test bot."""

ONE_HAND = RuleSet(target_score=None)
"""The official rules for a single hand: short games."""


@asynccontextmanager
async def running_server(**options: Any) -> AsyncIterator[ArenaServer]:
    """An ArenaServer serving on 127.0.0.1 and a free port, stopped afterwards."""
    server = ArenaServer(TokenTable(TOKENS), **options)
    await server.start()
    try:
        yield server
    finally:
        await server.stop(grace=0.5)
