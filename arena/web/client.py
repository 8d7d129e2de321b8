"""The web front's one way to the match server: the admin RPCs, each sent with the
visitor's own token, so that the server's permission table decides what they may see.

A refusal or a failure comes back as `Answer`, an HTTP status with a plain sentence.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from typing import Any

import grpc

from arena.v1 import admin_pb2, admin_pb2_grpc
from arena.wire_admin import upload_chunks

CALL_SECONDS = 30.0
"""How long a page waits for one call's answer."""

MAX_RECEIVE_BYTES = 64 * 1024 * 1024
"""The largest answer taken from the server (a long game's events, a big schedule)."""

HTTP_STATUS = {
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.FAILED_PRECONDITION: 409,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
    grpc.StatusCode.UNAVAILABLE: 503,
}
"""The HTTP status each gRPC refusal becomes; any other is a 502."""


class Answer(Exception):
    """What a page answers instead of itself: an HTTP `status` and a plain sentence."""

    def __init__(self, status: int, sentence: str) -> None:
        super().__init__(sentence)
        self.status = status
        self.sentence = sentence


def answer_for(error: grpc.aio.AioRpcError, method: str) -> Answer:
    """The page's answer for the server's refusal of `method`."""
    code = error.code()
    status = HTTP_STATUS.get(code, 502)
    detail = (error.details() or "").strip()
    if code is grpc.StatusCode.UNAVAILABLE:
        detail = "the match server does not answer; try again in a moment"
    elif code is grpc.StatusCode.DEADLINE_EXCEEDED:
        detail = f"the match server did not answer {method} in time"
    elif not detail:
        detail = f"{method} failed ({code.name.lower()})"
    return Answer(status, detail)


def _metadata(token: str | None) -> tuple[tuple[str, str], ...]:
    return () if token is None else (("authorization", f"Bearer {token}"),)


class AdminClient:
    """The admin stub of the server at `address`, over one channel shared by every
    visitor; each call carries the token it is given (None: no token)."""

    def __init__(self, address: str, tls: grpc.ChannelCredentials | None = None,
                 call_seconds: float = CALL_SECONDS) -> None:
        self.address = address
        self._tls = tls
        self._seconds = call_seconds
        self._channel: grpc.aio.Channel | None = None
        self._stub: admin_pb2_grpc.ArenaAdminStub | None = None

    async def open(self) -> None:
        """Open the channel (in the event loop that serves the pages)."""
        options = [("grpc.max_receive_message_length", MAX_RECEIVE_BYTES)]
        if self._tls is not None:
            self._channel = grpc.aio.secure_channel(self.address, self._tls, options)
        else:
            self._channel = grpc.aio.insecure_channel(self.address, options)
        self._stub = admin_pb2_grpc.ArenaAdminStub(self._channel)

    async def close(self) -> None:
        """Close the channel."""
        if self._channel is not None:
            await self._channel.close(None)
            self._channel = None

    def _method(self, method: str) -> Any:
        if self._stub is None:
            raise Answer(503, "the web front is not connected to its match server yet")
        return getattr(self._stub, method)

    async def call(self, method: str, request: Any, token: str | None) -> Any:
        """The answer of the unary RPC `method` to `request`, sent with `token`;
        `Answer` for a refusal."""
        function = self._method(method)
        try:
            return await function(request, metadata=_metadata(token), timeout=self._seconds)
        except grpc.aio.AioRpcError as error:
            raise answer_for(error, method) from None

    async def collect(self, method: str, request: Any, token: str | None,
                      limit: int = 100_000) -> list[Any]:
        """The messages of the streamed RPC `method` (at most `limit`), read to its end."""
        function = self._method(method)
        found: list[Any] = []
        call = function(request, metadata=_metadata(token), timeout=self._seconds)
        try:
            async for message in call:
                if not getattr(message, "heartbeat", False):
                    found.append(message)
                if len(found) >= limit:
                    break
        except grpc.aio.AioRpcError as error:
            raise answer_for(error, method) from None
        finally:
            call.cancel()
        return found

    async def follow(self, method: str, request: Any, token: str | None
                     ) -> AsyncIterator[Any]:
        """The messages of the streamed RPC `method` as they come (heartbeats too), with
        no deadline: the caller stops reading when it is done."""
        function = self._method(method)
        call = function(request, metadata=_metadata(token))
        try:
            async for message in call:
                yield message
        except grpc.aio.AioRpcError as error:
            if error.code() is not grpc.StatusCode.CANCELLED:
                raise answer_for(error, method) from None
        finally:
            call.cancel()

    async def submit(self, archive: bytes, header: admin_pb2.SubmitBotHeader,
                     token: str | None) -> admin_pb2.SubmitBotResponse:
        """Upload a bot's archive (`SubmitBot`, in the CLI's chunks)."""
        function = self._method("SubmitBot")
        chunks: Iterable[admin_pb2.SubmitBotChunk] = list(upload_chunks(archive, header))
        try:
            async with asyncio.timeout(self._seconds * 4):
                answer: admin_pb2.SubmitBotResponse = await function(
                    iter(chunks), metadata=_metadata(token))
        except grpc.aio.AioRpcError as error:
            raise answer_for(error, "SubmitBot") from None
        except TimeoutError:
            raise Answer(504, "the match server did not take the upload in time") from None
        return answer
