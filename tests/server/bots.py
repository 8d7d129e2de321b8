"""Small in-test bot clients that speak the raw protocol over grpc.aio (no SDK)."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import grpc

from arena.v1 import bot_pb2, bot_pb2_grpc, uno_pb2

Strategy = Callable[["TestBot", bot_pb2.DecisionRequest], Awaitable[bot_pb2.Decision | None]]
"""Answers a request (None: send nothing)."""


async def first_legal(bot: TestBot, request: bot_pb2.DecisionRequest) -> bot_pb2.Decision:
    """Always the first legal action."""
    return bot_pb2.Decision(request_id=request.request_id, action_index=0)


def random_legal(seed: int = 0, *, as_action: bool = False) -> Strategy:
    """A uniformly random legal action, from a seeded generator, sent as its index — or,
    with `as_action`, echoed back as the full Action."""
    rng = random.Random(seed)

    async def decide(bot: TestBot, request: bot_pb2.DecisionRequest) -> bot_pb2.Decision:
        index = rng.randrange(len(request.legal_actions))
        if as_action:
            return bot_pb2.Decision(request_id=request.request_id,
                                    action=request.legal_actions[index])
        return bot_pb2.Decision(request_id=request.request_id, action_index=index)

    return decide


async def out_of_range(bot: TestBot, request: bot_pb2.DecisionRequest) -> bot_pb2.Decision:
    """An index past the end of the legal actions."""
    return bot_pb2.Decision(request_id=request.request_id,
                            action_index=len(request.legal_actions) + 5)


async def unlisted_action(bot: TestBot, request: bot_pb2.DecisionRequest) -> bot_pb2.Decision:
    """A well-formed action that is never legal (catching seat 99)."""
    action = uno_pb2.Action(kind=uno_pb2.ACTION_KIND_CATCH, target=99)
    return bot_pb2.Decision(request_id=request.request_id, action=action)


async def never_answer(bot: TestBot, request: bot_pb2.DecisionRequest) -> None:
    """Hang: read the request and say nothing."""
    return None


async def quitter(bot: TestBot, request: bot_pb2.DecisionRequest) -> None:
    """Hang up at the first request, without answering it."""
    asyncio.get_running_loop().call_soon(lambda: asyncio.ensure_future(bot.close()))


@dataclass
class GameLog:
    """What one bot saw of one game."""

    start: bot_pb2.GameStart | None = None
    starts: int = 0
    events: list[uno_pb2.Event] = field(default_factory=list)
    requests: list[bot_pb2.DecisionRequest] = field(default_factory=list)
    end: bot_pb2.GameEnd | None = None


class TestBot:
    """A bot client: connects with a token, says Hello, answers requests with `strategy`."""

    __test__ = False

    def __init__(self, port: int, token: str | None, strategy: Strategy = first_legal, *,
                 max_tables: int = 1, auto_single_action: bool = False,
                 events_in_requests: bool = False,
                 first: bot_pb2.BotMessage | None = None) -> None:
        self.port = port
        self.token = token
        self.strategy = strategy
        self.hello_message = bot_pb2.Hello(bot_version="test/1", max_tables=max_tables,
                                           auto_single_action=auto_single_action,
                                           events_in_requests=events_in_requests)
        self.first = first or bot_pb2.BotMessage(hello=self.hello_message)
        self.welcome: bot_pb2.Welcome | None = None
        self.games: dict[str, GameLog] = {}
        self.errors: list[bot_pb2.Error] = []
        self.messages: list[bot_pb2.ServerMessage] = []
        self.status: grpc.StatusCode | None = None
        self.details = ""
        self.welcomed = asyncio.Event()
        self.ended = asyncio.Event()
        self.on_message: Callable[[TestBot, bot_pb2.ServerMessage], None] | None = None
        self._channel: grpc.aio.Channel | None = None
        self._call: Any = None
        self._task: asyncio.Task[None] | None = None

    # -------------------------------------------------------------- running

    async def start(self) -> TestBot:
        """Connect and start answering in the background; returns once welcomed (or ended)."""
        self._channel = grpc.aio.insecure_channel(f"127.0.0.1:{self.port}")
        stub = bot_pb2_grpc.BotServiceStub(self._channel)
        metadata = () if self.token is None else (("authorization", f"Bearer {self.token}"),)
        self._call = stub.Connect(None, metadata=metadata)
        self._task = asyncio.create_task(self._run())
        with contextlib.suppress(grpc.aio.AioRpcError):  # ended already: _run records how
            await self.send(self.first)
        waiter = asyncio.create_task(self.welcomed.wait())
        ender = asyncio.create_task(self.ended.wait())
        await asyncio.wait({waiter, ender}, return_when=asyncio.FIRST_COMPLETED, timeout=10)
        waiter.cancel()
        ender.cancel()
        return self

    async def send(self, message: bot_pb2.BotMessage) -> None:
        """Write one message on the stream."""
        await self._call.write(message)

    async def _run(self) -> None:
        try:
            async for message in self._call:
                self.messages.append(message)
                await self._handle(message)
            self.status = grpc.StatusCode.OK
        except grpc.aio.AioRpcError as exc:
            self.status = exc.code()
            self.details = exc.details() or ""
        except asyncio.CancelledError:
            self.status = grpc.StatusCode.CANCELLED
        finally:
            self.ended.set()

    async def _handle(self, message: bot_pb2.ServerMessage) -> None:
        if self.on_message is not None:
            self.on_message(self, message)
        kind = message.WhichOneof("kind")
        if kind == "welcome":
            self.welcome = message.welcome
            self.welcomed.set()
        elif kind == "game_start":
            log = self.games.setdefault(message.game_start.game_id, GameLog())
            log.start = message.game_start
            log.starts += 1
        elif kind == "events":
            self.games[message.events.game_id].events.extend(message.events.events)
        elif kind == "decision_request":
            request = message.decision_request
            log = self.games[request.game_id]
            log.events.extend(request.events)
            log.requests.append(request)
            decision = await self.strategy(self, request)
            if decision is not None:
                await self.send(bot_pb2.BotMessage(decision=decision))
        elif kind == "game_end":
            self.games[message.game_end.game_id].end = message.game_end
        elif kind == "error":
            self.errors.append(message.error)

    async def close(self) -> None:
        """Hang up (cancel the call and close the channel)."""
        if self._call is not None:
            self._call.cancel()
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)
        if self._channel is not None:
            await self._channel.close(None)

    async def wait_game_end(self, game_id: str, timeout: float = 5.0) -> bot_pb2.GameEnd:
        """Wait until the GameEnd of a game has arrived."""
        async with asyncio.timeout(timeout):
            while (log := self.games.get(game_id)) is None or log.end is None:
                await asyncio.sleep(0.002)
        return log.end

    async def wait_ended(self, timeout: float = 5.0) -> None:
        """Wait until the server ended the call."""
        await asyncio.wait_for(self.ended.wait(), timeout)

    def error_codes(self) -> list[int]:
        """The codes of the in-band errors received, in order."""
        return [e.code for e in self.errors]
