"""Inspecting a running server: the admin service, health checking, reflection, and
running the server as a process that stops on a signal."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Sequence
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from arena import wire
from arena.server import MAX_MESSAGE_BYTES, ArenaServer, BotPolicy, TokenTable, serve
from arena.services import ServiceError
from arena.tournament.schedule import Schedule, TournamentSettings, build_schedule
from arena.v1 import admin_pb2, admin_pb2_grpc, bot_pb2
from tests.server.bots import TestBot, first_legal, random_legal
from tests.server.server_support import ONE_HAND, TOKENS, running_server
from tests.support import managed_server


def admin_stub(channel: grpc.aio.Channel) -> admin_pb2_grpc.ArenaAdminAsyncStub:
    return admin_pb2_grpc.ArenaAdminStub(channel)


def test_list_connected_bots_and_tables_show_what_is_going_on() -> None:
    async def slow(bot: TestBot, request: bot_pb2.DecisionRequest) -> bot_pb2.Decision:
        await asyncio.sleep(0.005)
        return bot_pb2.Decision(request_id=request.request_id, action_index=0)

    async def scenario() -> None:
        async with running_server() as server:
            port = server.port or 0
            alice = await TestBot(port, TOKENS["alice"], slow, max_tables=2).start()
            bob = await TestBot(port, TOKENS["bob"], slow).start()
            game = asyncio.create_task(server.play_game(["alice", "bob"], ONE_HAND, 1,
                                                        game_id="listed"))
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = admin_stub(channel)
                while not alice.games.get("listed") or not alice.games["listed"].requests:
                    await asyncio.sleep(0.005)
                bots = (await stub.ListConnectedBots(admin_pb2.ListConnectedBotsRequest())).bots
                tables = (await stub.ListTables(admin_pb2.ListTablesRequest())).tables
                await game
                after = (await stub.ListTables(admin_pb2.ListTablesRequest())).tables
            await alice.close()
            await bob.close()
        by_name = {b.name: b for b in bots}
        assert sorted(by_name) == ["alice", "bob"]
        assert by_name["alice"].max_tables == 2 and by_name["alice"].tables_playing == 1
        assert by_name["alice"].bot_version == "test/1"
        assert by_name["alice"].peer and by_name["alice"].connection_id
        assert [(t.game_id, list(t.players)) for t in tables] == [("listed", ["alice", "bob"])]
        assert tables[0].hand_number == 1 and tables[0].decisions >= 1
        assert list(after) == []

    asyncio.run(scenario())


def test_watch_game_streams_public_events_from_the_start_then_the_outcome() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            port = server.port or 0
            bots = [await TestBot(port, TOKENS[name], random_legal(i)).start()
                    for i, name in enumerate(["alice", "bob", "carol"])]
            gate = asyncio.Event()

            async def gated(bot: TestBot, request: bot_pb2.DecisionRequest) -> bot_pb2.Decision:
                await gate.wait()
                return bot_pb2.Decision(request_id=request.request_id, action_index=0)

            bots[0].strategy = gated
            game = asyncio.create_task(server.play_game(["alice", "bob", "carol"], ONE_HAND, 4,
                                                        game_id="watched"))
            while not server.tables():
                await asyncio.sleep(0.001)
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = admin_stub(channel)
                updates = []
                async for update in stub.WatchGame(admin_pb2.WatchGameRequest(game_id="watched")):
                    updates.append(update)
                    gate.set()
                late = [u async for u in stub.WatchGame(
                    admin_pb2.WatchGameRequest(game_id="watched"))]
                try:
                    await stub.WatchGame(admin_pb2.WatchGameRequest(game_id="nope")).read()
                except grpc.aio.AioRpcError as exc:
                    missing = exc.code()
            result = await game
            for bot in bots:
                await bot.close()
        public = [wire.event_to_proto(e) for e in wire.public_events(result.events)]
        assert [e for u in updates for e in u.events] == public
        assert len(updates) > 2, "the game was watched live, not only replayed"
        assert list(updates[0].players) == ["alice", "bob", "carol"]
        assert updates[-1].HasField("outcome")
        assert list(updates[-1].outcome.scores) == list(result.outcome.scores)
        assert all(not u.HasField("outcome") for u in updates[:-1])
        assert [e for u in late for e in u.events] == public
        assert late[-1].outcome == updates[-1].outcome
        assert missing is grpc.StatusCode.NOT_FOUND
        kinds = {e.WhichOneof("kind") for e in public}
        assert not kinds & {"cards_received", "hand_replaced", "hand_revealed"}

    asyncio.run(scenario())


def test_health_checking_says_serving_for_every_service() -> None:
    async def scenario() -> None:
        async with running_server() as server, \
                grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            for service in ("", "arena.v1.BotService", "arena.v1.ArenaAdmin"):
                response = await stub.Check(health_pb2.HealthCheckRequest(service=service))
                assert response.status == health_pb2.HealthCheckResponse.SERVING

    asyncio.run(scenario())


def test_reflection_lists_every_service() -> None:
    async def scenario() -> list[str]:
        async with running_server() as server, \
                grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            stub = reflection_pb2_grpc.ServerReflectionStub(channel)
            request = reflection_pb2.ServerReflectionRequest(list_services="")
            responses = [r async for r in stub.ServerReflectionInfo(iter([request]))]
            return [s.name for s in responses[0].list_services_response.service]

    names = asyncio.run(scenario())
    assert set(names) >= {"arena.v1.BotService", "arena.v1.ArenaAdmin", "grpc.health.v1.Health",
                          "grpc.reflection.v1alpha.ServerReflection"}


def test_management_calls_need_a_server_with_a_store() -> None:
    async def scenario() -> list[tuple[grpc.StatusCode, str | None]]:
        answers = []
        async with running_server() as server, \
                grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            stub = admin_stub(channel)
            calls: list[Awaitable[object]] = [
                stub.ListBots(admin_pb2.ListBotsRequest()),
                stub.RunTournament(admin_pb2.RunTournamentRequest(tournament="t")).read()]
            for call in calls:
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await call
                answers.append((refused.value.code(), refused.value.details()))
        return answers

    assert asyncio.run(scenario()) == [
        (grpc.StatusCode.UNIMPLEMENTED, "ListBots needs a server with a store (arena serve)"),
        (grpc.StatusCode.UNIMPLEMENTED, "RunTournament needs a server with a store (arena serve)"),
    ]


def test_a_tournament_already_running_is_refused_so_no_game_is_played_twice(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        async with managed_server(tmp_path) as (store, server, services, port, _):
            gate = asyncio.Event()

            async def gated(bot: TestBot, request: bot_pb2.DecisionRequest) -> bot_pb2.Decision:
                await gate.wait()
                return await first_legal(bot, request)

            tokens = {name: services.bots.add(name, "remote", None)[1]
                      for name in ("alice", "bob")}
            alice = await TestBot(port, tokens["alice"], gated).start()
            bob = await TestBot(port, tokens["bob"]).start()
            services.competitions.create_tournament("cup", ["alice", "bob"], {
                "table_size": 2, "deals_per_table": 3, "concurrency": 1,
                "rules": {"target_score": None}, "policy": {"decision_timeout": 10}})
            total = len(store.scheduled_games("cup"))
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = admin_stub(channel)

                async def run() -> list[admin_pb2.RunProgress]:
                    request = admin_pb2.RunTournamentRequest(tournament="cup")
                    return [update async for update in stub.RunTournament(request)]

                runs = [asyncio.create_task(run()), asyncio.create_task(run())]
                await asyncio.wait(runs, return_when=asyncio.FIRST_COMPLETED)
                gate.set()
                outcomes = await asyncio.gather(*runs, return_exceptions=True)
                again = await run()
            await alice.close()
            await bob.close()
        refused = [o for o in outcomes if isinstance(o, grpc.aio.AioRpcError)]
        finished = [o for o in outcomes if isinstance(o, list)]
        assert len(refused) == 1 and len(finished) == 1
        assert refused[0].code() is grpc.StatusCode.FAILED_PRECONDITION
        details = refused[0].details()
        assert details is not None and details.startswith(
            f"tournament 'cup' is already being run by process {os.getpid()} on ")
        assert (finished[0][-1].done, finished[0][-1].total) == (total, total)
        assert finished[0][-1].status == "finished"
        assert len(alice.games) == len(bob.games) == total, "every game was played once"
        assert again[-1].status == "finished", "a finished run no longer counts as running"

    asyncio.run(scenario())


def test_stopping_the_server_aborts_games_in_play_and_tells_the_bots() -> None:
    from arena.server import GameAbortedError, SeatTermination

    async def scenario() -> None:
        server = ArenaServer(TokenTable(TOKENS))
        port = await server.start()
        gate = asyncio.Event()

        async def stuck(bot: TestBot, request: bot_pb2.DecisionRequest) -> None:
            gate.set()

        alice = await TestBot(port, TOKENS["alice"], stuck).start()
        bob = await TestBot(port, TOKENS["bob"], stuck).start()
        game = asyncio.create_task(server.play_game(["alice", "bob"], ONE_HAND, 1,
                                                    BotPolicy(decision_timeout=10), "g"))
        await gate.wait()
        await server.stop(grace=1)
        with pytest.raises(GameAbortedError):
            await game
        await alice.wait_ended()
        await bob.wait_ended()
        for bot in (alice, bob):
            end = bot.games["g"].end
            assert end is not None and end.reason.startswith("aborted")
            assert end.outcome.termination == "aborted"
            assert list(end.outcome.seat_terminations) == [7, 7]
            assert bot.status is grpc.StatusCode.OK
        assert SeatTermination.ABORTED.value == "aborted"
        await alice.close()
        await bob.close()

    asyncio.run(scenario())


def test_serve_runs_until_told_to_stop() -> None:
    async def scenario() -> None:
        stop = asyncio.Event()
        started: list[ArenaServer] = []
        serving = asyncio.create_task(serve("127.0.0.1", 0, TokenTable(TOKENS), grace=0.5,
                                            ready=started.append, stop=stop))
        while not started:
            await asyncio.sleep(0.01)
        port = started[0].port or 0
        bot = await TestBot(port, TOKENS["alice"], first_legal).start()
        assert bot.welcome is not None
        stop.set()
        await asyncio.wait_for(serving, 5)
        await bot.wait_ended()
        await bot.close()

    asyncio.run(scenario())


def test_serve_takes_a_server_built_beforehand_but_not_with_an_authenticator_too() -> None:
    async def scenario() -> None:
        stop = asyncio.Event()
        built = ArenaServer(TokenTable(TOKENS))
        started: list[ArenaServer] = []
        serving = asyncio.create_task(serve("127.0.0.1", 0, server=built, grace=0.5,
                                            ready=started.append, stop=stop))
        while not started:
            await asyncio.sleep(0.01)
        assert started == [built] and built.port
        stop.set()
        await asyncio.wait_for(serving, 5)
        with pytest.raises(ValueError, match="either a server"):
            await serve("127.0.0.1", 0, TokenTable(TOKENS), server=built)

    asyncio.run(scenario())


def test_run_server_stops_gracefully_on_sigterm() -> None:
    code = (
        "from arena.server import run_server\n"
        "run_server('127.0.0.1', 0, ready=lambda s: print(s.port, flush=True), grace=0.5)\n"
    )
    env = dict(os.environ, ARENA_TOKENS=json.dumps(TOKENS))
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                               env=env, text=True)
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())

        async def check() -> None:
            bot = await TestBot(port, TOKENS["alice"]).start()
            assert bot.welcome is not None and bot.welcome.bot_name == "alice"
            process.send_signal(signal.SIGTERM)
            await bot.wait_ended(timeout=10)
            await bot.close()

        asyncio.run(check())
        assert process.wait(timeout=10) == 0
    finally:
        process.kill()
        process.wait()


def test_management_calls_report_a_damaged_database_and_honour_a_zero_wait(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        async with managed_server(tmp_path) as (store, server, services, port, _):
            for name in ("alice", "bob"):
                services.bots.add(name, "remote", None)
            services.competitions.create_tournament("cup", ["alice", "bob"], {"table_size": 2})
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = admin_stub(channel)
                summary = await stub.GetSchedule(
                    admin_pb2.GetScheduleRequest(tournament="cup", skip_games=True))
                assert (summary.tournament.games_total, list(summary.tournament.bots),
                        list(summary.games)) == (2, ["alice", "bob"], [])
                whole = await stub.GetSchedule(admin_pb2.GetScheduleRequest(tournament="cup"))
                assert len(whole.games) == 2 and whole.tournament == summary.tournament

                started = asyncio.get_running_loop().time()
                with pytest.raises(grpc.aio.AioRpcError) as waited:
                    async for _ in stub.RunTournament(admin_pb2.RunTournamentRequest(
                            tournament="cup", remote_wait_seconds=0)):
                        pass
                details = waited.value.details()
                assert details is not None and details.startswith(
                    "bots not connected after 0 s: alice, bob (remote bots (alice, bob) are "
                    "started by their owners")
                assert asyncio.get_running_loop().time() - started < 5

                with store._transaction() as conn:
                    conn.execute("UPDATE tournaments SET settings = 'not json'")
                with pytest.raises(grpc.aio.AioRpcError) as damaged:
                    await stub.ListTournaments(admin_pb2.ListTournamentsRequest())
                assert damaged.value.code() is grpc.StatusCode.FAILED_PRECONDITION
                details = damaged.value.details()
                assert details is not None and details.startswith(
                    "the database holds a damaged tournament: JSONDecodeError")

                with store._transaction() as conn:
                    conn.execute("DROP TABLE pool_games")
                with pytest.raises(grpc.aio.AioRpcError) as broken:
                    await stub.GetRankings(admin_pb2.GetRankingsRequest())
                assert broken.value.code() is grpc.StatusCode.FAILED_PRECONDITION
                assert broken.value.details() == (
                    "the database cannot be used: no such table: pool_games")

    asyncio.run(scenario())


def test_a_managed_bot_that_exits_before_connecting_fails_the_run_at_once(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        async with managed_server(tmp_path) as (store, server, services, port, _):
            with pytest.raises(ServiceError, match="cannot read command .*No closing quotation"):
                services.bots.add("quoted", "managed", f"{sys.executable} -c 'print(1)")
            services.bots.add("broken", "managed", f'{sys.executable} -c "raise SystemExit(3)"')
            services.bots.add("remote", "remote", None)
            with pytest.raises(ServiceError, match="a match plays 1 to 100,000 games, got "
                                                      "1,000,000"):
                await services.runs.play_match(["broken", "remote"], 10**6, 0, ONE_HAND,
                                            BotPolicy(), 1, 30.0)
            with pytest.raises(ValueError, match="concurrency: must be at most 100,000"):
                await services.runs.play_match(["broken", "remote"], 10, 0, ONE_HAND,
                                            BotPolicy(), 10**6, 30.0)  # before any wait
            services.competitions.create_tournament("cup", ["broken", "remote"], {"table_size": 2})
            started = asyncio.get_running_loop().time()
            with pytest.raises(ServiceError) as failed:
                await services.runs.run_tournament("cup", 1, 30.0)
            assert str(failed.value) == ("bots exited before connecting: broken (exit code 3); "
                                         f"see the logs in {tmp_path / 'logs'}")
            assert asyncio.get_running_loop().time() - started < 15

    asyncio.run(scenario())


def test_a_run_holds_its_tournament_with_heartbeats_while_it_waits_for_the_bots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("arena.tournament.runner.HEARTBEAT_EVERY", 0.01)

    async def scenario() -> None:
        async with managed_server(tmp_path) as (store, server, services, port, _):
            for name in ("alice", "bob"):
                services.bots.add(name, "remote", None)
            services.competitions.create_tournament("cup", ["alice", "bob"], {"table_size": 2})
            run = asyncio.create_task(services.runs.run_tournament("cup", 1, 30.0))
            await asyncio.sleep(0.2)  # alice and bob never connect
            claim = store.run_claim("cup")
            assert claim is not None and claim.heartbeat_at > claim.claimed_at
            run.cancel()
            with pytest.raises(asyncio.CancelledError):
                await run
            assert store.run_claim("cup") is None

    asyncio.run(scenario())


def test_an_admin_request_larger_than_a_bot_may_send_is_served(tmp_path: Path) -> None:
    settings = json.dumps({"table_size": 2, "rules": {"target_score": None}}, indent=2)
    padded = settings.replace("\n", "\n" + " " * 100, 1) + " " * (100 * 1024)
    assert len(padded) > 100 * 1024 > MAX_MESSAGE_BYTES

    async def scenario() -> admin_pb2.TournamentInfo:
        async with managed_server(tmp_path) as (_, _, services, port, _):
            for name in ("alice", "bob"):
                services.bots.add(name, "remote", None)
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                return await admin_stub(channel).CreateTournament(
                    admin_pb2.CreateTournamentRequest(name="cup", bots=["alice", "bob"],
                                                      settings_json=padded))

    info = asyncio.run(scenario())
    assert (info.name, info.games_total) == ("cup", 2)


def test_creating_a_tournament_whose_schedule_builds_slowly_keeps_the_server_answering(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def slow_build(settings: TournamentSettings, bots: Sequence[str]) -> Schedule:
        time.sleep(1.5)  # holds its thread as a long CPU-bound build does
        return build_schedule(settings, bots)

    monkeypatch.setattr("arena.tournament.runner.build_schedule", slow_build)

    async def scenario() -> tuple[admin_pb2.TournamentInfo, list[float]]:
        async with managed_server(tmp_path) as (_, _, services, port, _):
            for name in ("alice", "bob"):
                services.bots.add(name, "remote", None)
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                health = health_pb2_grpc.HealthStub(channel)
                await health.Check(health_pb2.HealthCheckRequest())
                creating = asyncio.ensure_future(admin_stub(channel).CreateTournament(
                    admin_pb2.CreateTournamentRequest(
                        name="cup", bots=["alice", "bob"],
                        settings_json=json.dumps({"table_size": 2}))))
                delays: list[float] = []
                while not creating.done():
                    started = time.monotonic()
                    await health.Check(health_pb2.HealthCheckRequest(), timeout=5)
                    delays.append(time.monotonic() - started)
                    await asyncio.sleep(0.05)
                return await creating, delays

    info, delays = asyncio.run(scenario())
    assert info.games_total == 2
    assert len(delays) >= 5 and max(delays) < 0.5
