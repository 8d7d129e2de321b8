"""Shared set-up for the server tests: a real ArenaServer on a loopback port, and tokens."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every server test gets a timeout, so a hung table fails fast instead of hanging CI."""
    for item in items:
        if "tests/server/" in str(item.fspath).replace("\\", "/") \
                and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(30))
