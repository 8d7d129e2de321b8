"""Admin calls that read results: leaderboards, pools, crosstables, per-seat statistics
and rating histories (`arena.services.results`; who may make each is
`arena.server.permissions`'s), each read and answered in the readers' threads."""

from __future__ import annotations

from typing import Any

from arena import wire_admin
from arena.server.admin_calls import ServicesAccess, management_call, off_loop
from arena.v1 import admin_pb2


class ResultsCalls(ServicesAccess):
    """`GetRankings`, `ListPools`, `GetCrosstable`, `GetStats` and `GetRatingHistory`."""

    @management_call
    async def GetRankings(self, request: admin_pb2.GetRankingsRequest,
                          context: Any) -> admin_pb2.GetRankingsResponse:
        """The leaderboard of one pool, with intervals and shared places."""
        results = self.services_for("GetRankings").results

        def ranked() -> admin_pb2.GetRankingsResponse:
            found = results.rankings(request.tournament, request.pool, request.confidence,
                                     request.all_versions)
            return wire_admin.rankings_response(found.ranking, found.tournament, found.faults)

        return await off_loop(ranked)

    @management_call
    async def ListPools(self, request: admin_pb2.ListPoolsRequest,
                        context: Any) -> admin_pb2.ListPoolsResponse:
        """Every rating pool with a rated game."""
        pools = await off_loop(self.services_for("ListPools").results.pools)
        return admin_pb2.ListPoolsResponse(pools=[
            wire_admin.pool_info(pool, tournament) for pool, tournament in pools])

    @management_call
    async def GetCrosstable(self, request: admin_pb2.GetCrosstableRequest,
                            context: Any) -> admin_pb2.GetCrosstableResponse:
        """Head-to-head results in one pool."""
        results = self.services_for("GetCrosstable").results

        def crossed() -> admin_pb2.GetCrosstableResponse:
            table = results.crosstable(request.tournament, request.pool, request.confidence)
            return wire_admin.crosstable_response(table.pool, table.rows, table.confidence,
                                                  table.tournament)

        return await off_loop(crossed)

    @management_call
    async def GetStats(self, request: admin_pb2.GetStatsRequest,
                       context: Any) -> admin_pb2.GetStatsResponse:
        """Per-seat results and the duplicate design of one pool."""
        results = self.services_for("GetStats").results

        def counted() -> admin_pb2.GetStatsResponse:
            return wire_admin.stats_response(*results.statistics(request.tournament,
                                                                 request.pool))

        return await off_loop(counted)

    @management_call
    async def GetRatingHistory(self, request: admin_pb2.GetRatingHistoryRequest,
                               context: Any) -> admin_pb2.GetRatingHistoryResponse:
        """Bots' ratings after each of their games in one pool (by default the
        leaderboard's first eight), for a chart."""
        results = self.services_for("GetRatingHistory").results

        def history() -> admin_pb2.GetRatingHistoryResponse:
            found = results.rating_history(request.tournament, request.pool,
                                           list(request.bots), request.top)
            return wire_admin.rating_history_response(found.pool, found.histories,
                                                      found.tournament)

        return await off_loop(history)
