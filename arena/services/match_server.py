"""The match server as the services use it: bots that connect, and games it plays.

The services never import the server: `MatchServer` is what they ask of it (the
gRPC `ArenaServer` is one), so they stay plain Python that a test can drive with a
fake.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Protocol

from arena.engine.rules import RuleSet
from arena.policy import BotPolicy
from arena.result import GameResult


class MatchServer(Protocol):
    """The server's bots and tables, as the services ask after them."""

    port: int | None
    crash_check: Callable[[str], Awaitable[bool]] | None

    @property
    def bot_address(self) -> str:
        """Where the bots launched for this server connect."""

    def connected_bots(self) -> list[str]:
        """The bots with an open connection now."""

    async def wait_for_bots(self, names: Iterable[str], timeout: float | None) -> None:
        """Return once every bot of `names` is connected (`TimeoutError` after `timeout`)."""

    async def bots_changed(self) -> None:
        """Return once a bot may have connected or disconnected, or a table was freed."""

    def table_slots(self, bot_name: str) -> int:
        """The games `bot_name` can play at once: its connections' `max_tables` added up."""

    def bot_crashed(self, bot_name: str) -> None:
        """Note that a bot's process exited with an error."""

    async def play_game(self, players: Sequence[str], rules: RuleSet, seed: int,
                        policy: BotPolicy | None = None, *, game_id: str | None = None
                        ) -> GameResult:
        """Play one game between connected bots and return its result."""


class ServerPresence:
    """The server's connected bots and the tables each can play at once, as a tournament
    run asks after them (`BotPresence` and `BotCapacity`)."""

    def __init__(self, server: MatchServer) -> None:
        self.server = server

    def absent(self, bots: Sequence[str]) -> list[str]:
        """The bots among `bots` with no open connection to the server now."""
        return [bot for bot in bots if self.server.table_slots(bot) == 0]

    def table_slots(self, bot: str) -> int:
        """The games `bot` can play at once: its connections' `max_tables` added up."""
        return self.server.table_slots(bot)

    async def changed(self) -> None:
        """Return once a bot may have connected or disconnected, or a table slot was freed."""
        await self.server.bots_changed()
