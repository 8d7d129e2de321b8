"""`BotService.Connect`: authenticate a bot, read its Hello, then pump its stream."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from arena import wire
from arena.server.auth import Authenticator, bearer_token
from arena.server.connection import (
    MAX_OUTBOX,
    MAX_OUTBOX_BYTES,
    BotConnection,
    BotHello,
    CloseReason,
    serialize,
)
from arena.server.message_size import MAX_BOT_MESSAGE_BYTES, MessageTooLarge, bot_message_parser
from arena.v1 import bot_pb2

SERVICE_NAME = bot_pb2.DESCRIPTOR.services_by_name["BotService"].full_name
"""The full name of the bot service ("arena.v1.BotService")."""

Context = grpc.aio.ServicerContext[bot_pb2.BotMessage, bot_pb2.ServerMessage]

MAX_CONNECTIONS_PER_BOT = 32
"""The most connections one bot may hold open at once."""


class BotGateway:
    """The bot service: one `BotConnection` per authenticated stream.

    `on_connect` is called once the bot said Hello (before any of its messages
    is read), `on_disconnect` once its stream ended.
    """

    def __init__(self, authenticator: Authenticator,
                 on_connect: Callable[[BotConnection], None],
                 on_disconnect: Callable[[BotConnection], None], *,
                 server_version: str, hello_timeout: float = 10.0,
                 max_outbox: int = MAX_OUTBOX, max_outbox_bytes: int = MAX_OUTBOX_BYTES,
                 connections_of: Callable[[str], int] = lambda name: 0,
                 max_connections: int = MAX_CONNECTIONS_PER_BOT,
                 max_message_bytes: int = MAX_BOT_MESSAGE_BYTES) -> None:
        self._authenticator = authenticator
        self._on_connect = on_connect
        self._on_disconnect = on_disconnect
        self._connections_of = connections_of
        self._max_connections = max_connections
        self._server_version = server_version
        self._hello_timeout = hello_timeout
        self._max_outbox = max_outbox
        self._max_outbox_bytes = max_outbox_bytes
        self._max_message_bytes = max_message_bytes

    def handler(self) -> grpc.GenericRpcHandler[bot_pb2.BotMessage, bot_pb2.ServerMessage]:
        """The gRPC handler to add to a server."""
        connect = grpc.stream_stream_rpc_method_handler(
            self.connect,
            request_deserializer=bot_message_parser(self._max_message_bytes),
            response_serializer=serialize,
        )
        return grpc.method_handlers_generic_handler(SERVICE_NAME, {"Connect": connect})

    async def connect(self, requests: AsyncIterator[bot_pb2.BotMessage], context: Context) -> None:
        """Serve one bot's stream until it ends."""
        token = bearer_token(context.invocation_metadata())
        # The store may be asked (a bot's own token): never on the event loop.
        name = (None if token is None
                else await asyncio.to_thread(self._authenticator.bot_name, token))
        # The first message is read even from a bot that will be refused: a client
        # still writing it when the call ends may report INTERNAL instead of the
        # status the server sent (grpc/grpc#36066).
        first = await self._read_first(context)
        if name is None:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown token" if token else
                                "missing 'authorization: Bearer <token>' metadata")
        if first is None:
            return
        if isinstance(first, tuple):
            await context.abort(*first)
        if first.WhichOneof("kind") != "hello":
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                "the first message must be a Hello")
        if self._connections_of(name) >= self._max_connections:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"bot {name} already has {self._max_connections} connections "
                                "open; play more tables over each (Hello.max_tables)")
        await self._serve(name, BotHello.from_proto(first.hello), context)

    async def _serve(self, name: str, hello: BotHello, context: Context) -> None:
        connection = BotConnection(name, hello, context.peer(), self._max_outbox,
                                   self._max_outbox_bytes)
        connection.send(wire.welcome_to_proto(name, self._server_version, hello.max_tables))
        self._on_connect(connection)
        try:
            await connection.serve(context)
        finally:
            self._on_disconnect(connection)
        await _end_call(connection, context, self._max_message_bytes)

    async def _read_first(self, context: Context) -> (
            bot_pb2.BotMessage | tuple[grpc.StatusCode, str] | None):
        """The first message; None if the stream ended first; (code, details) if it is bad."""
        try:
            async with asyncio.timeout(self._hello_timeout):
                message: Any = await context.read()
        except TimeoutError:
            return grpc.StatusCode.DEADLINE_EXCEEDED, f"no Hello within {self._hello_timeout:g} s"
        except DecodeError:
            return grpc.StatusCode.INVALID_ARGUMENT, "the first message is not a BotMessage"
        except MessageTooLarge as exc:
            return grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc)
        return message if isinstance(message, bot_pb2.BotMessage) else None


async def _end_call(connection: BotConnection, context: Context,
                    max_message_bytes: int) -> None:
    """End the call with a status that says why the server closed it, if it did."""
    if connection.write_abandoned:
        return  # a write is stuck in the call; no status can be sent after it
    if connection.close_reason is CloseReason.MALFORMED:
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                            "a message could not be parsed as a BotMessage")
    if connection.close_reason is CloseReason.TOO_LARGE:
        await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                            f"a message was over the {max_message_bytes:,}-byte limit")
    if connection.close_reason is CloseReason.OVERFLOW:
        await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                            "too many unread messages or bytes: the bot stopped reading")
