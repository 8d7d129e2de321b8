"""Web front benchmark: a 1,000-bot pool's leaderboard page, and live viewers' cost to
the games in play.

- "leaderboard page p95": the server time of `/pool?key=K` (the ASGI app called in
  process, from request to last byte: its GetRankings and GetRatingHistory calls to a
  real match server over loopback gRPC, and the page with 1,000 rows and the rating
  chart) for a pool of `BOTS` remote bots and their rated games in SQLite. The anchor is
  the GetRankings RPC alone, timed the same way in the same run, interleaved with the
  pages. Goal: < 200 ms. Beside it, the CPU time the process spent on each page (server
  and front are one process here: both sides), which the machine's load does not stretch
  as it stretches the wall-clock time; the machine's one-minute load average when the
  pages were timed (on 2 cores a load of 10 makes every page wait for a core), and how
  long the process's threads waited for a core during a page (Linux's scheduler
  statistics: what the machine's other work cost it); and the page just after a game
  changed the pool (`CHANGES` times: a game recorded, the results service's freshness
  window let pass), when the leaderboard is worked out again and its table rendered
  again, with its CPU time and its wait for a core.
- "decision p99 with viewers": four managed random bots play tournaments of single
  hands, four tables at once, on a match server in this process, while `arena web`
  runs as its own process beside it. Phases of `games` games alternate: quiet (no one
  listening to the web front's live updates), then with `VIEWERS` clients holding its
  event stream open (a third process), each asking, as the leaderboard page does, for
  the table and the rating chart to be sent with every update, `ROUNDS` times, and a
  last quiet phase. The viewers' process runs once at the server's priority and once
  niced to 19, standing for browsers on machines of their own (the web front stays at
  the server's priority: it is part of the deployment). The figure is the 99th
  percentile of the answered decisions' times as the tables measured them, before the
  record rounds them to whole milliseconds (a p99 of 4 ms would otherwise move in steps
  of 25 %), over every quiet phase and over every phase with viewers; their ratio is
  the goal's (≤ 1.1). The alternation spreads the machine's drift over both sides. The
  figure's own noise is the same ratio between the quiet phases themselves, the odd
  ones over the even ones: the same games, no viewers. Beside it, the web front's CPU
  time for each viewer and update while they listen.

``python -m benchmarks web``; the ``subscribe`` entry point below is the viewers' process.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from unittest import mock
from urllib.parse import quote

from arena.record import DecisionOutcome, Penalty
from arena.server.assembly import build_server
from arena.server.table import GameTable, Seat
from arena.services import Services
from arena.store import BotKind, Store
from arena.web.pages import asgi_get
from benchmarks.hosting import process_cpu_seconds
from benchmarks.stats import median, random_hand

BOTS = 1000
GAMES_PER_BOT = 3
REQUESTS = 40
CHANGES = 3
VIEWERS = 200
ROUNDS = 3
"""Phases with viewers, each between two quiet phases."""
RULES = {"target_score": None}
RANDOM_BOT = Path(__file__).resolve().parent.parent / "sample_bots" / "python" / "random_bot.py"
ROOT = Path(__file__).resolve().parent.parent


def percentile(values: Sequence[float], share: float) -> float:
    """The `share` percentile of `values` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(share * len(ordered))) - 1))]


def core_wait_ms() -> float:
    """Milliseconds this process's threads have spent so far ready to run but waiting for a
    core (Linux's scheduler statistics; 0 where there are none)."""
    total = 0.0
    with contextlib.suppress(OSError):
        for task in Path("/proc/self/task").iterdir():
            with contextlib.suppress(OSError, ValueError, IndexError):
                total += int((task / "schedstat").read_text().split()[1]) / 1e6
    return total


def fill_pool(store: Store, bots: int, games_per_bot: int, seed: int) -> None:
    """`bots` remote bots and `games_per_bot` rated two-seat games each, in one pool: each
    round pairs every bot with another at random."""
    names = [f"bot{index:04d}" for index in range(bots)]
    for name in names:
        store.add_bot(name, BotKind.REMOTE)
    pick = random.Random(seed)
    templates = [random_hand(("a", "b"), seed * 1000 + n, RULES) for n in range(8)]
    pairs = []
    for _ in range(games_per_bot):
        order = pick.sample(names, len(names))
        pairs += [order[i:i + 2] for i in range(0, len(order) - 1, 2)]
    for number, seats in enumerate(pairs):
        record_game(store, seats, number, templates[number % len(templates)])


def record_game(store: Store, seats: Sequence[str], seed: int, game: Any) -> int:
    """Store `game` (a `random_hand`) as played, rated, by `seats`; its number."""
    now = datetime.now(UTC)
    return store.record_game(seats=seats, seed=seed, rules=RULES, outcome=game.outcome,
                             seat_terminations=list(game.seat_terminations),
                             events=game.events, actions=game.actions,
                             started_at=now, finished_at=now).id


async def _asgi_get(app: Any, path: str) -> tuple[int, bytes]:
    """GET `path` from the ASGI `app` in process: its status and body."""
    return await asgi_get(app, path, [(b"host", b"bench")], "http", ("127.0.0.1", 1),
                          ("bench", 80))


@contextlib.asynccontextmanager
async def _serving(folder: Path, store: Store) -> AsyncIterator[tuple[int, Services]]:
    holder: list[Services] = []
    server = build_server(store, folder / "logs", holder.append)
    port = await server.start("127.0.0.1", 0)
    try:
        yield port, holder[0]
    finally:
        await server.stop(0.5)


async def leaderboard_times(bots: int, games_per_bot: int, requests: int, seed: int,
                            changes: int = CHANGES) -> dict[str, float]:
    """p95 ms of the leaderboard page (wall-clock and CPU) and of the GetRankings RPC on
    one pool, the load average meanwhile, and the median ms of the page just after a game
    changed the pool."""
    import grpc

    from arena.services.recent import FRESH_FOR
    from arena.v1 import admin_pb2, admin_pb2_grpc
    from arena.web import WebSettings, create_app

    with tempfile.TemporaryDirectory(prefix="arena-bench-web-") as tmp:
        store = Store.open(Path(tmp) / "bench.db")
        try:
            fill_pool(store, bots, games_per_bot, seed)
            async with _serving(Path(tmp), store) as (port, _):
                address = f"127.0.0.1:{port}"
                app = create_app(WebSettings(address))
                await app.state.front.client.open()
                channel = grpc.aio.insecure_channel(address)
                stub = admin_pb2_grpc.ArenaAdminStub(channel)
                pools = await stub.ListPools(admin_pb2.ListPoolsRequest())
                key = max(pools.pools, key=lambda p: p.games).key
                page_path = f"/pool?key={key}"
                status, page = await _asgi_get(app, page_path)  # warm both
                assert status == 200 and page.count(b"<tr") > bots, status
                load = os.getloadavg()[0]
                pages, cpu, waits, calls = [], [], [], []
                for _ in range(requests):
                    start = time.perf_counter()
                    await stub.GetRankings(admin_pb2.GetRankingsRequest(pool=key))
                    calls.append(time.perf_counter() - start)
                    waited, started_cpu = core_wait_ms(), time.process_time()
                    start = time.perf_counter()
                    status, _ = await _asgi_get(app, page_path)
                    pages.append(time.perf_counter() - start)
                    cpu.append(time.process_time() - started_cpu)
                    waits.append(core_wait_ms() - waited)
                    assert status == 200
                load = max(load, os.getloadavg()[0])
                changed, changed_cpu, changed_waits = [], [], []
                game = random_hand(("a", "b"), seed, RULES)
                for change in range(changes):
                    record_game(store, ["bot0000", "bot0001"], 10**6 + change, game)
                    await asyncio.sleep(FRESH_FOR + 0.1)
                    waited, started_cpu = core_wait_ms(), time.process_time()
                    start = time.perf_counter()
                    status, _ = await _asgi_get(app, page_path)
                    changed.append(time.perf_counter() - start)
                    changed_cpu.append(time.process_time() - started_cpu)
                    changed_waits.append(core_wait_ms() - waited)
                    assert status == 200
                await channel.close(None)
                await app.state.front.client.close()
        finally:
            store.close()
    page_p95, call_p95 = percentile(pages, 0.95) * 1000, percentile(calls, 0.95) * 1000
    after = {"page after a game, median ms": median(changed) * 1000,
             "its CPU, median ms": median(changed_cpu) * 1000,
             "its wait for a core, median ms": median(changed_waits)} if changes else {}
    return {"page p95 ms": page_p95, "page CPU p95 ms": percentile(cpu, 0.95) * 1000,
            "page wait for a core, median ms": median(waits),
            "GetRankings p95 ms": call_p95, "page / RPC": page_p95 / call_p95,
            "page − RPC, median ms": (median(pages) - median(calls)) * 1000,
            **after, "load average": load}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def _process(argv: Sequence[str], ready: str | None = None) -> Iterator[subprocess.Popen[str]]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT),
                                                                    os.environ.get("PYTHONPATH")])))
    process = subprocess.Popen(list(argv), env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    try:
        if ready is not None:
            assert process.stdout is not None
            seen = ""
            deadline = time.monotonic() + 60
            while ready not in seen:
                line = process.stdout.readline()
                if not line or time.monotonic() > deadline:
                    raise RuntimeError(f"{argv[:4]} did not start: {seen}")
                seen += line
        yield process
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def _answer_times() -> Iterator[list[float]]:
    """The milliseconds each answered decision took, unrounded, as the tables in this
    process note them while the block runs."""
    times: list[float] = []
    note = GameTable._note

    def noting(table: GameTable, seat: Seat, outcome: DecisionOutcome, elapsed: float,
               penalty: Penalty | None = None) -> None:
        if outcome is DecisionOutcome.ANSWERED:
            times.append(elapsed * 1000)
        note(table, seat, outcome, elapsed, penalty)

    with mock.patch.object(GameTable, "_note", autospec=True, side_effect=noting):
        yield times


async def _decision_times(services: Services, games: int, seed: int) -> list[float]:
    """The answered decisions' times (ms, unrounded) of a tournament of `games` single
    hands, four tables at once."""
    bots = ["random-a", "random-b", "random-c", "random-d"]
    name = f"bench-web-{seed}-{time.monotonic_ns()}"
    services.competitions.create_tournament(name, bots, {
        "format": "round_robin", "table_size": 4, "deals_per_table": max(1, games // 4),
        "seed": seed, "concurrency": 4, "rules": RULES,
        "policy": {"decision_timeout": 5.0}})
    with _answer_times() as times:
        await services.runs.run_tournament(name, 4, wait_seconds=60)
    return times


async def viewers_cost(games: int, viewers: int, seed: int, viewers_nice: int = 0,
                       rounds: int = ROUNDS) -> dict[str, float]:
    """Decision p99 (ms) with `viewers` live viewers and with none, over `rounds` phases
    with viewers, each between two quiet ones, of `games` games each; the viewers'
    process at niceness `viewers_nice` (19 stands for viewers on machines of their own,
    as browsers are: on this host they then get a core only when the server, the web
    front and the bots leave one)."""
    quiet: list[list[float]] = []
    watched: list[float] = []
    updates, front_cpu = 0, 0.0
    with tempfile.TemporaryDirectory(prefix="arena-bench-web-") as tmp:
        store = Store.open(Path(tmp) / "bench.db")
        try:
            async with _serving(Path(tmp), store) as (port, services):
                for name in ("random-a", "random-b", "random-c", "random-d"):
                    services.bots.add(name, "managed", f"{sys.executable} {RANDOM_BOT}")
                await services.runs.ensure_bots(["random-a", "random-b", "random-c",
                                                 "random-d"], wait_seconds=60)
                web_port = _free_port()
                arena = [sys.executable, "-c", "from arena.cli import main; main()",
                         "--server", f"127.0.0.1:{port}", "web", "--listen",
                         f"127.0.0.1:{web_port}"]
                listen = [sys.executable, "-m", "benchmarks.web", "subscribe",
                          f"127.0.0.1:{web_port}", str(viewers), str(viewers_nice)]
                with _process(arena, ready="Ctrl-C stops") as front:
                    await asyncio.sleep(0.5)
                    for phase in range(rounds):
                        quiet.append(await _decision_times(services, games, seed + phase))
                        with _process(listen, ready="listening") as listening:
                            cpu_before = process_cpu_seconds(front.pid)
                            watched += await _decision_times(services, games, seed + phase)
                            front_cpu += process_cpu_seconds(front.pid) - cpu_before
                        assert listening.stdout is not None
                        updates += listening.stdout.read().count("update")
                    quiet.append(await _decision_times(services, games, seed + rounds))
        finally:
            store.close()
    every_quiet = [time for phase in quiet for time in phase]
    even = [time for phase in quiet[0::2] for time in phase]
    odd = [time for phase in quiet[1::2] for time in phase]
    without = percentile(every_quiet, 0.99)
    return {"decisions, no viewers": len(every_quiet), "decisions, viewers": len(watched),
            "decision p99 ms, no viewers": round(without, 3),
            f"decision p99 ms, {viewers} viewers": round(percentile(watched, 0.99), 3),
            "with / without": percentile(watched, 0.99) / without if without else 1.0,
            "quiet odd / even phases": (percentile(odd, 0.99) / percentile(even, 0.99)
                                        if even and odd else 1.0),
            "updates": updates,
            "front CPU ms per viewer and update": 1000 * front_cpu / max(1, viewers * updates)}


async def _subscribe(address: str, count: int, niceness: int) -> None:
    """Hold `count` event streams of the web front at `address` open, reading them, at
    `niceness`: each as a leaderboard page's, which asks for its table and its rating
    chart to be sent with every update."""
    os.nice(niceness)
    host, _, port = address.rpartition(":")
    parts = "&".join(f"game={quote(url, safe='')}" for url in ("/pool?fragment=1",
                                                                  "/pool/chart"))
    streams, writers = [], []  # a writer dropped would close its connection
    for _ in range(count):
        reader, writer = await asyncio.open_connection(host, int(port), limit=1 << 24)
        writer.write(f"GET /events?{parts} HTTP/1.1\r\nHost: {address}\r\n"
                     "Accept: text/event-stream\r\n\r\n".encode())
        await writer.drain()
        streams.append(reader)
        writers.append(writer)
    for reader in streams:
        await reader.readuntil(b"\r\n\r\n")
    print("listening", flush=True)

    async def follow(reader: asyncio.StreamReader, tell: bool) -> None:
        while line := await reader.readline():
            if tell and line.startswith(b"event: game"):
                print("update", flush=True)

    await asyncio.gather(*(follow(reader, number == 0)
                           for number, reader in enumerate(streams)))


def run(repeats: int = 3, scale: float = 1.0) -> list[dict[str, object]]:
    """Both figures, each the median of `repeats` runs."""
    bots = max(20, int(BOTS * scale))
    requests = max(5, int(REQUESTS * scale))
    pages = [asyncio.run(leaderboard_times(bots, GAMES_PER_BOT, requests, seed))
             for seed in range(repeats)]
    games = max(8, int(48 * scale))
    viewers = max(10, int(VIEWERS * scale))
    rows: list[dict[str, object]] = []
    rows.append({"figure": f"leaderboard of {bots} bots",
                 **{key: round(median([r[key] for r in pages]), 2) for key in pages[0]}})
    for nice in (0, 19):
        live = [asyncio.run(viewers_cost(games, viewers, seed, nice))
                for seed in range(repeats)]
        rows.append({"figure": f"{games} games a phase, 4 tables, viewers at nice {nice}",
                     **{key: round(median([r[key] for r in live]), 3) for key in live[0]}})
    return rows


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "subscribe":
        asyncio.run(_subscribe(sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
    else:
        from benchmarks.__main__ import main

        sys.exit(main(["web", *sys.argv[1:]]))
