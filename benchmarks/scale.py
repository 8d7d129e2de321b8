"""Scale benchmark: games/s of one tournament on 1 and N worker processes, on a Dask cluster,
the driver's recording ceiling, and the CPU one decision costs a worker.

One tournament shape throughout: four Python sample bots (the random bot, as in
`benchmarks protocol` and `benchmarks tournament`) at one 4-seat table, single
hands, each deal in its four rotations, four tables at once per worker; every
game recorded with its rating update in SQLite by the driver (this process).
Figures of one run are compared with each other only (same-run ratios): the
machine may be shared.

- "one process": today's run, unpinned: the run's own server and bots.
- "1 worker, pinned": one worker process (its match server and its bots: they
  inherit the pinning) on one core; the driver is not pinned.
- "N workers, pinned": N = the cores this process may use, each worker on a core
  of its own. Goal: ≥ 0.9 × N × the pinned 1-worker figure.
- "Dask, N workers": a `LocalCluster` of N single-threaded worker processes on
  127.0.0.1 (no dashboard), each pinned to a core of its own, with the
  settings the README recommends (`DASK_SETTINGS`). Goal: ≥ 0.9 × the
  local N-worker figure. ``python -m benchmarks.scale dask [REPEATS]`` measures
  it alone against the local figure, with the CPU per decision of the driver
  process (on Dask it runs the scheduler and the nannies too), of the worker
  processes and of their main threads (a Dask worker's event loop).
- "driver ceiling": games/s that the driver's recording (`record_game`: the game,
  its replay log, the schedule entry and TrueSkill in both pools, one transaction
  each) absorbs with no play at all: a pool hands back finished games instantly.
- "CPU per decision": CPU seconds of the pinned worker's whole process tree (its
  server and its four bots) per decision, split between server and bots, against
  the CPU per round trip of a bare grpc.aio ping-pong that rotates among four
  client processes, all on one core (the rotating ping-pong of `benchmarks
  protocol`). Goal: ≤ 1.3 × the ping-pong's. The same against the protobuf
  ping-pong too, whose ends parse and build the protocol's messages (a real
  DecisionRequest, a Decision) as a bot without an SDK and the bot service do:
  what is left above it is arena's own work.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

from benchmarks.stats import random_hand

ROOT = Path(__file__).resolve().parent.parent
BOT_SCRIPTS = {f"random-{n}": "random_bot.py" for n in "abcd"}
"""The protocol benchmark's bots: decisions cost the bots next to nothing, so what is
measured is arena's own path."""
RULES: dict[str, Any] = {"target_score": None}
TABLES = 4
"""Tables each worker plays at once."""
PING_BYTES, PONG_BYTES = 400, 24
"""The ping-pong's message sizes: about a DecisionRequest and a Decision of these games."""
MEDIAN = True

_TICK = os.sysconf("SC_CLK_TCK")


def _cores() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def _bots() -> tuple[tuple[str, str], ...]:
    return tuple((name, f"{sys.executable} {ROOT / 'sample_bots' / 'python' / script}")
                 for name, script in BOT_SCRIPTS.items())


# ------------------------------------------------------------ process CPU

def _cpu(pid: int) -> float:
    """CPU seconds (user + system) process `pid` has used; 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICK


def _main_thread_cpu(pid: int) -> float:
    """CPU seconds the main thread of process `pid` has used (a Dask worker's event loop)."""
    try:
        fields = Path(f"/proc/{pid}/task/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICK


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                tree.setdefault(parent, []).append(int(entry.name))
    return tree


def _descendants(pid: int) -> list[int]:
    tree, found, todo = _children(), [], [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _bot_processes(pids: Sequence[int]) -> set[int]:
    """The sample bots among `pids` (the launchers they run under count as bots too)."""
    bots = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
            if b"_bot.py" in command:
                bots.add(pid)
    return bots


# ------------------------------------------------------------------ runs

class _Bench:
    """A store with the four bots, a server with management and worker pools."""

    def __init__(self, folder: Path) -> None:
        from arena.distributed import worker_pools
        from arena.server.assembly import build_server
        from arena.services import Services
        from arena.store import Store

        self.folder = folder
        self.store = Store.open(folder / "bench.db")
        holder: list[Services] = []
        self.server = build_server(self.store, folder / "logs", holder.append,
                                   worker_pools=worker_pools)
        self.services = holder[0]
        for name, command in _bots():
            self.services.bots.add(name, "managed", command)
        self.created = 0

    def tournament(self, games: int, seed: int) -> str:
        self.created += 1
        name = f"bench-{self.created}"
        self.services.competitions.create_tournament(name, list(BOT_SCRIPTS), {
            "format": "round_robin", "table_size": len(BOT_SCRIPTS),
            "deals_per_table": max(1, games // len(BOT_SCRIPTS)), "seed": seed,
            "concurrency": TABLES, "rules": RULES, "policy": {"decision_timeout": 5.0}})
        return name

    def decisions(self, name: str) -> int:
        return sum(len(self.store.get_game(g.id).actions)
                   for g in self.store.games(tournament=name, limit=None))

    @property
    def plan(self) -> Any:
        from arena.tournament.chunked import WorkerPlan

        return WorkerPlan(_bots(), str(self.folder / "logs"))


async def _one_process(bench: _Bench, games: int, seed: int) -> dict[str, float]:
    name = bench.tournament(games, seed)
    await bench.services.runs.ensure_bots(list(BOT_SCRIPTS), 60)
    start = time.perf_counter()
    await bench.services.runs.run_tournament(name, TABLES, 60)
    seconds = time.perf_counter() - start
    await bench.services.fleet.stop()
    return {"games/s": games / seconds, "decisions/s": bench.decisions(name) / seconds}


async def _on_pool(bench: _Bench, pool: Any, games: int, seed: int,
                   tree: int | None = None, workers: Sequence[int] = ()) -> dict[str, float]:
    """Run a tournament on an open pool; with `tree`, measure that process tree's CPU;
    measure the CPU of this process (the driver) and of the `workers` processes (their
    bots not counted) and of their main threads."""
    from arena.tournament.chunked import run_tournament_on_workers

    name = bench.tournament(games, seed)
    pids = [] if tree is None else [tree, *_descendants(tree)]
    before = {pid: _cpu(pid) for pid in pids}
    driver, own = _cpu(os.getpid()), {pid: (_cpu(pid), _main_thread_cpu(pid)) for pid in workers}
    start = time.perf_counter()
    summary = await run_tournament_on_workers(bench.store, name, pool)
    seconds = time.perf_counter() - start
    used = {pid: _cpu(pid) - before[pid] for pid in pids}
    driver = _cpu(os.getpid()) - driver
    worker_cpu = sum(_cpu(pid) - own[pid][0] for pid in workers)
    main_cpu = sum(_main_thread_cpu(pid) - own[pid][1] for pid in workers)
    assert summary.played == bench.store.schedule_progress(name)[1]
    decisions = bench.decisions(name)
    figures = {"games/s": summary.played / seconds, "decisions/s": decisions / seconds,
               "driver µs/decision": 1e6 * driver / decisions}
    if workers:
        figures["workers µs/decision"] = 1e6 * worker_cpu / decisions
        figures["main threads µs/decision"] = 1e6 * main_cpu / decisions
    if tree is not None:
        bots = _bot_processes(pids)
        figures["server µs/decision"] = 1e6 * sum(
            cpu for pid, cpu in used.items() if pid not in bots) / decisions
        figures["bots µs/decision"] = 1e6 * sum(used[pid] for pid in bots) / decisions
        figures["decisions/s per core"] = decisions / sum(used.values())
    return figures


async def _local(bench: _Bench, workers: int, games: int, seed: int,
                 measure_cpu: bool = False) -> dict[str, float]:
    from arena.distributed.local import LocalWorkers

    cores = _cores()
    before = set(_children().get(os.getpid(), []))
    async with LocalWorkers(bench.plan, workers,
                            [frozenset({cores[i % len(cores)]}) for i in range(workers)]) as pool:
        spawned = set(_children().get(os.getpid(), [])) - before
        hosts = [pid for pid in spawned if _descendants(pid)]
        tree = max(hosts, key=lambda pid: len(_descendants(pid))) if measure_cpu else None
        return await _on_pool(bench, pool, games, seed, tree, hosts)


def _pin_dask_worker(cores: list[int], dask_worker: Any = None) -> int:
    """On a Dask worker (`client.run` passes it): pin this process (and the bots it starts
    later) to a core of its own, by the worker's name (LocalCluster names them 0, 1, …);
    its process id."""
    os.sched_setaffinity(0, {cores[int(dask_worker.name) % len(cores)]})
    return os.getpid()


DASK_SETTINGS = {"distributed.worker.profile.enabled": False,
                 "distributed.admin.tick.interval": "1s",
                 "distributed.admin.system-monitor.interval": "5s"}
"""The Dask settings the README recommends for an arena cluster. While a task runs, a
worker's event loop wakes about 108 times a second with Dask's defaults: its statistical
profiler samples the task's thread every 10 ms (for arena always a chunk waiting on its
host), its tick checks every 20 ms that the loop is not blocked, its system monitor
samples every 0.5 s. With these, 13 times (2.7% of a core → 0.5%, on the core its bots
play on; the scheduler's and nanny's process 2.5% → 0.7%)."""


async def _dask(bench: _Bench, workers: int, games: int, seed: int) -> dict[str, float]:
    import dask
    import distributed

    from arena.distributed.cluster import DaskWorkers

    cluster_class: Any = distributed.LocalCluster
    client_class: Any = distributed.Client
    with dask.config.set(DASK_SETTINGS):  # the scheduler's, and the nannies hand them on
        cluster = await cluster_class(n_workers=workers, threads_per_worker=1, processes=True,
                                      host="127.0.0.1", dashboard_address=None,
                                      asynchronous=True)
    async with cluster:
        async with client_class(cluster.scheduler_address, asynchronous=True) as client:
            await client.wait_for_workers(workers)
            pids = list((await client.run(_pin_dask_worker, _cores())).values())
        async with DaskWorkers(bench.plan, cluster.scheduler_address) as pool:
            return await _on_pool(bench, pool, games, seed, workers=pids)


class _InstantPool:
    """A pool that hands back every game of a chunk at once, made beforehand."""

    size = 2

    def __init__(self, made: dict[int, Any]) -> None:
        self.made = made

    async def play(self, chunk: Any) -> Any:
        from arena.tournament.chunked import ChunkResult

        return ChunkResult(tuple((g.id, self.made[g.id]) for g in chunk.games), 1e-3)


async def _ceiling(bench: _Bench, games: int, seed: int) -> dict[str, float]:
    from arena.tournament.chunked import run_tournament_on_workers

    name = bench.tournament(games, seed)
    made = {g.id: random_hand(g.seats, g.seed, RULES) for g in bench.store.pending_games(name)}
    start = time.perf_counter()
    summary = await run_tournament_on_workers(bench.store, name, _InstantPool(made))
    return {"games/s": summary.played / (time.perf_counter() - start)}


PING_PONGS = ("echo", "protobuf")
"""The ping-pong anchors: "echo" moves bytes of a request's and a decision's sizes and
parses nothing; "protobuf" moves a real DecisionRequest, parsed by the client as a
`ServerMessage`, and a Decision built by the client and parsed by the server with the
bot service's own parser: the messages of a decision, with none of arena's work."""


def _ping_pong(count: int, kind: str = "echo", work: float = 0.0) -> dict[str, float]:
    """The rotating ping-pong `kind` on one core, in a process of its own: CPU µs per
    round trip; with `work`, its server spends that many µs of CPU after each round trip
    (left out of its figure)."""
    core = _cores()[0]
    output = subprocess.run(
        [sys.executable, "-m", "benchmarks.scale", "ping-pong", str(count), kind, str(work)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, check=True,
        preexec_fn=lambda: os.sched_setaffinity(0, {core})).stdout
    return dict(json.loads(output))


def decision_request_payload(seed: int = 0, decisions: int = 24) -> bytes:
    """A `ServerMessage` of a decision request as a table sends it, `decisions` into a
    seeded four-seat hand of random moves: the seat's view, its legal actions and the
    events since its last decision (about 470 bytes, the games' mean)."""
    from arena import wire
    from arena.engine.game import Game
    from arena.engine.rules import RuleSet

    game = Game.new(RuleSet.from_dict(RULES), 4, seed)
    pick = random.Random(seed)
    last_seen = 0
    for _ in range(decisions):
        if game.is_over:
            break
        seen = len(game.events)
        game.apply(pick.choice(game.legal_actions()))
        if game.decider is not None and not game.is_over:
            last_seen = seen
    assert game.decider is not None, "the hand ended before the request"
    seat = game.decider
    events = [wire.event_to_bytes(e)
              for e in wire.events_for_seat(game.events[last_seen:], seat)]
    return wire.decision_request_to_bytes("123456", "bench:0", game.view(seat),
                                          game.legal_actions(), 5000, 0, events)


async def _ping_pong_here(count: int, kind: str = "echo", work: float = 0.0
                          ) -> dict[str, float]:
    import grpc

    from arena.server.connection import serialize
    from arena.server.message_size import MAX_BOT_MESSAGE_BYTES, bot_message_parser
    from benchmarks.protocol import EchoServer, echo_payload

    if kind == "echo":
        echo = EchoServer()
        client = ["-m", "benchmarks.protocol", "echo"]
        ping = echo_payload(PING_BYTES, PONG_BYTES)
    else:
        echo = EchoServer(request_deserializer=bot_message_parser(MAX_BOT_MESSAGE_BYTES),
                          response_serializer=serialize, client_of=_hello_client)
        client = ["-m", "benchmarks.scale", "protobuf-client"]
        ping = decision_request_payload()
    server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
    server.add_generic_rpc_handlers((echo.handler(),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    clients = [subprocess.Popen([sys.executable, *client, f"127.0.0.1:{port}", "1"], cwd=ROOT,
                                env={**os.environ, "PYTHONPATH": str(ROOT)})
               for _ in range(4)]
    try:
        await echo.measure(1, 200, ping, range(4))  # warm up
        pids = [os.getpid(), *(c.pid for c in clients)]
        before = {pid: _cpu(pid) for pid in pids}
        worked = (await echo.measure(1, count, ping, range(4), work / 1e6))["work s"]
        used = {pid: _cpu(pid) - before[pid] for pid in pids}
        used[os.getpid()] -= worked
    finally:
        for client_process in clients:
            client_process.terminate()
            client_process.wait()
        await server.stop(0)
    return {"server µs/round trip": 1e6 * used[os.getpid()] / count,
            "clients µs/round trip": 1e6 * sum(used[c.pid] for c in clients) / count}


def _hello_client(message: Any) -> int | None:
    """The client process id a protobuf ping-pong stream's Hello names (its bot_version,
    "ready:PID"); None for any other first message."""
    version = message.hello.bot_version if message.WhichOneof("kind") == "hello" else ""
    return int(version.split(":")[1]) if version.startswith("ready:") else None


async def _protobuf_client(address: str, streams: int) -> None:
    """The protobuf ping-pong's client: `streams` streams, each saying Hello ("ready:PID")
    and answering each DecisionRequest with a Decision for its last legal action, as a
    bot without an SDK would."""
    import grpc

    from arena.v1 import bot_pb2
    from benchmarks.protocol import ECHO_METHOD

    async with grpc.aio.insecure_channel(address) as channel:
        connect = channel.stream_stream(
            ECHO_METHOD, request_serializer=bot_pb2.BotMessage.SerializeToString,
            response_deserializer=bot_pb2.ServerMessage.FromString)

        async def serve() -> None:
            hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_version=f"ready:{os.getpid()}"))
            while True:
                call = connect(None)
                await call.write(hello)
                while isinstance(message := await call.read(), bot_pb2.ServerMessage):
                    request = message.decision_request
                    answer = bot_pb2.BotMessage()
                    answer.decision.request_id = request.request_id
                    answer.decision.action_index = len(request.legal_actions) - 1
                    await call.write(answer)
                await call.code()

        await asyncio.gather(*(serve() for _ in range(streams)))


# ------------------------------------------------------------------- run

@contextlib.contextmanager
def _folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="arena-scale-") as tmp:
        yield Path(tmp)


@contextlib.asynccontextmanager
async def _bench() -> AsyncIterator[_Bench]:
    with _folder() as folder:
        bench = _Bench(folder)
        await bench.server.start("127.0.0.1", 0)
        try:
            yield bench
        finally:
            await bench.server.stop(0.5)
            bench.store.close()


PARTS = ("one process", "1 worker, pinned", "N workers, pinned", "Dask, N workers",
         "driver ceiling", "ping-pong", "protobuf ping-pong", "own work", "paced ping-pong")
"""What one measurement takes, in order."""


async def measure(parts: Sequence[str], games: int, seed: int, pings: int,
                  recorded: int | None = None) -> dict[str, dict[str, float]]:
    """The figures of `parts` (of `PARTS`) for tournaments of `games` games seeded
    `seed` (`recorded` games for the driver's ceiling, default `games`), and a ping-pong
    of `pings` round trips."""
    workers = len(_cores())
    figures: dict[str, dict[str, float]] = {}
    async with _bench() as bench:
        runs = {
            "one process": lambda: _one_process(bench, games, seed),
            "1 worker, pinned": lambda: _local(bench, 1, games, seed, measure_cpu=True),
            "N workers, pinned": lambda: _local(bench, workers, games, seed),
            "Dask, N workers": lambda: _dask(bench, workers, games, seed),
            "driver ceiling": lambda: _ceiling(bench, recorded or games, seed),
        }
        for part in parts:
            if part in runs:
                figures[part] = await runs[part]()
    if "ping-pong" in parts:
        figures["ping-pong"] = _ping_pong(pings, "echo")
    if "protobuf ping-pong" in parts:
        figures["protobuf ping-pong"] = _ping_pong(pings, "protobuf")
    if "own work" in parts or "paced ping-pong" in parts:
        figures["own work"] = await asyncio.to_thread(_own_work, games, seed)
    if "paced ping-pong" in parts:
        figures["paced ping-pong"] = _ping_pong(pings, "echo", figures["own work"]["server µs"])
    return figures


def _own_work(games: int, seed: int) -> dict[str, float]:
    """arena's own CPU per decision, with no transport (`benchmarks.decision_cost`), on one
    core: the server's and the SDK's, over `games` games (run on a thread of its own,
    which alone is pinned)."""
    from benchmarks import decision_cost

    core = _cores()[0]
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {core})
    try:
        server, messages = decision_cost.server_cost(games, seed)
        return {"server µs": server, "SDK µs": decision_cost.sdk_cost(messages)}
    finally:
        os.sched_setaffinity(0, allowed)


def run(repeats: int = 3, scale: float = 1.0) -> list[dict[str, object]]:
    """Median over `repeats` runs of every figure, and of the ratios the goals are set on.

    Random single hands vary widely in length, so the ratios between runs of play
    are taken on decisions/s (equal games), each within one measurement.
    """
    import statistics

    games = max(8, int(240 * scale)) // 4 * 4
    runs = [asyncio.run(measure(PARTS, games, seed, max(200, int(4000 * scale)),
                                recorded=max(games, int(400 * scale))))
            for seed in range(repeats)]
    m = {part: {key: statistics.median(r[part][key] for r in runs) for key in runs[0][part]}
         for part in runs[0]}
    workers = len(_cores())

    def ratio(top: str, bottom: str, times: int = 1) -> float:
        return round(statistics.median(
            r[top]["decisions/s"] / (times * r[bottom]["decisions/s"]) for r in runs), 2)

    def cpu(r: dict[str, dict[str, float]], anchor: str) -> float:
        return _per_decision(r["1 worker, pinned"]) / _per_round_trip(r[anchor])

    def paced(r: dict[str, dict[str, float]]) -> float:
        own = r["own work"]["server µs"] + r["own work"]["SDK µs"]
        return _per_decision(r["1 worker, pinned"]) / (_per_round_trip(r["paced ping-pong"])
                                                        + own)

    one = m["1 worker, pinned"]
    per_decision = _per_decision(one)

    def row(figure: str, part: str | None, ratio_: object = "",
            goal: str = "") -> dict[str, object]:
        figures = m[part] if part else {}
        return {"figure": figure,
                "games/s": round(figures["games/s"], 1) if "games/s" in figures else "",
                "decisions/s": round(figures["decisions/s"]) if "decisions/s" in figures else "",
                "ratio": ratio_, "goal": goal}

    return [
        row("one process (unpinned)", "one process"),
        row("1 worker, pinned to a core", "1 worker, pinned"),
        row(f"{workers} workers, a core each", "N workers, pinned",
            ratio("N workers, pinned", "1 worker, pinned", workers),
            f"≥ 0.9 × {workers} × 1 worker"),
        row(f"Dask, {workers} workers on loopback", "Dask, N workers",
            ratio("Dask, N workers", "N workers, pinned"), f"≥ 0.9 × {workers} local workers"),
        row("driver ceiling (record + TrueSkill, SQLite)", "driver ceiling",
            round(statistics.median(r["driver ceiling"]["games/s"]
                                    / r["1 worker, pinned"]["games/s"] for r in runs), 1),
            "workers one driver feeds"),
        row(f"CPU per decision, 1 worker: {per_decision:.0f} µs (server "
            f"{one['server µs/decision']:.0f}, bots {one['bots µs/decision']:.0f}); "
            f"{one['decisions/s per core']:.0f} decisions/s per core", None,
            round(statistics.median(cpu(r, "ping-pong") for r in runs), 2),
            f"≤ 1.3 × the echo ping-pong's {_anchor(m['ping-pong'])}"),
        row("CPU per decision against the protobuf ping-pong", None,
            round(statistics.median(cpu(r, "protobuf ping-pong") for r in runs), 2),
            f"the protobuf ping-pong's {_anchor(m['protobuf ping-pong'])}"),
        row(f"arena's own work per decision: server {m['own work']['server µs']:.0f} µs, "
            f"SDK {m['own work']['SDK µs']:.0f} µs (no transport)", None,
            round(statistics.median(paced(r) for r in runs), 2),
            f"against the ping-pong paced by the server's own work, "
            f"{_anchor(m['paced ping-pong'])}, plus the own work"),
    ]


def _per_decision(figures: dict[str, float]) -> float:
    return figures["server µs/decision"] + figures["bots µs/decision"]


def _per_round_trip(figures: dict[str, float]) -> float:
    return figures["server µs/round trip"] + figures["clients µs/round trip"]


def _anchor(figures: dict[str, float]) -> str:
    return (f"{_per_round_trip(figures):.0f} µs (server {figures['server µs/round trip']:.0f},"
            f" clients {figures['clients µs/round trip']:.0f})")


def cpu_per_decision(repeats: int = 3, games: int = 120, pings: int = 2000) -> list[str]:
    """The "CPU per decision" figures alone: `repeats` runs of a pinned 1-worker run of
    `games` games, the echo and protobuf ping-pongs of `pings` round trips, arena's own
    work and the paced ping-pong; each run's ratios and their medians (a quicker check
    than the whole benchmark)."""
    import statistics

    lines: list[str] = []
    anchors = ("ping-pong", "protobuf ping-pong", "paced")
    ratios: dict[str, list[float]] = {anchor: [] for anchor in anchors}
    for seed in range(repeats):
        r = asyncio.run(measure(["1 worker, pinned", "ping-pong", "protobuf ping-pong",
                                 "own work", "paced ping-pong"], games, seed, pings))
        one, own = r["1 worker, pinned"], r["own work"]
        decision = _per_decision(one)
        ratios["ping-pong"].append(decision / _per_round_trip(r["ping-pong"]))
        ratios["protobuf ping-pong"].append(decision / _per_round_trip(r["protobuf ping-pong"]))
        ratios["paced"].append(decision / (_per_round_trip(r["paced ping-pong"])
                                           + own["server µs"] + own["SDK µs"]))
        lines.append(
            f"decision {decision:.0f} µs (server {one['server µs/decision']:.0f}, bots "
            f"{one['bots µs/decision']:.0f}); echo ping-pong {_anchor(r['ping-pong'])}: "
            f"{ratios['ping-pong'][-1]:.2f}; protobuf ping-pong "
            f"{_anchor(r['protobuf ping-pong'])}: {ratios['protobuf ping-pong'][-1]:.2f}; own "
            f"work server {own['server µs']:.0f} µs, SDK {own['SDK µs']:.0f} µs; paced "
            f"ping-pong {_anchor(r['paced ping-pong'])}, with the own work: "
            f"{ratios['paced'][-1]:.2f}")
        print(lines[-1], flush=True)
    lines.append(f"median ratios: {statistics.median(ratios['ping-pong']):.2f} to the echo "
                 f"ping-pong (goal ≤ 1.3), {statistics.median(ratios['protobuf ping-pong']):.2f}"
                 f" to the protobuf one, {statistics.median(ratios['paced']):.2f} to the paced "
                 f"one plus arena's own work")
    print(lines[-1])
    return lines


def dask_against_local(repeats: int = 3, games: int = 240) -> list[str]:
    """The "Dask, N workers" figure alone: `repeats` pairs of a local N-worker run and a
    Dask N-worker run of `games` games, each pair's decisions/s ratio and their median,
    with the CPU per decision of the driver process (on Dask it also runs the scheduler
    and the nannies), of the worker processes and of their main threads (a Dask worker's
    event loop)."""
    import statistics

    lines, ratios = [], []
    for seed in range(repeats):
        r = asyncio.run(measure(["N workers, pinned", "Dask, N workers"], games, seed, 0))
        local, dask = r["N workers, pinned"], r["Dask, N workers"]
        ratios.append(dask["decisions/s"] / local["decisions/s"])
        lines.append(
            f"local {local['decisions/s']:.0f} decisions/s, Dask {dask['decisions/s']:.0f}: "
            f"ratio {ratios[-1]:.2f}; µs/decision: driver {local['driver µs/decision']:.1f} "
            f"→ {dask['driver µs/decision']:.1f}, workers {local['workers µs/decision']:.1f} "
            f"→ {dask['workers µs/decision']:.1f}, of which main threads "
            f"{local['main threads µs/decision']:.1f} → "
            f"{dask['main threads µs/decision']:.1f}")
        print(lines[-1], flush=True)
    lines.append(f"median ratio {statistics.median(ratios):.2f} (goal ≥ 0.9)")
    print(lines[-1])
    return lines


if __name__ == "__main__":
    if sys.argv[1:2] == ["ping-pong"] and len(sys.argv) in (3, 4, 5):
        kind = sys.argv[3] if len(sys.argv) > 3 else "echo"
        work = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
        print(json.dumps(asyncio.run(_ping_pong_here(int(sys.argv[2]), kind, work))))
    elif sys.argv[1:2] == ["protobuf-client"] and len(sys.argv) == 4:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(_protobuf_client(sys.argv[2], int(sys.argv[3])))
    elif sys.argv[1:2] == ["cpu"] and len(sys.argv) <= 3:
        cpu_per_decision(int(sys.argv[2]) if len(sys.argv) == 3 else 3)
    elif sys.argv[1:2] == ["dask"] and len(sys.argv) <= 3:
        dask_against_local(int(sys.argv[2]) if len(sys.argv) == 3 else 3)
    else:
        sys.exit("usage: python -m benchmarks.scale ping-pong COUNT [echo|protobuf [WORK_µS]] | "
                 "protobuf-client HOST:PORT STREAMS | cpu [REPEATS] | dask [REPEATS] (run the "
                 "whole benchmark with python -m benchmarks scale)")
