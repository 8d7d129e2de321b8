"""A serving server never waits for its store on the event loop: every store call made
while it serves runs in a worker thread, so a slow or stalled store holds up neither
health checks nor bots' decisions (real gRPC on loopback, a real SQLite file, in-test
bots speaking the raw protocol)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.store.database import Database
from arena.v1 import admin_pb2, admin_pb2_grpc, bot_pb2
from tests.server.bots import TestBot, first_legal
from tests.support import TIME_SCALE, managed_server

ONE_HAND = json.dumps({"target_score": None})
SETTINGS = json.dumps({"table_size": 2, "deals_per_table": 2, "concurrency": 2,
                       "policy": {"decision_timeout": 10}})


def _on_an_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


@contextlib.contextmanager
def store_calls_on_the_loop() -> Iterator[list[str]]:
    """Every store unit run from a thread that runs an event loop, as the store method's
    name and where it was called from, while the block runs."""
    found: list[str] = []
    original = Database._run_unit

    def watched(self: Database, body: Callable[[], Any], again_after_commit: bool) -> Any:
        if _on_an_event_loop() and not self._in_unit:
            name = getattr(getattr(body, "func", body), "__qualname__", repr(body))
            caller = "".join(traceback.format_stack(limit=6)[:-1])
            found.append(f"{name}\n{caller}")
        return original(self, body, again_after_commit)

    Database._run_unit = watched  # type: ignore[method-assign]
    try:
        yield found
    finally:
        Database._run_unit = original  # type: ignore[method-assign]


def test_the_detector_sees_a_store_call_made_on_the_loop(tmp_path: Path) -> None:
    async def scenario() -> list[str]:
        async with managed_server(tmp_path) as served:
            with store_calls_on_the_loop() as found:
                served.store.list_bots()
                await asyncio.to_thread(served.store.list_bots)
            return found

    found = asyncio.run(scenario())
    assert len(found) == 1 and "list_bots" in found[0]


def test_no_store_call_runs_on_the_event_loop_while_serving(tmp_path: Path) -> None:
    async def scenario() -> list[str]:
        async with managed_server(tmp_path) as served, \
                grpc.aio.insecure_channel(f"127.0.0.1:{served.port}") as channel:
            admin = admin_pb2_grpc.ArenaAdminStub(channel)
            with store_calls_on_the_loop() as found:
                tokens = {}
                for name in ("alice", "bob"):
                    added = await admin.AddBot(admin_pb2.AddBotRequest(name=name))
                    tokens[name] = added.token
                bots = [await TestBot(served.port, tokens[name], first_legal,
                                      max_tables=4).start() for name in tokens]
                await admin.CreateTournament(admin_pb2.CreateTournamentRequest(
                    name="cup", bots=list(tokens), settings_json=SETTINGS,
                    rules_json=ONE_HAND))
                [u async for u in admin.RunTournament(
                    admin_pb2.RunTournamentRequest(tournament="cup"))]
                [u async for u in admin.RunTournament(admin_pb2.RunTournamentRequest(
                    tournament="cup", until_separated=admin_pb2.SeparationGoal(
                        confidence=0.95, max_games=8)))]
                [u async for u in admin.PlayMatch(admin_pb2.PlayMatchRequest(
                    bots=list(tokens), rules_json=ONE_HAND, remote_wait_seconds=10,
                    sprt=admin_pb2.SprtSettings(h0=0.5, h1=0.6, max_games=6)))]
                [u async for u in admin.RunLadder(admin_pb2.RunLadderRequest(
                    name="rung", max_games=4, settings_json=json.dumps(
                        {"rules": {"target_score": None}})))]
                await admin.ListBots(admin_pb2.ListBotsRequest())
                await admin.ListBotVersions(admin_pb2.ListBotVersionsRequest(name="alice"))
                await admin.GetRankings(admin_pb2.GetRankingsRequest(tournament="cup"))
                await admin.ListPools(admin_pb2.ListPoolsRequest())
                await admin.GetCrosstable(admin_pb2.GetCrosstableRequest(tournament="cup"))
                await admin.GetStats(admin_pb2.GetStatsRequest(tournament="cup"))
                games = await admin.ListGames(admin_pb2.ListGamesRequest(tournament="cup"))
                await admin.GetGame(admin_pb2.GetGameRequest(id=games.games[0].id))
                await admin.GetGame(admin_pb2.GetGameRequest(id=games.games[0].id,
                                                             as_bot="alice"))
                with contextlib.suppress(grpc.aio.AioRpcError):  # alice is remote: no log
                    await admin.GetBotLog(admin_pb2.GetBotLogRequest(name="alice"))
                await admin.GetSchedule(admin_pb2.GetScheduleRequest(tournament="cup"))
                await admin.ListTournaments(admin_pb2.ListTournamentsRequest())
                [g async for g in admin.ExportTournament(
                    admin_pb2.ExportTournamentRequest(tournament="cup"))]
                await admin.ScheduleTournament(admin_pb2.ScheduleTournamentRequest(
                    name="weekly", bots=list(tokens), settings_json=SETTINGS,
                    every_seconds=3600, start_at="2999-01-01T00:00:00+00:00"))
                await admin.UnscheduleTournament(
                    admin_pb2.UnscheduleTournamentRequest(name="weekly"))
                await admin.RemoveBot(admin_pb2.RemoveBotRequest(name="bob"))
                for bot in bots:
                    await bot.close()
            return found

    found = asyncio.run(scenario())
    assert not found, f"{len(found)} store calls on the event loop; the first:\n{found[0]}"


def test_a_stalled_store_holds_up_neither_health_checks_nor_decisions(tmp_path: Path) -> None:
    stall_seconds = 1.5
    limit = 0.05 * TIME_SCALE

    async def scenario() -> tuple[list[float], list[float], bool]:
        async with managed_server(tmp_path) as served, \
                grpc.aio.insecure_channel(f"127.0.0.1:{served.port}") as channel:
            admin = admin_pb2_grpc.ArenaAdminStub(channel)
            health = health_pb2_grpc.HealthStub(channel)
            answered: list[float] = []

            async def timed(bot: TestBot, request: bot_pb2.DecisionRequest) -> bot_pb2.Decision:
                answered.append(time.monotonic())
                return await first_legal(bot, request)

            tokens = [served.services.bots.add(name, "remote", None)[1]
                      for name in ("a", "b", "late")]
            bots = [await TestBot(served.port, token, timed).start() for token in tokens[:2]]
            # Games to 5,000 points: one game outlasts the stall, so decisions go on
            # throughout it (recording a game would wait for the store).
            served.services.competitions.create_tournament("long", ["a", "b"], {
                "table_size": 2, "deals_per_table": 1, "concurrency": 1,
                "rules": {"target_score": 5000}})
            run = asyncio.create_task(served.services.runs.run_tournament("long", 1, 10.0))
            while len(answered) < 5:
                assert not run.done(), run.result()
                await asyncio.sleep(0.01)
            held = threading.Event()
            release = threading.Event()

            def stall() -> None:
                with served.store._lock:  # every store call waits for it
                    held.set()
                    # Let go by itself too: a loop that waits for the store cannot say so.
                    release.wait(stall_seconds + 0.5)

            staller = threading.Thread(target=stall)
            # A full collection of a long suite's heap can pause the loop for longer than
            # the limit; it has nothing to do with the store, so it waits for the end.
            gc.collect()
            gc.disable()
            staller.start()
            try:
                held.wait()
                started = time.monotonic()
                answered.clear()
                checks: list[float] = []
                # An admin call and a bot's log-in, each waiting for the store meanwhile.
                listing = asyncio.ensure_future(admin.ListBots(admin_pb2.ListBotsRequest()))
                late = TestBot(served.port, tokens[2])
                logging_in = asyncio.ensure_future(late.start())
                while time.monotonic() - started < stall_seconds:
                    asked = time.monotonic()
                    reply = await health.Check(health_pb2.HealthCheckRequest(), timeout=5)
                    assert reply.status == health_pb2.HealthCheckResponse.SERVING
                    checks.append(time.monotonic() - asked)
                    await asyncio.sleep(0.02)
                waited = not listing.done() and not late.welcomed.is_set()
                decided = list(answered)
            finally:
                gc.enable()
                release.set()
                staller.join()
            await listing
            await logging_in
            assert late.welcomed.is_set(), "the bot logged in once the store answered"
            bots.append(late)
            run.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await run
            for bot in bots:
                await bot.close()
            gaps = [b - a for a, b in zip([started, *decided], decided, strict=False)]
            return checks, gaps, waited

    checks, gaps, waited = asyncio.run(scenario())
    assert max(checks) < limit, f"a health check took {max(checks):.3f} s"
    assert len(gaps) >= 10, f"only {len(gaps)} decisions during the stall"
    assert max(gaps) < limit, f"a decision waited {max(gaps):.3f} s for the stalled store"
    assert len(checks) >= 10, f"only {len(checks)} health checks during the stall"
    assert waited, "the stall did not hold the store up: the test proves nothing"


@pytest.mark.parametrize(("scale", "load", "expected"),
                         [("", 0.5, 1.0), ("", 6.0, 3.0), ("3", 0.5, 3.0), ("0.5", 9.0, 1.0)])
def test_time_limits_of_the_tests_scale_with_their_factor_or_the_load(
        scale: str, load: float, expected: float, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from tests.support import time_scale

    monkeypatch.setenv("ARENA_TEST_TIME_SCALE", scale)
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert time_scale() == expected


def test_reads_build_their_answers_in_the_readers_threads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena import wire_admin
    built: dict[str, set[str]] = {}
    for name in ("game_response", "rankings_response", "crosstable_response",
                 "stats_response", "summary_info", "version_info"):
        original = getattr(wire_admin, name)

        def recording(*args: Any, _name: str = name, _original: Any = original) -> Any:
            built.setdefault(_name, set()).add(threading.current_thread().name)
            return _original(*args)
        monkeypatch.setattr(wire_admin, name, recording)

    async def scenario() -> None:
        async with managed_server(tmp_path) as served, \
                grpc.aio.insecure_channel(f"127.0.0.1:{served.port}") as channel:
            admin = admin_pb2_grpc.ArenaAdminStub(channel)
            tokens = {name: (await admin.AddBot(admin_pb2.AddBotRequest(name=name))).token
                      for name in ("alice", "bob")}
            bots = [await TestBot(served.port, token, first_legal).start()
                    for token in tokens.values()]
            await admin.CreateTournament(admin_pb2.CreateTournamentRequest(
                name="cup", bots=list(tokens), settings_json=SETTINGS, rules_json=ONE_HAND))
            [u async for u in admin.RunTournament(
                admin_pb2.RunTournamentRequest(tournament="cup"))]
            built.clear()
            await admin.GetRankings(admin_pb2.GetRankingsRequest(tournament="cup"))
            await admin.GetCrosstable(admin_pb2.GetCrosstableRequest(tournament="cup"))
            await admin.GetStats(admin_pb2.GetStatsRequest(tournament="cup"))
            games = await admin.ListGames(admin_pb2.ListGamesRequest(tournament="cup"))
            await admin.GetGame(admin_pb2.GetGameRequest(id=games.games[0].id, as_bot="bob"))
            await admin.ListBotVersions(admin_pb2.ListBotVersionsRequest(name="alice"))
            for bot in bots:
                await bot.close()

    asyncio.run(scenario())
    assert set(built) == {"game_response", "rankings_response", "crosstable_response",
                          "stats_response", "summary_info", "version_info"}
    assert all(names and all(name.startswith("arena-read") for name in names)
               for names in built.values()), built
