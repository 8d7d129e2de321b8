"""Admin calls about results that stand beside the leaderboard: a pool's rating history
(`arena.services.results`; who may make each is `arena.server.permissions`'s)."""

from __future__ import annotations

from typing import Any

from arena import wire_admin
from arena.server.admin_calls import ServicesAccess, management_call, off_loop
from arena.v1 import admin_pb2


class ResultsCalls(ServicesAccess):
    """`GetRatingHistory`."""

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
