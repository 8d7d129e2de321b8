"""Reaching a server's admin service: a remote `arena serve`, or one started in-process.

Every CLI command goes through `admin_session`: with an address it talks to a
running server; without one it opens the local SQLite database, starts the
same server on a free loopback port, and talks to that over gRPC.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import threading
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import grpc

from arena.cli.observe import serving_metrics
from arena.client.connection import TLS_CA_VARIABLE as TLS_CA_VARIABLE  # for the CLI
from arena.client.connection import TLS_VARIABLE as TLS_VARIABLE
from arena.client.connection import channel_credentials
from arena.distributed import worker_pools
from arena.metrics import Metrics
from arena.server.assembly import build_server, log_dir_for
from arena.store import RECONNECT_WITHIN, ConnectionSettings, Store
from arena.store.backend import side_path
from arena.v1 import admin_pb2_grpc

if TYPE_CHECKING:
    from arena.services import Services


@dataclass
class Session:
    """An admin stub, and the address of the server it talks to."""

    admin: admin_pb2_grpc.ArenaAdminAsyncStub
    address: str


@contextlib.asynccontextmanager
async def admin_session(server_address: str | None, db_path: Path | str,
                        admin_token: str | None = None,
                        tls: grpc.ChannelCredentials | None = None, *,
                        read_only: bool = False,
                        reconnect_within: float = RECONNECT_WITHIN,
                        connection: ConnectionSettings | None = None,
                        metrics_at: tuple[str, int] | None = None,
                        ) -> AsyncIterator[Session]:
    """An admin session against `server_address` (sending `admin_token`, if any, over
    `tls`, if given), or an in-process server on `db_path`, a file or a `postgresql://`
    URL (under an admin token of its own). With `read_only`, the in-process server's
    database is opened only to be read
    (`Store.open(read_only=True)`): a missing one is not created, and one in a
    read-only folder can still be read. A PostgreSQL store that loses its connection
    goes on trying to reconnect for `reconnect_within` seconds. With `metrics_at`, the
    in-process server's metrics are served there (`arena.cli.observe.serving_metrics`)."""
    if server_address:
        async with _admin_channel(server_address, admin_token, tls) as channel:
            yield Session(admin_pb2_grpc.ArenaAdminStub(channel), server_address)
        return
    store = Store.open(db_path, read_only=read_only, reconnect_within=reconnect_within,
                       connection=connection)
    own_token = secrets.token_urlsafe(24)
    metrics = None if metrics_at is None else Metrics()
    server = build_server(store, log_dir_for(side_path(db_path)), _for_one_command,
                          admin_token=own_token, worker_pools=worker_pools, metrics=metrics)
    exposing = contextlib.ExitStack()
    stopping = _CtrlCHeldOff()
    # A start cut short by Ctrl-C would leave a server running that `stop` does not know
    # of yet: it goes on, shielded, until it can be stopped.
    starting = asyncio.ensure_future(server.start("127.0.0.1", 0))
    try:
        if metrics is not None and metrics_at is not None:
            exposing.enter_context(serving_metrics(metrics, metrics_at, store))
        port = await asyncio.shield(starting)
        address = f"127.0.0.1:{port}"
        async with _admin_channel(address, own_token) as channel:
            try:
                yield Session(admin_pb2_grpc.ArenaAdminStub(channel), address)
            finally:
                stopping.hold()
    finally:
        stopping.hold()
        try:
            await asyncio.wait([starting])
            if not starting.cancelled():
                starting.exception()  # raised above, unless the start was cut short
            await server.stop(0.5)
        finally:
            exposing.close()
            store.close()
            stopping.release()


class _CtrlCHeldOff:
    """Ignores Ctrl-C from `hold` to `release`, so that a second Ctrl-C cannot cut the
    in-process server's stop short: `asyncio.run` would raise it inside the event loop,
    leaving the server to be shut down on a closed loop. Only the main thread can."""

    def __init__(self) -> None:
        self._previous: Any = None
        self._held = False

    def hold(self) -> None:
        """Start ignoring SIGINT (again is a no-op)."""
        if not self._held and threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
            self._held = True

    def release(self) -> None:
        """Give SIGINT back to the handler it had before `hold`."""
        if self._held:
            signal.signal(signal.SIGINT,
                          signal.SIG_DFL if self._previous is None else self._previous)
            self._held = False


def tls_from_env(environ: Mapping[str, str] | None = None) -> grpc.ChannelCredentials | None:
    """TLS credentials for `--server`, read from the environment exactly as bots read
    them (`arena.client.connection.channel_credentials`); None for plaintext. Raises
    `ValueError` for a certificates file that cannot be used."""
    return channel_credentials(None, environ)


ADMIN_MAX_RECEIVE_BYTES = 64 * 1024 * 1024
"""The largest admin answer a session takes: a whole schedule (up to 100,000 games)
or a long game's replay log can be several MB, over gRPC's default of 4 MB."""


CALL_SECONDS = 120.0
"""How long the CLI waits for the answer to a call (ARENA_CALL_TIMEOUT sets another)."""

SILENCE_SECONDS = 30.0
"""How long a stream (a run's progress, a watched game, an export) may send nothing before
the CLI takes the server for one that stopped answering (ARENA_STREAM_SILENCE sets
another). The server sends a heartbeat every `arena.server.admin.HEARTBEAT_SECONDS`."""


class ServerSilent(Exception):
    """The server did not answer a call in time, or a stream fell silent; the message
    says which and what to look at."""


def _seconds_from_env(variable: str, default: float) -> float:
    text = os.environ.get(variable, "").strip()
    if not text:
        return default
    try:
        seconds = float(text)
    except ValueError:
        raise ValueError(f"{variable} must be a number of seconds, got {text!r}") from None
    if not 0 < seconds < float("inf"):
        raise ValueError(f"{variable} must be a positive number of seconds, got {text!r}")
    return seconds


def call_seconds() -> float:
    """How long the CLI waits for a call's answer: ARENA_CALL_TIMEOUT, else `CALL_SECONDS`
    (`ValueError` for a value that is not a positive number)."""
    return _seconds_from_env("ARENA_CALL_TIMEOUT", CALL_SECONDS)


def silence_seconds() -> float:
    """How long a stream may be silent: ARENA_STREAM_SILENCE, else `SILENCE_SECONDS`."""
    return _seconds_from_env("ARENA_STREAM_SILENCE", SILENCE_SECONDS)


def _admin_channel(address: str, token: str | None,
                   tls: grpc.ChannelCredentials | None = None) -> grpc.aio.Channel:
    # A channel files each interceptor under one kind of call only.
    deadlines = [_DeadlineOnUnaryCalls(address, call_seconds()),
                 _DeadlineOnUploads(call_seconds()),
                 _SilenceOnStreams(address, silence_seconds())]
    interceptors: Any = deadlines + ([] if token is None else
                                     [_TokenOnUnaryCalls(token), _TokenOnStreamingCalls(token),
                                      _TokenOnUploads(token)])
    options = [("grpc.max_receive_message_length", ADMIN_MAX_RECEIVE_BYTES)]
    if tls is not None:
        return grpc.aio.secure_channel(address, tls, options, interceptors=interceptors)
    return grpc.aio.insecure_channel(address, options, interceptors=interceptors)


if TYPE_CHECKING:
    _UnaryUnary = grpc.aio.UnaryUnaryClientInterceptor[Any, Any]
    _UnaryStream = grpc.aio.UnaryStreamClientInterceptor[Any, Any]
    _StreamUnary = grpc.aio.StreamUnaryClientInterceptor[Any, Any]
else:  # the runtime classes take no type arguments
    _UnaryUnary = grpc.aio.UnaryUnaryClientInterceptor
    _UnaryStream = grpc.aio.UnaryStreamClientInterceptor
    _StreamUnary = grpc.aio.StreamUnaryClientInterceptor


def _with_token(details: grpc.aio.ClientCallDetails, token: str) -> grpc.aio.ClientCallDetails:
    metadata = grpc.aio.Metadata(*(tuple(details.metadata) if details.metadata else ()))
    metadata.add("authorization", f"Bearer {token}")
    return grpc.aio.ClientCallDetails(details.method, details.timeout, metadata,
                                      details.credentials, details.wait_for_ready)


class _TokenOnUnaryCalls(_UnaryUnary):
    """Adds ``authorization: Bearer <token>`` to every unary call."""

    def __init__(self, token: str) -> None:
        self._token = token

    async def intercept_unary_unary(self, continuation: Any, client_call_details: Any,
                                    request: Any) -> Any:
        """Send the call with the token."""
        return await continuation(_with_token(client_call_details, self._token), request)


class _TokenOnStreamingCalls(_UnaryStream):
    """Adds ``authorization: Bearer <token>`` to every call answered with a stream."""

    def __init__(self, token: str) -> None:
        self._token = token

    async def intercept_unary_stream(self, continuation: Any, client_call_details: Any,
                                     request: Any) -> Any:
        """Send the call with the token."""
        return await continuation(_with_token(client_call_details, self._token), request)


class _TokenOnUploads(_StreamUnary):
    """Adds ``authorization: Bearer <token>`` to every call sent as a stream (an upload)."""

    def __init__(self, token: str) -> None:
        self._token = token

    async def intercept_stream_unary(self, continuation: Any, client_call_details: Any,
                                     request_iterator: Any) -> Any:
        """Send the call with the token."""
        return await continuation(_with_token(client_call_details, self._token),
                                  request_iterator)


def _with_deadline(details: grpc.aio.ClientCallDetails, seconds: float
                   ) -> grpc.aio.ClientCallDetails:
    if details.timeout is not None:
        return details
    return grpc.aio.ClientCallDetails(details.method, seconds, details.metadata,
                                      details.credentials, details.wait_for_ready)


def _method_name(details: grpc.aio.ClientCallDetails) -> str:
    method = details.method
    text = method.decode() if isinstance(method, bytes) else str(method)
    return text.rsplit("/", 1)[-1]


async def _answer_in_time(call: Any, address: str, method: str, seconds: float) -> Any:
    """The answer of `call`; `ServerSilent` when its deadline passed."""
    try:
        return await call
    except grpc.aio.AioRpcError as exc:
        if exc.code() is not grpc.StatusCode.DEADLINE_EXCEEDED:
            raise
        raise ServerSilent(
            f"the arena server at {address} did not answer {method} within {seconds:g} s: "
            "it may be stopped, overloaded or unreachable (ARENA_CALL_TIMEOUT sets how long "
            "to wait)") from None


class _DeadlineOnUnaryCalls(_UnaryUnary):
    """Gives every unary call a deadline, and says clearly when it passed."""

    def __init__(self, address: str, seconds: float) -> None:
        self._address = address
        self._seconds = seconds

    async def intercept_unary_unary(self, continuation: Any, client_call_details: Any,
                                    request: Any) -> Any:
        """Send the call with a deadline."""
        call = await continuation(_with_deadline(client_call_details, self._seconds), request)
        return await _answer_in_time(call, self._address, _method_name(client_call_details),
                                     self._seconds)


class _DeadlineOnUploads(_StreamUnary):
    """Gives every upload a deadline (a submission answers once its files are stored;
    `bot submit` follows the build after)."""

    def __init__(self, seconds: float) -> None:
        self._seconds = seconds

    async def intercept_stream_unary(self, continuation: Any, client_call_details: Any,
                                     request_iterator: Any) -> Any:
        """Send the call with a deadline."""
        # An upload's call must come back as a call: its passed deadline is said by
        # `arena.cli.context.rpc_message`.
        return await continuation(_with_deadline(client_call_details, self._seconds),
                                  request_iterator)


class _SilenceOnStreams(_UnaryStream):
    """Ends a streamed answer with `ServerSilent` once it has sent nothing for a while
    (the server's heartbeats count), and drops the heartbeats themselves."""

    def __init__(self, address: str, seconds: float) -> None:
        self._address = address
        self._seconds = seconds

    async def intercept_unary_stream(self, continuation: Any, client_call_details: Any,
                                     request: Any) -> Any:
        """Send the call; give its messages as they come, within the silence allowed."""
        call = await continuation(client_call_details, request)
        return self._within_silence(call, _method_name(client_call_details))

    async def _within_silence(self, call: Any, method: str) -> AsyncIterator[Any]:
        try:
            while True:
                try:
                    async with asyncio.timeout(self._seconds):
                        message = await call.read()
                except TimeoutError:
                    raise ServerSilent(
                        f"the arena server at {self._address} sent nothing on {method} for "
                        f"{self._seconds:g} s: it stopped answering (ARENA_STREAM_SILENCE "
                        "sets how long to wait)") from None
                if message is grpc.aio.EOF:  # type: ignore[attr-defined]
                    return
                if not getattr(message, "heartbeat", False):
                    yield message
        finally:
            call.cancel()


def _for_one_command(services: Services) -> None:
    """Mark the services of a server a command starts for itself (see `Fleet`)."""
    services.fleet.for_one_command = True
