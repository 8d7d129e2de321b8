"""What a caller may ask of arena, grouped by concern, in plain Python.

- `bots` (`BotService`): bots and their versions: add, submit, build logs, remove.
- `competitions` (`CompetitionService`): tournaments and their schedules, the
  timetable, the ladder's settings.
- `runs` (`RunService`): playing matches, tournaments and the ladder.
- `results` (`ResultsService`): rankings, pools, crosstables, statistics, fits,
  schedules, stored games and exports.
- `people` (`PeopleService`): the authors and viewers of a hosted competition, their
  invites and quotas, and the audit trail.

The admin service (`arena.server.admin`) maps each RPC to one call of one service;
launching and watching the managed bots is the supervisor layer's `Fleet`. No
service imports gRPC, click or the server: the server is a `MatchServer` to them.
A service's plain methods may block on the store (a server runs them in a worker
thread); its coroutines never block the event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.services.bots import BotService, VersionLine
from arena.services.competitions import CompetitionService
from arena.services.errors import ServiceError
from arena.services.match_server import MatchServer
from arena.services.people import PeopleService
from arena.services.progress import Progress, ProgressListener
from arena.services.results import ResultsService
from arena.services.runs import RunService
from arena.store import Store
from arena.submissions import Submissions
from arena.submissions.build import BuildLimits
from arena.supervisor import BotIsolation
from arena.supervisor.fleet import Fleet
from arena.tournament.chunked import WorkerPools


@dataclass(frozen=True)
class Services:
    """The services of one server over one store, and the fleet of its managed bots."""

    store: Store
    bots: BotService
    competitions: CompetitionService
    runs: RunService
    results: ResultsService
    fleet: Fleet
    people: PeopleService


def build_services(store: Store, server: MatchServer, mint_token: Callable[[str], str],
                   revoke_tokens: Callable[[str], None], log_dir: Path, *,
                   bots_dir: Path | None = None, isolation: BotIsolation | None = None,
                   worker_pools: WorkerPools | None = None,
                   build_limits: BuildLimits | None = None) -> Services:
    """The services over `store` for `server`: managed bots get tokens from `mint_token`
    (a removed bot's are revoked with `revoke_tokens`), log to `log_dir` and run isolated
    as `isolation` says; submitted versions live in `bots_dir` (by default beside the
    logs, as `arena.submissions.bots_dir_for` puts it beside the database) and are built
    within `build_limits` (the defaults for None); runs on several workers use
    `worker_pools`."""
    isolation = isolation or BotIsolation()
    submissions = Submissions(
        store, bots_dir or log_dir.with_name(log_dir.name.removesuffix("-logs") + "-bots"),
        sandbox=isolation.sandbox, build_limits=build_limits)
    bots = BotService(store, submissions, server.connected_bots, revoke_tokens)
    fleet = Fleet(bots, server, mint_token, lambda: server.bot_address, log_dir, isolation)
    bots.fleet = fleet
    competitions = CompetitionService(store, bots)
    runs = RunService(store, server, fleet, bots, competitions, worker_pools=worker_pools)
    return Services(store, bots, competitions, runs, ResultsService(store), fleet,
                    PeopleService(store))


__all__ = [
    "BotService", "CompetitionService", "MatchServer", "PeopleService", "Progress",
    "ProgressListener",
    "ResultsService", "RunService", "ServiceError", "Services", "VersionLine",
    "build_services",
]
