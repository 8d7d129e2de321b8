"""`ArenaServer`: the match server's public API, for the tournament layer and the CLI.

Callers never touch gRPC: they start the server, wait for bots, and `play_game`
with bot names; every game comes back as a `GameResult`.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

import arena
from arena.engine.rules import RuleSet
from arena.policy import BotPolicy
from arena.result import GameAbortedError, GameResult
from arena.server import admin, gateway
from arena.server.auth import Authenticator
from arena.server.connection import MAX_OUTBOX, MAX_OUTBOX_BYTES, BotConnection
from arena.server.lobby import Lobby
from arena.server.message_size import MAX_BOT_MESSAGE_BYTES
from arena.server.permissions import Gatekeeper
from arena.server.seat import ConnectionSeat, absence_cause
from arena.server.table import GameTable
from arena.server.tls import ServerTls
from arena.store import Store
from arena.v1 import admin_pb2_grpc

AdminFactory = Callable[
    [Callable[[], list[BotConnection]], Callable[[], list[GameTable]],
     Callable[[str], GameTable | None]],
    admin_pb2_grpc.ArenaAdminServicer,
]
"""Builds the admin servicer from the server's connections, tables and table lookup."""

CrashCheck = Callable[[str], Awaitable[bool]]
"""``await check(bot_name)``: True if the bot's process died abnormally, waiting a
moment for a process whose connection just dropped to finish exiting."""

MAX_MESSAGE_BYTES = MAX_BOT_MESSAGE_BYTES
"""The largest message a bot may send; a larger one ends its stream (RESOURCE_EXHAUSTED)."""

MAX_ADMIN_MESSAGE_BYTES = 16 * 1024 * 1024
"""The largest admin request the server takes (a tournament's settings and rules, say)."""

AUDIT_SETTLE_SECONDS = 5.0
"""How long a stopping server waits for the audit lines of the streams that ended."""


class ArenaServer:
    """A gRPC match server: bots connect to it, and it plays the games it is asked to.

    ```
    server = ArenaServer(TokenTable({"alice": "t1", "bob": "t2"}))
    port = await server.start()
    await server.wait_for_bots(["alice", "bob"], timeout=10)
    result = await server.play_game(["alice", "bob"], RuleSet(), seed=1, policy=BotPolicy())
    await server.stop()
    ```

    With `admin_token`, every call to the admin service is checked by a `Gatekeeper`
    (`arena.server.permissions`): it needs ``authorization: Bearer <token>`` metadata
    holding the admin token, or the token of an author in `people` (a store), and what
    each may call is the rule's of `RULES`; with `public`, a call without a token may
    read what every participant sees. Without `admin_token`, the admin service is open
    to anyone who can reach the port. With `tls`, the port is served over
    TLS, and `local_port` is a plaintext one on 127.0.0.1. With `unix_socket` (the
    default) it also listens on a Unix domain socket, `unix_path`, in a private folder
    (owner-only), authenticated exactly as the ports are: sandboxed bots, which have no
    network, reach it there. A bot connection whose unread messages pass `max_outbox`
    messages or `max_outbox_bytes` bytes is closed.
    """

    def __init__(self, authenticator: Authenticator, *,
                 max_message_bytes: int = MAX_MESSAGE_BYTES,
                 max_admin_message_bytes: int = MAX_ADMIN_MESSAGE_BYTES,
                 hello_timeout: float = 10.0,
                 max_outbox: int = MAX_OUTBOX, max_outbox_bytes: int = MAX_OUTBOX_BYTES,
                 keep_finished: int = 64,
                 admin_token: str | None = None, tls: ServerTls | None = None,
                 unix_socket: bool = True, people: Store | None = None,
                 public: bool = False) -> None:
        self._authenticator = authenticator
        self._unix_socket = unix_socket
        self._unix_folder: str | None = None
        self._tls = tls
        self._admin_guard = (None if admin_token is None else Gatekeeper(
            admin_token, admin.SERVICE_NAME, people, public=public))
        self._max_message_bytes = max_message_bytes
        self._max_admin_message_bytes = max_admin_message_bytes
        self._hello_timeout = hello_timeout
        self._max_outbox = max_outbox
        self._max_outbox_bytes = max_outbox_bytes
        self._keep_finished = keep_finished
        self._lobby = Lobby()
        self._tables: dict[str, GameTable] = {}
        self._finished: OrderedDict[str, GameTable] = OrderedDict()
        self._crashed: set[str] = set()
        self._server: grpc.aio.Server | None = None
        self._stopping = False
        """Set once `stop` begins: no new game starts after it."""
        self._health = health.aio.HealthServicer()  # type: ignore[attr-defined]
        self.port: int | None = None
        """The port `start` bound (TLS when the server has `tls`)."""
        self.local_port: int | None = None
        """A plaintext port on 127.0.0.1 for bots and sessions on this machine: `port`
        itself without TLS, a second port with it."""
        self.unix_path: Path | None = None
        """The Unix domain socket `start` listens on too (plaintext), if any."""
        self.admin_servicer: AdminFactory = admin.AdminService
        """Builds the `ArenaAdmin` servicer at `start` from (connections, tables,
        find_table); replace it before `start` to serve the calls over the services."""
        self.on_stop: Callable[[], Awaitable[None]] | None = None
        """Awaited by `stop` once the games in play are aborted (e.g. to stop managed bots)."""
        self.on_stopped: Callable[[], Awaitable[None]] | None = None
        """Awaited by `stop` once the gRPC server has stopped and cancelled the calls still
        in play (e.g. to let the runs they started finish with the store)."""
        self.crash_check: CrashCheck | None = None
        """Set by whoever launches the bots: asked, when a bot's connection drops, whether
        its process crashed (see `CrashCheck`)."""

    # ------------------------------------------------------------ lifecycle

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        """Listen on `host:port` (0: any free port) and serve; return the bound port."""
        if self._server is not None:
            raise RuntimeError("the server is already started")
        # One receive limit covers every service; the bot service checks each bot
        # message against its own, smaller one.
        server = grpc.aio.server(
            options=[
                ("grpc.max_receive_message_length",
                 max(self._max_message_bytes, self._max_admin_message_bytes)),
                ("grpc.so_reuseport", 0),
                # Receive windows stay at gRPC's fixed default instead of growing with
                # the measured bandwidth: a peer that floods the server with messages
                # then holds at most a window's worth in its transport buffers, not
                # tens of MB (bots' messages are small; nothing needs the throughput).
                ("grpc.http2.bdp_probe", 0),
            ],
            interceptors=None if self._admin_guard is None else [self._admin_guard],
        )
        bots = gateway.BotGateway(
            self._authenticator, self._bot_connected, self._bot_disconnected,
            server_version=arena.__version__, hello_timeout=self._hello_timeout,
            max_outbox=self._max_outbox, max_outbox_bytes=self._max_outbox_bytes,
            max_message_bytes=self._max_message_bytes,
            connections_of=lambda name: len(self._lobby.connections_of(name)))
        server.add_generic_rpc_handlers((bots.handler(),))
        admin_pb2_grpc.add_ArenaAdminServicer_to_server(
            self.admin_servicer(self.connections, self.tables, self.find_table), server)
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        services = (gateway.SERVICE_NAME, admin.SERVICE_NAME,
                    health_pb2.DESCRIPTOR.services_by_name["Health"].full_name)
        reflection.enable_server_reflection((*services, reflection.SERVICE_NAME), server)
        if self._tls is None:
            bound = local = server.add_insecure_port(f"{host}:{port}")
        else:
            bound = server.add_secure_port(f"{host}:{port}", self._tls.credentials())
            local = server.add_insecure_port("127.0.0.1:0")
        if bound == 0 or local == 0:
            raise OSError(f"cannot listen on {host}:{port}")
        self._server = server  # so that `stop` reaches it even if starting is cut short
        unix_path = self._listen_on_unix_socket(server)
        await server.start()
        if unix_path is not None:
            # Who may connect is decided by the owner-only folder; a sandbox that is
            # shown the socket alone, as another user, must be able to connect to it.
            os.chmod(unix_path, 0o777)
            self.unix_path = unix_path
        for name in ("", *services):
            await self._health.set(name, health_pb2.HealthCheckResponse.SERVING)
        self.port, self.local_port = bound, local
        return bound

    @property
    def bot_address(self) -> str:
        """The address for the bots arena launches on this machine: ``unix:PATH`` of
        `unix_path` when the server has one, else ``127.0.0.1:PORT`` of `local_port`."""
        if self.unix_path is not None:
            return f"unix:{self.unix_path}"
        return f"127.0.0.1:{self.local_port}"

    def _listen_on_unix_socket(self, server: grpc.aio.Server) -> Path | None:
        if not self._unix_socket or not hasattr(os, "geteuid"):
            return None
        self._unix_folder = tempfile.mkdtemp(prefix="arena-")
        path = Path(self._unix_folder) / "bots.sock"
        if server.add_insecure_port(f"unix:{path}") == 0:
            raise OSError(f"cannot listen on the Unix socket {path}")
        return path

    async def stop(self, grace: float | None = 1.0) -> None:
        """Abort the games in play, say goodbye to every bot, and stop within `grace` seconds."""
        server = self._server
        if server is None:
            return
        self._stopping = True
        self._lobby.changed()  # a run waiting for its bots hears that none will come
        await self._health.enter_graceful_shutdown()
        tables = list(self._tables.values())
        for table in tables:
            table.abort()
        if tables:  # let the aborted tables send their GameEnd
            await asyncio.wait([asyncio.create_task(t.closed.wait()) for t in tables],
                               timeout=grace)
        if self.on_stop is not None:
            await self.on_stop()
        for connection in self._lobby.connections():
            connection.finish()
        await server.stop(grace)
        if self._admin_guard is not None:
            await self._admin_guard.settle(AUDIT_SETTLE_SECONDS)
        if self.on_stopped is not None:
            await self.on_stopped()
        self._server = None
        self._stopping = False
        if self._unix_folder is not None:
            shutil.rmtree(self._unix_folder, ignore_errors=True)
            self._unix_folder = self.unix_path = None

    async def wait_for_termination(self) -> None:
        """Wait until the server has stopped."""
        if self._server is not None:
            await self._server.wait_for_termination()

    # ---------------------------------------------------------------- bots

    async def wait_for_bots(self, names: Iterable[str], timeout: float | None) -> None:
        """Return once every named bot is connected; `TimeoutError` names those missing."""
        await self._lobby.wait_for_bots(names, timeout)

    def connected_bots(self) -> list[str]:
        """The names of the bots connected now, sorted, each once."""
        return sorted({c.bot_name for c in self._lobby.connections()})

    async def bots_changed(self) -> None:
        """Return once a bot may have connected or disconnected (or a table slot was freed:
        returning early is harmless to whoever looks at `connected_bots` again); raise
        `GameAbortedError` once the server stops, as a game in play would."""
        if not self._stopping:
            await self._lobby.wait_changed()
        if self._stopping:
            raise GameAbortedError("the server is stopping: no new game starts")

    def table_slots(self, bot_name: str) -> int:
        """How many games the bot can play at once over its open connections (their Hellos'
        `max_tables` added up; 0 when it is not connected), counting those in play."""
        return self._lobby.table_slots(bot_name)

    def connections(self) -> list[BotConnection]:
        """Every open bot connection."""
        return self._lobby.connections()

    def bot_crashed(self, bot_name: str) -> None:
        """A managed bot's process died: its absent seats' violations count as crashes."""
        self._crashed.add(bot_name)
        for table in self._tables.values():
            table.mark_crashed(bot_name)

    def _bot_connected(self, connection: BotConnection) -> None:
        self._crashed.discard(connection.bot_name)
        self._lobby.add(connection)
        self._seat_orphans(connection.bot_name)

    def _bot_disconnected(self, connection: BotConnection) -> None:
        for game_id in connection.tables:
            table = self._tables.get(game_id)
            if table is None:
                continue
            table.detach(lambda proxy: isinstance(proxy, ConnectionSeat)
                         and proxy.connection is connection, absence_cause(connection))
            if connection.bot_name in self._crashed:
                table.mark_crashed(connection.bot_name)
        self._lobby.remove(connection)
        self._seat_orphans(connection.bot_name)

    def _seat_orphans(self, bot_name: str) -> None:
        """Give the bot's seats that lost their connection to its open connections with room."""
        for table in list(self._tables.values()):
            for seat in table.orphan_seats(bot_name):
                connection = self._lobby.roomiest(bot_name)
                if connection is None:
                    return
                table.take_over(seat, ConnectionSeat(connection))

    # --------------------------------------------------------------- games

    def tables(self) -> list[GameTable]:
        """The tables being played now."""
        return list(self._tables.values())

    def find_table(self, game_id: str) -> GameTable | None:
        """A table being played or recently finished, by game id."""
        return self._tables.get(game_id) or self._finished.get(game_id)

    async def play_game(self, players: Sequence[str], rules: RuleSet, seed: int,
                        policy: BotPolicy | None = None, game_id: str | None = None) -> GameResult:
        """Play one game between the named bots (seat i is `players[i]`) and return it.

        `game_id` is the id bots, `tables` and `watch` know the game by: a scheduled
        game's public id (`arena.game_id.public_game_id`); a random hex id otherwise.

        Waits until every connected player has a free table slot. A player with
        no connection starts absent: its decisions are the policy's fallback
        until the bot connects and takes its seat. Raises `ValueError` for a bot
        named twice or the id of a game in play, `RuleSetError` for a player count the
        rules do not allow, `RuntimeError` before `start`, and `GameAbortedError`
        if the server stops first.
        """
        if self._server is None:
            raise RuntimeError("the server is not started")
        if self._stopping:
            raise GameAbortedError("the server is stopping: no new game starts")
        if len(set(players)) != len(players):
            raise ValueError(f"a bot may take only one seat in a game: {list(players)}")
        rules.check_players(len(players))
        game_id = game_id or uuid.uuid4().hex
        if game_id in self._tables:
            raise ValueError(f"game id {game_id!r} is in use")
        # A game played again (a run resumed after its table was aborted) takes its id back.
        self._finished.pop(game_id, None)
        connections = await self._lobby.claim(players)
        table = GameTable(game_id, players, rules, seed, policy or BotPolicy(), self.crash_check)
        for seat, connection in enumerate(connections):
            if connection is not None:
                table.seat(seat, ConnectionSeat(connection))
        for seat in range(len(players)):
            if players[seat] in self._crashed:
                table.mark_crashed(players[seat])
        self._tables[game_id] = table
        try:
            return await table.run()
        finally:
            self._retire(table)

    def _retire(self, table: GameTable) -> None:
        self._tables.pop(table.game_id, None)
        self._finished[table.game_id] = table
        while len(self._finished) > self._keep_finished:
            self._finished.popitem(last=False)
        for bot_name in dict.fromkeys(table.players):  # their connections have room now
            self._seat_orphans(bot_name)
        self._lobby.changed()
