"""One bot connection: its outgoing messages, its open decision requests, its table slots.

A `BotConnection` is the server's end of one `BotService.Connect` stream, in
the spirit of python-chess's engine protocol: it is asked for a decision with a
time limit (`ask`) and gives back a future that settles with the bot's
`Decision` or with a `NoReply` reason. Tables reach it only through a seat
proxy (`arena.server.seat.ConnectionSeat`), which takes one of its slots while
it plays. Messages to the bot go through an outbox drained by one writer task,
so no table ever waits on a slow reader; a bot that stops reading altogether
has its connection closed once the outbox overflows: more than `max_outbox`
messages, or more than `max_outbox_bytes` bytes, waiting to be written.

Nothing a bot sends is echoed back unbounded: a decision's `request_id` longer
than `MAX_REQUEST_ID_BYTES` is refused as `MALFORMED` without being repeated, and
client text quoted in an error is cut to `MAX_ECHO` characters (`clip`).
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from dataclasses import dataclass
from enum import Enum
from typing import Any

import grpc
from google.protobuf.message import DecodeError
from grpc.aio import EOF  # type: ignore[attr-defined]

from arena import wire
from arena.server.message_size import MessageTooLarge
from arena.v1 import bot_pb2


class NoReply(Enum):
    """Why a decision request settled without an answer."""

    TIMEOUT = "timeout"
    """The deadline (with any time bank) passed."""
    CLOSED = "closed"
    """The connection closed before an answer came."""
    WITHDRAWN = "withdrawn"
    """The table no longer needs the answer (it is being aborted)."""


Reply = bot_pb2.Decision | NoReply
"""What a decision request settles with."""

Outgoing = bot_pb2.ServerMessage | bytes
"""A message to a bot: a `ServerMessage`, or one already serialized."""

MAX_OUTBOX = 10_000
"""The most messages a connection's outbox holds by default before it is closed."""

MAX_OUTBOX_BYTES = 8 * 1024 * 1024
"""The most bytes a connection's outbox holds by default before it is closed (8 MiB)."""

MAX_REQUEST_ID_BYTES = 64
"""The longest request id a `Decision` may carry, in UTF-8 bytes. The server's own
ids (`next_request_id`) are far shorter; a longer one is answered `MALFORMED`."""

MAX_ECHO = 64
"""The most characters of client-provided text quoted in an error message."""


class ConnectionStatus(Enum):
    """Where a connection is in its life; `BotConnection.transition` checks each move."""

    OPEN = "open"
    """Serving: tables may use it."""
    DRAINING = "draining"
    """Ending gracefully: queued messages are still written, nothing new is accepted."""
    CLOSED = "closed"
    """Ended: every open request has settled with `NoReply.CLOSED`."""


_ALLOWED = {
    ConnectionStatus.OPEN: {ConnectionStatus.DRAINING, ConnectionStatus.CLOSED},
    ConnectionStatus.DRAINING: {ConnectionStatus.CLOSED},
    ConnectionStatus.CLOSED: set(),
}


class CloseReason(Enum):
    """Why a connection ended."""

    DISCONNECTED = "disconnected"
    """The bot ended the stream, or the stream broke."""
    MALFORMED = "malformed"
    """The bot sent bytes that are not a `BotMessage`."""
    OVERFLOW = "overflow"
    """The bot stopped reading and its outbox overflowed (too many messages or bytes)."""
    TOO_LARGE = "too large"
    """The bot sent a message over its size limit."""
    SERVER = "server"
    """The server ended the connection (shutting down)."""


class ConnectionStateError(RuntimeError):
    """A connection was asked to move to a status it cannot reach from where it is."""


@dataclass(eq=False, slots=True)
class PendingDecision:
    """A decision request sent to the bot and not yet settled."""

    request_id: str
    future: asyncio.Future[Reply]
    timer: asyncio.TimerHandle | None = None


MAX_BOT_VERSION = 200
"""The longest `bot_version` kept from a Hello, in characters."""


@dataclass(frozen=True, slots=True)
class BotHello:
    """What a bot said about itself in its `Hello`."""

    bot_version: str = ""
    max_tables: int = 1
    auto_single_action: bool = False
    events_in_requests: bool = False

    @classmethod
    def from_proto(cls, hello: bot_pb2.Hello) -> BotHello:
        """Read a Hello message (`max_tables` 0 means 1; `bot_version` is cut to
        `MAX_BOT_VERSION` characters)."""
        return cls(hello.bot_version[:MAX_BOT_VERSION], max(1, hello.max_tables),
                   hello.auto_single_action, hello.events_in_requests)


class Outbox:
    """The messages waiting for a connection's writer (None: stop), first in first out.

    `asyncio.Queue` with only what the writer needs: one consumer, no bound, no
    task accounting, so a message costs a deque append and, when the writer
    waits, one future.
    """

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: deque[bytes | None] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def qsize(self) -> int:
        """How many messages wait."""
        return len(self._items)

    def empty(self) -> bool:
        """True when no message waits."""
        return not self._items

    def put_nowait(self, item: bytes | None) -> None:
        """Queue `item` and wake the writer if it waits."""
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def get_nowait(self) -> bytes | None:
        """The first message; raises `IndexError` when none waits."""
        return self._items.popleft()

    async def get(self) -> bytes | None:
        """The first message, once there is one."""
        while not self._items:
            waiter = self._waiter = asyncio.get_running_loop().create_future()
            await waiter
        return self._items.popleft()


WRITE_GRACE = 1.0
"""Seconds a write in progress may take to finish once a connection closes."""

_CONNECTION_IDS = itertools.count(1)
_REQUEST_IDS = itertools.count(1)


class BotConnection:
    """The server side of one bot's stream.

    Created once the bot has authenticated and said Hello. A seat played over
    it takes a slot (`take_slot`, at most `hello.max_tables`, reserved through
    the lobby) and frees it when it is done (`free_slot`); it sends messages with
    `send` and asks for decisions with `ask`. `serve` pumps the stream until it
    ends. Its outbox holds at most `max_outbox` messages and `max_outbox_bytes`
    bytes (serialized, counted when queued and released once written); a message
    that would pass either bound closes the connection as `OVERFLOW` instead.
    """

    def __init__(self, bot_name: str, hello: BotHello, peer: str = "",
                 max_outbox: int = MAX_OUTBOX,
                 max_outbox_bytes: int = MAX_OUTBOX_BYTES) -> None:
        self.bot_name = bot_name
        self.hello = hello
        self.peer = peer
        self.max_outbox = max_outbox
        self.max_outbox_bytes = max_outbox_bytes
        self.connection_id = f"c{next(_CONNECTION_IDS)}"
        self.status = ConnectionStatus.OPEN
        self.close_reason: CloseReason | None = None
        self._slots: dict[str, None] = {}  # game ids, in the order they were taken
        self._pending: dict[str, PendingDecision] = {}
        self._outbox = Outbox()
        self._outbox_bytes = 0
        self._reader: asyncio.Task[None] | None = None
        self.write_abandoned = False

    def __repr__(self) -> str:
        return f"<BotConnection {self.connection_id} {self.bot_name} {self.status.value}>"

    # ------------------------------------------------------------ life cycle

    @property
    def is_open(self) -> bool:
        """True while tables may use this connection."""
        return self.status is ConnectionStatus.OPEN

    @property
    def outbox_bytes(self) -> int:
        """The bytes queued for the bot and not yet written."""
        return self._outbox_bytes

    @property
    def tables(self) -> tuple[str, ...]:
        """The games this connection holds a table slot in."""
        return tuple(self._slots)

    @property
    def free_slots(self) -> int:
        """How many more tables this connection may play at once."""
        return max(0, self.hello.max_tables - len(self._slots)) if self.is_open else 0

    def take_slot(self, game_id: str) -> None:
        """Hold a table slot for game `game_id` (one the lobby reserved: see `Lobby.claim`)."""
        self._slots[game_id] = None

    def free_slot(self, game_id: str) -> None:
        """Give back the slot held for game `game_id`, if any."""
        self._slots.pop(game_id, None)

    def transition(self, status: ConnectionStatus) -> None:
        """Move to `status`, raising `ConnectionStateError` for a move that is not allowed."""
        if status not in _ALLOWED[self.status]:
            raise ConnectionStateError(
                f"{self.connection_id}: {self.status.value} -> {status.value}")
        self.status = status

    def close(self, reason: CloseReason = CloseReason.DISCONNECTED) -> None:
        """End the connection now: open requests settle with `NoReply.CLOSED`, what is
        queued is dropped, the pumps stop."""
        if self.status is ConnectionStatus.CLOSED:
            return
        self.transition(ConnectionStatus.CLOSED)
        self.close_reason = reason
        for request_id in list(self._pending):
            self.settle(request_id, NoReply.CLOSED)
        while not self._outbox.empty():  # a write in progress keeps its own bytes
            dropped = self._outbox.get_nowait()
            self._outbox_bytes -= 0 if dropped is None else len(dropped)
        self._outbox.put_nowait(None)  # wakes the writer, which stops
        if self._reader is not None:
            self._reader.cancel()

    def finish(self) -> None:
        """End the connection gracefully: what is queued is still written, then it closes."""
        if self.is_open:
            self.transition(ConnectionStatus.DRAINING)
            self.close_reason = CloseReason.SERVER
            for request_id in list(self._pending):
                self.settle(request_id, NoReply.CLOSED)
            self._outbox.put_nowait(None)

    # -------------------------------------------------------------- pumping

    async def serve(self, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        """Pump the stream until it or this connection ends; the connection is closed after.

        A write in progress is given `WRITE_GRACE` seconds to finish, since the
        call cannot end cleanly while one is pending; `write_abandoned` says
        whether one had to be cancelled.
        """
        reader = self._reader = asyncio.create_task(self._read_loop(context))
        writer = asyncio.create_task(self._write_loop(context))
        try:
            await asyncio.wait((reader, writer), return_when=asyncio.FIRST_COMPLETED)
        finally:
            self.close(self.close_reason or CloseReason.DISCONNECTED)
            done, _ = await asyncio.wait((writer,), timeout=WRITE_GRACE)
            self.write_abandoned = not done
            writer.cancel()
            await asyncio.gather(reader, writer, return_exceptions=True)

    async def _read_loop(self, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        while True:
            try:
                message = await context.read()
            except DecodeError:
                self.close(CloseReason.MALFORMED)
                return
            except MessageTooLarge:
                self.close(CloseReason.TOO_LARGE)
                return
            if message is EOF:
                return
            self.receive(message)

    async def _write_loop(self, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        outbox = self._outbox
        while True:
            message = await outbox.get()
            if message is None or self.status is ConnectionStatus.CLOSED:
                return
            try:
                await context.write(message)
            except Exception:  # the call is over (cancelled, or the peer went away)
                return
            self._outbox_bytes -= len(message)

    def receive(self, message: bot_pb2.BotMessage) -> None:
        """Handle one message from the bot (after its Hello)."""
        kind = message.WhichOneof("kind")
        if kind == "decision":
            request_id = message.decision.request_id
            if _too_long(request_id):
                self.send_error(bot_pb2.ERROR_CODE_MALFORMED,
                                f"a request id may be at most {MAX_REQUEST_ID_BYTES} bytes; "
                                f"this one has {len(request_id.encode()):,}")
            elif not self.answer(message.decision):
                self.send_error(bot_pb2.ERROR_CODE_UNKNOWN_REQUEST,
                                f"no open request has id {clip(request_id)!r}",
                                request_id=request_id)
        elif kind == "hello":
            self.send_error(bot_pb2.ERROR_CODE_MALFORMED, "Hello was already received")
        else:
            self.send_error(bot_pb2.ERROR_CODE_MALFORMED, "a BotMessage must set hello or decision")

    # -------------------------------------------------------------- sending

    def send(self, message: Outgoing) -> None:
        """Queue a message for the bot (dropped unless the connection is open).

        A message that would put more than `max_outbox` messages or (unless the
        outbox is empty) more than `max_outbox_bytes` bytes in the outbox closes the
        connection as `OVERFLOW` instead of being queued.
        """
        if not self.is_open:
            return
        data = serialize(message)
        queued = self._outbox_bytes
        if self._outbox.qsize() >= self.max_outbox or (
                queued and queued + len(data) > self.max_outbox_bytes):
            self.close(CloseReason.OVERFLOW)
            return
        self._outbox_bytes = queued + len(data)
        self._outbox.put_nowait(data)

    def send_error(self, code: bot_pb2.ErrorCode, message: str, game_id: str = "",
                   request_id: str = "") -> None:
        """Send an in-band `Error` (it does not end the stream)."""
        self.send(wire.error_to_proto(code, message, game_id, request_id))

    # ------------------------------------------------------------- deciding

    def ask(self, request_id: str, request: Outgoing, timeout: float) -> PendingDecision:
        """Send a message holding decision request `request_id`; the returned future
        settles with the bot's answer or a `NoReply` (`TIMEOUT` after `timeout` seconds)."""
        loop = asyncio.get_running_loop()
        pending = PendingDecision(request_id, loop.create_future())
        if not self.is_open:
            pending.future.set_result(NoReply.CLOSED)
            return pending
        self._pending[request_id] = pending
        pending.timer = loop.call_later(timeout, self.settle, request_id, NoReply.TIMEOUT)
        self.send(request)
        return pending

    def answer(self, decision: bot_pb2.Decision) -> bool:
        """Settle the request a decision answers; False when no open request has its id."""
        return self.settle(decision.request_id, decision)

    def settle(self, request_id: str, reply: Reply) -> bool:
        """Settle an open request with `reply`; False when it is not open (any more)."""
        pending = self._pending.pop(request_id, None)
        if pending is None:
            return False
        if pending.timer is not None:
            pending.timer.cancel()
        if not pending.future.done():
            pending.future.set_result(reply)
        return True


def serialize(message: Outgoing) -> bytes:
    """The wire bytes of an outgoing message (the stream's response serializer)."""
    return message if isinstance(message, bytes) else message.SerializeToString()


def clip(text: str, limit: int = MAX_ECHO) -> str:
    """`text`, cut to `limit` characters with an ellipsis when longer: client text
    fit to quote in an error message."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _too_long(request_id: str) -> bool:
    """True when a request id is over `MAX_REQUEST_ID_BYTES` UTF-8 bytes."""
    if len(request_id) > MAX_REQUEST_ID_BYTES:
        return True
    return not request_id.isascii() and len(request_id.encode()) > MAX_REQUEST_ID_BYTES


def next_request_id() -> str:
    """A request id unique within this server process."""
    return str(next(_REQUEST_IDS))
