"""`ArenaAdmin`: what operators and the CLI may ask a running server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, NoReturn

import grpc

from arena.server.connection import BotConnection
from arena.server.table import GameTable
from arena.v1 import admin_pb2, admin_pb2_grpc

SERVICE_NAME = admin_pb2.DESCRIPTOR.services_by_name["ArenaAdmin"].full_name
"""The full name of the admin service ("arena.v1.ArenaAdmin")."""


# (self, request, context) in both; written `...` because the generated base class
# names its parameters, which a positional Callable type would not match.
UnaryCall = Callable[..., Awaitable[Any]]
"""A unary servicer method: an awaited response."""
StreamingCall = Callable[..., AsyncIterator[Any]]
"""A server-streaming servicer method: a stream of responses."""


def _needs_store(method: str) -> UnaryCall:
    """A unary management call that answers UNIMPLEMENTED: it needs a store."""
    async def call(self: Any, request: Any, context: Any) -> Any:
        """Not available without a store."""
        await _unimplemented(context, method)
    return call


def _needs_store_streaming(method: str) -> StreamingCall:
    """A streaming management call that answers UNIMPLEMENTED: it needs a store."""
    async def call(self: Any, request: Any, context: Any) -> AsyncIterator[Any]:
        """Not available without a store."""
        await _unimplemented(context, method)
        yield  # pragma: no cover - abort raises; the yield makes this a stream
    return call


async def _unimplemented(context: Any, method: str) -> NoReturn:
    await context.abort(grpc.StatusCode.UNIMPLEMENTED,
                        f"{method} needs a server with a store (arena serve)")
    raise AssertionError("abort returned")  # pragma: no cover


class AdminService(admin_pb2_grpc.ArenaAdminServicer):
    """Lists connections and tables, and streams a game's public events.

    It reads the server's state through three callables: the open connections,
    the tables being played, and a lookup of a game (playing or recently
    finished) by id. The management calls (bots, tournaments, rankings, stored
    games) answer UNIMPLEMENTED here; a subclass backed by a store provides them
    (see `ArenaServer.admin_servicer`).
    """

    def __init__(self, connections: Callable[[], list[BotConnection]],
                 tables: Callable[[], list[GameTable]],
                 find_table: Callable[[str], GameTable | None]) -> None:
        self._connections = connections
        self._tables = tables
        self._find_table = find_table

    async def ListConnectedBots(self, request: admin_pb2.ListConnectedBotsRequest,
                                context: Any) -> admin_pb2.ListConnectedBotsResponse:
        """Every open bot connection."""
        return admin_pb2.ListConnectedBotsResponse(bots=[
            admin_pb2.ConnectedBot(
                name=c.bot_name, connection_id=c.connection_id, bot_version=c.hello.bot_version,
                max_tables=c.hello.max_tables, tables_playing=len(c.tables), peer=c.peer)
            for c in self._connections()
        ])

    async def ListTables(self, request: admin_pb2.ListTablesRequest,
                         context: Any) -> admin_pb2.ListTablesResponse:
        """Every table being played."""
        return admin_pb2.ListTablesResponse(tables=[t.info() for t in self._tables()])

    async def WatchGame(self, request: admin_pb2.WatchGameRequest,
                        context: Any) -> AsyncIterator[admin_pb2.WatchGameUpdate]:
        """The game's public events from its start, then live; the outcome comes last."""
        table = self._find_table(request.game_id)
        if table is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no game {request.game_id!r}")
            return
        updates = table.watch()
        try:
            while (update := await updates.get()) is not None:
                yield update
        finally:
            table.unwatch(updates)

    # The management calls need a store; `arena.server.manage` overrides them.
    AddBot = _needs_store("AddBot")
    ListBots = _needs_store("ListBots")
    RemoveBot = _needs_store("RemoveBot")
    CreateTournament = _needs_store("CreateTournament")
    ListTournaments = _needs_store("ListTournaments")
    GetSchedule = _needs_store("GetSchedule")
    RunTournament = _needs_store_streaming("RunTournament")
    PlayMatch = _needs_store_streaming("PlayMatch")
    GetRankings = _needs_store("GetRankings")
    ListGames = _needs_store("ListGames")
    GetGame = _needs_store("GetGame")
