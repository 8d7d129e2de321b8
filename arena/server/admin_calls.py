"""What every call of the admin service shares: reaching the services, and turning
their errors into gRPC statuses."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import sqlite3
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NoReturn, TypeVar

import grpc

from arena import wire_admin
from arena.engine.rules import RuleSetError
from arena.services import ServiceError, Services
from arena.store import (
    DuplicateName,
    InvalidInput,
    InviteRefused,
    NotOwner,
    QuotaExceeded,
    StoreError,
    UnknownAuthor,
    UnknownBot,
    UnknownGame,
    UnknownPool,
    UnknownTournament,
)
from arena.supervisor.fleet import FleetError
from arena.tournament import ScheduleError

_STATUS: tuple[tuple[type[Exception], grpc.StatusCode], ...] = (
    (NotOwner, grpc.StatusCode.PERMISSION_DENIED),
    (QuotaExceeded, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (InviteRefused, grpc.StatusCode.PERMISSION_DENIED),
    (UnknownAuthor, grpc.StatusCode.NOT_FOUND),
    (DuplicateName, grpc.StatusCode.ALREADY_EXISTS),
    (UnknownBot, grpc.StatusCode.NOT_FOUND),
    (UnknownTournament, grpc.StatusCode.NOT_FOUND),
    (UnknownGame, grpc.StatusCode.NOT_FOUND),
    (UnknownPool, grpc.StatusCode.NOT_FOUND),
    (InvalidInput, grpc.StatusCode.INVALID_ARGUMENT),
    (StoreError, grpc.StatusCode.FAILED_PRECONDITION),
    (sqlite3.Error, grpc.StatusCode.FAILED_PRECONDITION),
    (RuleSetError, grpc.StatusCode.INVALID_ARGUMENT),
    (ScheduleError, grpc.StatusCode.INVALID_ARGUMENT),
    (ServiceError, grpc.StatusCode.FAILED_PRECONDITION),
    (FleetError, grpc.StatusCode.FAILED_PRECONDITION),
    (wire_admin.RequestError, grpc.StatusCode.FAILED_PRECONDITION),
    (wire_admin.UploadTooLarge, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (ValueError, grpc.StatusCode.INVALID_ARGUMENT),
)


def status_for(exc: Exception) -> grpc.StatusCode:
    """The gRPC status a management error is reported with."""
    for kind, code in _STATUS:
        if isinstance(exc, kind):
            return code
    return grpc.StatusCode.INTERNAL


async def abort_with(context: Any, exc: Exception) -> NoReturn:
    """End the call with the gRPC status and message of a management error."""
    message = f"the database cannot be used: {exc}" if isinstance(exc, sqlite3.Error) else exc
    await context.abort(status_for(exc), str(message))
    raise AssertionError("abort returned")  # pragma: no cover


class ManagementUnavailable(Exception):
    """A management call reached a server built without a store."""

    def __init__(self, method: str) -> None:
        super().__init__(f"{method} needs a server with a store (arena serve)")


class ServicesAccess:
    """A servicer over the `Services` of a server (None: a server without a store, whose
    management calls answer UNIMPLEMENTED)."""

    _services: Services | None

    def services_for(self, method: str) -> Services:
        """The services the call `method` needs; `ManagementUnavailable` without them."""
        if self._services is None:
            raise ManagementUnavailable(method)
        return self._services

    async def _available_services(self, context: Any, method: str) -> Services:
        """`services_for`, or the call ended UNIMPLEMENTED."""
        try:
            return self.services_for(method)
        except ManagementUnavailable as exc:
            await context.abort(grpc.StatusCode.UNIMPLEMENTED, str(exc))
            raise AssertionError("abort returned") from None  # pragma: no cover


READER_THREADS = 4
"""Threads that answer the read calls (leaderboards, games, logs), apart from the
default pool where games are recorded and bots built."""

_READERS = ThreadPoolExecutor(max_workers=READER_THREADS, thread_name_prefix="arena-read")

T = TypeVar("T")


async def off_loop(call: Callable[..., T], *args: Any) -> T:
    """`call(*args)`, the store's reading and the answer's building both, in a thread of
    the readers' own pool and in the caller's context: the event loop, which drives the
    games in play, never waits for a read, and a burst of reads never queues ahead of
    the recording of a game."""
    loop = asyncio.get_running_loop()
    context = contextvars.copy_context()
    return await loop.run_in_executor(_READERS, functools.partial(context.run, call, *args))


Request = TypeVar("Request")
Response = TypeVar("Response")
UnaryCall = Callable[[Any, Request, Any], Awaitable[Response]]
"""A unary servicer method: (self, request, context) to an awaited response."""


def management_call(method: UnaryCall[Request, Response]) -> UnaryCall[Request, Response]:
    """A unary management call: UNIMPLEMENTED without a store; its errors end the call
    with their gRPC status."""
    @functools.wraps(method)
    async def call(self: ServicesAccess, request: Request, context: Any) -> Response:
        await self._available_services(context, method.__name__)
        try:
            return await method(self, request, context)
        except (StoreError, ValueError, sqlite3.Error) as exc:
            await abort_with(context, exc)
    return call
