"""What bots' mistakes cost: illegal answers, hanging, disconnecting, garbage — and that one
bot's mistakes never end another bot's game nor hang a table."""

from __future__ import annotations

import asyncio
import time

import grpc
import pytest

from arena import wire
from arena.engine import Action, Game
from arena.engine import events as ev
from arena.result import GameResult
from arena.server import BotPolicy, SeatTermination, passive_action
from arena.server.connection import MAX_BOT_VERSION
from arena.server.gateway import MAX_CONNECTIONS_PER_BOT
from arena.v1 import bot_pb2, uno_pb2
from tests.server.bots import (
    TestBot,
    first_legal,
    never_answer,
    out_of_range,
    quitter,
    random_legal,
    unlisted_action,
)
from tests.server.server_support import ONE_HAND, TOKENS, running_server

E = bot_pb2  # error codes
FALLBACK = BotPolicy(decision_timeout=0.5, max_strikes=3)
FORFEIT = BotPolicy(decision_timeout=0.5, on_violation="forfeit")
QUICK = BotPolicy(decision_timeout=0.05, max_strikes=3)


async def slow_first_action(bot: TestBot, request: bot_pb2.DecisionRequest) -> bot_pb2.Decision:
    """Answers every request with its first action, 10 ms late."""
    await asyncio.sleep(0.01)
    return bot_pb2.Decision(request_id=request.request_id, action_index=0)


def test_out_of_range_indexes_are_illegal_strikes_then_a_forfeit() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            bad = await TestBot(server.port or 0, TOKENS["alice"], out_of_range).start()
            good = await TestBot(server.port or 0, TOKENS["bob"], first_legal).start()
            result = await server.play_game(["alice", "bob"], ONE_HAND, 1, FALLBACK, "g")
            await asyncio.sleep(0.05)
            await bad.close()
            await good.close()
        assert result.seat_terminations == (SeatTermination.ILLEGAL, SeatTermination.NORMAL)
        assert result.strikes == (3, 0)
        assert result.forfeited_seat == 0
        assert result.outcome.termination == "forfeit"
        assert result.outcome.ranks[0] > result.outcome.ranks[1]
        assert bad.error_codes() == [E.ERROR_CODE_ILLEGAL_ACTION, E.ERROR_CODE_STRIKE] * 3 \
            + [E.ERROR_CODE_FORFEIT]
        assert all(e.game_id == "g" for e in bad.errors)
        assert bad.errors[0].request_id == bad.games["g"].requests[0].request_id
        assert good.errors == []
        end = bad.games["g"].end
        assert end is not None and "forfeit" in end.reason
        assert list(end.outcome.seat_terminations) == [uno_pb2.SEAT_TERMINATION_ILLEGAL,
                                                       uno_pb2.SEAT_TERMINATION_NORMAL]
        replayed = result.replay()
        assert replayed.events == list(result.events)
        assert len(result.actions) >= 2  # two fallbacks were played before the forfeit

    asyncio.run(scenario())


def test_an_unlisted_action_under_the_forfeit_policy_forfeits_at_once() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            good = await TestBot(server.port or 0, TOKENS["alice"], first_legal).start()
            bad = await TestBot(server.port or 0, TOKENS["bob"], unlisted_action).start()
            result = await server.play_game(["alice", "bob"], ONE_HAND, 2, FORFEIT, "g")
            await asyncio.sleep(0.05)
            await bad.close()
            await good.close()
        assert result.seat_terminations == (SeatTermination.NORMAL, SeatTermination.ILLEGAL)
        assert result.forfeited_seat == 1
        assert result.strikes == (0, 0)
        assert bad.error_codes() == [E.ERROR_CODE_ILLEGAL_ACTION, E.ERROR_CODE_FORFEIT]
        assert "not one of the legal actions" in bad.errors[0].message
        assert result.replay().outcome == result.outcome

    asyncio.run(scenario())


def test_fallback_plays_the_most_passive_legal_action() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            bad = await TestBot(server.port or 0, TOKENS["alice"], out_of_range).start()
            good = await TestBot(server.port or 0, TOKENS["bob"], first_legal).start()
            policy = BotPolicy(decision_timeout=0.5, max_strikes=None)
            result = await server.play_game(["alice", "bob"], ONE_HAND, 3, policy, "g")
            await bad.close()
            await good.close()
        assert result.forfeited_seat is None
        assert result.seat_terminations == (SeatTermination.NORMAL,) * 2
        assert result.strikes[0] == len(bad.games["g"].requests) > 0
        game = Game.new(result.rules, 2, result.seed)
        for action in result.actions:
            if game.decider == 0:
                assert action == passive_action(game.legal_actions())
            game.apply(action)
        assert game.outcome == result.outcome

    asyncio.run(scenario())


def test_a_hanging_bot_times_out_to_fallbacks_and_the_table_goes_on() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            hang = await TestBot(server.port or 0, TOKENS["alice"], never_answer).start()
            good = await TestBot(server.port or 0, TOKENS["bob"], first_legal).start()
            started = time.monotonic()
            result = await server.play_game(["alice", "bob"], ONE_HAND, 4, QUICK, "g")
            elapsed = time.monotonic() - started
            await asyncio.sleep(0.05)
            await hang.close()
            await good.close()
        assert result.seat_terminations == (SeatTermination.TIMEOUT, SeatTermination.NORMAL)
        assert result.strikes == (3, 0)
        assert elapsed < 2
        assert hang.error_codes() == [E.ERROR_CODE_DEADLINE_EXCEEDED, E.ERROR_CODE_STRIKE] * 3 \
            + [E.ERROR_CODE_FORFEIT]
        assert hang.games["g"].end is not None

    asyncio.run(scenario())


def test_a_hanging_bot_under_the_forfeit_policy_forfeits_at_its_first_deadline() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            good = await TestBot(server.port or 0, TOKENS["alice"], first_legal).start()
            hang = await TestBot(server.port or 0, TOKENS["bob"], never_answer).start()
            policy = BotPolicy(decision_timeout=0.05, on_violation="forfeit")
            result = await server.play_game(["alice", "bob"], ONE_HAND, 4, policy, "g")
            await hang.close()
            await good.close()
        assert result.seat_terminations == (SeatTermination.NORMAL, SeatTermination.TIMEOUT)
        assert len(hang.games["g"].requests) == 1

    asyncio.run(scenario())


def test_a_slow_bot_spends_its_time_bank_before_it_times_out() -> None:
    async def slow(bot: TestBot, request: bot_pb2.DecisionRequest) -> bot_pb2.Decision:
        await asyncio.sleep(0.08)
        return bot_pb2.Decision(request_id=request.request_id, action_index=0)

    async def scenario() -> None:
        async with running_server() as server:
            slowpoke = await TestBot(server.port or 0, TOKENS["alice"], slow).start()
            good = await TestBot(server.port or 0, TOKENS["bob"], first_legal).start()
            policy = BotPolicy(decision_timeout=0.05, time_bank=0.2, max_strikes=1)
            result = await server.play_game(["alice", "bob"], ONE_HAND, 5, policy, "g")
            await slowpoke.close()
            await good.close()
        requests = slowpoke.games["g"].requests
        assert requests[0].time_left_ms == 50
        assert requests[0].time_bank_ms == 200
        banks = [r.time_bank_ms for r in requests]
        assert banks == sorted(banks, reverse=True) and banks[-1] < 200
        assert result.seat_terminations == (SeatTermination.TIMEOUT, SeatTermination.NORMAL)
        assert slowpoke.games["g"].start is not None
        assert slowpoke.games["g"].start.time_bank_ms == 200

    asyncio.run(scenario())


def test_late_and_duplicate_answers_get_unknown_request_errors() -> None:
    async def twice(bot: TestBot, request: bot_pb2.DecisionRequest) -> bot_pb2.Decision:
        answer = bot_pb2.Decision(request_id=request.request_id, action_index=0)
        await bot.send(bot_pb2.BotMessage(decision=answer))
        return answer

    async def scenario() -> None:
        async with running_server() as server:
            dup = await TestBot(server.port or 0, TOKENS["alice"], twice).start()
            good = await TestBot(server.port or 0, TOKENS["bob"], first_legal).start()
            result = await server.play_game(["alice", "bob"], ONE_HAND, 6, FALLBACK, "g")
            await dup.send(bot_pb2.BotMessage(decision=bot_pb2.Decision(
                request_id="no-such-request", action_index=0)))
            await asyncio.sleep(0.1)
            await dup.close()
            await good.close()
        assert result.seat_terminations == (SeatTermination.NORMAL,) * 2
        unknown = [e for e in dup.errors if e.code == E.ERROR_CODE_UNKNOWN_REQUEST]
        assert len(unknown) == len(dup.games["g"].requests) + 1
        assert unknown[-1].request_id == "no-such-request"
        assert set(dup.error_codes()) == {E.ERROR_CODE_UNKNOWN_REQUEST}

    asyncio.run(scenario())


def test_a_bot_that_disconnects_mid_game_is_waited_for_at_each_decision_before_a_strike(
        ) -> None:
    async def scenario() -> None:
        async with running_server() as server:
            await TestBot(server.port or 0, TOKENS["alice"], quitter).start()
            good = await TestBot(server.port or 0, TOKENS["bob"], first_legal).start()
            policy = BotPolicy(decision_timeout=0.1, max_strikes=5)
            started = time.monotonic()
            result = await server.play_game(["alice", "bob"], ONE_HAND, 7, policy, "g")
            elapsed = time.monotonic() - started
            await good.wait_game_end("g")
            await good.close()
        assert result.strikes[0] == 5
        # the decision it walked out of costs at once, each later one after its deadline
        assert elapsed >= 0.1 * 4
        assert result.seat_terminations == (SeatTermination.DISCONNECT, SeatTermination.NORMAL)
        assert result.replay().outcome == result.outcome
        assert good.games["g"].end is not None

    asyncio.run(scenario())


def test_a_disconnected_seat_forfeits_under_the_forfeit_policy() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            good = await TestBot(server.port or 0, TOKENS["alice"], first_legal).start()
            gone = await TestBot(server.port or 0, TOKENS["bob"], quitter).start()
            policy = BotPolicy(decision_timeout=5, on_violation="forfeit")
            result = await server.play_game(["alice", "bob"], ONE_HAND, 8, policy, "g")
            await good.close()
            assert gone.ended.is_set()
        assert result.seat_terminations == (SeatTermination.NORMAL, SeatTermination.DISCONNECT)

    asyncio.run(scenario())


def test_a_crashed_managed_bot_forfeits_as_a_crash() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            good = await TestBot(server.port or 0, TOKENS["alice"], first_legal).start()
            server.bot_crashed("bob")
            policy = BotPolicy(decision_timeout=5, on_violation="forfeit")
            result = await server.play_game(["alice", "bob"], ONE_HAND, 8, policy, "g")
            await good.close()
        assert result.seat_terminations == (SeatTermination.NORMAL, SeatTermination.CRASH)

    asyncio.run(scenario())


def test_a_dropped_connection_counts_as_a_crash_when_the_crash_check_says_so() -> None:
    checked: list[str] = []

    async def crashed(name: str) -> bool:
        checked.append(name)
        await asyncio.sleep(0.05)  # the process exit is noticed after the drop
        return name == "bob"

    async def scenario() -> None:
        async with running_server() as server:
            server.crash_check = crashed
            good = await TestBot(server.port or 0, TOKENS["alice"], first_legal).start()
            await TestBot(server.port or 0, TOKENS["bob"], quitter).start()
            policy = BotPolicy(decision_timeout=5, on_violation="forfeit")
            result = await server.play_game(["alice", "bob"], ONE_HAND, 8, policy, "g")
            await good.close()
        assert result.seat_terminations == (SeatTermination.NORMAL, SeatTermination.CRASH)
        assert checked == ["bob"]

    asyncio.run(scenario())


async def _reconnect_mid_game(answered: int = 0) -> tuple[TestBot, GameResult]:
    """Alice answers `answered` decisions, drops before her next answer and reconnects; the
    game is played to its end. Returns her second connection, once the game is over, and
    the game's result."""
    async def answer_then_hang(bot: TestBot,
                               request: bot_pb2.DecisionRequest) -> bot_pb2.Decision | None:
        if len(bot.games["g"].requests) > answered:
            await never_answer(bot, request)
            return None
        return await first_legal(bot, request)

    async with running_server() as server:
        port = server.port or 0
        first = await TestBot(port, TOKENS["alice"], answer_then_hang).start()
        opponent = await TestBot(port, TOKENS["bob"], slow_first_action).start()
        policy = BotPolicy(decision_timeout=2, max_strikes=None)
        game = asyncio.create_task(server.play_game(["alice", "bob"], ONE_HAND, 9, policy, "g"))
        while not first.games.get("g") or len(first.games["g"].requests) <= answered:
            await asyncio.sleep(0.002)
        await first.close()
        second = await TestBot(port, TOKENS["alice"], random_legal(3)).start()
        result = await game
        await second.wait_game_end("g")
        await second.close()
        await opponent.close()
    return second, result


def test_a_reconnecting_bot_takes_its_seat_back_and_hears_the_game_so_far() -> None:
    second, result = asyncio.run(_reconnect_mid_game())
    log = second.games["g"]
    assert log.start is not None and log.start.seat == 0 and log.starts == 1
    assert log.requests, "the new connection was asked to decide"
    expected = [wire.event_to_proto(e) for e in wire.events_for_seat(result.events, 0)]
    assert log.events == expected
    assert result.strikes[0] >= 1  # the request the first connection left open
    assert result.forfeited_seat is None
    assert result.replay().outcome == result.outcome


def test_the_game_so_far_reaches_a_reconnected_bot_in_messages_of_bounded_size(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("arena.server.table.REPLAY_BYTES", 200)
    second, result = asyncio.run(_reconnect_mid_game(answered=4))
    kinds = [m.WhichOneof("kind") for m in second.messages]
    replay = second.messages[kinds.index("game_start") + 1:kinds.index("decision_request")]
    assert len(replay) >= 2 and {m.WhichOneof("kind") for m in replay} == {"events"}
    assert all(m.events.ByteSize() <= 200 + 64 for m in replay)
    expected = [wire.event_to_proto(e) for e in wire.events_for_seat(result.events, 0)]
    assert second.games["g"].events == expected


def test_an_orphaned_seat_goes_to_the_bots_other_connection_once_it_has_room() -> None:
    async def scenario() -> None:
        gate = asyncio.Event()

        async def gated(bot: TestBot, request: bot_pb2.DecisionRequest) -> bot_pb2.Decision:
            await gate.wait()
            return await first_legal(bot, request)

        async with running_server() as server:
            port = server.port or 0
            dropped = await TestBot(port, TOKENS["alice"], never_answer).start()
            bob = await TestBot(port, TOKENS["bob"], gated).start()
            policy = BotPolicy(decision_timeout=5, max_strikes=None)
            g1 = asyncio.create_task(server.play_game(["alice", "bob"], ONE_HAND, 9, policy,
                                                      "g1"))
            while not dropped.games.get("g1"):
                await asyncio.sleep(0.002)
            spare = await TestBot(port, TOKENS["alice"]).start()
            carol = await TestBot(port, TOKENS["carol"]).start()
            g2 = asyncio.create_task(server.play_game(["alice", "carol"], ONE_HAND, 3, policy,
                                                      "g2"))
            while not spare.games.get("g2"):
                await asyncio.sleep(0.002)
            await dropped.close()
            await g2
            for _ in range(2500):  # g2's end gave the spare connection room
                if "g1" in spare.games:
                    break
                await asyncio.sleep(0.002)
            gate.set()
            result = await g1
            for bot in (spare, bob, carol):
                await bot.close()
        assert "g1" in spare.games, "the spare connection was given the orphaned seat"
        assert spare.games["g1"].start is not None and spare.games["g1"].requests
        assert result.seat_terminations == (SeatTermination.NORMAL, SeatTermination.NORMAL)

    asyncio.run(scenario())


def test_a_game_with_an_absent_bot_starts_and_the_bot_can_join_later() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            good = await TestBot(server.port or 0, TOKENS["alice"], first_legal).start()
            policy = BotPolicy(decision_timeout=0.2, max_strikes=2)
            result = await server.play_game(["alice", "bob"], ONE_HAND, 10, policy, "g")
            await good.close()
        assert result.seat_terminations == (SeatTermination.NORMAL, SeatTermination.DISCONNECT)
        assert result.strikes == (0, 2)

    asyncio.run(scenario())


# ------------------------------------------------------------------ garbage


def test_a_first_message_that_is_not_a_hello_ends_the_call_invalid_argument() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            first = bot_pb2.BotMessage(decision=bot_pb2.Decision(request_id="1"))
            bot = await TestBot(server.port or 0, TOKENS["alice"], first=first).start()
            await bot.wait_ended()
            assert server.connected_bots() == []
        assert bot.status is grpc.StatusCode.INVALID_ARGUMENT
        assert "Hello" in bot.details

    asyncio.run(scenario())


def test_a_silent_client_is_dropped_when_no_hello_comes() -> None:
    async def scenario() -> None:
        async with running_server(hello_timeout=0.1) as server:
            channel, call = await raw_call(server.port or 0, TOKENS["alice"])
            status = await finish(call)
            await channel.close(None)
        assert status is grpc.StatusCode.DEADLINE_EXCEEDED

    asyncio.run(scenario())


def test_empty_messages_and_a_second_hello_get_malformed_errors_in_band() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            bot = await TestBot(server.port or 0, TOKENS["alice"]).start()
            await bot.send(bot_pb2.BotMessage())
            await bot.send(bot_pb2.BotMessage(hello=bot_pb2.Hello()))
            await asyncio.sleep(0.1)
            assert server.connected_bots() == ["alice"]
            await bot.close()
        assert bot.error_codes() == [E.ERROR_CODE_MALFORMED, E.ERROR_CODE_MALFORMED]

    asyncio.run(scenario())


def test_malformed_decisions_are_strikes_of_their_own_kind() -> None:
    responses = iter([
        bot_pb2.Decision(),  # no choice at all
        bot_pb2.Decision(action=uno_pb2.Action(kind=uno_pb2.ACTION_KIND_PLAY, card=uno_pb2.Card(
            rank=uno_pb2.RANK_WILD, color=uno_pb2.COLOR_RED))),  # a card that cannot exist
        bot_pb2.Decision(action=uno_pb2.Action(kind=77)),  # type: ignore[arg-type]  # an unknown kind
    ])

    async def garbled(bot: TestBot, request: bot_pb2.DecisionRequest) -> bot_pb2.Decision:
        decision = next(responses)
        decision.request_id = request.request_id
        return decision

    async def scenario() -> None:
        async with running_server() as server:
            bad = await TestBot(server.port or 0, TOKENS["alice"], garbled).start()
            good = await TestBot(server.port or 0, TOKENS["bob"], first_legal).start()
            result = await server.play_game(["alice", "bob"], ONE_HAND, 11, FALLBACK, "g")
            await asyncio.sleep(0.05)
            await bad.close()
            await good.close()
        assert result.seat_terminations == (SeatTermination.MALFORMED, SeatTermination.NORMAL)
        assert bad.error_codes() == [E.ERROR_CODE_MALFORMED, E.ERROR_CODE_STRIKE] * 3 \
            + [E.ERROR_CODE_FORFEIT]

    asyncio.run(scenario())


async def raw_call(port: int, token: str) -> tuple[grpc.aio.Channel, object]:
    """A Connect call that sends raw bytes, to say things a BotMessage cannot."""
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    connect = channel.stream_stream("/arena.v1.BotService/Connect", None, None)
    call = connect(None, metadata=(("authorization", f"Bearer {token}"),))
    return channel, call


async def finish(call: object) -> grpc.StatusCode:
    try:
        async for _ in call:  # type: ignore[attr-defined]
            pass
    except grpc.aio.AioRpcError as exc:
        return exc.code()
    return grpc.StatusCode.OK


def test_bytes_that_are_no_bot_message_end_only_that_bot_s_stream() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            port = server.port or 0
            good = await TestBot(port, TOKENS["alice"], first_legal).start()
            other = await TestBot(port, TOKENS["bob"], first_legal).start()
            channel, call = await raw_call(port, TOKENS["carol"])
            await call.write(bot_pb2.BotMessage(hello=bot_pb2.Hello()).SerializeToString())  # type: ignore[attr-defined]
            await call.write(b"\xff\xff\xff\xff not protobuf")  # type: ignore[attr-defined]
            status = await finish(call)
            await channel.close(None)
            result = await server.play_game(["alice", "bob"], ONE_HAND, 12, FALLBACK)
            await good.close()
            await other.close()
        assert status is grpc.StatusCode.INVALID_ARGUMENT
        assert result.seat_terminations == (SeatTermination.NORMAL,) * 2

    asyncio.run(scenario())


def test_an_oversized_message_ends_the_stream_resource_exhausted_and_others_play_on() -> None:
    async def huge(bot: TestBot, request: bot_pb2.DecisionRequest) -> bot_pb2.Decision:
        return bot_pb2.Decision(request_id=request.request_id + "x" * 100_000)

    async def scenario() -> None:
        async with running_server() as server:
            port = server.port or 0
            bad = await TestBot(port, TOKENS["alice"], huge).start()
            victim = await TestBot(port, TOKENS["bob"], first_legal).start()
            carol = await TestBot(port, TOKENS["carol"], first_legal).start()
            dave = await TestBot(port, TOKENS["dave"], random_legal(1)).start()
            games = await asyncio.gather(
                server.play_game(["alice", "bob"], ONE_HAND, 13, FALLBACK, "bad"),
                server.play_game(["carol", "dave"], ONE_HAND, 14, FALLBACK, "fine"))
            await bad.wait_ended()
            for bot in (victim, carol, dave):
                await bot.close()
        assert bad.status is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert games[0].seat_terminations == (SeatTermination.DISCONNECT, SeatTermination.NORMAL)
        assert games[1].seat_terminations == (SeatTermination.NORMAL,) * 2

    asyncio.run(scenario())


def test_an_oversized_hello_is_refused_resource_exhausted_saying_the_limit() -> None:
    async def scenario() -> TestBot:
        async with running_server() as server:
            hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_version="v" * 70_000))
            bot = await TestBot(server.port or 0, TOKENS["alice"], first=hello).start()
            await bot.wait_ended()
            return bot

    bot = asyncio.run(scenario())
    assert bot.status is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert bot.details is not None and bot.details.endswith("over the 65,536-byte limit")


def test_a_bot_that_stops_reading_is_cut_off_when_its_outbox_overflows() -> None:
    async def scenario() -> None:
        async with running_server(max_outbox=3) as server:
            bot = await TestBot(server.port or 0, TOKENS["alice"]).start()
            connection = server.connections()[0]
            for _ in range(5):
                connection.send(bot_pb2.ServerMessage(error=bot_pb2.Error(message="spam")))
            await bot.wait_ended()
        assert bot.status is grpc.StatusCode.RESOURCE_EXHAUSTED

    asyncio.run(scenario())


def test_a_bot_that_never_reads_is_cut_off_without_hanging_the_server() -> None:
    async def scenario() -> None:
        async with running_server(max_outbox=50) as server:
            channel, call = await raw_call(server.port or 0, TOKENS["alice"])
            await call.write(bot_pb2.BotMessage(hello=bot_pb2.Hello()).SerializeToString())  # type: ignore[attr-defined]
            await server.wait_for_bots(["alice"], timeout=5)
            connection = server.connections()[0]
            spam = bot_pb2.ServerMessage(error=bot_pb2.Error(message="x" * 60_000))
            async with asyncio.timeout(10):
                while connection.is_open:
                    connection.send(spam)
                    await asyncio.sleep(0)
                while server.connected_bots():
                    await asyncio.sleep(0.01)
            call.cancel()  # type: ignore[attr-defined]
            await channel.close(None)
        assert connection.close_reason is not None
        assert connection.close_reason.value == "overflow"

    asyncio.run(scenario())


def test_a_seat_moves_to_the_bot_s_other_open_connection_when_its_own_drops() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            port = server.port or 0
            first = await TestBot(port, TOKENS["alice"], never_answer).start()
            spare = await TestBot(port, TOKENS["alice"], first_legal).start()
            opponent = await TestBot(port, TOKENS["bob"], slow_first_action).start()
            policy = BotPolicy(decision_timeout=2, max_strikes=None)
            game = asyncio.create_task(server.play_game(["alice", "bob"], ONE_HAND, 9,
                                                        policy, "g"))
            while not (first.games.get("g") or spare.games.get("g")):
                await asyncio.sleep(0.002)
            playing, idle = (first, spare) if "g" in first.games else (spare, first)
            while not playing.games["g"].requests and not idle.games.get("g"):
                await asyncio.sleep(0.002)
            await playing.close()
            result = await game
            await idle.wait_game_end("g")
            for bot in (idle, opponent):
                await bot.close()
        assert idle.games["g"].start is not None
        assert result.forfeited_seat is None

    asyncio.run(scenario())


def test_an_error_inside_a_table_ends_its_game_and_frees_the_seats(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls = 0
    real_apply = Game.apply

    def failing_apply(self: Game, action: Action) -> list[ev.Event]:
        nonlocal calls
        calls += 1
        if calls == 5:
            raise RuntimeError("engine bug")
        return real_apply(self, action)

    async def scenario() -> None:
        async with running_server() as server:
            bots = [await TestBot(server.port or 0, TOKENS[name], first_legal).start()
                    for name in ("alice", "bob")]
            monkeypatch.setattr(Game, "apply", failing_apply)
            with pytest.raises(RuntimeError, match="engine bug"):
                await server.play_game(["alice", "bob"], ONE_HAND, 1, FALLBACK, "g")
            monkeypatch.setattr(Game, "apply", real_apply)
            ends = [await bot.wait_game_end("g") for bot in bots]
            assert all(not c.tables for c in server.connections())
            again = await server.play_game(["alice", "bob"], ONE_HAND, 2, FALLBACK)
            for bot in bots:
                await bot.close()
        assert all(end.reason == "aborted: RuntimeError" for end in ends)
        assert again.seat_terminations == (SeatTermination.NORMAL,) * 2

    asyncio.run(scenario())


def test_a_bot_holds_at_most_32_connections_and_a_long_version_is_cut() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            port = server.port or 0
            hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_version="v" * 60_000))
            held = [await TestBot(port, TOKENS["alice"], first=hello).start()
                    for _ in range(MAX_CONNECTIONS_PER_BOT)]
            refused = await TestBot(port, TOKENS["alice"]).start()
            await refused.wait_ended()
            other = await TestBot(port, TOKENS["bob"]).start()
            versions = {c.hello.bot_version for c in server.connections()}
            await held[0].close()
            while len(server.connections()) > MAX_CONNECTIONS_PER_BOT:
                await asyncio.sleep(0.002)
            again = await TestBot(port, TOKENS["alice"]).start()
            assert not again.ended.is_set(), "a closed connection makes room"
            for bot in (*held[1:], other, again):
                await bot.close()
        assert refused.status is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert refused.details == (f"bot alice already has {MAX_CONNECTIONS_PER_BOT} "
                                   "connections open; play more tables over each "
                                   "(Hello.max_tables)")
        assert other.welcomed.is_set(), "another bot is not held back"
        assert versions == {"v" * MAX_BOT_VERSION, "test/1"}

    asyncio.run(scenario())
