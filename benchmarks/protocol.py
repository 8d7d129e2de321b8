"""Protocol benchmark: decisions/s and latency per decision over real gRPC, against raw gRPC.

The server runs in this process; four Python random bots (the sample bot) run
as subprocesses, each on its own connection, and every game seats all four, so
each seat is a different bot. Games are single hands, played one or four at a
time straight through `ArenaServer.play_game`.

- Latency per decision is taken on the server: from the moment a table hands a
  DecisionRequest to the connection (`BotConnection.ask`) to the moment the
  answering Decision is read off the stream (`BotConnection.answer`). The two
  methods are wrapped for the run; no server code changes.
- The anchor, in the same run: a bare `grpc.aio` bidirectional stream (a
  generic handler on raw bytes, no protobuf), one stream per table, each from
  its own client subprocess. The server writes a ping as large as the run's
  average DecisionRequest and waits for a pong as large as its average
  Decision, then the next; its messages/s and p50/p99 are what a round trip
  costs with nothing of arena in it.
- A second ping-pong shows what the table's arrangement costs by itself: each
  table's pings go to four client processes in the order the bots were asked
  in the run's one-table games (recorded as they are played), so a round trip
  usually wakes a process that has been idle while others answered. "round
  trips vs turns" sets arena against it: it is the most arena could reach.
- Configurations: one and four tables; with `events_in_requests` (the SDK's
  default; events ride inside the request) or without (a GameEvents message of
  its own before each request); with `auto_single_action` (a decision with
  exactly one legal action costs no round trip) or without.

"round trips/s" counts the decisions a bot was asked; "decisions/s" every
decision of the games, so with `auto_single_action` it includes those the
server took alone. The "vs ping" ratios set round trips/s and p99 against the
ping-pong of the same concurrency (goal: ≥ 0.8 and ≤ 1.2).

"games/s" is what was measured, and random single hands vary wildly in length
(from under a hundred decisions to thousands), far more than the few percent
`auto_single_action` saves. "games/s at mean length" divides decisions/s by the
mean decisions per game over every game of the run instead: the bots play the
same way in every configuration, so it compares the configurations on equal
games.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from unittest import mock

from benchmarks.stats import play_games

ROOT = Path(__file__).resolve().parent.parent
RANDOM_BOT = ROOT / "sample_bots" / "python" / "random_bot.py"
SEATS = 4
ECHO_METHOD = "/arena.bench.Echo/Ping"


@dataclass(frozen=True)
class Config:
    """One measured configuration: how many tables at once and the bots' Hello options."""

    tables: int
    events_in_requests: bool
    auto_single_action: bool

    @property
    def bot_set(self) -> tuple[bool, bool]:
        """The Hello options, which pick the set of bot processes that plays it."""
        return self.events_in_requests, self.auto_single_action


CONFIGS = (
    Config(1, True, False), Config(1, True, True), Config(1, False, False),
    Config(4, True, False), Config(4, True, True), Config(4, False, False),
)
GAMES = {1: 8, 4: 16}
"""Games per configuration at scale 1 (a random single hand takes some 800 decisions)."""
PINGS = {1: 8000, 4: 4000}
"""Round trips per ping-pong stream at scale 1."""


# ------------------------------------------------------------------ probing


@dataclass
class Probe:
    """Server-side timing of every decision request, by wrapping `BotConnection`."""

    asked: dict[str, float] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    request_bytes: int = 0
    decision_bytes: int = 0
    requests: int = 0
    answers: int = 0
    turns: list[str] = field(default_factory=list)
    """The bot asked for each decision since the last reset, in order."""

    def reset(self) -> None:
        """Forget the latencies and turns so far (the sizes are kept for the whole run)."""
        self.asked.clear()
        self.latencies = []
        self.turns = []

    @contextlib.contextmanager
    def installed(self) -> Iterator[Probe]:
        """Wrap `BotConnection.ask` and `.answer` while the block runs."""
        from arena.server.connection import BotConnection, Outgoing, PendingDecision, serialize
        from arena.v1 import bot_pb2

        ask, answer = BotConnection.ask, BotConnection.answer
        clock = time.perf_counter

        def timed_ask(connection: BotConnection, request_id: str, request: Outgoing,
                      timeout: float) -> PendingDecision:
            self.request_bytes += len(serialize(request))
            self.requests += 1
            self.turns.append(connection.bot_name)
            self.asked[request_id] = clock()
            return ask(connection, request_id, request, timeout)

        def timed_answer(connection: BotConnection, decision: bot_pb2.Decision) -> bool:
            now = clock()
            start = self.asked.pop(decision.request_id, None)
            if start is not None:
                self.latencies.append(now - start)
                self.decision_bytes += decision.ByteSize() + 2  # in its BotMessage
                self.answers += 1
            return answer(connection, decision)

        with mock.patch.object(BotConnection, "ask", timed_ask), \
                mock.patch.object(BotConnection, "answer", timed_answer):
            yield self

    @property
    def request_size(self) -> int:
        """The average serialized DecisionRequest (as a ServerMessage), in bytes."""
        return round(self.request_bytes / self.requests) if self.requests else 512

    @property
    def decision_size(self) -> int:
        """The average serialized Decision (as a BotMessage), in bytes."""
        return round(self.decision_bytes / self.answers) if self.answers else 8


def percentile(values: list[float], q: float) -> float:
    """The `q`-th percentile (0–100) of `values`, by linear interpolation."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _summary(latencies: list[float], seconds: float) -> dict[str, float]:
    return {"round trips/s": len(latencies) / seconds,
            "p50 ms": percentile(latencies, 50) * 1000,
            "p99 ms": percentile(latencies, 99) * 1000}


# -------------------------------------------------------------- processes


@contextlib.asynccontextmanager
async def _processes(commands: list[tuple[list[str], dict[str, str]]]
                     ) -> AsyncIterator[list[asyncio.subprocess.Process]]:
    """Start the commands (stderr to a temporary file), stop them on the way out."""
    with tempfile.TemporaryFile() as log:
        processes = [await asyncio.create_subprocess_exec(
            *command, cwd=ROOT, env={**os.environ, **env},
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=log)
            for command, env in commands]
        try:
            yield processes
        except BaseException:
            _print_tail(log)
            raise
        finally:
            for process in processes:
                if process.returncode is None:
                    process.terminate()
            for process in processes:
                try:
                    await asyncio.wait_for(process.wait(), 5)
                except TimeoutError:
                    process.kill()
                    await process.wait()


def _print_tail(log: IO[bytes]) -> None:
    log.seek(0)
    tail = log.read()[-4000:].decode(errors="replace")
    if tail:
        print(f"subprocess stderr (last lines):\n{tail}", file=sys.stderr)


def _flag(value: bool) -> str:
    return "1" if value else "0"


# ------------------------------------------------------------------ arena


def _bot_names(config: Config) -> list[str]:
    events, auto = config.bot_set
    prefix = f"random-{'ev' if events else 'noev'}-{'auto' if auto else 'ask'}"
    return [f"{prefix}-{seat}" for seat in range(SEATS)]


async def _play(server: Any, bots: list[str], tables: int, games: int, seed: int,
                probe: Probe) -> dict[str, float]:
    """Play `games` single hands, `tables` at a time; the figures of the run."""
    probe.reset()
    requests_before, bytes_before = probe.requests, probe.request_bytes
    rate = await play_games(server, bots, games, tables, seed)
    asked = probe.requests - requests_before
    return {"decisions": rate.decisions, "decisions/s": rate.decisions_per_s,
            **_summary(probe.latencies, rate.seconds), "games/s": rate.games_per_s,
            "request B": (probe.request_bytes - bytes_before) / max(1, asked)}


# ----------------------------------------------------------- ping-pong


@dataclass(eq=False)
class _EchoStream:
    """One ping-pong stream, parked until a measurement takes it."""

    client: int
    """The process id of the client that opened it."""
    context: Any
    released: asyncio.Future[None]


def echo_payload(ping_size: int, pong_size: int) -> bytes:
    """An echo ping of `ping_size` bytes asking for a pong of `pong_size` bytes."""
    return pong_size.to_bytes(2, "big") + bytes(max(0, ping_size - 2))


def _ready_client(message: Any) -> int | None:
    """The client process id an echo stream's first message ("ready:PID") names."""
    return int(message.split(b":")[1]) if message.startswith(b"ready:") else None


class EchoServer:
    """The server side of the ping-pong: each stream, once its client says it is ready
    (with its process id), waits to be taken by a measurement, which drives it.

    Messages are bytes unless a `request_deserializer` and `response_serializer` are
    given; `client_of` reads the client's process id from a stream's first message.
    """

    def __init__(self, request_deserializer: Callable[[bytes], Any] | None = None,
                 response_serializer: Callable[[Any], bytes] | None = None,
                 client_of: Callable[[Any], int | None] = _ready_client) -> None:
        self.idle: list[_EchoStream] = []
        self._request_deserializer = request_deserializer
        self._response_serializer = response_serializer
        self._client_of = client_of

    def handler(self) -> Any:
        import grpc

        method = grpc.stream_stream_rpc_method_handler(
            self._stream, request_deserializer=self._request_deserializer,
            response_serializer=self._response_serializer)
        service, name = ECHO_METHOD.strip("/").split("/")
        return grpc.method_handlers_generic_handler(service, {name: method})

    async def _stream(self, requests: Any, context: Any) -> None:
        from grpc.aio import EOF  # type: ignore[attr-defined]

        ready = await context.read()
        client = None if ready is EOF else self._client_of(ready)
        if client is None:
            return
        stream = _EchoStream(client, context, asyncio.get_running_loop().create_future())
        self.idle.append(stream)
        try:
            await stream.released
        finally:
            if stream in self.idle:
                self.idle.remove(stream)

    def _take(self, tables: int, rotation: int) -> list[list[_EchoStream]] | None:
        """Streams for `tables` tables of `rotation` clients, each a different process
        (and, with one client, each table a different one); None while too few are idle."""
        by_client: dict[int, list[_EchoStream]] = {}
        for stream in self.idle:
            by_client.setdefault(stream.client, []).append(stream)
        clients = tables if rotation == 1 else rotation
        per_client = 1 if rotation == 1 else tables
        enough = [streams for streams in by_client.values() if len(streams) >= per_client]
        if len(enough) < clients:
            return None
        chosen = enough[:clients]
        groups = ([[streams[0]] for streams in chosen] if rotation == 1 else
                  [[streams[table] for streams in chosen] for table in range(tables)])
        for group in groups:
            for stream in group:
                self.idle.remove(stream)
        return groups

    async def measure(self, tables: int, count: int, payload: Any,
                      turns: Sequence[int] = (0,), work: float = 0.0) -> dict[str, float]:
        """`count` round trips of `payload` at each of `tables` tables at once; each
        table sends its pings to its client processes in the order `turns` gives
        (cycled), table t starting `t` turns in. With `work`, the server spends that
        many seconds of CPU after each round trip, as a server with work of its own
        between messages does ("work s": the CPU so spent)."""
        rotation = max(turns) + 1
        waited = 0.0
        while (groups := self._take(tables, rotation)) is None:
            if waited > 30:
                raise RuntimeError(f"too few ping-pong streams for {tables} x {rotation}")
            await asyncio.sleep(0.01)
            waited += 0.01
        latencies: list[float] = []
        clock = time.perf_counter

        worked = 0.0

        async def drive(table: int, group: list[_EchoStream]) -> None:
            from grpc.aio import EOF  # type: ignore[attr-defined]

            nonlocal worked
            for turn in range(table, table + count):
                context = group[turns[turn % len(turns)]].context
                start = clock()
                await context.write(payload)
                if await context.read() is EOF:
                    break
                latencies.append(clock() - start)
                if work:
                    worked += _spin(work)

        start = clock()
        try:
            await asyncio.gather(*(drive(table, group) for table, group in enumerate(groups)))
        finally:
            for group in groups:
                for stream in group:
                    if not stream.released.done():
                        stream.released.set_result(None)
        return {**_summary(latencies, clock() - start), "work s": worked}


def _spin(seconds: float) -> float:
    """Spend `seconds` of this thread's CPU; return the CPU spent."""
    began = time.thread_time()
    while time.thread_time() - began < seconds:
        pass
    return time.thread_time() - began


async def _echo_client(address: str, streams: int) -> None:
    """The client side: `streams` streams at once, each saying it is ready (with this
    process's id) and answering each ping with a pong of the size its first two bytes
    ask for; each opens a new stream when the server ends one."""
    import grpc

    async with grpc.aio.insecure_channel(address) as channel:
        ping: grpc.aio.StreamStreamMultiCallable[bytes, bytes] = channel.stream_stream(
            ECHO_METHOD, None, None)

        async def serve() -> None:
            while True:
                call = ping(None)
                await call.write(b"ready:%d" % os.getpid())
                while (message := await call.read()) is not grpc.aio.EOF:  # type: ignore[attr-defined]
                    assert isinstance(message, bytes)
                    await call.write(message[:int.from_bytes(message[:2], "big")])
                await call.code()

        await asyncio.gather(*(serve() for _ in range(streams)))


# ------------------------------------------------------------------- run


async def _measure(repeats: int, scale: float
                   ) -> dict[tuple[str, int, bool, bool], list[dict[str, float]]]:
    import grpc

    from arena.server.auth import TokenTable
    from arena.server.server import ArenaServer

    configs = CONFIGS
    sets = {c.bot_set: _bot_names(c) for c in configs}
    tokens = {name: secrets.token_hex(8) for names in sets.values() for name in names}
    server = ArenaServer(TokenTable(tokens))
    port = await server.start("127.0.0.1", 0)
    echo = EchoServer()
    echo_server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
    echo_server.add_generic_rpc_handlers((echo.handler(),))
    echo_port = echo_server.add_insecure_port("127.0.0.1:0")
    await echo_server.start()
    commands = [([sys.executable, str(RANDOM_BOT)],
                 {"ARENA_SERVER": f"127.0.0.1:{port}", "ARENA_TOKEN": tokens[name],
                  "ARENA_LOG_LEVEL": "WARNING", "ARENA_EVENTS_IN_REQUESTS": _flag(events),
                  "ARENA_AUTO_SINGLE_ACTION": _flag(auto)})
                for (events, auto), names in sets.items() for name in names]
    streams = max(c.tables for c in configs)
    commands += [([sys.executable, "-m", "benchmarks.protocol", "echo",
                   f"127.0.0.1:{echo_port}", str(streams)], {"PYTHONPATH": str(ROOT)})] * SEATS
    figures: dict[tuple[str, int, bool, bool], list[dict[str, float]]] = {}
    probe = Probe()
    try:
        async with _processes(commands):
            await server.wait_for_bots(list(tokens), timeout=60)
            with probe.installed():
                await asyncio.gather(*(  # warm up every connection
                    _play(server, names, 1, 1, 999, probe) for names in sets.values()))
                payload = echo_payload(probe.request_size, probe.decision_size)
                await echo.measure(streams, 100, payload)
                await echo.measure(streams, 100, payload, range(SEATS))
                for repeat in range(repeats):
                    game_turns: list[int] = []
                    for config in configs:
                        games = max(config.tables, round(GAMES[config.tables] * scale))
                        names = sets[config.bot_set]
                        run = await _play(server, names, config.tables, games, repeat, probe)
                        if config.tables == 1 and not config.auto_single_action:
                            game_turns += [names.index(name) for name in probe.turns]
                        key = ("arena", config.tables, config.events_in_requests,
                               config.auto_single_action)
                        figures.setdefault(key, []).append({"games": games, **run})
                    for tables in sorted({c.tables for c in configs}):
                        count = max(50, round(PINGS[tables] * scale))
                        for kind, turns in (("ping", [0]), ("turns ping", game_turns)):
                            ping = await echo.measure(
                                tables, count,
                                echo_payload(probe.request_size, probe.decision_size), turns)
                            figures.setdefault((kind, tables, False, False), []).append(
                                {**ping, "request B": probe.request_size})
    finally:
        await echo_server.stop(0)
        await server.stop(0.5)
    return figures


def run(repeats: int = 3, scale: float = 1.0) -> list[dict[str, object]]:
    """Median over `repeats` runs of every configuration and of the ping-pong anchors."""
    figures = asyncio.run(_measure(repeats, scale))
    medians = {key: {name: statistics.median(r[name] for r in runs) for name in runs[0]}
               for key, runs in figures.items()}
    arena_runs = [r for (kind, *_), runs in figures.items() if kind == "arena" for r in runs]
    mean_length = (sum(r["decisions"] for r in arena_runs)
                   / sum(r["games"] for r in arena_runs))
    rows: list[dict[str, object]] = []
    for (kind, tables, events, auto), m in medians.items():
        if kind != "arena":
            continue
        ping = medians[("ping", tables, False, False)]
        turns = medians[("turns ping", tables, False, False)]
        rows.append({
            "configuration": f"arena, {tables} table{'s' if tables > 1 else ''}",
            "events in requests": "on" if events else "off",
            "auto single action": "on" if auto else "off",
            "games": round(m["games"]),
            "decisions/s": round(m["decisions/s"]),
            "round trips/s": round(m["round trips/s"]),
            "p50 ms": round(m["p50 ms"], 3),
            "p99 ms": round(m["p99 ms"], 3),
            "games/s": round(m["games/s"], 2),
            "games/s at mean length": round(m["decisions/s"] / mean_length, 2),
            "request B": round(m["request B"]),
            "round trips vs ping": round(m["round trips/s"] / ping["round trips/s"], 2),
            "p99 vs ping": round(m["p99 ms"] / ping["p99 ms"], 2),
            "round trips vs turns": round(m["round trips/s"] / turns["round trips/s"], 2),
        })
    for (kind, tables, _, _), m in medians.items():
        if kind == "arena":
            continue
        streams = f"{tables} stream{'s' if tables > 1 else ''}"
        rows.append({
            "configuration": (f"grpc.aio ping-pong, {streams}" if kind == "ping" else
                              f"ping-pong in game turns, {streams}, {SEATS} clients each"),
            "events in requests": "", "auto single action": "", "games": "",
            "decisions/s": "",
            "round trips/s": round(m["round trips/s"]),
            "p50 ms": round(m["p50 ms"], 3),
            "p99 ms": round(m["p99 ms"], 3),
            "games/s": "", "games/s at mean length": "",
            "request B": round(m["request B"]),
            "round trips vs ping": round(m["round trips/s"] / medians[
                ("ping", tables, False, False)]["round trips/s"], 2),
            "p99 vs ping": round(m["p99 ms"] / medians[("ping", tables, False, False)]["p99 ms"],
                                 2),
            "round trips vs turns": "",
        })
    return rows


if __name__ == "__main__":
    if sys.argv[1:2] == ["echo"] and len(sys.argv) == 4:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(_echo_client(sys.argv[2], int(sys.argv[3])))
    else:
        sys.exit("usage: python -m benchmarks.protocol echo HOST:PORT STREAMS "
                 "(the ping-pong client; run the benchmark with python -m benchmarks protocol)")
