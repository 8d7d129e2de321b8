"""A scripted stand-in for the arena server, for SDK tests.

`FakeArena` runs a grpc.aio BotService on 127.0.0.1 in a background thread.
Each connection checks the token, reads the Hello, then runs the test's
``script(conn)`` coroutine, which sends server messages and checks the bot's
answers. When the script returns, the stream ends with OK. An assertion that
fails inside a script is re-raised by `FakeArena.check`.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from grpc import aio

from arena.client import Card, Client, ExitReason
from arena.client.convert import card_to_proto
from arena.v1 import bot_pb2, bot_pb2_grpc, uno_pb2

TOKEN = "good-token"
BOT_NAME = "tester"

Script = Callable[["Conn"], Awaitable[None]]


@dataclass
class Conn:
    """One bot connection as the script sees it."""

    index: int
    context: Any
    metadata: dict[str, str]
    hello: bot_pb2.Hello | None = None
    received: list[bot_pb2.BotMessage] = field(default_factory=list)

    async def send(self, *messages: bot_pb2.ServerMessage) -> None:
        """Send server messages, in order."""
        for message in messages:
            await self.context.write(message)

    async def recv(self, timeout: float = 5.0) -> bot_pb2.BotMessage:
        """The bot's next message (fails the script after `timeout` seconds)."""
        message = await asyncio.wait_for(self.context.read(), timeout)
        assert isinstance(message, bot_pb2.BotMessage), "the bot closed its side of the stream"
        self.received.append(message)
        return message

    async def decision(self, timeout: float = 5.0) -> bot_pb2.Decision:
        """The bot's next message, which must be a Decision."""
        message = await self.recv(timeout)
        assert message.WhichOneof("kind") == "decision", message
        return message.decision

    async def ask(self, request: bot_pb2.DecisionRequest) -> bot_pb2.Decision:
        """Send a DecisionRequest and return the answer, checking its request id."""
        await self.send(bot_pb2.ServerMessage(decision_request=request))
        answer = await self.decision()
        assert answer.request_id == request.request_id
        return answer

    async def abort(self, code: grpc.StatusCode, details: str = "") -> None:
        """End the call with a gRPC status."""
        await self.context.abort(code, details)


class FakeArena:
    """A BotService on a free loopback port whose connections run `script`."""

    def __init__(self, script: Script, tokens: dict[str, str] | None = None) -> None:
        self.script = script
        self.tokens = {TOKEN: BOT_NAME} if tokens is None else tokens
        self.connections: list[Conn] = []
        self.rejected = 0
        self.errors: list[BaseException] = []
        self.scripts_done = 0
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: aio.Server | None = None

    @property
    def address(self) -> str:
        """host:port to give the client."""
        return f"127.0.0.1:{self.port}"

    def __enter__(self) -> FakeArena:
        self._thread.start()
        self.port = asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            asyncio.run_coroutine_threadsafe(self._server.stop(0), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    async def _start(self) -> int:
        self._server = aio.server()
        bot_pb2_grpc.add_BotServiceServicer_to_server(_Servicer(self), self._server)
        port = self._server.add_insecure_port("127.0.0.1:0")
        await self._server.start()
        return port

    def check(self) -> None:
        """Re-raise the first failure of a script."""
        if self.errors:
            raise self.errors[0]

    def wait_for(self, condition: Callable[[], bool], timeout: float = 10.0) -> None:
        """Wait until `condition()` holds, failing after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while not condition():
            self.check()
            assert time.monotonic() < deadline, "timed out waiting for the fake arena"
            time.sleep(0.01)
        self.check()


class _Servicer(bot_pb2_grpc.BotServiceServicer):
    def __init__(self, arena: FakeArena) -> None:
        self.arena = arena

    async def Connect(self, request_iterator: Any, context: Any) -> None:  # type: ignore[override]  # noqa: N802
        arena = self.arena
        metadata = {k: v for k, v in context.invocation_metadata()}
        token = metadata.get("authorization", "").removeprefix("Bearer ")
        if token not in arena.tokens:
            arena.rejected += 1
            # Like the real server, read the Hello first: a client still writing it
            # when the call ends may see INTERNAL instead (grpc/grpc#36066).
            await context.read()
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown token")
        conn = Conn(len(arena.connections), context, metadata)
        arena.connections.append(conn)
        try:
            first = await conn.recv()
            assert first.WhichOneof("kind") == "hello", first
            conn.hello = first.hello
            await conn.send(bot_pb2.ServerMessage(welcome=bot_pb2.Welcome(
                bot_name=arena.tokens[token], server_version="fake", max_tables=4)))
            await arena.script(conn)
            arena.scripts_done += 1
        except aio.AbortError:
            raise
        except Exception as error:
            arena.errors.append(error)
            raise


# ------------------------------------------------------------ message builders

def pb_card(short: str) -> uno_pb2.Card:
    """A protocol card from its short notation."""
    return card_to_proto(Card.parse(short))


def pb_cards(text: str) -> list[uno_pb2.Card]:
    """Protocol cards from space-separated short notation."""
    return [pb_card(part) for part in text.split()]


def color(name: str) -> uno_pb2.Color:
    """A protocol colour by name: "red" -> COLOR_RED."""
    value: uno_pb2.Color = getattr(uno_pb2, f"COLOR_{name.upper()}")
    return value


def play(short: str, as_color: str | None = None, *, uno: bool = False,
         target: int | None = None) -> uno_pb2.Action:
    """A PLAY action."""
    action = uno_pb2.Action(kind=uno_pb2.ACTION_KIND_PLAY, card=pb_card(short), uno=uno)
    if as_color:
        action.color = color(as_color)
    if target is not None:
        action.target = target
    return action


def simple(kind: str, target: int | None = None, as_color: str | None = None) -> uno_pb2.Action:
    """A non-PLAY action by kind name: simple("draw"), simple("catch", target=2)."""
    action = uno_pb2.Action(kind=getattr(uno_pb2, f"ACTION_KIND_{kind.upper()}"))
    if target is not None:
        action.target = target
    if as_color:
        action.color = color(as_color)
    return action


def game_start(game_id: str, seat: int, names: Sequence[str],
               **rules: Any) -> bot_pb2.ServerMessage:
    """A GameStart with the official rules (changed by `rules`)."""
    rule_set = uno_pb2.RuleSet(deck="classic", hand_size=7, uno_penalty=2, scoring="standard",
                               target_score=500, **rules)
    return bot_pb2.ServerMessage(game_start=bot_pb2.GameStart(
        game_id=game_id, seat=seat, rules=rule_set, decision_timeout_ms=1000,
        players=[bot_pb2.Player(seat=i, name=n) for i, n in enumerate(names)],
    ))


def events(game_id: str, *items: uno_pb2.Event) -> bot_pb2.ServerMessage:
    """A GameEvents message."""
    return bot_pb2.ServerMessage(events=bot_pb2.GameEvents(game_id=game_id, events=items))


def request(request_id: str, game_id: str, seat: int, hand: str, top: str,
            legal: Iterable[uno_pb2.Action], *, phase: str = "play",
            hand_sizes: Sequence[int] | None = None, active: str | None = None,
            **view: Any) -> bot_pb2.DecisionRequest:
    """A DecisionRequest for `seat` holding `hand` with `top` on the discard pile."""
    cards_in_hand = pb_cards(hand)
    top_card = pb_card(top)
    sizes = list(hand_sizes) if hand_sizes is not None else [len(cards_in_hand)] * 2
    fields: dict[str, Any] = dict(
        seat=seat, num_players=len(sizes), phase=getattr(uno_pb2, f"PHASE_{phase.upper()}"),
        decider=seat, turn=seat, hand=cards_in_hand, hand_sizes=sizes, top_card=top_card,
        active_color=color(active) if active else top_card.color, direction=1,
        active_seats=list(range(len(sizes))), scores=[0] * len(sizes),
        discard_pile=[top_card],
    )
    seat_view = uno_pb2.SeatView(**{**fields, **view})
    return bot_pb2.DecisionRequest(request_id=request_id, game_id=game_id, view=seat_view,
                                   legal_actions=list(legal), time_left_ms=1000)


def game_end(game_id: str, scores: Sequence[int],
             reason: str = "single_hand") -> bot_pb2.ServerMessage:
    """A GameEnd where the seat with the highest score won."""
    best = max(scores)
    outcome = uno_pb2.Outcome(
        termination=reason, scores=scores,
        ranks=[0 if s == best else 1 for s in scores],
        winners=[i for i, s in enumerate(scores) if s == best], hands_played=1,
        seat_terminations=[uno_pb2.SEAT_TERMINATION_NORMAL] * len(scores),
    )
    return bot_pb2.ServerMessage(game_end=bot_pb2.GameEnd(game_id=game_id, outcome=outcome,
                                                          reason=reason))


# ------------------------------------------------------------------- running

class ClientThread:
    """Runs `client.run()` in a thread; `result()` stops it if needed and returns why it ended."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.reason: ExitReason | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        self.reason = self.client.run()

    def join(self, timeout: float = 10.0) -> ExitReason | None:
        """Wait for `run` to return on its own; None if it is still running."""
        self.thread.join(timeout)
        return self.reason

    def result(self, timeout: float = 10.0) -> ExitReason:
        """Stop the client and return why `run` ended."""
        if self.thread.is_alive():
            self.client.stop()
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the client did not stop"
        assert self.reason is not None
        return self.reason
