"""The gatekeeper on its own: over real gRPC, in front of a stand-in admin servicer, with
a real SQLite store. What it does around a call shows here without a match server: each
call keeps its shape, the servicer knows who calls, a call that fails is audited with
how it ended, and who holds a token is kept for a second
(tests/server/test_permissions.py walks the whole table on a real server)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import grpc
import pytest

from arena.server import permissions
from arena.server.permissions import Caller, Gatekeeper, Refused, current_caller
from arena.store import Author, AuthorRole, Quota, ReconnectFailed, Store
from arena.v1 import admin_pb2, admin_pb2_grpc

ORGANIZER_TOKEN = "organizer-secret-token"
SERVICE = admin_pb2.DESCRIPTOR.services_by_name["ArenaAdmin"].full_name
Context = grpc.aio.ServicerContext[Any, Any]


# ------------------------------------------------------------ a stand-in admin servicer

async def add_bot(request: admin_pb2.AddBotRequest, context: Context
                  ) -> admin_pb2.AddBotResponse:
    """An audited call that ends as its request's `kind` says."""
    if request.kind == "exists":
        await context.abort(grpc.StatusCode.ALREADY_EXISTS,
                            f"a bot named {request.name} exists")
    if request.kind == "not-yours":
        await context.abort(grpc.StatusCode.PERMISSION_DENIED, "that bot is not yours")
    if request.kind == "broken":
        raise ValueError("the disk is on fire")
    return admin_pb2.AddBotResponse(token="bot-token")


async def list_bots(request: admin_pb2.ListBotsRequest, context: Context
                    ) -> admin_pb2.ListBotsResponse:
    """A read that breaks."""
    raise ValueError("the disk is on fire")


async def who_am_i(request: admin_pb2.WhoAmIRequest, context: Context
                   ) -> admin_pb2.WhoAmIResponse:
    """Who the servicer is told calls."""
    caller = current_caller()
    return admin_pb2.WhoAmIResponse(role=caller.role.value, name=caller.name)


async def create_tournament(request: admin_pb2.CreateTournamentRequest, context: Context
                            ) -> admin_pb2.TournamentInfo:
    """An audited call for those who may run competitions."""
    return admin_pb2.TournamentInfo(name=request.name)


async def run_ladder(request: admin_pb2.RunLadderRequest, context: Context
                     ) -> AsyncIterator[admin_pb2.RunProgress]:
    """An audited stream of `tables` updates, then an end as its request's `name` says."""
    for done in range(1, request.tables + 1):
        yield admin_pb2.RunProgress(done=done, total=request.tables)
    if request.name == "missing":
        await context.abort(grpc.StatusCode.NOT_FOUND, "no ladder named missing")
    if request.name == "endless":
        await asyncio.Event().wait()


async def watch_game(request: admin_pb2.WatchGameRequest, context: Context
                     ) -> AsyncIterator[admin_pb2.WatchGameUpdate]:
    """A read streamed back: one update naming who the servicer is told calls."""
    caller = current_caller()
    yield admin_pb2.WatchGameUpdate(game_id=request.game_id,
                                    players=[caller.role.value, caller.name])


async def submit_bot(chunks: AsyncIterator[admin_pb2.SubmitBotChunk], context: Context
                     ) -> admin_pb2.SubmitBotResponse:
    """An audited streamed request: the version of the header's bot, once every chunk
    came."""
    name, size = "", 0
    async for chunk in chunks:
        name = chunk.header.name or name
        size += len(chunk.data)
    return admin_pb2.SubmitBotResponse(
        version=admin_pb2.BotVersionInfo(name=f"{name}@{size}", base_name=name))


def _unary(behaviour: Callable[..., Any], request: Any, response: Any
           ) -> grpc.RpcMethodHandler[Any, Any]:
    return grpc.unary_unary_rpc_method_handler(
        behaviour, request_deserializer=request.FromString,
        response_serializer=response.SerializeToString)


def _streamed(behaviour: Callable[..., Any], request: Any, response: Any
              ) -> grpc.RpcMethodHandler[Any, Any]:
    return grpc.unary_stream_rpc_method_handler(
        behaviour, request_deserializer=request.FromString,
        response_serializer=response.SerializeToString)


STAND_IN = grpc.method_handlers_generic_handler(SERVICE, {
    "AddBot": _unary(add_bot, admin_pb2.AddBotRequest, admin_pb2.AddBotResponse),
    "ListBots": _unary(list_bots, admin_pb2.ListBotsRequest, admin_pb2.ListBotsResponse),
    "WhoAmI": _unary(who_am_i, admin_pb2.WhoAmIRequest, admin_pb2.WhoAmIResponse),
    "CreateTournament": _unary(create_tournament, admin_pb2.CreateTournamentRequest,
                               admin_pb2.TournamentInfo),
    "RunLadder": _streamed(run_ladder, admin_pb2.RunLadderRequest, admin_pb2.RunProgress),
    "WatchGame": _streamed(watch_game, admin_pb2.WatchGameRequest,
                           admin_pb2.WatchGameUpdate),
    "SubmitBot": grpc.stream_unary_rpc_method_handler(
        submit_bot, request_deserializer=admin_pb2.SubmitBotChunk.FromString,
        response_serializer=admin_pb2.SubmitBotResponse.SerializeToString),
})


@dataclass
class Served:
    """The stand-in served behind a gatekeeper, and one author's token."""

    stub: admin_pb2_grpc.ArenaAdminAsyncStub
    store: Store
    author_token: str

    async def lines(self, count: int) -> list[tuple[str, str, str, str, str]]:
        """The audit trail, oldest first, once it holds `count` lines (a stream's line
        is written just after the stream ends)."""
        async with asyncio.timeout(10):
            while len(entries := self.store.audit()) < count:
                await asyncio.sleep(0.01)
        return [(e.actor, e.action, e.target, e.result, e.detail) for e in reversed(entries)]


@asynccontextmanager
async def serving(tmp_path: Path, *, public: bool = False) -> AsyncIterator[Served]:
    """The stand-in servicer behind a gatekeeper on a free loopback port."""
    with Store.open(tmp_path / "arena.db") as store:
        _, token = store.add_author("ann")
        keeper = Gatekeeper(ORGANIZER_TOKEN, SERVICE, store=store, public=public)
        server = grpc.aio.server(interceptors=[keeper])
        server.add_generic_rpc_handlers((STAND_IN,))
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                yield Served(admin_pb2_grpc.ArenaAdminStub(channel), store, token)
        finally:
            await server.stop(None)


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    """Call metadata carrying `token`."""
    return (("authorization", f"Bearer {token}"),)


async def failure(call: Any) -> tuple[grpc.StatusCode, str]:
    """The status and words of a call expected to fail."""
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await call
    return raised.value.code(), raised.value.details() or ""


# ------------------------------------------------------------------- each call's shape

def test_a_streamed_answer_reaches_the_caller_whole(tmp_path: Path) -> None:
    async def scenario() -> list[int]:
        async with serving(tmp_path) as served:
            return [update.done async for update in served.stub.RunLadder(
                admin_pb2.RunLadderRequest(tables=3), metadata=bearer(ORGANIZER_TOKEN))]

    assert asyncio.run(scenario()) == [1, 2, 3]


def test_a_streamed_request_reaches_the_servicer_whole_and_is_audited_by_its_answer(
        tmp_path: Path) -> None:
    async def scenario() -> tuple[str, list[tuple[str, str, str, str, str]]]:
        async with serving(tmp_path) as served:
            chunks = [admin_pb2.SubmitBotChunk(header=admin_pb2.SubmitBotHeader(name="greedy"),
                                               data=b"abc"),
                      admin_pb2.SubmitBotChunk(data=b"defg")]
            answer = await served.stub.SubmitBot(iter(chunks),
                                                 metadata=bearer(served.author_token))
            return answer.version.name, await served.lines(1)

    name, lines = asyncio.run(scenario())
    assert name == "greedy@7"
    assert lines == [("ann", "SubmitBot", "greedy@7", "ok", "")]


def test_the_servicer_knows_who_calls_a_streamed_call(tmp_path: Path) -> None:
    async def scenario() -> list[list[str]]:
        async with serving(tmp_path, public=True) as served:
            request = admin_pb2.WatchGameRequest(game_id="cup:1")
            return [list(update.players)
                    for metadata in (bearer(served.author_token), ())
                    async for update in served.stub.WatchGame(request, metadata=metadata)]

    assert asyncio.run(scenario()) == [["author", "ann"], ["anonymous", "(no token)"]]


def test_the_servicer_knows_who_calls_a_call(tmp_path: Path) -> None:
    async def scenario() -> list[tuple[str, str]]:
        async with serving(tmp_path, public=True) as served:
            request = admin_pb2.WhoAmIRequest()
            answers = [await served.stub.WhoAmI(request, metadata=metadata)
                       for metadata in (bearer(served.author_token), bearer(ORGANIZER_TOKEN))]
            return [(answer.role, answer.name) for answer in answers]

    assert asyncio.run(scenario()) == [("author", "ann"), ("organizer", "organizer")]


def test_a_call_of_another_service_passes_the_gatekeeper_untouched() -> None:
    keeper = Gatekeeper(ORGANIZER_TOKEN, SERVICE)
    handler = grpc.unary_unary_rpc_method_handler(who_am_i)

    async def intercepted(method: str, found: grpc.RpcMethodHandler[Any, Any] | None
                          ) -> grpc.RpcMethodHandler[Any, Any] | None:
        async def continuation(details: grpc.HandlerCallDetails
                               ) -> grpc.RpcMethodHandler[Any, Any] | None:
            return found

        details = SimpleNamespace(method=method, invocation_metadata=())
        return await keeper.intercept_service(continuation,  # type: ignore[arg-type]
                                              cast(grpc.HandlerCallDetails, details))

    assert asyncio.run(intercepted("/arena.v1.Bot/Play", handler)) is handler
    assert asyncio.run(intercepted(f"/{SERVICE}/NoSuchCall", None)) is None


# ------------------------------------------------------------- how a call is audited

def test_a_change_the_servicer_turns_down_is_audited_with_its_words(tmp_path: Path) -> None:
    async def scenario() -> tuple[tuple[grpc.StatusCode, str], list[Any]]:
        async with serving(tmp_path) as served:
            answer = await failure(served.stub.AddBot(
                admin_pb2.AddBotRequest(name="greedy", kind="exists"),
                metadata=bearer(served.author_token)))
            return answer, await served.lines(1)

    answer, lines = asyncio.run(scenario())
    assert answer == (grpc.StatusCode.ALREADY_EXISTS, "a bot named greedy exists")
    assert lines == [("ann", "AddBot", "greedy", "failed (ALREADY_EXISTS)",
                      "a bot named greedy exists")]


def test_a_change_the_servicer_turns_down_is_in_the_trail_before_its_caller_hears(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Written after the status went out, a slow line was still being written when the
    caller (an in-process CLI) stopped the server, which cancelled the call."""
    async def scenario() -> list[Any]:
        async with serving(tmp_path) as served:
            write = served.store.record_audit

            def slow_write(*args: Any) -> None:
                time.sleep(0.3)
                write(*args)

            monkeypatch.setattr(served.store, "record_audit", slow_write)
            await failure(served.stub.AddBot(
                admin_pb2.AddBotRequest(name="greedy", kind="exists"),
                metadata=bearer(served.author_token)))
            return [(e.action, e.result) for e in served.store.audit()]

    assert asyncio.run(scenario()) == [("AddBot", "failed (ALREADY_EXISTS)")]


def test_a_change_the_servicer_turns_down_is_audited_once(tmp_path: Path) -> None:
    async def scenario() -> list[Any]:
        async with serving(tmp_path) as served:
            await failure(served.stub.AddBot(
                admin_pb2.AddBotRequest(name="greedy", kind="exists"),
                metadata=bearer(served.author_token)))
            with contextlib.suppress(TimeoutError):  # a second line would come at once
                async with asyncio.timeout(0.5):
                    await served.lines(2)
            return await served.lines(1)

    assert [line[3] for line in asyncio.run(scenario())] == ["failed (ALREADY_EXISTS)"]


def test_a_change_the_servicer_refuses_is_audited_as_refused(tmp_path: Path) -> None:
    async def scenario() -> list[Any]:
        async with serving(tmp_path) as served:
            await failure(served.stub.AddBot(admin_pb2.AddBotRequest(name="greedy",
                                                                     kind="not-yours"),
                                             metadata=bearer(served.author_token)))
            return await served.lines(1)

    assert asyncio.run(scenario()) == [("ann", "AddBot", "greedy",
                                        "refused (PERMISSION_DENIED)", "that bot is not yours")]


def test_a_change_that_breaks_is_audited_with_its_error(tmp_path: Path) -> None:
    async def scenario() -> tuple[grpc.StatusCode, list[Any]]:
        async with serving(tmp_path) as served:
            code, _ = await failure(served.stub.AddBot(
                admin_pb2.AddBotRequest(name="greedy", kind="broken"),
                metadata=bearer(served.author_token)))
            return code, await served.lines(1)

    code, lines = asyncio.run(scenario())
    assert code is grpc.StatusCode.UNKNOWN
    assert lines == [("ann", "AddBot", "greedy", "failed (ValueError)",
                      "the disk is on fire")]


def test_a_read_that_fails_leaves_no_audit_line(tmp_path: Path) -> None:
    async def scenario() -> list[Any]:
        async with serving(tmp_path) as served:
            await failure(served.stub.ListBots(admin_pb2.ListBotsRequest(),
                                               metadata=bearer(served.author_token)))
            await served.stub.AddBot(admin_pb2.AddBotRequest(name="greedy"),
                                     metadata=bearer(served.author_token))
            return await served.lines(1)

    assert asyncio.run(scenario()) == [("ann", "AddBot", "greedy", "ok", "")]


def test_a_streamed_change_is_audited_once_it_ends_and_a_streamed_read_is_not(
        tmp_path: Path) -> None:
    async def scenario() -> list[Any]:
        async with serving(tmp_path) as served:
            organizer = bearer(ORGANIZER_TOKEN)
            async for _ in served.stub.WatchGame(admin_pb2.WatchGameRequest(game_id="cup:1"),
                                                 metadata=organizer):
                pass
            async for _ in served.stub.RunLadder(
                    admin_pb2.RunLadderRequest(name="weekly", tables=1), metadata=organizer):
                pass
            return await served.lines(1)

    assert asyncio.run(scenario()) == [("organizer", "RunLadder", "weekly", "ok", "")]


def test_a_streamed_change_that_fails_is_audited_with_the_servicers_words(
        tmp_path: Path) -> None:
    async def scenario() -> tuple[tuple[grpc.StatusCode, str], list[Any]]:
        async with serving(tmp_path) as served:
            call = served.stub.RunLadder(admin_pb2.RunLadderRequest(name="missing", tables=1),
                                         metadata=bearer(ORGANIZER_TOKEN))

            async def drain() -> None:
                async for _ in call:
                    pass

            return await failure(drain()), await served.lines(1)

    answer, lines = asyncio.run(scenario())
    assert answer == (grpc.StatusCode.NOT_FOUND, "no ladder named missing")
    assert lines == [("organizer", "RunLadder", "missing", "failed (NOT_FOUND)",
                      "no ladder named missing")]


def test_a_streamed_change_its_caller_cancels_is_audited_as_cancelled(tmp_path: Path) -> None:
    async def scenario() -> list[Any]:
        async with serving(tmp_path) as served:
            call = served.stub.RunLadder(admin_pb2.RunLadderRequest(name="endless", tables=1),
                                         metadata=bearer(ORGANIZER_TOKEN))
            await call.read()
            call.cancel()
            return await served.lines(1)

    [(actor, action, target, result, _)] = asyncio.run(scenario())
    assert (actor, action, target, result) == ("organizer", "RunLadder", "endless",
                                               "cancelled")


def test_a_refused_change_without_a_name_is_audited_by_the_bots_it_names(
        tmp_path: Path) -> None:
    async def scenario() -> list[Any]:
        async with serving(tmp_path) as served:
            await failure(served.stub.CreateTournament(
                admin_pb2.CreateTournamentRequest(bots=["greedy", "random"]),
                metadata=bearer(served.author_token)))
            return await served.lines(1)

    [(actor, action, target, result, _)] = asyncio.run(scenario())
    assert (actor, action, target, result) == ("ann", "CreateTournament", "greedy,random",
                                               "refused (PERMISSION_DENIED)")


# ---------------------------------------------------- the gatekeeper's checks, one by one

def admit(keeper: Gatekeeper, method: str, token: str | None, request: Any
          ) -> Caller | None:
    """The caller `keeper` admits to `method` with `request`; `Refused` otherwise."""
    caller, _ = asyncio.run(keeper.admit(method, token, request, None, False))
    return caller


def test_a_server_is_not_public_unless_told() -> None:
    keeper = Gatekeeper(ORGANIZER_TOKEN, SERVICE)
    with pytest.raises(Refused, match="^missing token: `arena login") as refused:
        admit(keeper, "ListBots", None, admin_pb2.ListBotsRequest())
    assert refused.value.code is grpc.StatusCode.UNAUTHENTICATED


@pytest.mark.parametrize("request_", [admin_pb2.FitRatingsRequest(apply=True),
                                      admin_pb2.GetGameRequest(game_id=1, as_bot="greedy")],
                         ids=["organizer field", "owned field"])
def test_a_reader_without_a_token_asking_for_more_is_told_to_log_in(
        tmp_path: Path, request_: Any) -> None:
    with Store.open(tmp_path / "arena.db") as store:
        keeper = Gatekeeper(ORGANIZER_TOKEN, SERVICE, store=store, public=True)
        method = type(request_).__name__.removesuffix("Request")
        with pytest.raises(Refused) as refused:
            admit(keeper, method, None, request_)
    assert refused.value.code is grpc.StatusCode.UNAUTHENTICATED
    assert str(refused.value) == ("this call needs a token: `arena login --server ADDR` "
                                  "(or --token)")


def test_a_call_naming_no_such_bot_is_left_for_the_call_to_answer(tmp_path: Path) -> None:
    with Store.open(tmp_path / "arena.db") as store:
        _, token = store.add_author("ann")
        keeper = Gatekeeper(ORGANIZER_TOKEN, SERVICE, store=store)
        caller = admit(keeper, "RemoveBot", token, admin_pb2.RemoveBotRequest(name="ghost"))
    assert caller is not None and caller.name == "ann"


class UnreachableStore:
    """A store that knew its one author, ann, before its database went out of reach."""

    def author_by_token(self, token: str) -> Author | None:
        """Ann, for her token."""
        return None if token != "ann-token" else Author(
            1, "ann", AuthorRole.AUTHOR, False, Quota(), datetime(2026, 1, 1, tzinfo=UTC), None)

    def bot_author(self, name: str) -> int | None:
        """No answer: the connection is lost."""
        raise ReconnectFailed("lost the connection to the database and could not read it "
                              "again within 5 s")


def test_an_owner_check_the_store_cannot_answer_fails_with_its_words() -> None:
    keeper = Gatekeeper(ORGANIZER_TOKEN, SERVICE, store=cast(Store, UnreachableStore()))
    with pytest.raises(Refused, match="^lost the connection to the database") as refused:
        admit(keeper, "RemoveBot", "ann-token", admin_pb2.RemoveBotRequest(name="greedy"))
    assert refused.value.code is grpc.StatusCode.FAILED_PRECONDITION


# ------------------------------------------------------- who holds a token, kept a while

@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[float]]:
    """The gatekeeper's clock, set by hand: `clock[0]` is `time.monotonic()`."""
    now = [1000.0]
    monkeypatch.setattr(permissions, "time", SimpleNamespace(monotonic=lambda: now[0]))
    yield now


def test_who_holds_a_token_is_asked_again_after_a_second(tmp_path: Path,
                                                         clock: list[float]) -> None:
    with Store.open(tmp_path / "arena.db") as store:
        _, ann = store.add_author("ann")
        _, bob = store.add_author("bob")
        keeper = Gatekeeper(ORGANIZER_TOKEN, SERVICE, store=store)
        names = [caller.name for token in (ann, bob)
                 if (caller := asyncio.run(keeper.caller(token))) is not None]
        store.remove_author("ann")
        clock[0] += 0.999
        names += [caller.name for token in (ann, bob)
                  if (caller := asyncio.run(keeper.caller(token))) is not None]
        clock[0] = 1001.0
        with pytest.raises(Refused, match="that token is not valid on this server"):
            asyncio.run(keeper.caller(ann))
    assert names == ["ann", "bob", "ann", "bob"]


class CountingStore:
    """A store in which every token is an author's, counting how often it is asked."""

    def __init__(self) -> None:
        self.asked = 0

    def author_by_token(self, token: str) -> Author:
        """A new author for `token`."""
        self.asked += 1
        return Author(self.asked, token, AuthorRole.AUTHOR, False, Quota(),
                      datetime(2026, 1, 1, tzinfo=UTC), None)


def test_the_gatekeeper_keeps_ten_thousand_token_holders_then_starts_afresh(
        clock: list[float]) -> None:
    store = CountingStore()
    keeper = Gatekeeper(ORGANIZER_TOKEN, SERVICE, store=cast(Store, store))

    async def ask(*tokens: str) -> int:
        before = store.asked
        for token in tokens:
            await keeper.caller(token)
        return store.asked - before

    async def scenario() -> list[int]:
        return [await ask(*(f"t{i}" for i in range(10_000))),
                await ask("t0", "t9999"), await ask("t10000"), await ask("t0", "t10000")]

    assert asyncio.run(scenario()) == [10_000, 0, 1, 1]

