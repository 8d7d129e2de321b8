"""The chaos campaign: hostile inputs, killed runs, misbehaving and blinking bots, floods.

Each part takes a size, runs against real servers, processes and SQLite files, and
returns a small result whose `line()` is its figure; `run` plays them all for
``python -m benchmarks chaos``. Every part counts what must stay zero (crashes,
stuck tables, unexpected statuses, lost or doubled games, mismatched terminations)
so a smoke run at tiny sizes can assert the same claims as the full campaign.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import descriptor, message_factory
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.engine import RuleSet
from arena.server import ArenaServer, BotPolicy, SeatTermination, TokenTable
from arena.server.assembly import build_server
from arena.server.message_size import MAX_BOT_MESSAGE_BYTES
from arena.store import Store
from arena.v1 import admin_pb2, admin_pb2_grpc, bot_pb2, uno_pb2

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
RANDOM_BOT = ROOT / "sample_bots" / "python" / "random_bot.py"
CONNECT = "/arena.v1.BotService/Connect"
ONE_HAND = RuleSet(target_score=None)
"""A single hand: short games."""
ONE_HAND_SETTINGS: dict[str, Any] = {"rules": {"target_score": None}}
"""Tournament settings for single-hand games."""
BAD_STATUSES = frozenset({grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN})
"""Statuses that mean the server failed rather than refused."""
CORE_INTERNAL = "INTERNAL (Internal error from Core)"
"""The status grpc.aio's client gives a stream whose write failed because the server had
already ended it (`_write` calls `set_internal_error`, dropping the server's status): the
client's doing, not the server's, so counted apart."""
LONG_ID = "r" * 60_000
"""A request id as long as a bot message may carry."""


# ------------------------------------------------------------------ shared pieces


def _tokens(*names: str) -> dict[str, str]:
    return {name: f"token-{name}" for name in names}


def _bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def _bot_message(**kind: Any) -> bytes:
    return bot_pb2.BotMessage(**kind).SerializeToString()


def _any(value: int) -> Any:
    """An integer where an enum is expected: proto3 enums are open on the wire."""
    return value


def _decision(request_id: str, index: int = 0) -> bytes:
    return _bot_message(decision=bot_pb2.Decision(request_id=request_id, action_index=index))


async def _raw_call(port: int, token: str | None) -> tuple[Any, Any]:
    """A Connect call on a fresh channel that writes and reads raw bytes: (channel, call);
    both untyped, as gRPC's stubs know no calls without serializers."""
    channel: Any = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    metadata = () if token is None else _bearer(token)
    return channel, channel.stream_stream(CONNECT)(metadata=metadata)


async def _honest_bot(port: int, token: str, seen_ids: list[str] | None = None) -> None:
    """A bot that answers every request with its first legal action, until cancelled;
    reconnects if its stream ends. Request ids it is asked go to `seen_ids`."""
    while True:
        channel, call = await _raw_call(port, token)
        try:
            await call.write(_bot_message(hello=bot_pb2.Hello(max_tables=64)))
            async for data in call:
                message = bot_pb2.ServerMessage.FromString(data)
                if message.WhichOneof("kind") == "decision_request":
                    request_id = message.decision_request.request_id
                    if seen_ids is not None:
                        seen_ids.append(request_id)
                        del seen_ids[:-50]
                    await call.write(_decision(request_id))
        except grpc.aio.AioRpcError:
            await asyncio.sleep(0.05)
        finally:
            call.cancel()
            await channel.close()


async def _healthy(port: int) -> bool:
    """True if the server's health check answers SERVING."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        try:
            reply = await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=5)
        except grpc.aio.AioRpcError:
            return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _arena(db: Path, *args: str, server: str | None = None) -> list[str]:
    """The command line of the arena CLI on database `db`."""
    return [PYTHON, "-m", "arena", "--db", str(db),
            *(() if server is None else ("--server", server)), *args]


def _create_tournament(db: Path, name: str, bots: list[str], settings: dict[str, Any]) -> None:
    settings_file = db.with_suffix(".settings.json")
    settings_file.write_text(json.dumps({**ONE_HAND_SETTINGS, **settings}))
    subprocess.run(_arena(db, "tournament", "create", name, *bots,
                          "--settings", str(settings_file)),
                   cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


def _group_members(group: int) -> list[int]:
    """The live processes of process group `group`."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z" and int(fields[2]) == group:
            members.append(int(entry.name))
    return members


def _kill_group(group: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGKILL)


@dataclass(frozen=True, slots=True)
class Ledger:
    """How a tournament's schedule stands in the store."""

    scheduled: int
    pending: int
    recorded: int
    """Games stored for the tournament."""
    linked: int
    """Distinct stored games that a scheduled game points at."""

    @property
    def doubled(self) -> int:
        """Stored games beyond one per scheduled game."""
        return self.recorded - self.linked

    @classmethod
    def of(cls, db: Path, tournament: str) -> Ledger:
        """Read the ledger of `tournament` straight from the SQLite file."""
        with contextlib.closing(sqlite3.connect(db)) as conn:
            (tid,) = conn.execute("SELECT id FROM tournaments WHERE name = ?",
                                  (tournament,)).fetchone()
            scheduled, pending, linked = conn.execute(
                "SELECT count(*), sum(status = 'pending'), count(DISTINCT game_id)"
                " FROM scheduled_games WHERE tournament_id = ?", (tid,)).fetchone()
            (recorded,) = conn.execute("SELECT count(*) FROM games WHERE tournament_id = ?",
                                       (tid,)).fetchone()
        return cls(scheduled, pending or 0, recorded, linked)


def _seat_terminations(db: Path, bot: str) -> list[str]:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        rows = conn.execute("SELECT s.termination FROM game_seats s JOIN bots b"
                            " ON b.id = s.bot_id WHERE b.name = ?", (bot,)).fetchall()
    return [row[0] for row in rows]


# ------------------------------------------------------------------ 1. fuzzing


@dataclass(frozen=True, slots=True)
class FuzzResult:
    """What `fuzz` sent and what broke (every count but inputs and games should be 0)."""

    inputs: int
    bot_inputs: int
    live_ids: int
    """Bot messages that carried a request id the server had issued."""
    admin_calls: int
    crashes: int
    stuck_tables: int
    unexpected: int
    core_internal: int
    """Bot streams the client's gRPC core ended as `CORE_INTERNAL`."""
    games: int
    healthy: bool
    seconds: float
    statuses: dict[str, int]

    @property
    def size(self) -> str:
        """What the part played."""
        return f"{self.inputs:,} inputs"

    @property
    def failures(self) -> int:
        """Crashes, stuck tables, unexpected statuses and a failed health check."""
        return self.crashes + self.stuck_tables + self.unexpected + (not self.healthy)

    def line(self) -> str:
        """The figure, on one line."""
        return (f"fuzz: {self.inputs:,} hostile inputs ({self.bot_inputs:,} bot messages, "
                f"{self.live_ids:,} of them with request ids the server had issued, "
                f"{self.admin_calls:,} admin calls) in {self.seconds:.1f} s; server crashes "
                f"{self.crashes}, stuck tables {self.stuck_tables} of {self.games} games, "
                f"unexpected statuses {self.unexpected} (client-core INTERNAL on streams the "
                f"server ended: {self.core_internal}), health check "
                f"{'SERVING' if self.healthy else 'FAILED'}")


class _Fuzzer:
    """Hostile bot messages, from one seeded generator, using request ids seen live."""

    def __init__(self, rng: random.Random, own_ids: list[str], other_ids: list[str]) -> None:
        self.rng = rng
        self.own_ids = own_ids
        self.other_ids = other_ids
        self.live = 0
        """Messages sent with a request id the server had issued (to this stream or another)."""

    def _request_id(self) -> str:
        if self.own_ids and self.rng.random() < 0.6:
            self.live += 1
            return self.rng.choice(self.own_ids)
        return self._random_text(64)

    def _other_id(self) -> str:
        if not self.other_ids:
            return "other"
        self.live += 1
        return self.rng.choice(self.other_ids)

    def _random_text(self, longest: int) -> str:
        alphabet = "abcxyz019-_ \x00\n€名\U0001f0cf"
        return "".join(self.rng.choice(alphabet) for _ in range(self.rng.randrange(longest)))

    def message(self) -> bytes:
        """One message that must be refused or ignored without ending the stream."""
        rng = self.rng
        kinds: list[Callable[[], bytes]] = [
            lambda: _decision(self._request_id(), rng.choice(
                [rng.randrange(5, 1000), 2**32 - 1, 2**31])),
            lambda: _decision(self._random_text(64)),
            lambda: _decision("x" * rng.randrange(65, 60_000)),
            lambda: _decision(self._other_id()),
            lambda: _bot_message(decision=bot_pb2.Decision(
                request_id=self._request_id(), action=uno_pb2.Action(
                    kind=_any(rng.randrange(-5, 50)), target=rng.randrange(0, 2**32),
                    color=_any(rng.randrange(-3, 20))))),
            lambda: _bot_message(decision=bot_pb2.Decision(request_id=self._request_id())),
            lambda: _bot_message(hello=bot_pb2.Hello(
                max_tables=rng.choice([0, 1, 2**32 - 1]), bot_version=self._random_text(300))),
            lambda: b"",
        ]
        return rng.choice(kinds)()

    def ender(self) -> bytes:
        """One message that may end the stream: garbage, a mangled message, or too big."""
        rng = self.rng
        choice = rng.random()
        if choice < 0.45:
            return rng.randbytes(rng.randrange(1, 300))
        if choice < 0.9:
            data = bytearray(self.message() or _decision("abc"))
            for _ in range(rng.randrange(1, 4)):
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            return bytes(data[:rng.randrange(1, len(data) + 1)])
        return _decision("o" * (MAX_BOT_MESSAGE_BYTES + rng.randrange(1, 4096)))


async def _fuzz_stream(port: int, token: str | None, fuzzer: _Fuzzer, count: int,
                       statuses: dict[str, int], pause: float) -> int:
    """One stream of up to `count` hostile messages, up to `pause` seconds apart (so that
    a seated bot's requests arrive meanwhile); returns how many were written."""
    channel, call = await _raw_call(port, token)

    async def read() -> None:
        async for data in call:
            message = bot_pb2.ServerMessage.FromString(data)
            if message.WhichOneof("kind") == "decision_request":
                fuzzer.own_ids.append(message.decision_request.request_id)
                del fuzzer.own_ids[:-50]

    reader = asyncio.create_task(read())
    written = 0
    try:
        if fuzzer.rng.random() < 0.9:
            await call.write(_bot_message(hello=bot_pb2.Hello(max_tables=4)))
        else:  # no Hello first: a decision, garbage or nothing at all
            await call.write(fuzzer.message())
        written += 1
        ends = fuzzer.rng.random() < 0.5
        for index in range(1, count):
            await asyncio.sleep(fuzzer.rng.uniform(0, pause))
            await call.write(fuzzer.ender() if ends and index == count - 1
                             else fuzzer.message())
            written += 1
        if not ends:  # after an ender, the server's status is awaited without writing on
            await call.done_writing()
    except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
        pass  # the server ended the stream: its status says how
    except Exception as exc:  # a write on a call the server already closed
        if "done" not in str(exc).lower() and "closed" not in str(exc).lower():
            raise
    with contextlib.suppress(TimeoutError, grpc.aio.AioRpcError):
        await asyncio.wait_for(asyncio.shield(reader), 2.0)
    call.cancel()
    await asyncio.gather(reader, return_exceptions=True)
    code = await call.code()
    key = code.name if code not in BAD_STATUSES else f"{code.name} ({await call.details()})"
    statuses[key] = statuses.get(key, 0) + 1
    await channel.close()
    return written


def _random_value(rng: random.Random, field: Any) -> Any:
    kind = field.type
    f = descriptor.FieldDescriptor
    if kind == f.TYPE_STRING:
        return rng.choice(["", "x" * rng.randrange(1, 5000), "../../etc/passwd", "\x00",
                           "名前", "fuzz0", "honest", "t", "-1", " ", "a" * 64])
    if kind == f.TYPE_BYTES:
        return rng.randbytes(rng.randrange(50))
    if kind == f.TYPE_BOOL:
        return rng.random() < 0.5
    if kind in (f.TYPE_DOUBLE, f.TYPE_FLOAT):
        return rng.choice([0.0, -1.0, 1e308, float("inf"), float("nan"), 0.5])
    if kind == f.TYPE_ENUM:
        numbers = [value.number for value in field.enum_type.values]
        return rng.choice([*numbers, 99, -1])
    if kind in (f.TYPE_UINT32, f.TYPE_FIXED32):
        return rng.choice([0, 1, 2, 7, 2**32 - 1])
    if kind in (f.TYPE_UINT64, f.TYPE_FIXED64):
        return rng.choice([0, 1, 3, 2**64 - 1])
    if kind in (f.TYPE_INT32, f.TYPE_SINT32, f.TYPE_SFIXED32):
        return rng.choice([0, -1, 1, 2**31 - 1, -(2**31)])
    return rng.choice([0, -1, 1, 2**63 - 1, -(2**63)])


def _random_request(rng: random.Random, message: Message, depth: int = 0) -> Message:
    """Fill `message` with random, mostly nonsensical values."""
    for field in message.DESCRIPTOR.fields:
        if rng.random() < 0.3:
            continue
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            key_field, value_field = field.message_type.fields
            if value_field.message_type is None:
                getattr(message, field.name)[_random_value(rng, key_field)] = (
                    _random_value(rng, value_field))
        elif field.message_type is not None:
            if depth < 2:
                if field.is_repeated:
                    for _ in range(rng.randrange(3)):
                        _random_request(rng, getattr(message, field.name).add(), depth + 1)
                else:
                    _random_request(rng, getattr(message, field.name), depth + 1)
        elif field.is_repeated:
            getattr(message, field.name).extend(
                _random_value(rng, field) for _ in range(rng.randrange(4)))
        else:
            setattr(message, field.name, _random_value(rng, field))
    return message


async def _fuzz_admin(port: int, rng: random.Random, calls: int,
                      statuses: dict[str, int]) -> None:
    """`calls` admin calls with random arguments; statuses counted by name."""
    service = admin_pb2.DESCRIPTOR.services_by_name["ArenaAdmin"]
    methods = list(service.methods)
    channel: Any
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        for _ in range(calls):
            method = rng.choice(methods)
            request = _random_request(rng, message_factory.GetMessageClass(method.input_type)())
            path = f"/{service.full_name}/{method.name}"
            code = grpc.StatusCode.OK
            try:
                if method.server_streaming:
                    stream = channel.unary_stream(path)(request.SerializeToString(), timeout=10)
                    async for _reply in stream:
                        pass
                else:
                    await channel.unary_unary(path)(request.SerializeToString(), timeout=10)
            except grpc.aio.AioRpcError as exc:
                code = exc.code()
            key = code.name if code not in BAD_STATUSES else f"{code.name} ({method.name})"
            statuses[key] = statuses.get(key, 0) + 1


def fuzz(inputs: int, *, seed: int = 2026, stuck_after: float = 60.0) -> FuzzResult:
    """Send `inputs` hostile inputs over real gRPC to running servers (nine bot messages
    for each admin call with random arguments) while games are played on two tables of
    one of them (an honest bot against a fuzzed one), and count games that raised or got
    stuck and statuses that mean the server failed."""
    return asyncio.run(_fuzz(inputs, seed, stuck_after))


async def _fuzz(inputs: int, seed: int, stuck_after: float) -> FuzzResult:
    started = time.monotonic()
    rng = random.Random(seed)
    fuzzers = [f"fuzz{i}" for i in range(3)]
    tokens = _tokens("honest", *fuzzers)
    server = ArenaServer(TokenTable(tokens))
    port = await server.start()
    statuses: dict[str, int] = {}
    honest_ids: list[str] = []
    honest = asyncio.create_task(_honest_bot(port, tokens["honest"], honest_ids))
    stop = asyncio.Event()
    outcome = {"games": 0, "stuck": 0, "crashes": 0}

    async def play(opponent: str) -> None:
        policy = BotPolicy(decision_timeout=0.05, max_strikes=None)
        while not stop.is_set():
            game = server.play_game(["honest", opponent], ONE_HAND, rng.randrange(2**32), policy)
            try:
                await asyncio.wait_for(game, stuck_after)
            except TimeoutError:
                outcome["stuck"] += 1
            except Exception:
                outcome["crashes"] += 1
            outcome["games"] += 1

    # two tables, so that a fuzzer seated at one answers requests of the other's game
    games = asyncio.gather(play("fuzz0"), play("fuzz1"))
    admin_calls = inputs // 10
    bot_inputs = live = 0
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "fuzz.db")
        store.add_bot("fuzz0", "remote")
        managed = build_server(store, Path(folder) / "logs")
        admin_port = await managed.start()
        while bot_inputs < inputs - admin_calls:
            count = min(rng.randrange(2, 40), inputs - admin_calls - bot_inputs)
            name = rng.choice([*fuzzers, "fuzz0", "stranger"])
            token = (None if name == "stranger"
                     else tokens[name] if rng.random() < 0.9 else "forged")
            fuzzer = _Fuzzer(rng, [], honest_ids)
            pause = 0.01 if name in ("fuzz0", "fuzz1") else 0.0
            bot_inputs += await _fuzz_stream(port, token, fuzzer, max(count, 1), statuses, pause)
            live += fuzzer.live
        await _fuzz_admin(admin_port, rng, admin_calls, statuses)
        healthy = await _healthy(port) and await _healthy(admin_port)
        await managed.stop(grace=0.5)
        store.close()
    stop.set()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(games), stuck_after)
    if not games.done():
        outcome["stuck"] += 1
    games.cancel()
    honest.cancel()
    await asyncio.gather(games, honest, return_exceptions=True)
    await server.stop(grace=0.5)
    unexpected = sum(n for key, n in statuses.items() if key != CORE_INTERNAL
                     and key.split()[0] in {code.name for code in BAD_STATUSES})
    return FuzzResult(bot_inputs + admin_calls, bot_inputs, live, admin_calls, outcome["crashes"],
                      outcome["stuck"], unexpected, statuses.get(CORE_INTERNAL, 0),
                      outcome["games"], healthy,
                      time.monotonic() - started, statuses)


# ------------------------------------------------------------------ 2. kill and resume


@dataclass(frozen=True, slots=True)
class KillResult:
    """A tournament SIGKILLed `kills` times and resumed: every game once, or not."""

    kills: int
    kills_mid_play: int
    """Kills of a run that had recorded at least one game (the rest hit it starting up)."""
    games: int
    lost: int
    doubled: int
    orphans: int
    """Managed bot processes still alive half a second after their run was killed."""
    finished: bool
    seconds: float

    @property
    def size(self) -> str:
        """What the part played."""
        return f"{self.kills} kills, {self.games} games"

    @property
    def failures(self) -> int:
        """Games lost or doubled, and a final run that failed."""
        return self.lost + self.doubled + (not self.finished)

    def line(self) -> str:
        """The figure, on one line."""
        return (f"kill and resume: {self.kills} SIGKILLs of `arena tournament run` "
                f"({self.kills_mid_play} after it had recorded games) in "
                f"{self.seconds:.1f} s; games {self.games}, lost {self.lost}, doubled "
                f"{self.doubled}; bot processes left behind by killed runs {self.orphans}; "
                f"final run {'finished' if self.finished else 'FAILED'}")


def kill_resume(kills: int, deals: int, *, seed: int = 7, longest_run: float = 4.0) -> KillResult:
    """Run a tournament of three managed random bots (`deals` deals at tables of 3, six
    games each) on a SQLite file with the CLI, SIGKILL the CLI `kills` times at random
    moments (each within `longest_run` seconds of its start), then let it finish; count
    scheduled games lost or stored twice."""
    started = time.monotonic()
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "kill.db"
        with Store(db) as store:
            for name in ("r1", "r2", "r3"):
                store.add_bot(name, "managed", f"{PYTHON} {RANDOM_BOT}")
        _create_tournament(db, "chaos", ["r1", "r2", "r3"],
                           {"table_size": 3, "deals_per_table": deals, "concurrency": 2})
        done = orphans = mid_play = 0
        while done < kills:
            before = Ledger.of(db, "chaos").recorded
            run = subprocess.Popen(_arena(db, "tournament", "run", "chaos"), cwd=ROOT,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   start_new_session=True)
            try:
                run.wait(timeout=rng.uniform(0.5, longest_run))
            except subprocess.TimeoutExpired:
                run.send_signal(signal.SIGKILL)
                run.wait()
                done += 1
                mid_play += Ledger.of(db, "chaos").recorded > before
                time.sleep(0.5)
                orphans += len(_group_members(run.pid))
            finally:
                _kill_group(run.pid)
            if run.returncode == 0:
                break  # the schedule was played out before all the kills
        final = subprocess.run(_arena(db, "tournament", "run", "chaos"), cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=600)
        ledger = Ledger.of(db, "chaos")
    return KillResult(done, mid_play, ledger.scheduled, ledger.pending, ledger.doubled,
                      orphans, final.returncode == 0, time.monotonic() - started)


# ------------------------------------------------------------------ 3. misbehaving bots


BEHAVIOURS = {
    "timeout": SeatTermination.TIMEOUT,
    "illegal": SeatTermination.ILLEGAL,
    "malformed": SeatTermination.MALFORMED,
    "crash": SeatTermination.CRASH,
}
"""Each misbehaviour and the seat termination it must be recorded as."""

CRASHING_BOT = """
import os, sys, threading, grpc
from arena.v1 import bot_pb2

def messages():
    yield bot_pb2.BotMessage(hello=bot_pb2.Hello()).SerializeToString()
    threading.Event().wait()  # the stream stays open until the process dies

channel = grpc.insecure_channel(sys.argv[1])
call = channel.stream_stream("/arena.v1.BotService/Connect")(
    messages(),
    metadata=(("authorization", "Bearer " + sys.argv[2]),))
for data in call:
    if bot_pb2.ServerMessage.FromString(data).WhichOneof("kind") == "decision_request":
        os._exit(3)
"""
"""A bot process that dies at its first decision request."""


@dataclass(frozen=True, slots=True)
class MisbehaviourResult:
    """Games against misbehaving bots, and how many seats were recorded otherwise."""

    games: int
    mismatches: int
    recorded: dict[str, dict[str, int]]
    seconds: float

    @property
    def size(self) -> str:
        """What the part played."""
        return f"{self.games} games"

    @property
    def failures(self) -> int:
        """Seats recorded with another termination than their bot's misbehaviour."""
        return self.mismatches

    def line(self) -> str:
        """The figure, on one line."""
        seen = "; ".join(f"{bot}: " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items()))
                         for bot, counts in self.recorded.items())
        return (f"misbehaving bots: {self.games} games in {self.seconds:.1f} s, terminations "
                f"not matching the misbehaviour {self.mismatches} ({seen})")


async def _misbehaving_bot(port: int, token: str, behaviour: str) -> None:
    """A bot that misbehaves as `behaviour` says at each request, until cancelled."""
    channel, call = await _raw_call(port, token)
    try:
        await call.write(_bot_message(hello=bot_pb2.Hello(max_tables=8)))
        async for data in call:
            message = bot_pb2.ServerMessage.FromString(data)
            if message.WhichOneof("kind") != "decision_request":
                continue
            request = message.decision_request
            if behaviour == "illegal":
                await call.write(_decision(request.request_id, len(request.legal_actions) + 3))
            elif behaviour == "malformed":
                await call.write(b"\xff\xff\xff\xff garbage")
    except grpc.aio.AioRpcError:
        pass
    finally:
        call.cancel()
        await channel.close()


def misbehaving(rounds: int) -> MisbehaviourResult:
    """Play `rounds` games against each misbehaving bot (timing out, answering out of
    range, sending garbage, its process dying) with an honest opponent, and count seats
    whose termination is not their bot's misbehaviour."""
    return asyncio.run(_misbehaving(rounds))


async def _misbehaving(rounds: int) -> MisbehaviourResult:
    started = time.monotonic()
    crashers = [f"crash{i}" for i in range(rounds)]  # a crashed name stays crashed
    tokens = _tokens("honest", "timeout", "illegal", "malformed", *crashers)
    server = ArenaServer(TokenTable(tokens))
    port = await server.start()
    processes: dict[str, subprocess.Popen[bytes]] = {}

    async def crashed(name: str) -> bool:
        process = processes.get(name)
        if process is None:
            return False
        for _ in range(100):
            if process.poll() is not None:
                return process.returncode != 0
            await asyncio.sleep(0.02)
        return False

    server.crash_check = crashed
    honest = asyncio.create_task(_honest_bot(port, tokens["honest"]))
    policy = BotPolicy(decision_timeout=0.3, on_violation="forfeit")
    recorded: dict[str, dict[str, int]] = {behaviour: {} for behaviour in BEHAVIOURS}
    mismatches = games = 0
    for round_number in range(rounds):
        for behaviour, expected in BEHAVIOURS.items():
            name = crashers[round_number] if behaviour == "crash" else behaviour
            if behaviour == "crash":
                processes[name] = subprocess.Popen(
                    [PYTHON, "-c", CRASHING_BOT, f"127.0.0.1:{port}", tokens[name]], cwd=ROOT)
                bot = None
            else:
                bot = asyncio.create_task(_misbehaving_bot(port, tokens[name], behaviour))
            await server.wait_for_bots([name, "honest"], timeout=20)
            seats = ["honest", name] if round_number % 2 else [name, "honest"]
            result = await asyncio.wait_for(
                server.play_game(seats, ONE_HAND, 1000 + round_number, policy), 60)
            termination = result.seat_terminations[seats.index(name)]
            counts = recorded[behaviour]
            counts[termination.value] = counts.get(termination.value, 0) + 1
            mismatches += termination is not expected
            games += 1
            if bot is not None:
                bot.cancel()
                await asyncio.gather(bot, return_exceptions=True)
    honest.cancel()
    await asyncio.gather(honest, return_exceptions=True)
    await server.stop(grace=0.5)
    for process in processes.values():
        process.wait(timeout=10)
    return MisbehaviourResult(games, mismatches, recorded, time.monotonic() - started)


# ------------------------------------------------------------------ 4. blinking bot


@dataclass(frozen=True, slots=True)
class BlinkResult:
    """A remote bot killed and restarted every second through a tournament."""

    kills: int
    games: int
    disconnects: int
    in_progress: int
    """Games the blinking bot had a seat in at the moments it was killed."""
    lost: int
    doubled: int
    seconds: float

    @property
    def excess(self) -> int:
        """Games ending `disconnect` for the bot beyond those in play at its kills."""
        return max(0, self.disconnects - self.in_progress)

    @property
    def size(self) -> str:
        """What the part played."""
        return f"{self.kills} kills, {self.games} games"

    @property
    def failures(self) -> int:
        """Disconnects beyond the games in play at the kills, games lost or doubled."""
        return self.excess + self.lost + self.doubled

    def line(self) -> str:
        """The figure, on one line."""
        return (f"blinking bot: {self.kills} SIGKILLs of a remote SDK bot, one a second, in "
                f"{self.seconds:.1f} s; {self.games} games, {self.disconnects} of its seats "
                f"ended `disconnect` with {self.in_progress} in play at the kills: "
                f"{self.excess} beyond; lost {self.lost}, doubled {self.doubled}")


@contextlib.contextmanager
def _serving(db: Path, port: int) -> Iterator[subprocess.Popen[bytes]]:
    serve = subprocess.Popen(_arena(db, "serve", "--port", str(port)), cwd=ROOT,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
    try:
        yield serve
    finally:
        serve.send_signal(signal.SIGTERM)
        try:
            serve.wait(timeout=15)
        except subprocess.TimeoutExpired:
            serve.kill()
            serve.wait()
        _kill_group(serve.pid)


async def _tables_with(port: int, token: str, bot: str) -> int:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        reply = await admin_pb2_grpc.ArenaAdminStub(channel).ListTables(
            admin_pb2.ListTablesRequest(), metadata=_bearer(token), timeout=5)
    return sum(bot in table.players for table in reply.tables)


async def _until_serving(port: int, timeout: float = 30) -> None:
    async with asyncio.timeout(timeout):
        while not await _healthy(port):
            await asyncio.sleep(0.2)


def blinking(deals: int, *, period: float = 1.0) -> BlinkResult:
    """Run a tournament (`deals` deals at tables of 3, six games each) of two managed
    random bots and a remote random bot that is SIGKILLed and restarted every `period`
    seconds, and count the bot's seats ending `disconnect` beyond those in play at the
    kills."""
    return asyncio.run(_blinking(deals, period))


async def _blinking(deals: int, period: float) -> BlinkResult:
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "blink.db"
        with Store(db) as store:
            for name in ("r1", "r2"):
                store.add_bot(name, "managed", f"{PYTHON} {RANDOM_BOT}")
            _, token = store.add_bot("blink", "remote")
        _create_tournament(db, "blink", ["r1", "r2", "blink"],
                           {"table_size": 3, "deals_per_table": deals, "concurrency": 2,
                            "policy": {"decision_timeout": 1.0, "on_violation": "fallback",
                                       "max_strikes": None}})
        port = _free_port()
        env = {**os.environ, "ARENA_SERVER": f"127.0.0.1:{port}", "ARENA_TOKEN": token}
        kills = in_progress = 0
        with _serving(db, port):
            await _until_serving(port)
            admin_token = next(Path(folder).glob("*admin-token")).read_text().strip()
            runner = subprocess.Popen(
                _arena(db, "tournament", "run", "blink", "--wait", "60",
                       server=f"127.0.0.1:{port}"),
                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            while runner.poll() is None:
                bot = subprocess.Popen([PYTHON, str(RANDOM_BOT)], cwd=ROOT, env=env,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                await asyncio.sleep(period)
                if runner.poll() is None:
                    in_progress += await _tables_with(port, admin_token, "blink")
                    kills += 1
                bot.kill()
                bot.wait()
            ledger = Ledger.of(db, "blink")
        disconnects = _seat_terminations(db, "blink").count("disconnect")
    return BlinkResult(kills, ledger.scheduled, disconnects, in_progress, ledger.pending,
                       ledger.doubled, time.monotonic() - started)


# ------------------------------------------------------------------ 5. memory under abuse


SERVER = """
import asyncio, sys
from arena.server import ArenaServer, TokenTable

async def main():
    server = ArenaServer(TokenTable({"alice": "token-alice", "bob": "token-bob"}))
    print(await server.start(), flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await server.stop(grace=0.1)

asyncio.run(main())
"""
"""A match server in a process of its own, stopped when its stdin closes."""


@dataclass(frozen=True, slots=True)
class MemoryResult:
    """The server's peak resident memory while streams flooded it."""

    streams: int
    decisions: int
    peak_mb: float
    seconds: float

    @property
    def size(self) -> str:
        """What the part played."""
        return f"{self.streams} x {self.decisions:,} decisions"

    @property
    def failures(self) -> int:
        """1 if the peak passed 100 MB."""
        return int(self.peak_mb >= 100)

    def line(self) -> str:
        """The figure, on one line."""
        return (f"memory under abuse: {self.streams} unread streams x {self.decisions:,} "
                f"decisions with 60 KB request ids in {self.seconds:.1f} s; server peak RSS "
                f"(VmHWM) {self.peak_mb:.0f} MB (bound 100 MB)")


@contextlib.contextmanager
def server_process() -> Iterator[tuple[int, int]]:
    """A match server (`SERVER`) in its own process: (pid, port); stopped on the way out."""
    process = subprocess.Popen([PYTHON, "-c", SERVER], cwd=ROOT, text=True,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert process.stdout is not None and process.stdin is not None
        yield process.pid, int(process.stdout.readline())
    finally:
        if process.stdin is not None:
            process.stdin.close()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def peak_rss_mb(pid: int) -> float:
    """The most memory process `pid` has held resident so far (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmHWM for process {pid}")


async def _flood(port: int, token: str, decisions: int) -> None:
    channel, call = await _raw_call(port, token)
    await call.write(_bot_message(hello=bot_pb2.Hello()))
    data = _decision(LONG_ID)
    for _ in range(decisions):
        await call.write(data)
    call.cancel()
    await channel.close()


def memory(decisions: int) -> MemoryResult:
    """Two streams that never read, each sending `decisions` decisions with 60 KB request
    ids to a server in its own process; its peak RSS afterwards."""
    started = time.monotonic()
    with server_process() as (pid, port):

        async def abuse() -> None:
            with contextlib.suppress(TimeoutError):  # a server that stops reading: its peak
                await asyncio.wait_for(asyncio.gather(_flood(port, "token-alice", decisions),
                                                      _flood(port, "token-bob", decisions)),
                                       timeout=60)
            await asyncio.sleep(0.5)  # the last messages read are handled

        asyncio.run(abuse())
        peak = peak_rss_mb(pid)
    return MemoryResult(2, decisions, peak, time.monotonic() - started)


# ------------------------------------------------------------------ the campaign

MEDIAN = False
"""For `python -m benchmarks`: this part's figures are counts of one run, not medians."""


def run(repeats: int = 1, scale: float = 1.0) -> list[dict[str, object]]:
    """The whole campaign at `scale` of its full sizes: 10,000 fuzz inputs; 20 kills of a
    180-game tournament; 5 rounds of misbehaviour; a blinking bot through a 60-game
    tournament; 1,500 flooding decisions per stream. Prints each part's line as it ends
    and returns one row per part; `repeats` is ignored (each figure is a count)."""
    parts: list[tuple[str, Callable[[], Any]]] = [
        ("fuzz", lambda: fuzz(max(50, round(10_000 * scale)))),
        ("kill and resume", lambda: kill_resume(max(2, round(20 * scale)),
                                                max(2, round(60 * scale)))),
        ("misbehaving bots", lambda: misbehaving(max(1, round(5 * scale)))),
        ("blinking bot", lambda: blinking(max(1, round(20 * scale)))),
        ("memory under abuse", lambda: memory(max(100, round(1500 * scale)))),
    ]
    rows: list[dict[str, object]] = []
    for name, part in parts:
        result = part()
        print(result.line(), flush=True)
        rows.append({"part": name, "size": result.size, "failures (must be 0)": result.failures,
                     "seconds": round(result.seconds, 1)})
    return rows
