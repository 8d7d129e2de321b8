"""The background jobs of a served server (the timetable, the ladder): started once it
serves, ended before it stops, and a failing one never takes it down."""

from __future__ import annotations

import asyncio
import logging

import grpc
import pytest

from arena.server import ArenaServer, TokenTable
from arena.server.app import serve_until_stopped
from arena.v1 import admin_pb2, admin_pb2_grpc


async def _tables(port: int) -> int:
    """How many tables the server at `port` says it plays, over its admin service."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = admin_pb2_grpc.ArenaAdminStub(channel)
        answer = await stub.ListTables(admin_pb2.ListTablesRequest(), timeout=5)
    return len(answer.tables)


def test_jobs_run_while_the_server_serves_and_end_before_it_stops(
        caplog: pytest.LogCaptureFixture) -> None:
    seen: list[str] = []

    async def scenario() -> None:
        server = ArenaServer(TokenTable({}))
        stop = asyncio.Event()

        async def polite(stopping: asyncio.Event) -> None:
            assert server.port is not None
            seen.append(f"serving: {await _tables(server.port)} tables")
            await stopping.wait()
            seen.append(f"still serving at the stop: {await _tables(server.port)} tables")

        async def failing(stopping: asyncio.Event) -> None:
            raise RuntimeError("broken job")

        async def deaf(stopping: asyncio.Event) -> None:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                seen.append("deaf job cancelled")
                raise

        async def stop_soon() -> None:
            while len(seen) < 1:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.1)  # the failing job has failed by now
            stop.set()

        stopper = asyncio.create_task(stop_soon())
        await serve_until_stopped(server, "127.0.0.1", 0, grace=0.5, stop=stop,
                                  background=[polite, failing, deaf])
        await stopper

    with caplog.at_level(logging.ERROR, logger="arena.server.app"):
        asyncio.run(scenario())
    assert seen == ["serving: 0 tables", "still serving at the stop: 0 tables",
                    "deaf job cancelled"]
    [failure] = caplog.records
    assert "failing" in failure.getMessage() and "failed" in failure.getMessage()
    assert failure.exc_info is not None and str(failure.exc_info[1]) == "broken job"
