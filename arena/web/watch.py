"""Watching a game in play: its public events as they happen, as server-sent events
(`WatchGame`, called with the visitor's token, one stream per watcher)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from arena.v1 import admin_pb2
from arena.web import views
from arena.web.pages import front_of


async def watch_page(request: Request) -> Response:
    """The page of a game in play; its script follows the game's events."""
    front = front_of(request)
    visitor = front.visitor(request)
    game_id = request.path_params["id"]
    return front.render(request, visitor, "watch.html", game_id=game_id)


async def watch_events(request: Request) -> Response:
    """The game's public events as server-sent events: a `line` per event told, `end`
    with the game's result once it is over. A refusal (a duplicate deal still in play,
    an unknown game) is the answer's status, before any event."""
    front = front_of(request)
    visitor = front.visitor(request)
    updates = front.client.follow(
        "WatchGame", admin_pb2.WatchGameRequest(game_id=request.path_params["id"]),
        visitor.token)
    first = await anext(updates, None)
    return StreamingResponse(_events(first, updates), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store"})


async def _events(first: Any, updates: AsyncIterator[Any]) -> AsyncIterator[str]:
    async def all_updates() -> AsyncIterator[Any]:
        if first is not None:
            yield first
        async for update in updates:
            yield update

    names: list[str] = []
    try:
        async for update in all_updates():
            if update.heartbeat:
                yield ": still here\n\n"
                continue
            names = list(update.players) or names
            for line in views.public_lines(update.events, names):
                yield f"event: line\ndata: {json.dumps(line)}\n\n"
            if update.HasField("outcome"):
                break
    finally:
        await updates.aclose()  # type: ignore[attr-defined]
    yield "event: end\ndata: {}\n\n"
