"""Hosting benchmark: a competition of many authors on one `arena serve`, and what their
reads cost the games in play.

The server runs as its own process (`arena serve --ladder`, SQLite, or PostgreSQL when
a server can be started), as an organizer would run it. The organizer adds the authors
and a house bot; each author signs in with their own token (`WhoAmI`) and submits 1–3
versions of a small Python bot (one in eight has a version whose build fails);
some authors add a remote bot and run it themselves with its play token. The ladder
plays the latest version of every author's bot (one per author), and a timetabled final
(a gauntlet of the house bot against one bot per author) starts once every author has
submitted.

Then the measured part alternates phases of equal length: *quiet* (no reads), and
*reads* with every author reading every `period` seconds (their jitter spread over the
period): the ladder's leaderboard, their own games (`ListGames --mine`), the private
view of one of them (`GetGame --as`, the next game when that deal is still in play),
their bot's log and their versions with build logs; and one attempt at something that
is not theirs, drawn from every call of the permission table another author must be
refused (another's log, versions, private view, removal, a version under their name,
running or scheduling competitions, the people calls). Each phase's decision latency
is that of the decisions the server recorded in the games started and finished inside
it (`elapsed_ms` of every asked decision); a row gives p50 and p99 of the quiet phases
and of the read phases, and their ratio (the goal: at most 1.10).

Cross-author attempts are counted (refused, let through: the goal is 0 let through),
and so are the authors who saw the leaderboard, a private view of their own game and
their build logs. The organizer's own calls never name an author's bot (checked in the
audit trail: no organizer `SubmitBot` or `RemoveBot` of an author's bot).

Measured (`python -m benchmarks hosting`, SQLite, 2 cores shared with the ~210 bot
processes and the authors' clients), with the clients niced to 19: 0 of 9,492
cross-author attempts let through; all 200 authors saw the leaderboard, their build logs
and a private view. Decision p99 12 ms quiet against 19 ms with reads every 30 s
(1.58x; 1.75x with the clients at the server's priority, an earlier run) and 239 ms
every 5 s; the server spent 2.1-2.4 ms of CPU per read.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import multiprocessing
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc

from arena.server.permissions import RULES, STRICT_OWNER, Need
from arena.store import Store
from arena.submissions import pack
from arena.v1 import admin_pb2, admin_pb2_grpc
from arena.wire_admin import upload_chunks
from benchmarks.recording import postgres_databases

MEDIAN = False
"""Each row is one run; its figures are medians and percentiles within that run."""
ROOT = Path(__file__).resolve().parent.parent
SAMPLE_BOTS = ROOT / "sample_bots" / "python"
ORGANIZER_TOKEN = "hosting-benchmark-organizer"
REFUSALS = {grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED}
NOT_YET = grpc.StatusCode.FAILED_PRECONDITION
"""A private view asked for while another seating of its deal is still to be played."""
FAILING_EVERY = 8
"""One author in this many (the fourth, the twelfth, ...) has a version whose build fails."""
REMOTE_SHARE = 0.05
"""The share of authors who also run a remote bot of their own."""


@dataclass(frozen=True, slots=True)
class Plan:
    """How big a run is: authors, the length of each phase, the phases' read periods
    (0 for a quiet phase), in order, and the authors submitting at once."""

    authors: int
    phase_seconds: float
    periods: tuple[float, ...]
    submitters: int = 8
    warm_games: int = 16
    """Games the ladder records before the measured phases start."""
    clients_nice: int = 0
    """The niceness the authors' clients take once the server, its bots and the remote
    bots run: 19 stands for clients on machines of their own (on this host they then get
    a core only when the server and the bots leave one), 0 shares the cores evenly."""


@dataclass(slots=True)
class Author:
    """One author of the run: their name, token, bot and what they played."""

    number: int
    name: str
    token: str
    bot: str
    versions: int = 0
    remote: str | None = None


@dataclass(slots=True)
class Tally:
    """What the authors did and were answered during a run."""

    read_ms: dict[str, list[float]] = field(default_factory=dict)
    """How long each read took, by call, in milliseconds."""
    read_failures: list[str] = field(default_factory=list)
    refused: int = 0
    let_through: list[str] = field(default_factory=list)
    saw_leaderboard: set[str] = field(default_factory=set)
    saw_private_view: set[str] = field(default_factory=set)
    saw_build_log: set[str] = field(default_factory=set)
    submitted: int = 0
    failed_builds: int = 0
    attempted: set[str] = field(default_factory=set)
    final_entrants: tuple[str, ...] = ()

    def reads(self) -> int:
        """The reads answered so far."""
        return sum(len(times) for times in self.read_ms.values())

    def count(self, author: Author, target: Author, method: str,
              code: grpc.StatusCode) -> None:
        """One attempt of `author` at `method` on `target`'s things, answered `code`."""
        self.attempted.add(method)
        if code in REFUSALS:
            self.refused += 1
        else:
            self.let_through.append(f"{author.name} → {method} on {target.name}: {code.name}")


@dataclass(frozen=True, slots=True)
class PhaseLoad:
    """What one phase cost: its read period (0: quiet), its length, the CPU seconds the
    server's own process and the authors' clients spent in it, and the reads answered."""

    period: float
    seconds: float
    server_cpu: float
    client_cpu: float
    reads: int


@dataclass(frozen=True, slots=True)
class Outcome:
    """A run: the decision latencies (ms) of each phase, its tally, and the audit's
    count of organizer calls naming an author's bot."""

    phases: tuple[tuple[float, tuple[int, ...]], ...]
    tally: Tally
    organizer_touches: int
    games: int
    loads: tuple[PhaseLoad, ...] = ()


Stub = Any
"""The admin service's stub on an asyncio channel (its stubs are typed for blocking calls)."""


def _metadata(token: str | None) -> tuple[tuple[str, str], ...]:
    return () if token is None else (("authorization", f"Bearer {token}"),)


def _bot_archive(folder: Path, name: str, version: int, failing: bool) -> bytes:
    """An archive of the sample greedy bot named `name`, marked with `version` so that
    each is a new version; `failing` gives it a build that fails."""
    target = folder / f"{name}-{version}"
    shutil.copytree(SAMPLE_BOTS, target, ignore=shutil.ignore_patterns("*.toml", "__pycache__"))
    build = 'build = "echo this build fails; exit 3"\n' if failing else ""
    (target / "arena-bot.toml").write_text(
        f'name = "{name}"\nrun = "python greedy_bot.py"\nruntime = "python"\n{build}')
    (target / "VERSION").write_text(f"{version}\n")
    return pack(target)


def free_port() -> int:
    """A port free on loopback now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def process_cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) process `pid` has used so far, itself alone."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def nice_threads(niceness: int) -> None:
    """Give every thread of this process `niceness` (the threads it starts later inherit
    it). Only raising is possible without privileges, so a process that lowered itself
    stays lowered: run it in a process of its own."""
    if niceness:
        for task in os.listdir("/proc/self/task"):
            with contextlib.suppress(ProcessLookupError):
                os.setpriority(os.PRIO_PROCESS, int(task), niceness)


@contextlib.contextmanager
def serving(folder: Path, database: str) -> Iterator[tuple[str, int]]:
    """`arena serve --ladder` over `database`, as its own process; its address and
    process id."""
    port = free_port()
    (folder / "ladder.toml").write_text("table_size = 4\nper_author = 1\nseed = 7\n")
    env = {**os.environ, "ARENA_ADMIN_TOKEN": ORGANIZER_TOKEN, "ARENA_LOG_LEVEL": "WARNING"}
    log = (folder / "serve.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "arena", "--db", database, "serve", "--port", str(port),
         "--tables", "4", "--ladder", str(folder / "ladder.toml")],
        env=env, stdout=log, stderr=subprocess.STDOUT, cwd=folder, start_new_session=True)
    try:
        yield f"127.0.0.1:{port}", server.pid
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
        log.close()


async def _until_serving(stub: Stub, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            await stub.WhoAmI(admin_pb2.WhoAmIRequest(), metadata=_metadata(ORGANIZER_TOKEN),
                              timeout=2)
            return
        except grpc.aio.AioRpcError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)


def cross_author_requests(target: Author, final: str) -> dict[str, Any]:
    """For every call the permission table refuses an author who does not own what it
    names (or who is not the organizer), a request of it naming `target`'s things."""
    requests: dict[str, Any] = {
        "ListConnectedBots": admin_pb2.ListConnectedBotsRequest(),
        "RemoveBot": admin_pb2.RemoveBotRequest(name=target.bot),
        "SubmitBot": None,  # a stream: built by `_attempt`
        "ListBotVersions": admin_pb2.ListBotVersionsRequest(name=target.bot, log_version=1),
        "GetBotLog": admin_pb2.GetBotLogRequest(name=f"{target.bot}@1"),
        "CreateTournament": admin_pb2.CreateTournamentRequest(
            name=f"cup-of-{target.name}", bots=[f"{target.bot}@1", "house@1"]),
        "RunTournament": admin_pb2.RunTournamentRequest(tournament=final),
        "ScheduleTournament": admin_pb2.ScheduleTournamentRequest(name=f"weekly-{target.name}"),
        "UnscheduleTournament": admin_pb2.UnscheduleTournamentRequest(name=final),
        "RunLadder": admin_pb2.RunLadderRequest(),
        "PlayMatch": admin_pb2.PlayMatchRequest(bots=[f"{target.bot}@1", "house@1"], games=1),
        "FitRatings": admin_pb2.FitRatingsRequest(apply=True),
        "GetGame": admin_pb2.GetGameRequest(id="ladder:1", as_bot=f"{target.bot}@1"),
        "AddAuthor": admin_pb2.AddAuthorRequest(name=f"{target.name}-twin"),
        "ListAuthors": admin_pb2.ListAuthorsRequest(),
        "RemoveAuthor": admin_pb2.RemoveAuthorRequest(name=target.name),
        "RotateAuthorToken": admin_pb2.RotateAuthorTokenRequest(name=target.name),
        "SetAuthor": admin_pb2.SetAuthorRequest(name=target.name, may_run=True),
        "CreateInvite": admin_pb2.CreateInviteRequest(cap=1),
    }
    return requests


def refused_methods() -> tuple[str, ...]:
    """Every call the permission table refuses an author acting on another's things or
    on the organizer's: owned fields, strict ownership, the organizer's and runners'
    calls and the organizer's fields."""
    return tuple(sorted(
        method for method, rule in RULES.items()
        if rule.owned is not None or method in STRICT_OWNER or rule.organizer_field
        or rule.need in (Need.ORGANIZER, Need.RUNNER)))


async def _attempt(stub: Stub, method: str, request: Any,
                   token: str, target: Author, archive: bytes) -> grpc.StatusCode:
    """The status `method` answered; a stream is drained."""
    metadata = _metadata(token)
    try:
        if method == "SubmitBot":
            await stub.SubmitBot(upload_chunks(archive, admin_pb2.SubmitBotHeader(
                name=target.bot, no_wait=True)), metadata=metadata, timeout=30)
        elif method in ("RunTournament", "RunLadder", "PlayMatch"):
            async for _ in getattr(stub, method)(request, metadata=metadata, timeout=30):
                pass
        else:
            await getattr(stub, method)(request, metadata=metadata, timeout=30)
    except grpc.aio.AioRpcError as exc:
        return exc.code()
    return grpc.StatusCode.OK


async def _submit(stub: Stub, author: Author, folder: Path,
                  rng: random.Random, tally: Tally) -> None:
    """The author signs in and submits 1–3 versions, some with a failing build."""
    metadata = _metadata(author.token)
    me = await stub.WhoAmI(admin_pb2.WhoAmIRequest(), metadata=metadata, timeout=30)
    assert me.name == author.name, me
    versions = rng.randint(1, 3)
    failing = rng.randrange(versions) if author.number % FAILING_EVERY == 3 else -1
    if failing == versions - 1:  # the last built version is the one that plays
        versions += 1
    for version in range(versions):
        archive = await asyncio.to_thread(_bot_archive, folder, author.bot, version,
                                          version == failing)
        answer = await stub.SubmitBot(upload_chunks(archive, admin_pb2.SubmitBotHeader()),
                                      metadata=metadata, timeout=120)
        tally.submitted += 1
        tally.failed_builds += answer.version.build_status == "failed"
    author.versions = versions


async def _run_remote(stub: Stub, author: Author, address: str,
                      processes: list[subprocess.Popen[bytes]], folder: Path) -> None:
    """The author adds a remote bot and runs it with its play token."""
    name = f"{author.bot}-remote"
    added = await stub.AddBot(admin_pb2.AddBotRequest(name=name, kind="remote"),
                              metadata=_metadata(author.token), timeout=30)
    env = {**os.environ, "ARENA_SERVER": address, "ARENA_TOKEN": added.token,
           "ARENA_LOG_LEVEL": "WARNING"}
    log = (folder / f"{name}.log").open("wb")
    processes.append(subprocess.Popen([sys.executable, str(SAMPLE_BOTS / "greedy_bot.py")],
                                      env=env, stdout=log, stderr=subprocess.STDOUT))
    log.close()
    author.remote = name


async def _read_once(stub: Stub, author: Author,
                     others: Sequence[Author], rng: random.Random, tally: Tally,
                     archive: bytes, final: str) -> None:
    """One round of an author's reads, and one attempt at something not theirs."""
    metadata = _metadata(author.token)

    async def read(method: str, request: Any) -> Any:
        began = time.perf_counter()
        try:
            return await getattr(stub, method)(request, metadata=metadata, timeout=30)
        finally:
            tally.read_ms.setdefault(method, []).append((time.perf_counter() - began) * 1000)

    try:
        await read("GetRankings", admin_pb2.GetRankingsRequest(tournament="ladder"))
        tally.saw_leaderboard.add(author.name)
        versions = await read("ListBotVersions", admin_pb2.ListBotVersionsRequest(
            name=author.bot))
        built = [v.name for v in versions.versions if v.build_status == "ok"]
        if len(versions.versions) == author.versions and all(
                "this build fails" in v.log_tail for v in versions.versions
                if v.build_status == "failed"):
            tally.saw_build_log.add(author.name)
        mine = await read("ListGames", admin_pb2.ListGamesRequest(mine=True, limit=8))
        own_bots = {*built, author.remote}
        played = []
        for game in mine.games:
            own = next(seat for seat in game.seats if seat in own_bots)
            played.append(own)
            try:
                await read("GetGame", admin_pb2.GetGameRequest(id=game.id, as_bot=own))
            except grpc.aio.AioRpcError as exc:
                if exc.code() is not NOT_YET:
                    raise
                continue
            tally.saw_private_view.add(author.name)
            break
        # A managed bot has a log on the server once it has been launched to play (a
        # remote one's output stays with its author).
        managed = [bot for bot in played if bot != author.remote]
        if managed:
            await read("GetBotLog", admin_pb2.GetBotLogRequest(name=managed[0]))
    except grpc.aio.AioRpcError as exc:
        tally.read_failures.append(f"{author.name}: {exc.code().name} {exc.details()}")
    target = rng.choice(others)
    method = rng.choice(refused_methods())
    request = cross_author_requests(target, final).get(method)
    code = await _attempt(stub, method, request, author.token, target, archive)
    tally.count(author, target, method, code)


async def _sweep(stub: Stub, authors: Sequence[Author], archive: bytes, final: str,
                 tally: Tally, at_once: int) -> None:
    """Every author attempts every call of `refused_methods` on the next author's things."""
    limit = asyncio.Semaphore(at_once)

    async def attempt(author: Author, target: Author, method: str) -> None:
        async with limit:
            request = cross_author_requests(target, final).get(method)
            code = await _attempt(stub, method, request, author.token, target, archive)
        tally.count(author, target, method, code)

    await asyncio.gather(*(
        attempt(author, authors[(number + 1) % len(authors)], method)
        for number, author in enumerate(authors) for method in refused_methods()))


async def _reader(stub: Stub, author: Author,
                  authors: Sequence[Author], period: Callable[[], float], tally: Tally,
                  archive: bytes, final: str, seed: int) -> None:
    """An author reading every `period()` seconds (0: resting) for ever."""
    rng = random.Random(seed)
    others = [other for other in authors if other is not author]
    await asyncio.sleep(rng.uniform(0, 1))
    while True:
        every = period()
        if every <= 0:
            await asyncio.sleep(0.25)
            continue
        await asyncio.sleep(rng.uniform(0, every))
        if period() <= 0:
            continue
        await _read_once(stub, author, others, rng, tally, archive, final)
        await asyncio.sleep(max(0.0, every - rng.uniform(0, every)))


async def compete(folder: Path, database: str, plan: Plan, seed: int) -> Outcome:
    """One run of `plan` against a fresh `arena serve` over `database`."""
    rng = random.Random(seed)
    tally = Tally()
    remotes: list[subprocess.Popen[bytes]] = []
    phases: list[tuple[float, datetime, datetime]] = []
    loads: list[PhaseLoad] = []
    with serving(folder, database) as (address, server_pid):
        async with grpc.aio.insecure_channel(address) as channel:
            stub: Stub = admin_pb2_grpc.ArenaAdminStub(channel)
            await _until_serving(stub)
            organizer = _metadata(ORGANIZER_TOKEN)
            house = await asyncio.to_thread(pack, SAMPLE_BOTS)
            await stub.SubmitBot(upload_chunks(house, admin_pb2.SubmitBotHeader(
                name="house", manifest="random.arena-bot.toml")), metadata=organizer,
                timeout=120)
            authors = []
            for number in range(plan.authors):
                added = await stub.AddAuthor(admin_pb2.AddAuthorRequest(name=f"a{number:03d}"),
                                             metadata=organizer, timeout=30)
                authors.append(Author(number, added.author.name, added.token, f"bot{number:03d}"))
            limit = asyncio.Semaphore(plan.submitters)
            submissions = folder / "submissions"

            async def submit(author: Author) -> None:
                async with limit:
                    await _submit(stub, author, submissions, random.Random(rng.random()),
                                  tally)
            await asyncio.gather(*(submit(author) for author in authors))
            for author in rng.sample(authors, max(1, round(REMOTE_SHARE * plan.authors))):
                await _run_remote(stub, author, address, remotes, folder)
            nice_threads(plan.clients_nice)
            start = datetime.now(UTC) + timedelta(seconds=5)
            await stub.ScheduleTournament(admin_pb2.ScheduleTournamentRequest(
                name="final", settings_json='{"format": "gauntlet", "challenger": "house@1",'
                ' "table_size": 2, "deals_per_table": 1, "share": 0.5}',
                start_at=start.isoformat(), per_author=1), metadata=organizer, timeout=30)
            await _until_games(stub, organizer, plan.warm_games)
            edition = await _until_started(stub, organizer, "final")
            final_name = edition.name
            tally.final_entrants = tuple(edition.bots)
            archive = await asyncio.to_thread(_bot_archive, folder / "intruder", "x", 0, False)
            await _sweep(stub, authors, archive, final_name, tally, plan.submitters)
            current = [0.0]
            readers = [asyncio.create_task(_reader(
                stub, author, authors, lambda: current[0], tally, archive, final_name,
                seed * 1000 + number)) for number, author in enumerate(authors)]
            try:
                for period in plan.periods:
                    current[0] = period
                    began, clock = datetime.now(UTC), time.monotonic()
                    server_cpu, client_cpu = process_cpu_seconds(server_pid), time.process_time()
                    reads = tally.reads()
                    await asyncio.sleep(plan.phase_seconds)
                    phases.append((period, began, datetime.now(UTC)))
                    loads.append(PhaseLoad(
                        period, time.monotonic() - clock,
                        process_cpu_seconds(server_pid) - server_cpu,
                        time.process_time() - client_cpu, tally.reads() - reads))
            finally:
                current[0] = 0
                for task in readers:
                    task.cancel()
                await asyncio.gather(*readers, return_exceptions=True)
                for process in remotes:
                    process.terminate()
                for process in remotes:
                    process.wait()
    outcome = await asyncio.to_thread(_outcome, database, phases, tally)
    return dataclasses.replace(outcome, loads=tuple(loads))


async def _until_games(stub: Stub, metadata: Any, games: int,
                       seconds: float = 600) -> None:
    """Wait until the ladder has recorded `games` games."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        listed = await stub.ListGames(admin_pb2.ListGamesRequest(limit=games),
                                      metadata=metadata, timeout=30)
        if len(listed.games) >= games:
            return
        await asyncio.sleep(1)
    raise RuntimeError(f"the ladder recorded fewer than {games} games in {seconds:.0f} s")


async def _until_started(stub: Stub, metadata: Any, name: str, seconds: float = 120
                         ) -> Any:
    """The first edition of timetabled tournament `name`, once the server started it."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        listed = await stub.ListTournaments(admin_pb2.ListTournamentsRequest(),
                                            metadata=metadata, timeout=30)
        edition = next((t for t in listed.tournaments if t.name.startswith(f"{name}-")), None)
        if edition is not None:
            return edition
        await asyncio.sleep(0.5)
    raise RuntimeError(f"the timetable did not start {name} in {seconds:.0f} s")


def _outcome(database: str, phases: Sequence[tuple[float, datetime, datetime]],
             tally: Tally) -> Outcome:
    """The decision latencies of each phase's games, read from the stored games."""
    store = Store.open(Path(database) if "://" not in database else database)
    try:
        summaries = store.games()
        latencies: list[tuple[float, tuple[int, ...]]] = []
        for period, began, ended in phases:
            inside = [game.id for game in summaries
                      if began <= game.started_at and game.finished_at <= ended]
            elapsed = [decision.elapsed_ms for number in inside
                       for decision in store.get_game(number).decisions or ()
                       if not decision.auto and decision.penalty is None]
            latencies.append((period, tuple(elapsed)))
        touches = sum(1 for entry in store.audit(limit=10**7)
                      if entry.role == "organizer" and entry.action in ("SubmitBot", "RemoveBot")
                      and entry.target.startswith("bot"))
        return Outcome(tuple(latencies), tally, touches, len(summaries))
    finally:
        store.close()


def percentile(values: Sequence[int], share: float) -> float:
    """The `share` quantile of `values` (nearest rank; 0 for none)."""
    return percentile_of([float(value) for value in values], share)


def percentile_of(values: Sequence[float], share: float) -> float:
    """The `share` quantile of `values` (nearest rank; 0 for none)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))])


@contextlib.contextmanager
def _folder() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="arena-hosting-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def rows_of(backend: str, outcome: Outcome, plan: Plan) -> list[dict[str, object]]:
    """A row for each read period of `outcome`, against its quiet phases."""
    quiet = [value for period, values in outcome.phases if period == 0 for value in values]
    rows = []
    for every in sorted({period for period, _ in outcome.phases if period > 0}, reverse=True):
        busy = [value for period, values in outcome.phases if period == every
                for value in values]
        rows.append({
            "backend": backend, "authors": plan.authors, "clients nice": plan.clients_nice,
            "reads every s": every,
            "decisions quiet/reads": f"{len(quiet)}/{len(busy)}",
            "p50 ms quiet": percentile(quiet, 0.5), "p50 ms reads": percentile(busy, 0.5),
            "p99 ms quiet": percentile(quiet, 0.99), "p99 ms reads": percentile(busy, 0.99),
            "p99 ratio": round(percentile(busy, 0.99) / max(percentile(quiet, 0.99), 1.0), 2),
            **_cpu_columns(outcome.loads, every),
            "reads": sum(len(times) for times in outcome.tally.read_ms.values()),
            "cross-author refused": outcome.tally.refused,
            "let through": len(outcome.tally.let_through),
            "read failures": len(outcome.tally.read_failures),
            "saw board/view/build log": "/".join(str(len(s)) for s in (
                outcome.tally.saw_leaderboard, outcome.tally.saw_private_view,
                outcome.tally.saw_build_log)),
            "organizer touches": outcome.organizer_touches,
        })
    return rows


def _cpu_columns(loads: Sequence[PhaseLoad], every: float) -> dict[str, object]:
    """The server's CPU share in quiet phases and in phases reading every `every` s, what
    each read cost it over the quiet phases' rate, and the clients' CPU share."""
    quiet = [load for load in loads if load.period == 0]
    busy = [load for load in loads if load.period == every]
    if not quiet or not busy:
        return {}

    def share(phases: Sequence[PhaseLoad], cpu: Callable[[PhaseLoad], float]) -> float:
        return sum(cpu(load) for load in phases) / sum(load.seconds for load in phases)

    quiet_rate = share(quiet, lambda load: load.server_cpu)
    extra = sum(load.server_cpu - quiet_rate * load.seconds for load in busy)
    reads = sum(load.reads for load in busy)
    busy_rate = share(busy, lambda load: load.server_cpu)
    return {
        "server CPU quiet/reads": f"{quiet_rate:.0%}/{busy_rate:.0%}",
        "server ms per read": round(1000 * extra / max(reads, 1), 2),
        "clients CPU reads": f"{share(busy, lambda load: load.client_cpu):.0%}",
    }


def read_rows(backend: str, outcome: Outcome) -> list[dict[str, object]]:
    """How long each kind of read took, as its author saw it."""
    return [{"backend": backend, "read": method, "calls": len(times),
             "p50 ms": round(statistics.median(times), 1),
             "p99 ms": round(percentile_of(times, 0.99), 1)}
            for method, times in sorted(outcome.tally.read_ms.items())]


def plan_for(scale: float) -> Plan:
    """The run at `scale` (1: 200 authors, phases of 60 s: quiet, every 30 s, quiet,
    every 5 s, three times over)."""
    authors = max(6, round(200 * scale))
    seconds = max(8.0, 60 * scale)
    periods = (0.0, 30.0 * min(1.0, scale * 4), 0.0, 5.0) * (3 if scale >= 1 else 1)
    return Plan(authors, seconds, periods)


def measure(database: str | Callable[[], str] | None, plan: Plan, seed: int
            ) -> Outcome:
    """One run of `plan` over a fresh SQLite file (None) or a fresh database of `database`."""
    with _folder() as folder:
        target = (str(folder / "arena.db") if database is None
                  else database() if callable(database) else database)
        return asyncio.run(compete(folder, target, plan, seed))


def measure_apart(database: str | None, plan: Plan, seed: int) -> Outcome:
    """`measure` in a process of its own (so that the niceness its clients take ends
    with it)."""
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        return pool.submit(measure, database, plan, seed).result()


def run(repeats: int = 3, scale: float = 1.0) -> list[dict[str, object]]:
    """The rows of one run per backend at `scale`, the authors' clients sharing the cores
    evenly and then as if on machines of their own (`repeats` is not used: one long run
    alternates its phases, which is what a median of runs would smooth)."""
    del repeats
    rows: list[dict[str, object]] = []
    reads: list[dict[str, object]] = []
    for nice in (0, 19):
        plan = dataclasses.replace(plan_for(scale), clients_nice=nice)
        outcome = measure_apart(None, plan, seed=1)
        rows += rows_of("SQLite", outcome, plan)
        reads += read_rows("SQLite", outcome)
        with postgres_databases() as fresh:
            if fresh is not None:
                outcome = measure_apart(fresh(), plan, seed=1)
                rows += rows_of("PostgreSQL", outcome, plan)
                reads += read_rows("PostgreSQL", outcome)
    return rows + reads


if __name__ == "__main__":
    for row in run(scale=float(sys.argv[1]) if len(sys.argv) > 1 else 1.0):
        print(row)
