"""A bot cannot grow the server's memory without bound: request ids are bounded, errors
do not echo what a bot sent, and a connection's outbox is bounded in bytes."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import grpc

from arena.result import GameResult
from arena.server import BotPolicy, SeatTermination
from arena.v1 import bot_pb2
from benchmarks.chaos import peak_rss_mb, server_process
from tests.server.bots import TestBot
from tests.server.server_support import ONE_HAND, TOKENS, running_server

E = bot_pb2  # error codes
ROOT = Path(__file__).resolve().parents[2]
DOCUMENTED_OUTBOX_BYTES = 8 * 1024 * 1024
"""The outbox bound protos/README.md promises bot authors (8 MiB)."""
LONG_ID = "r" * 60_000
"""A request id as long as a bot message may carry (the issue's abuse)."""


def decision(request_id: str) -> bot_pb2.BotMessage:
    """A Decision answering `request_id` with the first legal action."""
    return bot_pb2.BotMessage(decision=bot_pb2.Decision(request_id=request_id, action_index=0))


async def errors_after(request_id: str) -> list[bot_pb2.Error]:
    """The in-band errors a connected bot gets for one decision with `request_id`."""
    async with running_server() as server:
        bot = await TestBot(server.port or 0, TOKENS["alice"]).start()
        await bot.send(decision(request_id))
        async with asyncio.timeout(5):
            while not bot.errors:
                await asyncio.sleep(0.01)
        assert server.connected_bots() == ["alice"]  # the error did not end the stream
        await bot.close()
    return bot.errors


def test_a_60_kb_request_id_is_malformed_and_not_echoed() -> None:
    errors = asyncio.run(errors_after(LONG_ID))
    assert [e.code for e in errors] == [E.ERROR_CODE_MALFORMED]
    assert errors[0].request_id == ""
    assert "rrrr" not in errors[0].message
    assert len(errors[0].SerializeToString()) < 200


def test_an_unknown_id_at_the_64_byte_bound_is_an_unknown_request() -> None:
    at_bound = "x" * 64
    errors = asyncio.run(errors_after(at_bound))
    assert [e.code for e in errors] == [E.ERROR_CODE_UNKNOWN_REQUEST]
    assert errors[0].request_id == at_bound
    assert at_bound in errors[0].message


def test_an_id_one_byte_past_the_bound_is_malformed() -> None:
    errors = asyncio.run(errors_after("x" * 65))
    assert [e.code for e in errors] == [E.ERROR_CODE_MALFORMED]


def test_the_bound_counts_utf8_bytes_not_characters() -> None:
    errors = asyncio.run(errors_after("€" * 22))  # 22 characters, 66 bytes
    assert [e.code for e in errors] == [E.ERROR_CODE_MALFORMED]


def test_clipped_client_text_keeps_64_characters_ending_in_an_ellipsis() -> None:
    from arena.server.connection import clip

    assert clip("a" * 64) == "a" * 64
    assert clip("a" * 1000) == "a" * 63 + "…"


# ------------------------------------------------------------ the outbox


async def raw_bot(port: int, token: str) -> tuple[grpc.aio.Channel, Any]:
    """A Connect call that writes raw bytes and is never read, after its Hello."""
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    call: Any = channel.stream_stream("/arena.v1.BotService/Connect", None, None)(
        None, metadata=(("authorization", f"Bearer {token}"),))
    await call.write(bot_pb2.BotMessage(hello=bot_pb2.Hello()).SerializeToString())
    return channel, call


def test_a_bot_that_never_reads_is_closed_once_its_outbox_passes_8_mib() -> None:
    async def scenario() -> tuple[int, bool, str | None]:
        async with running_server() as server:
            channel, call = await raw_bot(server.port or 0, TOKENS["alice"])
            await server.wait_for_bots(["alice"], timeout=5)
            connection = server.connections()[0]
            spam = bot_pb2.ServerMessage(error=bot_pb2.Error(message="x" * 60_000))
            sent = 0
            while connection.is_open and sent < 4 * DOCUMENTED_OUTBOX_BYTES:
                connection.send(spam)
                sent += spam.ByteSize()
                await asyncio.sleep(0)
            still_open = connection.is_open
            reason = None if connection.close_reason is None else connection.close_reason.value
            async with asyncio.timeout(5):
                while not still_open and server.connected_bots():
                    await asyncio.sleep(0.01)
            call.cancel()
            await channel.close(None)
        return sent, still_open, reason

    sent, still_open, reason = asyncio.run(scenario())
    assert not still_open
    assert reason == "overflow"
    # what the outbox held, plus what the transport and the sockets took before it filled
    assert sent < 3 * DOCUMENTED_OUTBOX_BYTES


def test_the_seat_of_a_bot_closed_for_not_reading_ends_disconnected() -> None:
    async def scenario() -> GameResult:
        async with running_server() as server:
            channel, call = await raw_bot(server.port or 0, TOKENS["alice"])
            opponent = await TestBot(server.port or 0, TOKENS["bob"]).start()
            await server.wait_for_bots(["alice"], timeout=5)
            connection = next(c for c in server.connections() if c.bot_name == "alice")
            game = asyncio.create_task(server.play_game(
                ["alice", "bob"], ONE_HAND, 3, BotPolicy(decision_timeout=0.3), "g"))
            while not connection.tables:
                await asyncio.sleep(0.002)
            spam = bot_pb2.ServerMessage(error=bot_pb2.Error(message="x" * 60_000))
            for _ in range(4 * DOCUMENTED_OUTBOX_BYTES // spam.ByteSize()):
                if not connection.is_open:
                    break
                connection.send(spam)
                await asyncio.sleep(0)
            async with asyncio.timeout(5):
                result = await game
            call.cancel()
            await channel.close(None)
            await opponent.close()
        return result

    result = asyncio.run(scenario())
    assert result.seat_terminations == (SeatTermination.DISCONNECT, SeatTermination.NORMAL)


async def flood(port: int, token: str, decisions: int) -> None:
    """Send `decisions` answers with 60 KB request ids on a stream that is never read."""
    channel, call = await raw_bot(port, token)
    data = decision(LONG_ID).SerializeToString()
    for _ in range(decisions):
        await call.write(data)
    call.cancel()
    await channel.close(None)


def test_two_streams_flooding_60_kb_request_ids_keep_the_server_under_100_mb() -> None:
    async def scenario(pid: int, port: int) -> None:
        flooders: asyncio.Future[Any] = asyncio.gather(flood(port, "token-alice", 1500),
                                                       flood(port, "token-bob", 1500))
        over: asyncio.Future[None] = asyncio.ensure_future(_until_over(pid, 100))
        await asyncio.wait({flooders, over}, timeout=20, return_when=asyncio.FIRST_COMPLETED)
        over.cancel()
        if over.done() and not over.cancelled():  # no need to wait for the rest
            flooders.cancel()
            await asyncio.gather(flooders, return_exceptions=True)
            return
        await flooders  # raises if a stream failed or took over 20 s
        await asyncio.sleep(0.5)  # the last messages read are handled

    with server_process() as (pid, port):
        started = time.monotonic()
        asyncio.run(scenario(pid, port))
        peak = peak_rss_mb(pid)
    print(f"server peak RSS {peak:.0f} MB after {time.monotonic() - started:.1f} s")
    assert peak < 100


async def _until_over(pid: int, limit_mb: float) -> None:
    """Return once process `pid` has held more than `limit_mb` resident."""
    while peak_rss_mb(pid) < limit_mb:
        await asyncio.sleep(0.05)
