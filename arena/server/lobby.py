"""The bots connected right now, and the table slots their connections offer."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence

from arena.server.connection import BotConnection


class Lobby:
    """Every open bot connection, by bot name.

    Tables take their seats' connections with `claim`, which waits until every
    named bot that is connected has a free slot and then reserves one per bot at
    once (so two games waiting for the same bots never deadlock). Whoever frees a
    slot or changes the set of connections calls `changed`.
    """

    def __init__(self) -> None:
        self._by_name: dict[str, list[BotConnection]] = {}
        self._changed = asyncio.Event()

    def add(self, connection: BotConnection) -> None:
        """A bot connected."""
        self._by_name.setdefault(connection.bot_name, []).append(connection)
        self.changed()

    def remove(self, connection: BotConnection) -> None:
        """A bot's connection ended."""
        connections = self._by_name.get(connection.bot_name, [])
        if connection in connections:
            connections.remove(connection)
        if not connections:
            self._by_name.pop(connection.bot_name, None)
        self.changed()

    def connections(self) -> list[BotConnection]:
        """Every open connection, in the order bots connected."""
        return [c for conns in self._by_name.values() for c in conns if c.is_open]

    def connections_of(self, bot_name: str) -> list[BotConnection]:
        """The open connections of one bot."""
        return [c for c in self._by_name.get(bot_name, ()) if c.is_open]

    def is_connected(self, bot_name: str) -> bool:
        """True when the bot has at least one open connection."""
        return bool(self.connections_of(bot_name))

    def table_slots(self, bot_name: str) -> int:
        """The tables the bot's open connections may play at once, taken or free."""
        return sum(c.hello.max_tables for c in self.connections_of(bot_name))

    def changed(self) -> None:
        """Wake everyone waiting for a connection or a free slot."""
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_changed(self) -> None:
        """Return at the next `changed`: a connection came or went, or a slot was freed."""
        await self._changed.wait()

    async def wait_for_bots(self, names: Iterable[str], timeout: float | None) -> None:
        """Return once every named bot is connected; `TimeoutError` names the missing ones."""
        wanted = sorted(set(names))

        def missing() -> list[str]:
            return [name for name in wanted if not self.is_connected(name)]

        try:
            await self._wait_until(lambda: not missing(), timeout)
        except TimeoutError:
            raise TimeoutError(f"bots not connected after {timeout} s: "
                               + ", ".join(missing())) from None

    async def claim(self, names: Sequence[str]) -> list[BotConnection | None]:
        """One connection per name with a slot reserved by the caller (None: not connected).

        The caller must take the slots (`BotConnection.take_slot`, which a seat
        does when it joins its table) before it awaits anything, or they may be
        claimed again.
        """
        await self._wait_until(lambda: all(self._has_room(name) for name in names), None)
        return [self.roomiest(name) for name in names]

    def _has_room(self, name: str) -> bool:
        connections = self.connections_of(name)
        return not connections or any(c.free_slots for c in connections)

    def roomiest(self, name: str) -> BotConnection | None:
        """The bot's connection with the most free table slots; None if none has one."""
        connections = [c for c in self.connections_of(name) if c.free_slots]
        return max(connections, key=lambda c: c.free_slots) if connections else None

    async def _wait_until(self, ready: Callable[[], bool], timeout: float | None) -> None:
        async with asyncio.timeout(timeout):
            while not ready():
                await self._changed.wait()
