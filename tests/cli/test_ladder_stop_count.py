"""A remote ladder stopped by Ctrl-C or SIGTERM counts the games it played once its
run has let the ladder go: a game being recorded as the run stopped is counted."""

from __future__ import annotations

import asyncio
from typing import Any

from arena.cli.ladder import _games_done
from arena.cli.session import Session
from arena.v1 import admin_pb2


class _StoppingServer:
    """An admin stub whose ladder run is still recording its last game for `busy`
    answers of GetSchedule, and then lets the ladder go."""

    def __init__(self, busy: int) -> None:
        self.busy = busy
        self.asked = 0

    async def GetSchedule(self, request: admin_pb2.GetScheduleRequest,  # noqa: N802
                          **_: Any) -> admin_pb2.GetScheduleResponse:
        self.asked += 1
        holding = self.asked <= self.busy
        info = admin_pb2.TournamentInfo(name=request.tournament, games_done=73 if holding else 74,
                                        run_by="process 1 on here" if holding else "")
        return admin_pb2.GetScheduleResponse(tournament=info)


def _count(server: _StoppingServer) -> int | None:
    session = Session(server, "127.0.0.1:1")  # type: ignore[arg-type]
    return asyncio.run(_games_done(session, "ladder"))


def test_the_count_waits_for_the_run_to_let_the_ladder_go() -> None:
    server = _StoppingServer(busy=3)
    assert _count(server) == 74
    assert server.asked == 4


def test_a_ladder_no_run_holds_is_counted_at_once() -> None:
    server = _StoppingServer(busy=0)
    assert _count(server) == 74
    assert server.asked == 1
