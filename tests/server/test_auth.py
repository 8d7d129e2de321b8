"""Who may connect: the bearer token in call metadata, and the token tables behind it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.server import TokenError, TokenTable, bearer_token
from arena.v1 import admin_pb2, admin_pb2_grpc
from tests.server.bots import TestBot
from tests.server.server_support import TOKENS, running_server


def connect_with(token: str | None) -> TestBot:
    """A bot that tried to connect with `token` and was turned away."""

    async def scenario() -> TestBot:
        async with running_server() as server:
            bot = await TestBot(server.port or 0, token).start()
            await bot.wait_ended()
            assert server.connected_bots() == []
            return bot

    return asyncio.run(scenario())


def test_a_missing_token_is_unauthenticated() -> None:
    bot = connect_with(None)
    assert bot.status is grpc.StatusCode.UNAUTHENTICATED
    assert "Bearer" in bot.details
    assert bot.welcome is None


def test_a_wrong_token_is_unauthenticated() -> None:
    bot = connect_with("not-a-token")
    assert bot.status is grpc.StatusCode.UNAUTHENTICATED
    assert bot.details == "unknown token"


def test_another_bot_s_token_makes_the_connection_that_bot() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            impostor = await TestBot(server.port or 0, TOKENS["bob"]).start()
            assert impostor.welcome is not None and impostor.welcome.bot_name == "bob"
            assert server.connected_bots() == ["bob"]
            await impostor.close()

    asyncio.run(scenario())


def test_a_token_without_the_bearer_scheme_is_refused() -> None:
    assert bearer_token([("authorization", TOKENS["alice"])]) is None
    assert bearer_token([("authorization", "Basic abc")]) is None
    assert bearer_token([("authorization", "Bearer ")]) is None
    assert bearer_token([("x-other", "Bearer abc"), ("authorization", "bearer  abc ")]) == "abc"
    assert bearer_token(None) is None


def test_a_token_table_names_bots_by_token() -> None:
    table = TokenTable({"alice": "a-token", "bob": "b-token"})
    assert table.bot_name("a-token") == "alice"
    assert table.bot_name("b-token") == "bob"
    assert table.bot_name("alice") is None
    assert table.names == ["alice", "bob"]


def test_two_bots_may_not_share_a_token() -> None:
    with pytest.raises(TokenError, match="share a token"):
        TokenTable({"alice": "same", "bob": "same"})


def test_tokens_load_from_json_lines_files_and_the_environment(tmp_path: Path) -> None:
    json_file = tmp_path / "tokens.json"
    json_file.write_text(json.dumps({"alice": "t1"}))
    lines_file = tmp_path / "tokens.txt"
    lines_file.write_text("# name token\nbob t2\n\ncarol t3  # the third\n")
    assert TokenTable.from_file(json_file).bot_name("t1") == "alice"
    assert TokenTable.from_file(lines_file).names == ["bob", "carol"]
    env = {"ARENA_TOKENS_FILE": str(lines_file), "ARENA_TOKENS": json.dumps({"dave": "t4"})}
    assert TokenTable.from_env(env).names == ["bob", "carol", "dave"]
    assert TokenTable.from_env({}).names == []


@pytest.mark.parametrize("text, message", [
    ("{not json", "not valid JSON"),
    ('["alice"]', "JSON object"),
    ('{"alice": 3}', "JSON object"),
])
def test_bad_json_tokens_are_refused_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(TokenError, match=message):
        TokenTable.from_json(text)


def test_a_bad_tokens_line_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "tokens.txt"
    path.write_text("alice t1\nbob\n")
    with pytest.raises(TokenError, match="line 2"):
        TokenTable.from_file(path)
    with pytest.raises(TokenError, match="missing"):
        TokenTable.from_file(tmp_path / "missing.txt")


def test_the_admin_service_wants_the_admin_token_and_the_rest_stays_open() -> None:
    async def call(port: int, token: str | None) -> grpc.StatusCode:
        metadata = None if token is None else (("authorization", f"Bearer {token}"),)
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            admin = admin_pb2_grpc.ArenaAdminStub(channel)
            try:
                await admin.ListTables(admin_pb2.ListTablesRequest(), metadata=metadata)
                watch = admin.WatchGame(admin_pb2.WatchGameRequest(game_id="none"),
                                        metadata=metadata)
                async for _ in watch:
                    pass
            except grpc.aio.AioRpcError as exc:
                return exc.code()
            return grpc.StatusCode.OK

    async def scenario() -> None:
        async with running_server(admin_token="s3cret") as server:
            port = server.port or 0
            assert await call(port, None) is grpc.StatusCode.UNAUTHENTICATED
            assert await call(port, "wrong") is grpc.StatusCode.UNAUTHENTICATED
            assert await call(port, "s3cret") is grpc.StatusCode.NOT_FOUND  # past the guard
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                health = await health_pb2_grpc.HealthStub(channel).Check(
                    health_pb2.HealthCheckRequest())
                assert health.status == health_pb2.HealthCheckResponse.SERVING
            bot = await TestBot(port, TOKENS["alice"]).start()  # bots need only their token
            assert bot.welcome is not None and server.connected_bots() == ["alice"]
            await bot.close()

    asyncio.run(scenario())
