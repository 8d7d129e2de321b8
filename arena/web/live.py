"""Live updates: one poller, shared by every page that listens, tells them when a game
ends or the tables in play change; each listener gets them as server-sent events.

However many visitors watch, the match server is asked the same two cheap questions
(the newest stored game, the tables in play) once per `interval`, and only while
someone listens.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from arena.v1 import admin_pb2
from arena.web.client import AdminClient, Answer

log = logging.getLogger(__name__)

POLL_SECONDS = 0.5
"""How often the poller asks the server what changed."""

GAME_GAP_SECONDS = 1.0
"""The least time between two "game" updates: games that end closer together are told
as one (at most a gap later), so that the tables the pages fetch again are made at most
once a second however fast games end."""

KEEPALIVE_SECONDS = 15.0
"""How often a quiet event stream sends a comment, so that proxies keep it open."""

QUEUE_SIZE = 16
"""Updates a slow listener may fall behind by; past it, older ones are dropped (each
update says the whole state, so the newest is enough)."""


@dataclass(frozen=True, slots=True)
class Update:
    """What changed: `kind` is "game" (a game was stored) or "tables"."""

    kind: str
    newest_game: int
    tables: int

    def as_event(self) -> str:
        """The update as one server-sent event."""
        data = json.dumps({"game": self.newest_game, "tables": self.tables})
        return f"event: {self.kind}\ndata: {data}\n\n"


class GameFeed:
    """Polls the server while anyone listens and hands each change to every listener."""

    def __init__(self, client: AdminClient, token: str | None,
                 interval: float = POLL_SECONDS, game_gap: float = GAME_GAP_SECONDS) -> None:
        self._client = client
        self._token = token
        self._interval = interval
        self._game_gap = game_gap
        self._told_game = -1
        self._told_at = -float("inf")
        self._listeners: set[asyncio.Queue[Update]] = set()
        self._task: asyncio.Task[None] | None = None
        self._newest = -1
        self._tables = -1
        self.polls = 0
        """Rounds of questions asked so far (the tests and benchmark count them)."""

    @property
    def listeners(self) -> int:
        """How many listen now."""
        return len(self._listeners)

    @property
    def newest_game(self) -> int | None:
        """The newest stored game the listeners were told of, while the poller runs (None
        when no one listens, or before its first answer): what a shared answer is
        current with."""
        if not self._listeners or self._told_game < 0:
            return None
        return self._told_game

    @contextlib.asynccontextmanager
    async def listen(self) -> AsyncIterator[asyncio.Queue[Update]]:
        """A queue of updates for one listener, for as long as the block lasts."""
        queue: asyncio.Queue[Update] = asyncio.Queue(QUEUE_SIZE)
        self._listeners.add(queue)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._poll(), name="arena-web-feed")
        try:
            yield queue
        finally:
            self._listeners.discard(queue)

    async def stop(self) -> None:
        """Stop polling."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _poll(self) -> None:
        failing = False
        while self._listeners:
            try:
                await self._poll_once()
                failing = False
            except Answer as refused:
                if not failing:
                    log.warning("live updates: %s", refused.sentence)
                failing = True
            await asyncio.sleep(self._interval)

    async def _poll_once(self) -> None:
        self.polls += 1
        games: admin_pb2.ListGamesResponse = await self._client.call(
            "ListGames", admin_pb2.ListGamesRequest(limit=1), self._token)
        tables: admin_pb2.ListTablesResponse = await self._client.call(
            "ListTables", admin_pb2.ListTablesRequest(), self._token)
        newest = games.games[0].game_id if games.games else 0
        count = len(tables.tables)
        now = asyncio.get_running_loop().time()
        if self._newest < 0:
            self._told_game = newest
            self._tables = count
        kinds = []
        if newest != self._told_game and now - self._told_at >= self._game_gap:
            kinds.append("game")
            self._told_game, self._told_at = newest, now
        if count != self._tables:
            kinds.append("tables")
        self._newest, self._tables = newest, count
        for kind in kinds:
            self._publish(Update(kind, newest, count))

    def _publish(self, update: Update) -> None:
        for queue in list(self._listeners):
            if queue.full():
                with contextlib.suppress(asyncio.QueueEmpty):
                    queue.get_nowait()
            queue.put_nowait(update)


def part_event(url: str, html: str) -> str:
    """The server-sent event that carries the part of a page at `url` (a fragment of this
    site) as it is now: a page puts `html` in place of the part, with no fetch of its own."""
    return f"event: part\ndata: {json.dumps({'url': url, 'html': html})}\n\n"


PartMaker = Callable[[str, Update], Awaitable[str | None]]
"""Makes the `part_event` of a URL after an update (None: nothing to send)."""


async def event_stream(feed: GameFeed, keepalive: float = KEEPALIVE_SECONDS,
                       parts: Mapping[str, Sequence[str]] | None = None,
                       make_part: PartMaker | None = None) -> AsyncIterator[str]:
    """The server-sent events one listener receives, until it goes away: each update, and
    after it the parts of the listener's page that show what it changed (`parts`, the
    URLs by the kind of update that changes them, made by `make_part`)."""
    async with feed.listen() as queue:
        yield "retry: 2000\n\n"
        while True:
            try:
                async with asyncio.timeout(keepalive):
                    update = await queue.get()
            except TimeoutError:
                yield ": still here\n\n"
                continue
            events = [update.as_event()]  # sent at once: one write per listener
            if parts and make_part is not None:
                for url in parts.get(update.kind, ()):
                    event = await make_part(url, update)
                    if event is not None:
                        events.append(event)
            yield "".join(events)


class SharedAnswers:
    """What the live pages fetch when a game ends, made once for everyone not signed in:
    a fragment is kept with the newest game it is current with, and the requests that
    come while it is being made wait for it (so 200 viewers cost the server one call)."""

    def __init__(self, feed: GameFeed, capacity: int = 256) -> None:
        self._feed = feed
        self._capacity = capacity
        self._kept: dict[str, tuple[int, bytes]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self.made = 0
        """Answers made so far (the tests count them)."""

    async def get(self, key: str, make: Callable[[], Awaitable[bytes]]) -> bytes:
        """The answer for `key`, current with the newest game; made by `make` if needed."""
        current = self._feed.newest_game
        if current is None:
            return await make()
        kept = self._kept.get(key)
        if kept is not None and kept[0] == current:
            return kept[1]
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            kept = self._kept.get(key)
            if kept is not None and kept[0] == current:
                return kept[1]
            body = await make()
            self.made += 1
            if len(self._kept) >= self._capacity and key not in self._kept:
                self._kept.pop(next(iter(self._kept)))
                self._locks = {k: v for k, v in self._locks.items() if k in self._kept}
            self._kept[key] = (current, body)
            return body
