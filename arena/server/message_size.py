"""How large a bot's message may be, checked message by message.

A gRPC server has one receive limit for every service on it; admin requests (a
tournament's settings, say) may be far larger than a bot may send. The server takes
the larger, and the bot service parses each message through `bot_message_parser`,
which refuses one over the bot limit before parsing it.
"""

from __future__ import annotations

from collections.abc import Callable

from arena.v1 import bot_pb2

MAX_BOT_MESSAGE_BYTES = 64 * 1024
"""The largest message a bot may send; a larger one ends its stream (RESOURCE_EXHAUSTED)."""


class MessageTooLarge(ValueError):
    """A bot sent a message over its size limit; the message says both sizes."""


def bot_message_parser(limit: int) -> Callable[[bytes], bot_pb2.BotMessage]:
    """Parses a `BotMessage` of at most `limit` bytes; raises `MessageTooLarge` for a
    larger one (and protobuf's `DecodeError` for bytes that are not one)."""
    def parse(data: bytes) -> bot_pb2.BotMessage:
        if len(data) > limit:
            raise MessageTooLarge(f"a message of {len(data):,} bytes is over the "
                                  f"{limit:,}-byte limit")
        return bot_pb2.BotMessage.FromString(data)
    return parse
