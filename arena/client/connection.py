"""The connection: one gRPC stream to the server, kept open, reconnected when it drops.

`Client` sends the Hello, answers each DecisionRequest by its request id, keeps
one `Table` per game (many at once when ``max_tables`` > 1), hands events and
results to the bot's hooks, and reconnects with exponential backoff when the
stream breaks. It stops for good when the server rejects the token
(UNAUTHENTICATED) or the first message (INVALID_ARGUMENT), when `stop` is
called, or when no connection could be made for ``give_up_after`` seconds.

The stream is a `grpc.aio` call driven by an event loop of the client's own,
run by the blocking `Client.run`: one message is read, handled and answered
before the next is read. The loop stands still while a message is handled, so
the bot's code runs on that one thread, in order, and sees no running event loop
(it may run its own, with ``asyncio.run``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from types import FrameType

import grpc

from arena import __version__
from arena.client.choice import Player, resolve_choice
from arena.client.convert import (
    decision_to_proto,
    error_from_proto,
    events_from_proto,
    hello_to_proto,
    legal_from_proto,
    outcome_from_proto,
    table_from_proto,
)
from arena.client.model import passive_index
from arena.client.table import Table
from arena.client.view import View
from arena.v1 import bot_pb2, uno_pb2

_log = logging.getLogger("arena.client")


DEFAULT_SERVER = "127.0.0.1:50051"
"""Where a bot connects when neither an argument nor ARENA_SERVER says otherwise."""

TLS_CA_VARIABLE = "ARENA_TLS_CA"
"""Environment variable naming a PEM file of the certificates to trust: connect over TLS."""
TLS_VARIABLE = "ARENA_TLS"
"""Environment variable that, set to 1, connects over TLS trusting the system's roots."""


class ClientConfigError(ValueError):
    """A client setting cannot be used (say, an unreadable TLS certificate file)."""


def channel_credentials(tls: bool | str | os.PathLike[str] | None = None,
                        environ: Mapping[str, str] | None = None,
                        ) -> grpc.ChannelCredentials | None:
    """TLS credentials for a channel, or None for plaintext.

    `tls` is True (trust the system's roots), a PEM file of the certificates to
    trust, False (plaintext), or None: ARENA_TLS_CA names the file, else
    ARENA_TLS=1 asks for the system's roots, else plaintext.
    """
    if tls is None:
        env = os.environ if environ is None else environ
        tls = env.get(TLS_CA_VARIABLE) or _truthy(env.get(TLS_VARIABLE, ""))
    if tls is False or tls == "":
        return None
    if tls is True:
        return grpc.ssl_channel_credentials()
    try:
        roots = Path(tls).read_bytes()
    except OSError as exc:
        raise ClientConfigError(f"cannot read the TLS certificates {tls}: {exc.strerror}") from None
    if b"-----BEGIN CERTIFICATE-----" not in roots:
        raise ClientConfigError(f"the TLS certificates file {tls} holds no PEM certificate")
    return grpc.ssl_channel_credentials(root_certificates=roots)


def _truthy(value: str) -> bool:
    return value.strip().lower() not in ("", "0", "false", "no", "off")


_CONNECT = "/" + bot_pb2.DESCRIPTOR.services_by_name["BotService"].full_name + "/Connect"

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


class Client:
    """One bot's connection to an arena server. `run` blocks; `stop` may be called
    from any thread.

    `server` and `token` default to the ARENA_SERVER and ARENA_TOKEN environment
    variables; `max_tables` to ARENA_MAX_TABLES, else 1; `tls` to ARENA_TLS_CA or
    ARENA_TLS (see `channel_credentials`). A setting that cannot be used raises
    `ClientConfigError`.
    """

    def __init__(self, bot: Player, *, server: str | None = None, token: str | None = None,
                 max_tables: int | None = None, auto_single_action: bool = False,
                 events_in_requests: bool = True, bot_version: str | None = None,
                 give_up_after: float | None = 60.0, backoff: Backoff | None = None,
                 tls: bool | str | os.PathLike[str] | None = None) -> None:
        self.bot = bot
        self.credentials = channel_credentials(tls)
        """TLS credentials for the channel (see `channel_credentials`); None: plaintext."""
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
        self._lock = threading.RLock()  # stop() may run in a signal handler on this thread
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._call: grpc.aio.StreamStreamCall[bot_pb2.BotMessage, bot_pb2.ServerMessage] | None = (
            None)
        self._session_task: asyncio.Future[ExitReason | None] | None = None

    # ------------------------------------------------------------ control

    def run(self) -> ExitReason:
        """Connect, play, reconnect when the stream drops; return why it stopped.

        It runs an event loop of its own; called from a thread whose event loop
        is running, it plays on a thread of its own and blocks until that ends.
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return self._drive()
        reasons: list[ExitReason] = []
        worker = threading.Thread(target=lambda: reasons.append(self._drive()),
                                  name="arena-client")
        worker.start()
        worker.join()
        return reasons[0] if reasons else ExitReason.STOPPED

    def _drive(self) -> ExitReason:
        """Run the stream on an event loop of this thread's own until it ends.

        The bot's code runs on this thread, in order, as each message is handled
        (`_handled`), with no event loop running: it may run one, with ``asyncio.run``.
        """
        with asyncio.Runner() as runner:
            return runner.get_loop().run_until_complete(self._run())

    def _handled(self, message: bot_pb2.ServerMessage) -> bot_pb2.BotMessage | None:
        """The answer to `message`, computed by the bot's code while this thread shows no
        running event loop (the loop is only paused on this call meanwhile)."""
        loop = asyncio.get_running_loop()
        asyncio.events._set_running_loop(None)
        try:
            return self._handle(message)
        finally:
            asyncio.events._set_running_loop(loop)

    async def _run(self) -> ExitReason:
        with self._lock:
            self._loop = asyncio.get_running_loop()
            self._wake = asyncio.Event()
        ticking = asyncio.ensure_future(_tick(SIGNAL_CHECK_SECONDS))
        try:
            return await self._play()
        finally:
            ticking.cancel()
            with self._lock:
                self._loop = None
                self._wake = None

    async def _play(self) -> ExitReason:
        if not self.token:
            _log.warning("no token: set ARENA_TOKEN or pass token=...")
        delays = self.backoff.delays()
        last_contact = time.monotonic()
        while True:
            if self._stopping.is_set():
                return ExitReason.STOPPED
            welcomed_before = self.connections
            reason = await self._stoppable_session()
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
            if await self._stopped_within(delay):
                return ExitReason.STOPPED

    async def _stoppable_session(self) -> ExitReason | None:
        """`_session` as a task that `stop` can cancel: cancelling the call alone leaves a
        write of the Hello waiting for good when the call had not started yet."""
        task = asyncio.ensure_future(self._session())
        self._session_task = task
        try:
            return await task
        except asyncio.CancelledError:
            if not (self._stopping.is_set() and task.cancelled()):
                raise
            return ExitReason.STOPPED
        finally:
            self._session_task = None

    async def _stopped_within(self, seconds: float) -> bool:
        """Wait `seconds`; True as soon as `stop` is called."""
        assert self._wake is not None
        try:
            async with asyncio.timeout(seconds):
                await self._wake.wait()
        except TimeoutError:
            return self._stopping.is_set()
        return True

    def stop(self) -> None:
        """Close the stream and make `run` return STOPPED (safe from any thread,
        and from a signal handler)."""
        self._stopping.set()
        with self._lock:
            loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._interrupt)

    def _interrupt(self) -> None:
        if self._wake is not None:
            self._wake.set()
        if self._call is not None:
            self._call.cancel()
        if self._session_task is not None:
            self._session_task.cancel()

    @property
    def stopping(self) -> bool:
        """True once `stop` was called."""
        return self._stopping.is_set()

    # ------------------------------------------------------------ the stream

    async def _session(self) -> ExitReason | None:
        """One connection from Hello to its end: a final reason, or None to reconnect."""
        _log.info("connecting to %s", self.server)
        channel = (grpc.aio.insecure_channel(self.server) if self.credentials is None
                   else grpc.aio.secure_channel(self.server, self.credentials))
        async with channel:
            connect = channel.stream_stream(
                _CONNECT, request_serializer=bot_pb2.BotMessage.SerializeToString,
                response_deserializer=bot_pb2.ServerMessage.FromString)
            call = connect(None, metadata=(("authorization", f"Bearer {self.token}"),))
            self._call = call
            try:
                if self._stopping.is_set():
                    call.cancel()
                await _write(call, hello_to_proto(self.bot_version, self.max_tables,
                                                  self.auto_single_action,
                                                  self.events_in_requests))
                while isinstance(message := await call.read(), bot_pb2.ServerMessage):
                    answer = self._handled(message)
                    if answer is not None:
                        await _write(call, answer)
            except asyncio.CancelledError:
                if not self._stopping.is_set():
                    raise
                return ExitReason.STOPPED
            except grpc.aio.AioRpcError as error:
                return self._ended_by(error)
            finally:
                self._call = None
        if self._stopping.is_set():
            return ExitReason.STOPPED
        _log.warning("the server closed the stream")
        return None

    def _ended_by(self, error: grpc.aio.AioRpcError) -> ExitReason | None:
        code, details = error.code(), error.details()
        if self._stopping.is_set():
            return ExitReason.STOPPED
        if code is grpc.StatusCode.UNAUTHENTICATED:
            _log.error("the server rejected the token (%s); check ARENA_TOKEN", details)
            return ExitReason.UNAUTHENTICATED
        if code is grpc.StatusCode.INVALID_ARGUMENT:
            _log.error("the server refused the stream: %s", details)
            return ExitReason.REJECTED
        _log.warning("connection lost: %s %s", code.name, details)
        return None

    def _handle(self, message: bot_pb2.ServerMessage) -> bot_pb2.BotMessage | None:
        """Act on one server message; the answer to send, if it asks for one."""
        kind = message.WhichOneof("kind")
        if kind == "decision_request":
            return self._decide(message.decision_request)
        if kind == "events":
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
        return None

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
        table = self.tables.get(request.game_id) or self._table(request.game_id,
                                                                 request.view.seat)
        if table.seat < 0:
            table.seat = request.view.seat
        self._deliver(table, request.events)  # with events_in_requests
        view = View(request, table)
        legal = legal_from_proto(request)
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


SIGNAL_CHECK_SECONDS = 0.25
"""How often an idle client's event loop wakes up (see `_tick`)."""


async def _tick(seconds: float) -> None:
    """Wake the event loop every `seconds`. A SIGTERM that the kernel delivers to one of
    gRPC's threads only runs Python's handler once the main thread runs code again, and an
    idle loop would otherwise sleep until the server's next message."""
    while True:
        await asyncio.sleep(seconds)


async def _write(call: grpc.aio.StreamStreamCall[bot_pb2.BotMessage, bot_pb2.ServerMessage],
                 message: bot_pb2.BotMessage) -> None:
    """Send `message`; a call that is already over is left to the next read to report."""
    with contextlib.suppress(asyncio.InvalidStateError):
        await call.write(message)


# ------------------------------------------------------------------ entry

@contextlib.contextmanager
def stop_on_signals(client: Client) -> Iterator[None]:
    """While the block runs (in the main thread), SIGINT and SIGTERM stop `client`
    cleanly; a second SIGINT is abrupt."""
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
