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
  protocol`). Goal: ≤ 1.3 × the ping-pong's.
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
        from arena.server.management import Management
        from arena.store import Store

        self.folder = folder
        self.store = Store.open(folder / "bench.db")
        holder: list[Management] = []
        self.server = build_server(self.store, folder / "logs", holder.append,
                                   worker_pools=worker_pools)
        self.management = holder[0]
        for name, command in _bots():
            self.management.add_bot(name, "managed", command)
        self.created = 0

    def tournament(self, games: int, seed: int) -> str:
        self.created += 1
        name = f"bench-{self.created}"
        self.management.create_tournament(name, list(BOT_SCRIPTS), {
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
    await bench.management.ensure_bots(list(BOT_SCRIPTS), 60)
    start = time.perf_counter()
    await bench.management.run_tournament(name, TABLES, 60)
    seconds = time.perf_counter() - start
    await bench.management.stop_bots()
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


def _random_game(seats: Sequence[str], seed: int) -> Any:
    """A single hand of random legal moves from deal `seed`, as a worker hands it back."""
    from arena import wire
    from arena.engine.game import Game
    from arena.engine.rules import RuleSet
    from arena.record import SeatTermination
    from arena.tournament.runner import PlayedGame

    game = Game.new(RuleSet.from_dict(RULES), len(seats), seed)
    pick = random.Random(seed)
    actions = []
    while not game.is_over:
        action = pick.choice(game.legal_actions())
        actions.append(wire.action_to_dict(action))
        game.apply(action)
    assert game.outcome is not None
    return PlayedGame(game.outcome, [wire.event_to_dict(e) for e in game.events], actions,
                      [SeatTermination.NORMAL] * len(seats))


async def _ceiling(bench: _Bench, games: int, seed: int) -> dict[str, float]:
    from arena.tournament.chunked import run_tournament_on_workers

    name = bench.tournament(games, seed)
    made = {g.id: _random_game(g.seats, g.seed) for g in bench.store.pending_games(name)}
    start = time.perf_counter()
    summary = await run_tournament_on_workers(bench.store, name, _InstantPool(made))
    return {"games/s": summary.played / (time.perf_counter() - start)}


def _ping_pong(count: int) -> dict[str, float]:
    """The rotating ping-pong on one core, in a process of its own: CPU µs per round trip."""
    core = _cores()[0]
    output = subprocess.run(
        [sys.executable, "-m", "benchmarks.scale", "ping-pong", str(count)], cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, check=True,
        preexec_fn=lambda: os.sched_setaffinity(0, {core})).stdout
    return dict(json.loads(output))


async def _ping_pong_here(count: int) -> dict[str, float]:
    import grpc

    from benchmarks.protocol import EchoServer

    echo = EchoServer()
    server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
    server.add_generic_rpc_handlers((echo.handler(),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    clients = [subprocess.Popen([sys.executable, "-m", "benchmarks.protocol", "echo",
                                 f"127.0.0.1:{port}", "1"], cwd=ROOT,
                                env={**os.environ, "PYTHONPATH": str(ROOT)})
               for _ in range(4)]
    try:
        await echo.measure(1, 200, PING_BYTES, PONG_BYTES, range(4))  # warm up
        pids = [os.getpid(), *(c.pid for c in clients)]
        before = {pid: _cpu(pid) for pid in pids}
        await echo.measure(1, count, PING_BYTES, PONG_BYTES, range(4))
        used = {pid: _cpu(pid) - before[pid] for pid in pids}
    finally:
        for client in clients:
            client.terminate()
            client.wait()
        await server.stop(0)
    return {"server µs/round trip": 1e6 * used[os.getpid()] / count,
            "clients µs/round trip": 1e6 * sum(used[c.pid] for c in clients) / count}


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
         "driver ceiling", "ping-pong")
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
        figures["ping-pong"] = _ping_pong(pings)
    return figures


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

    def cpu(r: dict[str, dict[str, float]]) -> float:
        one, ping = r["1 worker, pinned"], r["ping-pong"]
        return ((one["server µs/decision"] + one["bots µs/decision"])
                / (ping["server µs/round trip"] + ping["clients µs/round trip"]))

    one, ping = m["1 worker, pinned"], m["ping-pong"]
    per_decision = one["server µs/decision"] + one["bots µs/decision"]
    ping_cpu = ping["server µs/round trip"] + ping["clients µs/round trip"]

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
            round(statistics.median(cpu(r) for r in runs), 2),
            f"≤ 1.3 × ping-pong's {ping_cpu:.0f} µs (server "
            f"{ping['server µs/round trip']:.0f}, clients "
            f"{ping['clients µs/round trip']:.0f})"),
    ]


def cpu_per_decision(repeats: int = 3, games: int = 120, pings: int = 2000) -> list[str]:
    """The "CPU per decision" figure alone: `repeats` pairs of a pinned 1-worker run of
    `games` games and a ping-pong of `pings` round trips, each pair's ratio and their
    median (a quicker check than the whole benchmark)."""
    import statistics

    lines, ratios = [], []
    for seed in range(repeats):
        r = asyncio.run(measure(["1 worker, pinned", "ping-pong"], games, seed, pings))
        one, ping = r["1 worker, pinned"], r["ping-pong"]
        arena = one["server µs/decision"] + one["bots µs/decision"]
        bare = ping["server µs/round trip"] + ping["clients µs/round trip"]
        ratios.append(arena / bare)
        lines.append(f"decision {arena:.0f} µs (server {one['server µs/decision']:.0f}, bots "
                     f"{one['bots µs/decision']:.0f}); ping-pong {bare:.0f} µs (server "
                     f"{ping['server µs/round trip']:.0f}, clients "
                     f"{ping['clients µs/round trip']:.0f}); ratio {ratios[-1]:.2f}")
        print(lines[-1], flush=True)
    lines.append(f"median ratio {statistics.median(ratios):.2f} (goal ≤ 1.3)")
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
    if sys.argv[1:2] == ["ping-pong"] and len(sys.argv) == 3:
        print(json.dumps(asyncio.run(_ping_pong_here(int(sys.argv[2])))))
    elif sys.argv[1:2] == ["cpu"] and len(sys.argv) <= 3:
        cpu_per_decision(int(sys.argv[2]) if len(sys.argv) == 3 else 3)
    elif sys.argv[1:2] == ["dask"] and len(sys.argv) <= 3:
        dask_against_local(int(sys.argv[2]) if len(sys.argv) == 3 else 3)
    else:
        sys.exit("usage: python -m benchmarks.scale ping-pong COUNT | cpu [REPEATS] | "
                 "dask [REPEATS] (run the whole benchmark with python -m benchmarks scale)")
