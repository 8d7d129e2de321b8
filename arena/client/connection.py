"""The connection: one gRPC stream to the server, kept open, reconnected when it drops.

`Client` sends the Hello, answers each DecisionRequest by its request id, keeps
one `Table` per game (many at once when ``max_tables`` > 1), hands events and
results to the bot's hooks, and reconnects with exponential backoff when the
stream breaks. It stops for good when the server rejects the token
(UNAUTHENTICATED) or the first message (INVALID_ARGUMENT), when `stop` is
called, or when no connection could be made for ``give_up_after`` seconds.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import random
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from types import FrameType

import grpc

from arena import __version__
from arena.client.bot import (
    Bot,
    DecideFn,
    EventsHook,
    GameEndHook,
    GameStartHook,
    as_bot,
    resolve_choice,
)
from arena.client.convert import (
    decision_to_proto,
    error_from_proto,
    events_from_proto,
    hello_to_proto,
    legal_from_proto,
    outcome_from_proto,
    table_from_proto,
    view_from_proto,
)
from arena.client.model import passive_index
from arena.client.table import Table
from arena.v1 import bot_pb2, bot_pb2_grpc, uno_pb2

_log = logging.getLogger("arena.client")

DEFAULT_SERVER = "127.0.0.1:50051"
"""Where a bot connects when neither an argument nor ARENA_SERVER says otherwise."""

_FATAL = {
    grpc.StatusCode.INVALID_ARGUMENT: "the server refused the stream",
    grpc.StatusCode.PERMISSION_DENIED: "the server refused this bot",
}


class ExitReason(StrEnum):
    """Why `Client.run` returned."""

    STOPPED = "stopped"
    """`stop` was called, or the process got SIGINT/SIGTERM."""
    UNAUTHENTICATED = "unauthenticated"
    """The server does not know the token."""
    REJECTED = "rejected"
    """The server refused the stream for a reason retrying cannot fix."""
    GAVE_UP = "gave_up"
    """No connection could be made for `give_up_after` seconds."""

    @property
    def exit_code(self) -> int:
        """A process exit status: 0 stopped, 1 gave up, 2 refused (token or stream)."""
        return {ExitReason.STOPPED: 0, ExitReason.GAVE_UP: 1}.get(self, 2)


@dataclass(frozen=True, slots=True)
class Backoff:
    """Exponential backoff between reconnection attempts, with jitter."""

    initial: float = 0.2
    maximum: float = 5.0
    factor: float = 2.0
    jitter: float = 0.2

    def delays(self) -> Iterator[float]:
        """Endless delays: initial, initial*factor, … capped at maximum, each ±jitter."""
        delay = self.initial
        while True:
            yield delay * (1 + random.uniform(-self.jitter, self.jitter))
            delay = min(self.maximum, delay * self.factor)


def _outgoing(outbox: queue.Queue[bot_pb2.BotMessage | None]) -> Iterator[bot_pb2.BotMessage]:
    while (message := outbox.get()) is not None:
        yield message


class Client:
    """One bot's connection to an arena server. `run` blocks; `stop` may be called
    from any thread.

    `server` and `token` default to the ARENA_SERVER and ARENA_TOKEN environment
    variables; `max_tables` to ARENA_MAX_TABLES, else 1.
    """

    def __init__(self, bot: Bot, *, server: str | None = None, token: str | None = None,
                 max_tables: int | None = None, auto_single_action: bool = False,
                 events_in_requests: bool = True, bot_version: str | None = None,
                 give_up_after: float | None = 60.0, backoff: Backoff | None = None) -> None:
        self.bot = bot
        self.server = server or os.environ.get("ARENA_SERVER") or DEFAULT_SERVER
        self.token = token if token is not None else os.environ.get("ARENA_TOKEN", "")
        self.max_tables = max_tables or int(os.environ.get("ARENA_MAX_TABLES") or 1)
        self.auto_single_action = auto_single_action
        self.events_in_requests = events_in_requests
        self.bot_version = bot_version or f"{bot.name} (arena-python {__version__})"
        self.give_up_after = give_up_after
        self.backoff = backoff or Backoff()
        self.tables: dict[str, Table] = {}
        """The games in progress, by game id."""
        self.bot_name: str | None = None
        """The name the server knows this bot by (from its Welcome)."""
        self.connections = 0
        """How many times the server has welcomed this client."""
        self.games_played = 0
        """How many games ended while this client played them."""
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._cancel: Callable[[], object] | None = None

    # ------------------------------------------------------------ control

    def run(self) -> ExitReason:
        """Connect, play, reconnect when the stream drops; return why it stopped."""
        if not self.token:
            _log.warning("no token: set ARENA_TOKEN or pass token=...")
        delays = self.backoff.delays()
        last_contact = time.monotonic()
        while True:
            welcomed_before = self.connections
            reason = self._session()
            if reason is not None:
                return reason
            if self._stopping.is_set():
                return ExitReason.STOPPED
            if self.connections > welcomed_before:
                delays = self.backoff.delays()
                last_contact = time.monotonic()
            elif (self.give_up_after is not None
                  and time.monotonic() - last_contact >= self.give_up_after):
                _log.error("giving up: no connection to %s for %.0f s",
                          self.server, self.give_up_after)
                return ExitReason.GAVE_UP
            delay = next(delays)
            _log.info("reconnecting to %s in %.1f s", self.server, delay)
            if self._stopping.wait(delay):
                return ExitReason.STOPPED

    def stop(self) -> None:
        """Close the stream and make `run` return STOPPED (safe from any thread)."""
        self._stopping.set()
        with self._lock:
            cancel = self._cancel
        if cancel is not None:
            cancel()

    @property
    def stopping(self) -> bool:
        """True once `stop` was called."""
        return self._stopping.is_set()

    # ------------------------------------------------------------ the stream

    def _session(self) -> ExitReason | None:
        """One connection from Hello to its end: a final reason, or None to reconnect."""
        outbox: queue.Queue[bot_pb2.BotMessage | None] = queue.Queue()
        outbox.put(hello_to_proto(self.bot_version, self.max_tables, self.auto_single_action,
                                  self.events_in_requests))
        _log.info("connecting to %s", self.server)
        with grpc.insecure_channel(self.server) as channel:
            stub = bot_pb2_grpc.BotServiceStub(channel)
            call = stub.Connect(_outgoing(outbox),
                                metadata=(("authorization", f"Bearer {self.token}"),))
            cancel: Callable[[], object] = call.cancel
            with self._lock:
                self._cancel = cancel
            if self._stopping.is_set():
                cancel()
            try:
                for message in call:
                    self._handle(message, outbox)
            except grpc.RpcError as error:
                return self._ended_by(error)
            finally:
                outbox.put(None)
                with self._lock:
                    self._cancel = None
        _log.warning("the server closed the stream")
        return None

    def _ended_by(self, error: grpc.RpcError) -> ExitReason | None:
        code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
        details = error.details() if hasattr(error, "details") else str(error)
        if self._stopping.is_set():
            return ExitReason.STOPPED
        if code is grpc.StatusCode.UNAUTHENTICATED:
            _log.error("the server rejected the token (%s); check ARENA_TOKEN", details)
            return ExitReason.UNAUTHENTICATED
        if code in _FATAL:
            _log.error("%s: %s %s", _FATAL[code], code.name, details)
            return ExitReason.REJECTED
        _log.warning("connection lost: %s %s", code.name, details)
        return None

    def _handle(self, message: bot_pb2.ServerMessage,
                outbox: queue.Queue[bot_pb2.BotMessage | None]) -> None:
        kind = message.WhichOneof("kind")
        if kind == "decision_request":
            outbox.put(self._decide(message.decision_request))
        elif kind == "events":
            self._events(message.events)
        elif kind == "game_start":
            self._game_start(message.game_start)
        elif kind == "game_end":
            self._game_end(message.game_end)
        elif kind == "welcome":
            self.connections += 1
            self.bot_name = message.welcome.bot_name
            _log.info("welcomed as %s by %s (max_tables %d)", message.welcome.bot_name,
                     message.welcome.server_version or "the server", message.welcome.max_tables)
        elif kind == "error":
            error = error_from_proto(message.error)
            self._hook(self.bot.on_error, error, self.tables.get(error.game_id))
        else:
            _log.debug("ignoring an unknown server message %r", kind)

    def _table(self, game_id: str, seat: int = -1) -> Table:
        table = self.tables.get(game_id)
        if table is None:
            _log.warning("game %s was never started on this connection; tracking it anyway",
                        game_id)
            table = self.tables[game_id] = Table(game_id=game_id, seat=seat)
        return table

    def _game_start(self, start: bot_pb2.GameStart) -> None:
        rejoined = start.game_id in self.tables
        table = self.tables[start.game_id] = table_from_proto(start)
        _log.info("game %s: %s seat %d of %s", table.game_id,
                 "back in" if rejoined else "taking", table.seat,
                 ", ".join(p.name for p in table.players))
        self._hook(self.bot.on_game_start, table)

    def _events(self, message: bot_pb2.GameEvents) -> None:
        self._deliver(self._table(message.game_id), message.events)

    def _deliver(self, table: Table, messages: Iterable[uno_pb2.Event]) -> None:
        events = events_from_proto(messages)
        if events:
            table.events.extend(events)
            self._hook(self.bot.on_events, table, events)

    def _decide(self, request: bot_pb2.DecisionRequest) -> bot_pb2.BotMessage:
        table = self._table(request.game_id, request.view.seat)
        if table.seat < 0:
            table.seat = request.view.seat
        self._deliver(table, request.events)  # with events_in_requests
        view = view_from_proto(request, table)
        legal = list(legal_from_proto(request))
        table.decisions += 1
        try:
            choice = self.bot.decide(view, legal)
        except Exception:
            _log.exception("decide() raised in game %s; answering with the fallback", table.game_id)
            return decision_to_proto(request.request_id, passive_index(legal))
        index = resolve_choice(choice, legal)
        if index is None:
            fallback = passive_index(legal)
            _log.error("decide() returned %r, which is not one of the %d legal actions; "
                      "answering %s", choice, len(legal), legal[fallback] if legal else fallback)
            index = fallback
        return decision_to_proto(request.request_id, index)

    def _game_end(self, end: bot_pb2.GameEnd) -> None:
        table = self._table(end.game_id)
        table.outcome = outcome_from_proto(end.outcome, end.reason)
        self.games_played += 1
        rank = (table.outcome.ranks[table.seat]
                if 0 <= table.seat < len(table.outcome.ranks) else None)
        _log.info("game %s over (%s): rank %s, scores %s", end.game_id,
                 end.reason or table.outcome.termination, rank, list(table.outcome.scores))
        try:
            self._hook(self.bot.on_game_end, table, table.outcome)
        finally:
            self.tables.pop(end.game_id, None)

    def _hook(self, hook: Callable[..., object], *args: object) -> None:
        try:
            hook(*args)
        except Exception:
            _log.exception("%s raised", getattr(hook, "__name__", "a hook"))


# ------------------------------------------------------------------ entry

def run(bot: Bot | DecideFn, *, name: str | None = None, server: str | None = None,
        token: str | None = None, max_tables: int | None = None,
        auto_single_action: bool = False, events_in_requests: bool = True,
        bot_version: str | None = None, give_up_after: float | None = 60.0,
        on_game_start: GameStartHook | None = None,
        on_events: EventsHook | None = None, on_game_end: GameEndHook | None = None,
        configure_logging: bool = True) -> ExitReason:
    """Play as `bot` (a Bot or a ``decide(view, legal)`` function) until stopped.

    `server`/`token` default to ARENA_SERVER/ARENA_TOKEN; `max_tables` (games
    played at once) to ARENA_MAX_TABLES or 1; `auto_single_action` lets the
    server answer decisions with one legal action by itself; with
    `events_in_requests` events ride inside the next request (the bot sees no
    difference: `on_events` still runs before `decide`). The hooks apply to a
    function bot. Logging goes to stderr at ARENA_LOG_LEVEL (INFO) unless the
    program configured logging itself. SIGINT and SIGTERM stop the bot cleanly.
    Returns why it stopped; it never raises for a connection problem.
    """
    if configure_logging and not logging.getLogger().handlers:
        logging.basicConfig(
            level=os.environ.get("ARENA_LOG_LEVEL", "INFO").upper(),
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        )
    client = Client(
        as_bot(bot, name=name, on_game_start=on_game_start, on_events=on_events,
               on_game_end=on_game_end),
        server=server, token=token, max_tables=max_tables,
        auto_single_action=auto_single_action, events_in_requests=events_in_requests,
        bot_version=bot_version,
        give_up_after=give_up_after,
    )
    with _stop_on_signals(client):
        return client.run()


@contextlib.contextmanager
def _stop_on_signals(client: Client) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        _log.info("%s: stopping", signal.Signals(signum).name)
        signal.signal(signal.SIGINT, signal.default_int_handler)  # a second Ctrl-C is abrupt
        client.stop()

    saved = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
