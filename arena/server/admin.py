"""`ArenaAdmin`: what operators and the CLI may ask a running server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any, NoReturn

import grpc

from arena.server.connection import BotConnection
from arena.server.table import Table
from arena.v1 import admin_pb2, admin_pb2_grpc

SERVICE_NAME = admin_pb2.DESCRIPTOR.services_by_name["ArenaAdmin"].full_name
"""The full name of the admin service ("arena.v1.ArenaAdmin")."""


class AdminService(admin_pb2_grpc.ArenaAdminServicer):
    """Lists connections and tables, and streams a game's public events.

    It reads the server's state through three callables: the open connections,
    the tables being played, and a lookup of a game (playing or recently
    finished) by id. The management calls (bots, tournaments, rankings, stored
    games) answer UNIMPLEMENTED here; a subclass backed by a store provides them
    (see `ArenaServer.admin_servicer`).
    """

    def __init__(self, connections: Callable[[], list[BotConnection]],
                 tables: Callable[[], list[Table]],
                 find_table: Callable[[str], Table | None]) -> None:
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

    async def AddBot(self, request: admin_pb2.AddBotRequest,
                     context: Any) -> admin_pb2.AddBotResponse:
        """Not available without a store."""
        await _unimplemented(context, "AddBot")

    async def ListBots(self, request: admin_pb2.ListBotsRequest,
                       context: Any) -> admin_pb2.ListBotsResponse:
        """Not available without a store."""
        await _unimplemented(context, "ListBots")

    async def RemoveBot(self, request: admin_pb2.RemoveBotRequest,
                        context: Any) -> admin_pb2.RemoveBotResponse:
        """Not available without a store."""
        await _unimplemented(context, "RemoveBot")

    async def CreateTournament(self, request: admin_pb2.CreateTournamentRequest,
                               context: Any) -> admin_pb2.TournamentInfo:
        """Not available without a store."""
        await _unimplemented(context, "CreateTournament")

    async def ListTournaments(self, request: admin_pb2.ListTournamentsRequest,
                              context: Any) -> admin_pb2.ListTournamentsResponse:
        """Not available without a store."""
        await _unimplemented(context, "ListTournaments")

    async def GetSchedule(self, request: admin_pb2.GetScheduleRequest,
                          context: Any) -> admin_pb2.GetScheduleResponse:
        """Not available without a store."""
        await _unimplemented(context, "GetSchedule")

    async def RunTournament(self, request: admin_pb2.RunTournamentRequest,
                            context: Any) -> AsyncIterator[admin_pb2.RunProgress]:
        """Not available without a store."""
        await _unimplemented(context, "RunTournament")
        yield admin_pb2.RunProgress()  # pragma: no cover - abort raises

    async def PlayMatch(self, request: admin_pb2.PlayMatchRequest,
                        context: Any) -> AsyncIterator[admin_pb2.RunProgress]:
        """Not available without a store."""
        await _unimplemented(context, "PlayMatch")
        yield admin_pb2.RunProgress()  # pragma: no cover - abort raises

    async def GetRankings(self, request: admin_pb2.GetRankingsRequest,
                          context: Any) -> admin_pb2.GetRankingsResponse:
        """Not available without a store."""
        await _unimplemented(context, "GetRankings")

    async def ListGames(self, request: admin_pb2.ListGamesRequest,
                        context: Any) -> admin_pb2.ListGamesResponse:
        """Not available without a store."""
        await _unimplemented(context, "ListGames")

    async def GetGame(self, request: admin_pb2.GetGameRequest,
                      context: Any) -> admin_pb2.GetGameResponse:
        """Not available without a store."""
        await _unimplemented(context, "GetGame")


async def _unimplemented(context: Any, method: str) -> NoReturn:
    await context.abort(grpc.StatusCode.UNIMPLEMENTED,
                        f"{method} needs a server with a store (arena serve)")
    raise AssertionError("abort returned")  # pragma: no cover
