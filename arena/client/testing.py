"""A scripted fake arena server, for testing a bot written with the SDK.

A bot's tests should exercise the code that runs in a real match: the SDK's
connection, its conversions and the bot's hooks. `FakeArena` is a real gRPC
BotService on a free 127.0.0.1 port; the bot connects to it with its ordinary
`Client` and cannot tell it from the arena server. Instead of refereeing a
game, the fake follows a script: it sends the GameStart, events and decision
requests the test wrote, and records every answer (`Answer`).

The shortest way in is `ask_bot`: give it the bot and the messages, get back
its answers::

    from arena.client.testing import ask_bot, game_start, play, request, simple

    answers = ask_bot(MyBot(), [
        game_start("g1", seat=0, names=["me", "them"]),
        request("r1", "g1", 0, hand="R5 B7", top="R2", legal=[play("R5"), simple("draw")]),
    ])
    assert answers[0].action == Action(ActionKind.PLAY, card=Card.parse("R5"))

For anything that needs the server's side of the conversation step by step
(reconnects, in-band errors, several games at once), write a coroutine
``script(conn)`` and pass it to `run_script`, or drive `FakeArena` and
`ClientThread` yourself. To play whole games against a referee instead, see
`arena.testing.play_offline`, which needs arena's engine.

This module imports only the SDK and the generated protocol code, like the
rest of `arena.client`: a bot's tests run wherever the bot runs.
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

from arena.client.bot import Bot, DecideFn, as_bot
from arena.client.connection import Backoff, Client, ExitReason
from arena.client.convert import action_from_proto, card_to_proto
from arena.client.model import Action, Card
from arena.client.view import View
from arena.v1 import bot_pb2, bot_pb2_grpc, uno_pb2

__all__ = [
    "BOT_NAME",
    "FAST_BACKOFF",
    "TOKEN",
    "Answer",
    "ClientThread",
    "Conn",
    "FakeArena",
    "Script",
    "ScriptRun",
    "ask_bot",
    "color",
    "events",
    "first_legal",
    "game_end",
    "game_start",
    "pb_card",
    "pb_cards",
    "play",
    "request",
    "run_script",
    "simple",
]

TOKEN = "good-token"
"""The token a `FakeArena` accepts unless it is given others."""
BOT_NAME = "tester"
"""The name a `FakeArena` welcomes the holder of `TOKEN` by."""
FAST_BACKOFF = Backoff(initial=0.02, maximum=0.1)
"""Reconnection delays short enough for tests."""

Script = Callable[["Conn"], Awaitable[None]]
"""What a fake connection does after the Welcome: ``async def script(conn)``."""


def first_legal(view: View, legal: list[Action]) -> int:
    """A decide function that always answers the first legal action."""
    return 0


# ------------------------------------------------------------------ answers

@dataclass(frozen=True)
class Answer:
    """One decision request the fake sent and the bot's answer to it."""

    request: bot_pb2.DecisionRequest
    decision: bot_pb2.Decision

    @property
    def index(self) -> int | None:
        """The index in the request's legal actions the answer names; None if it names none."""
        legal = self.request.legal_actions
        choice = self.decision.WhichOneof("choice")
        if choice == "action_index":
            index = self.decision.action_index
            return index if 0 <= index < len(legal) else None
        if choice == "action":
            for index, action in enumerate(legal):
                if action == self.decision.action:
                    return index
        return None

    @property
    def is_legal(self) -> bool:
        """Whether the answer carries the request's id and names one of its legal actions."""
        return self.decision.request_id == self.request.request_id and self.index is not None

    @property
    def chosen(self) -> uno_pb2.Action | None:
        """The legal action answered, as the protocol message; None if the answer is illegal."""
        index = self.index
        return None if index is None else self.request.legal_actions[index]

    @property
    def action(self) -> Action | None:
        """The legal action answered, as an SDK `Action`; None if the answer is illegal."""
        chosen = self.chosen
        return None if chosen is None else action_from_proto(chosen)


# -------------------------------------------------------------- the server

@dataclass
class Conn:
    """One bot connection as a script sees it: send server messages, read the bot's answers."""

    index: int
    """0 for the first connection, 1 after the first reconnect, …"""
    context: Any
    """The grpc.aio servicer context of the call."""
    metadata: dict[str, str]
    """The call's metadata (``authorization`` carries the token)."""
    hello: bot_pb2.Hello | None = None
    """The bot's Hello."""
    welcomed: bool = False
    """Whether the Welcome has been sent (the bot is then reading the stream)."""
    received: list[bot_pb2.BotMessage] = field(default_factory=list)
    """Every message the bot sent on this connection, in order."""
    answers: list[Answer] = field(default_factory=list)
    """Every decision the bot sent on this connection, with the request it answers."""
    _asked: dict[str, bot_pb2.DecisionRequest] = field(default_factory=dict, repr=False)

    async def send(self, *messages: bot_pb2.ServerMessage) -> None:
        """Send server messages, in order."""
        for message in messages:
            if message.WhichOneof("kind") == "decision_request":
                self._asked[message.decision_request.request_id] = message.decision_request
            await self.context.write(message)

    async def recv(self, timeout: float = 5.0) -> bot_pb2.BotMessage:
        """The bot's next message (fails the script after `timeout` seconds)."""
        async with asyncio.timeout(timeout):
            message = await self.context.read()
        assert isinstance(message, bot_pb2.BotMessage), "the bot closed its side of the stream"
        self.received.append(message)
        if message.WhichOneof("kind") == "decision":
            asked = self._asked.get(message.decision.request_id)
            if asked is not None:
                self.answers.append(Answer(asked, message.decision))
        return message

    async def decision(self, timeout: float = 5.0) -> bot_pb2.Decision:
        """The bot's next message, which must be a Decision."""
        message = await self.recv(timeout)
        assert message.WhichOneof("kind") == "decision", message
        return message.decision

    async def ask(self, request: bot_pb2.DecisionRequest,
                  timeout: float = 5.0) -> bot_pb2.Decision:
        """Send a DecisionRequest and return the answer, checking its request id."""
        await self.send(bot_pb2.ServerMessage(decision_request=request))
        answer = await self.decision(timeout)
        assert answer.request_id == request.request_id, (answer, request.request_id)
        return answer

    async def abort(self, code: grpc.StatusCode, details: str = "") -> None:
        """End the call with a gRPC status (UNAVAILABLE makes the bot reconnect)."""
        await self.context.abort(code, details)

    async def wait_closed(self) -> None:
        """Keep the stream open, ignoring what the bot sends, until the bot hangs up."""
        while isinstance(await self.context.read(), bot_pb2.BotMessage):
            pass


class FakeArena:
    """A BotService on a free loopback port whose connections run `script`.

    Use it as a context manager; connect a `Client` to `address` with one of
    `tokens` (token -> the bot name in the Welcome; `TOKEN` by default). Each
    connection checks the token (a wrong one ends the call UNAUTHENTICATED, as
    the arena does), reads the Hello, sends a Welcome, then runs
    ``script(conn)``; when the script returns, the stream ends with OK. With
    `once`, connections made after a script has finished are welcomed and held
    open without running the script again. A failure inside a script is kept
    and re-raised by `check` (and by `wait_for`).
    """

    def __init__(self, script: Script, tokens: dict[str, str] | None = None, *,
                 once: bool = False) -> None:
        self.script = script
        self.tokens = {TOKEN: BOT_NAME} if tokens is None else tokens
        self.once = once
        self.connections: list[Conn] = []
        """Every connection welcomed so far, in order."""
        self.rejected = 0
        """How many calls were refused for their token."""
        self.errors: list[BaseException] = []
        """Failures raised inside scripts."""
        self.finished: list[int] = []
        """The indices of the connections whose script returned."""
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True,
                                        name="fake-arena")
        self._server: aio.Server | None = None

    @property
    def address(self) -> str:
        """host:port to give the client."""
        return f"127.0.0.1:{self.port}"

    @property
    def scripts_done(self) -> int:
        """How many scripts have returned."""
        return len(self.finished)

    @property
    def settled(self) -> bool:
        """True once the bot has been welcomed again after a script returned: it has read
        (and handled) everything that script sent, up to the end of its stream, and is
        reading its new stream."""
        return bool(self.finished) and any(
            conn.welcomed for conn in self.connections[self.finished[0] + 1:])

    @property
    def answers(self) -> list[Answer]:
        """Every answer on every connection, in connection order."""
        return [answer for conn in self.connections for answer in conn.answers]

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
        idle = arena.once and bool(arena.finished)
        try:
            first = await conn.recv()
            assert first.WhichOneof("kind") == "hello", first
            conn.hello = first.hello
            await conn.send(bot_pb2.ServerMessage(welcome=bot_pb2.Welcome(
                bot_name=arena.tokens[token], server_version="fake", max_tables=4)))
            conn.welcomed = True
            if idle:
                await conn.wait_closed()
                return
            await arena.script(conn)
            arena.finished.append(conn.index)
        except aio.AbortError:
            raise
        except Exception as error:
            if not idle:  # an idle connection may be cut at any point when the bot stops
                arena.errors.append(error)
            raise


# ------------------------------------------------------------------- running

class ClientThread:
    """Runs `client.run()` in a thread; `result()` stops it if needed and returns why it ended."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.reason: ExitReason | None = None
        self.thread = threading.Thread(target=self._run, daemon=True, name="bot-client")
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


@dataclass(frozen=True)
class ScriptRun:
    """What `run_script` saw: the fake server, the bot's client and why it stopped."""

    arena: FakeArena
    client: Client
    reason: ExitReason

    @property
    def answers(self) -> list[Answer]:
        """Every answer the bot gave, in order."""
        return self.arena.answers


def run_script(bot: Bot | DecideFn, script: Script, *,
               until: Callable[[FakeArena], bool] | None = None, timeout: float = 10.0,
               **client_options: Any) -> ScriptRun:
    """Connect `bot` to a `FakeArena` running `script`, stop it when done, return what happened.

    By default the run is done once the script has returned and the bot has
    handled everything it sent (`FakeArena.settled`): hooks such as
    `on_game_end` have run by then. The script runs once; later connections are
    only held open. Pass `until` to decide yourself (the script then runs on
    every connection, so that a test can drop one and see the bot come back).
    `client_options` go to `Client` (``max_tables``, ``events_in_requests``, …).
    A failure inside the script is raised here.
    """
    client_options.setdefault("backoff", FAST_BACKOFF)
    client_options.setdefault("token", TOKEN)
    arena = FakeArena(script, once=until is None)
    done = until or (lambda fake: fake.settled)
    with arena:
        client = Client(as_bot(bot), server=arena.address, **client_options)
        runner = ClientThread(client)
        try:
            arena.wait_for(lambda: done(arena), timeout)
        finally:
            # A script that the stop cuts short fails after the run was done: not counted.
            failures = list(arena.errors)
            reason = runner.result()
    if failures:
        raise failures[0]
    return ScriptRun(arena, client, reason)


def ask_bot(bot: Bot | DecideFn,
            messages: Iterable[bot_pb2.ServerMessage | bot_pb2.DecisionRequest], *,
            timeout: float = 10.0, **client_options: Any) -> list[Answer]:
    """Send `messages` to `bot`, in order, and return its answers to the decision requests.

    Each DecisionRequest (bare or in a ServerMessage) waits for the bot's
    answer before the next message goes out; the run ends after the bot has
    handled the last message. `client_options` go to `Client`.
    """
    script_messages = [bot_pb2.ServerMessage(decision_request=m)
                       if isinstance(m, bot_pb2.DecisionRequest) else m for m in messages]

    async def script(conn: Conn) -> None:
        for message in script_messages:
            if message.WhichOneof("kind") == "decision_request":
                await conn.ask(message.decision_request)
            else:
                await conn.send(message)

    return run_script(bot, script, timeout=timeout, **client_options).answers


# ------------------------------------------------------------ message builders

def pb_card(short: str) -> uno_pb2.Card:
    """A protocol card from its short notation ("R5", "W+4")."""
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
    """A PLAY action: ``play("W", "red")``, ``play("R5", uno=True)``, ``play("R7", target=2)``."""
    action = uno_pb2.Action(kind=uno_pb2.ACTION_KIND_PLAY, card=pb_card(short), uno=uno)
    if as_color:
        action.color = color(as_color)
    if target is not None:
        action.target = target
    return action


def simple(kind: str, target: int | None = None, as_color: str | None = None) -> uno_pb2.Action:
    """A non-PLAY action by kind name: ``simple("draw")``, ``simple("catch", target=2)``,
    ``simple("choose_color", as_color="blue")``."""
    action = uno_pb2.Action(kind=getattr(uno_pb2, f"ACTION_KIND_{kind.upper()}"))
    if target is not None:
        action.target = target
    if as_color:
        action.color = color(as_color)
    return action


def game_start(game_id: str, seat: int, names: Sequence[str], *, bot_seed: int | None = None,
               **rules: Any) -> bot_pb2.ServerMessage:
    """A GameStart for `seat` among `names` with the official rules (changed by `rules`),
    carrying `bot_seed` unless it is None."""
    rule_set = uno_pb2.RuleSet(deck="classic", hand_size=7, uno_penalty=2, scoring="standard",
                               target_score=500, **rules)
    start = bot_pb2.GameStart(
        game_id=game_id, seat=seat, rules=rule_set, decision_timeout_ms=1000,
        players=[bot_pb2.Player(seat=i, name=n) for i, n in enumerate(names)],
    )
    if bot_seed is not None:
        start.bot_seed = bot_seed
    return bot_pb2.ServerMessage(game_start=start)


def events(game_id: str, *items: uno_pb2.Event) -> bot_pb2.ServerMessage:
    """A GameEvents message."""
    return bot_pb2.ServerMessage(events=bot_pb2.GameEvents(game_id=game_id, events=items))


def request(request_id: str, game_id: str, seat: int, hand: str, top: str,
            legal: Iterable[uno_pb2.Action], *, phase: str = "play",
            hand_sizes: Sequence[int] | None = None, active: str | None = None,
            **view: Any) -> bot_pb2.DecisionRequest:
    """A DecisionRequest for `seat` holding `hand` with `top` on the discard pile.

    The active colour is the top card's unless `active` names one; there are
    two seats holding as many cards as `hand` unless `hand_sizes` says
    otherwise; any other SeatView field can be set by name (``pending_draw=4``).
    """
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
    """A GameEnd where the seats with the highest score won."""
    best = max(scores)
    outcome = uno_pb2.Outcome(
        termination=reason, scores=scores,
        ranks=[0 if s == best else 1 for s in scores],
        winners=[i for i, s in enumerate(scores) if s == best], hands_played=1,
        seat_terminations=[uno_pb2.SEAT_TERMINATION_NORMAL] * len(scores),
    )
    return bot_pb2.ServerMessage(game_end=bot_pb2.GameEnd(game_id=game_id, outcome=outcome,
                                                          reason=reason))
