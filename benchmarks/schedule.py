"""Schedule benchmark: how long a big round robin's schedule takes to build.

Each field is given a quarter more tables (`max_tables`) than the fewest that let
every pair meet (at least one table per bot more), within the game limit: a
balanced subset at tables of 4 and 6, every combination at tables of 2 (where
every pair meeting needs them all). The 1,000-bot field plays each table once
(no rotations), as 100,000 games are too few for its rotations. The anchor,
measured in the same run, is drawing as many random seatings of the same field
as the schedule has tables: "vs random seatings" is how many times longer the
schedule took than that. The last row times refusing a schedule the default
`max_tables` is too small for.
"""

from __future__ import annotations

import math
import random
import time

from arena.tournament.schedule import (
    MAX_GAMES,
    ScheduleError,
    TournamentSettings,
    build_schedule,
)
from benchmarks.stats import median

FIELDS = ((100, 2, True), (100, 4, True), (100, 6, True), (1000, 4, False))
"""(bots, table size, rotations) of each field measured at full scale."""
SLACK = 1.25
"""How many times the fewest tables that let every pair meet each field is allowed."""


def field_settings(bots: int, table_size: int, rotations: bool) -> TournamentSettings:
    """The round robin measured for a field: `SLACK` times the fewest tables that let
    every pair meet (and at least one orbit of tables more), within the game limit."""
    fewest = -(-math.comb(bots, 2) // math.comb(table_size, 2))
    room = MAX_GAMES // (table_size if rotations else 1)
    return TournamentSettings(table_size=table_size, rotations=rotations,
                              max_tables=min(room, max(math.ceil(SLACK * fewest),
                                                       fewest + bots)))


def random_seatings(bots: list[str], table_size: int, tables: int, seed: int = 0) -> float:
    """Seconds to draw `tables` random seatings of `table_size` among `bots`."""
    rng = random.Random(seed)
    start = time.perf_counter()
    for _ in range(tables):
        rng.sample(bots, table_size)
    return time.perf_counter() - start


def _timed_build(settings: TournamentSettings, bots: list[str]) -> tuple[float, int, int]:
    start = time.perf_counter()
    schedule = build_schedule(settings, bots)
    seconds = time.perf_counter() - start
    return seconds, len({(game.round, game.table) for game in schedule}), len(schedule)


def _refusal_seconds(bots: list[str]) -> float:
    start = time.perf_counter()
    try:
        build_schedule(TournamentSettings(table_size=4), bots)
    except ScheduleError:
        return time.perf_counter() - start
    raise AssertionError(f"a round robin of {len(bots)} bots at the default max_tables "
                         "was not refused")


def run(repeats: int = 3, scale: float = 1.0) -> list[dict[str, object]]:
    """One row per field: the median build time, and its ratio to random seatings."""
    rows: list[dict[str, object]] = []
    for count, table_size, rotations in FIELDS:
        bots = [f"bot{i:04d}" for i in range(max(2 * table_size + 1, int(count * scale)))]
        settings = field_settings(len(bots), table_size, rotations)
        builds = [_timed_build(settings, bots) for _ in range(repeats)]
        seconds = median([build[0] for build in builds])
        _, tables, games = builds[0]
        anchor = median([random_seatings(bots, table_size, tables, seed)
                         for seed in range(repeats)])
        rows.append({
            "bots": len(bots), "seats": table_size, "rotations": rotations,
            "max_tables": settings.max_tables, "tables": tables, "games": games,
            "build s": float(f"{seconds:.3g}"),
            "ms per 1,000 tables": round(1000 * 1000 * seconds / tables, 2),
            "vs random seatings": round(seconds / anchor, 1),
        })
    bots = [f"bot{i:04d}" for i in range(max(50, int(100 * scale)))]
    refusal = median([_refusal_seconds(bots) for _ in range(repeats)])
    rows.append({"bots": len(bots), "seats": 4, "rotations": True, "max_tables": 200,
                 "tables": "refused", "build s": float(f"{refusal:.3g}")})
    return rows
