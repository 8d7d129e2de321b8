"""A real match server for the web tests, with its people and its games.

The server is `arena serve`'s (`tests.support.managed_server`: gRPC on loopback, a real
SQLite file, the organizer's token checked, managed sample bots as subprocesses). It
runs in a thread of its own, with its own event loop, so that the web front under test
(Starlette's TestClient, or uvicorn for the browser) keeps its own.

Seeding happens on a first run of the server: the organizer adds two authors and a
viewer, Alice submits the greedy sample bot, and a three-seat tournament of single hands
is played among it and two of the organizer's bots. The third bot is then renamed to a
script tag (names are checked on the way in, so only the database can hold one), and
the server is started again on the same file for the tests.
"""

from __future__ import annotations

import asyncio
import io
import json
import shlex
import sqlite3
import sys
import tarfile
import threading
from collections.abc import Awaitable, Iterator
from concurrent.futures import Future
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from arena.submissions import pack
from arena.v1 import admin_pb2, admin_pb2_grpc
from arena.wire_admin import upload_chunks
from tests.support import managed_server

ROOT = Path(__file__).resolve().parents[2]
PYTHON_BOTS = ROOT / "sample_bots" / "python"
ORGANIZER = "organizer-token-for-the-web"
HOSTILE = "<script>alert(1)</script>"
TOURNAMENT = "cup"
ONE_HAND = json.dumps({"target_score": None})
T = TypeVar("T")


def bot_command(script: str) -> str:
    """The managed-bot command of a Python sample bot."""
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(PYTHON_BOTS / f'{script}_bot.py'))}"


def metadata(token: str | None) -> list[tuple[str, str]]:
    """gRPC call metadata carrying `token`."""
    return [] if token is None else [("authorization", f"Bearer {token}")]


def bot_archive(name: str) -> bytes:
    """A .tar.gz of a submitted bot called `name`: the random sample bot."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as packed:
        packed.add(PYTHON_BOTS / "random_bot.py", "random_bot.py")
        manifest = f'name = "{name}"\nrun = "python random_bot.py"\nruntime = "python"\n'
        info = tarfile.TarInfo("arena-bot.toml")
        info.size = len(manifest)
        packed.addfile(info, io.BytesIO(manifest.encode()))
    return buffer.getvalue()


@dataclass
class Seeded:
    """What the first run left in the database: tokens, and a game of Alice's bot."""

    tokens: dict[str, str]
    alice_game: str
    games: int


async def _seed(folder: Path) -> Seeded:
    async with managed_server(folder, admin_token=ORGANIZER) as served:
        channel = __import__("grpc").aio.insecure_channel(f"127.0.0.1:{served.port}")
        stub = admin_pb2_grpc.ArenaAdminStub(channel)
        org = metadata(ORGANIZER)
        tokens = {"organizer": ORGANIZER}
        for name, role in (("alice", "author"), ("bob", "author"), ("vera", "viewer")):
            added = await stub.AddAuthor(admin_pb2.AddAuthorRequest(name=name, role=role),
                                         metadata=org)
            tokens[name] = added.token
        archive = pack(PYTHON_BOTS)
        await stub.SubmitBot(iter(list(upload_chunks(archive, admin_pb2.SubmitBotHeader()))),
                             metadata=metadata(tokens["alice"]))
        for name, script in (("rnd", "random"), ("counter", "counter")):
            await stub.AddBot(admin_pb2.AddBotRequest(name=name, kind="managed",
                                                      command=bot_command(script)),
                              metadata=org)
        await stub.CreateTournament(admin_pb2.CreateTournamentRequest(
            name=TOURNAMENT, bots=["greedy@1", "rnd", "counter"], rules_json=ONE_HAND,
            settings_json=json.dumps({"table_size": 3, "deals_per_table": 1, "seed": 5})),
            metadata=org)
        async for _ in stub.RunTournament(admin_pb2.RunTournamentRequest(
                tournament=TOURNAMENT), metadata=org):
            pass
        games = await stub.ListGames(admin_pb2.ListGamesRequest(bot="greedy@1"), metadata=org)
        await channel.close()
        return Seeded(tokens, games.games[0].id, len(games.games))


class ServerThread:
    """The match server running in a thread of its own; `run` hands it a coroutine."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.loop = asyncio.new_event_loop()
        self.port = 0
        self._started: Future[int] = Future()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._main, name="web-test-server",
                                        daemon=True)

    @property
    def address(self) -> str:
        """The server's gRPC address."""
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start the server; return once it listens."""
        self._thread.start()
        self.port = self._started.result(timeout=60)

    def stop(self) -> None:
        """Stop the server and its bots."""
        if self._stop is not None:
            self.loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout=30)

    def run(self, work: Awaitable[T], timeout: float = 60) -> T:
        """Run `work` on the server's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(work, self.loop).result(timeout)  # type: ignore[arg-type]

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._serve())

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        try:
            async with managed_server(self.folder, admin_token=ORGANIZER) as served:
                self._started.set_result(served.port)
                await self._stop.wait()
        except BaseException as error:
            if not self._started.done():
                self._started.set_exception(error)
            raise


@dataclass
class Served:
    """The server the web tests show, and what it holds."""

    thread: ServerThread
    seeded: Seeded
    folder: Path

    @property
    def address(self) -> str:
        """Its gRPC address."""
        return self.thread.address

    def token(self, who: str) -> str | None:
        """The token of `who` (organizer, alice, bob, vera; None for nobody)."""
        return self.seeded.tokens.get(who)

    def call(self, method: str, request: Any, who: str = "organizer") -> Any:
        """An admin call, on the server's own loop."""
        async def calling() -> Any:
            channel = __import__("grpc").aio.insecure_channel(self.address)
            try:
                stub = admin_pb2_grpc.ArenaAdminStub(channel)
                function = getattr(stub, method)
                if method in ("RunTournament", "PlayMatch"):
                    return [m async for m in function(request, metadata=metadata(
                        self.token(who)))]
                return await function(request, metadata=metadata(self.token(who)))
            finally:
                await channel.close()
        return self.thread.run(calling(), timeout=120)


@contextmanager
def served_for_the_web(folder: Path, *, hostile: bool = True) -> Iterator[Served]:
    """Seed a server's database in `folder`, then serve it for the tests (with `hostile`,
    the counter bot renamed to a script tag)."""
    seeded = asyncio.run(_seed(folder))
    if hostile:
        with closing(sqlite3.connect(folder / "arena.db")) as connection, connection:
            connection.execute("UPDATE bots SET name = ? WHERE name = 'counter'", (HOSTILE,))
    thread = ServerThread(folder)
    thread.start()
    try:
        yield Served(thread, seeded, folder)
    finally:
        thread.stop()
