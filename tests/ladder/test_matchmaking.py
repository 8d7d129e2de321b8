"""The ladder's matchmaking: its rules (new versions first, nobody starved, every pair meets),
its errors, and, statistically, that it reaches a separated leaderboard in fewer games than
random tables without ordering the bots wrongly more often."""

from __future__ import annotations

import itertools
import math
import random
import statistics
from collections import Counter

import pytest

from arena.ladder import Contender, MatchmakingError, Meetings, choose_table, random_table
from arena.ladder.matchmaking import (
    ENUMERATION_LIMIT,
    OVERDUE,
    meeting_period,
    overdue,
    starvation_bound,
)
from arena.rating.pools import pool_parameters
from benchmarks import ladder as bench
from tests.test_layers import STDLIB, imports_of

PARAMETERS = pool_parameters(4)
NEW = 10**6
"""The `waited` of a bot the ladder has never seated."""


def established(count: int, rng: random.Random, prefix: str = "bot") -> list[Contender]:
    """A field of bots rated over many blocks, all of which sat recently."""
    return [Contender(f"{prefix}{k:03d}", mu=PARAMETERS.mu + rng.gauss(0.0, 4.0),
                      sigma=rng.uniform(1.0, 2.0), blocks=rng.randrange(100, 300),
                      waited=rng.randrange(2)) for k in range(count)]


def newcomer(name: str = "new") -> Contender:
    """A new version: the pool's initial skill, never seated."""
    return Contender(name, PARAMETERS.mu, PARAMETERS.sigma, blocks=0, waited=NEW)


def test_matchmaking_is_pure_the_standard_library_and_the_ratings_only() -> None:
    for module in ("arena.ladder", "arena.ladder.matchmaking"):
        outside = {name for name in imports_of(module) if name.split(".")[0] not in STDLIB
                   and not name.startswith(("arena.rating", "arena.ladder"))}
        assert not outside, (module, outside)
    assert "arena.rating" in imports_of("arena.ladder.matchmaking")


def test_meetings_count_pairs_and_the_blocks_since_they_met() -> None:
    meetings = Meetings.from_tables([("a", "b", "c"), ("b", "c", "d")])
    assert meetings.made == 2
    assert (meetings.count("a", "b"), meetings.count("c", "b"), meetings.count("a", "d")) \
        == (1, 2, 0)
    assert (meetings.since("b", "a"), meetings.since("b", "c"), meetings.since("a", "d")) \
        == (1, 0, None)
    assert dict(meetings.opponents("b")) == {"a": 1, "c": 2, "d": 1}
    meetings.add(("a", "d"))
    assert (meetings.made, meetings.since("b", "c"), meetings.since("d", "a")) == (3, 1, 0)
    with pytest.raises(ValueError, match="at most once"):
        meetings.add(("a", "a"))


def test_a_new_version_sits_at_the_very_next_table() -> None:
    for seed in range(40):
        rng = random.Random(seed)
        field = [*established(9, rng), newcomer()]
        assert "new" in choose_table(field, 4, Meetings(), PARAMETERS, rng), seed


def test_a_new_version_sits_at_the_next_table_of_a_large_field_too() -> None:
    rng = random.Random(1)
    field = established(300, rng)
    field.insert(123, newcomer())
    assert math.comb(len(field), 4) > ENUMERATION_LIMIT  # built greedily
    assert "new" in choose_table(field, 4, Meetings(), PARAMETERS, rng)


def _with_history(field: list[Contender], blocks: int,
                  rng: random.Random) -> tuple[list[Contender], Meetings]:
    """`field` after `blocks` random tables (its blocks counted from them), all seated lately."""
    tables = [rng.sample([c.name for c in field], 4) for _ in range(blocks)]
    played = Counter(bot for table in tables for bot in table)
    return ([Contender(c.name, c.mu, c.sigma, played[c.name], c.waited) for c in field],
            Meetings.from_tables(tables))


def test_an_uncertain_bot_is_seated_before_it_has_to_be() -> None:
    seated = 0
    for seed in range(40):
        rng = random.Random(seed)
        field, meetings = _with_history(established(9, rng), 300, rng)
        field.append(Contender("unsure", PARAMETERS.mu, 4.0, blocks=0, waited=0))
        seated += "unsure" in choose_table(field, 4, meetings, PARAMETERS, rng)
    assert seated == 40


def test_a_starved_bot_sits_whatever_the_table_is_worth() -> None:
    rng = random.Random(2)
    field = established(11, rng)
    bound = starvation_bound(12, 4)
    # Rated far below the others over many blocks: nothing to learn from seating it.
    field.append(Contender("starved", 0.0, 0.5, blocks=5000, waited=bound + 1))
    for seed in range(20):
        assert "starved" in choose_table(field, 4, Meetings(), PARAMETERS,
                                         random.Random(seed))


def test_when_more_bots_starve_than_a_table_holds_the_longest_waiting_sit() -> None:
    rng = random.Random(3)
    bound = starvation_bound(10, 4)
    field = [Contender(f"w{k}", PARAMETERS.mu + k, 1.0, blocks=100, waited=bound + 1 + k)
             for k in range(6)] + established(4, rng)
    table = choose_table(field, 4, Meetings(), PARAMETERS, rng)
    assert sorted(table) == ["w2", "w3", "w4", "w5"]


def _long_run(bots: int, blocks: int, seed: int) -> tuple[list[int], list[int], Meetings]:
    """Fixed ratings that make two bots indistinguishable and every other pair easy: the
    matchmaking would seat that pair forever if nothing stopped it. Returns every gap
    between a bot's tables, every gap between a pair's meetings, and the meetings."""
    rng = random.Random(seed)
    mu = {f"b{k:02d}": PARAMETERS.mu + 3.0 * k for k in range(bots)}
    mu["b01"] = mu["b00"]
    played = dict.fromkeys(mu, 0)
    last_sat = dict.fromkeys(mu, -NEW)
    last_met: dict[tuple[str, str], int] = {}
    bot_gaps, pair_gaps = [], []
    meetings = Meetings()
    for block in range(blocks):
        field = [Contender(bot, mu[bot], 1.0, played[bot], block - 1 - last_sat[bot])
                 for bot in mu]
        table = choose_table(field, 4, meetings, PARAMETERS, rng)
        meetings.add(table)
        for bot in table:
            if last_sat[bot] >= 0:
                bot_gaps.append(block - last_sat[bot])
            last_sat[bot], played[bot] = block, played[bot] + 1
        for pair in itertools.combinations(sorted(table), 2):
            if pair in last_met:
                pair_gaps.append(block - last_met[pair])
            last_met[pair] = block
    return bot_gaps, pair_gaps, meetings


@pytest.mark.parametrize(("bots", "blocks"), [(6, 600), (10, 500)])
def test_over_a_long_run_every_pair_meets_again_and_again_and_nobody_waits_long(
        bots: int, blocks: int) -> None:
    bot_gaps, pair_gaps, meetings = _long_run(bots, blocks, seed=bots)
    names = [f"b{k:02d}" for k in range(bots)]
    period = meeting_period(bots, 4)
    # A bot that has waited more than the bound sits next; when more bots are over the
    # bound than a table holds, the others sit at the table after.
    assert max(bot_gaps) <= starvation_bound(bots, 4) + 2
    # A pair overdue by OVERDUE periods comes first, so it meets within about one period.
    assert max(pair_gaps) <= (OVERDUE + 1) * period
    assert all(meetings.count(a, b) >= blocks / period / (OVERDUE + 1)
               for a, b in itertools.combinations(names, 2))
    assert all(meetings.since(a, b) is not None
               and meetings.since(a, b) <= (OVERDUE + 1) * period  # type: ignore[operator]
               for a, b in itertools.combinations(names, 2))


def test_a_pair_is_overdue_after_some_meeting_periods_counted_from_the_later_arrival() -> None:
    tables = [("a", "b", "c", "d")] * 3 + [("b", "c", "d", "e")] * 40
    meetings = Meetings.from_tables(tables)
    period = meeting_period(5, 4)  # 2.5 blocks
    a, e = Contender("a", 25.0, 1.0, blocks=3), Contender("e", 25.0, 1.0, blocks=40)
    b = Contender("b", 25.0, 1.0, blocks=43)
    assert overdue(meetings, a, b, 4, 5) == pytest.approx(40 / period - OVERDUE)
    assert overdue(meetings, b, e, 4, 5) == 0.0  # they met at the last block
    # a and e never met: counted from a's arrival, which its three blocks put 4 back.
    assert overdue(meetings, a, e, 4, 5) == 0.0
    newcomer_e = Contender("new", 25.0, 8.0, blocks=0)
    assert overdue(meetings, newcomer_e, b, 4, 5) == 0.0
    veteran = Contender("old", 25.0, 1.0, blocks=40)
    assert overdue(meetings, veteran, b, 4, 5) == pytest.approx(43 / period - OVERDUE)


def test_too_few_contenders_and_other_bad_input_are_refused_clearly() -> None:
    field = established(3, random.Random(4))
    with pytest.raises(ValueError, match="a table of 4 needs at least 4 contenders, got 3"):
        choose_table(field, 4, Meetings(), PARAMETERS, random.Random(0))
    with pytest.raises(ValueError, match="a table of 4 needs at least 4 contenders, got 3"):
        random_table(field, 4, random.Random(0))
    with pytest.raises(MatchmakingError, match="at least 2"):
        choose_table(field, 1, Meetings(), PARAMETERS, random.Random(0))
    with pytest.raises(MatchmakingError, match="distinct names: bot000"):
        choose_table([*field, field[0]], 4, Meetings(), PARAMETERS, random.Random(0))


def _tables(seed: int, blocks: int = 60) -> list[tuple[str, ...]]:
    rng = random.Random(seed)
    field = established(8, random.Random(99))
    meetings = Meetings()
    tables = []
    for _ in range(blocks):
        table = choose_table(field, 4, meetings, PARAMETERS, rng)
        meetings.add(table)
        tables.append(table)
    return tables


def test_a_seeded_rng_gives_the_same_tables_in_the_same_seats() -> None:
    assert _tables(5) == _tables(5)
    assert _tables(5) != _tables(6)  # the rng orders the seats, at least


def test_a_large_field_is_built_greedily_and_seats_distinct_bots_of_the_field() -> None:
    rng = random.Random(6)
    field = established(500, rng)
    meetings = Meetings()
    names = [c.name for c in field]
    for _ in range(2000):
        meetings.add(rng.sample(names, 4))
    for size in (4, 6):
        assert math.comb(len(field), size) > ENUMERATION_LIMIT
        table = choose_table(field, size, meetings, PARAMETERS, rng)
        assert len(table) == len(set(table)) == size and set(table) <= set(names)


def test_random_tables_seat_every_bot_equally_often() -> None:
    rng = random.Random(7)
    field = established(6, rng)
    draws = 6000
    seats = Counter(bot for _ in range(draws) for bot in random_table(field, 4, rng))
    tables = Counter(frozenset(random_table(field, 4, rng)) for _ in range(draws))
    assert all(abs(count / draws - 4 / 6) < 0.02 for count in seats.values())
    assert len(tables) == 15 and all(abs(count / draws - 1 / 15) < 0.015
                                     for count in tables.values())


def test_matchmaking_separates_the_leaderboard_in_fewer_games_than_random_tables() -> None:
    # A small version of `python -m benchmarks ladder`: eight bots with gaps of 0.6 to
    # 1.2, the same strengths for both arms in every replicate. (Measured over these 20
    # replicates: a median of 332 games against 500, fewer in all 20, no order wrong.)
    draw = bench.gapped_field(8, 0.6, 1.2)
    matched, baseline, matched_errors, baseline_errors = [], [], 0, 0
    replicates = 20
    for index in range(replicates):
        strengths = draw(random.Random(f"test:{index}"))
        mm = bench.replicate(strengths, bench.matchmaking_chooser(PARAMETERS), index,
                             max_blocks=400, sequential=False)
        rnd = bench.replicate(strengths, bench.random_chooser, index, max_blocks=400,
                              rated=False, sequential=False)
        assert mm.games is not None and rnd.games is not None
        matched.append(mm.games)
        baseline.append(rnd.games)
        matched_errors += not mm.correct
        baseline_errors += not rnd.correct
    assert statistics.median(matched) < 0.85 * statistics.median(baseline)
    assert sum(m < r for m, r in zip(matched, baseline, strict=True)) >= 0.65 * replicates
    assert matched_errors <= baseline_errors + 1
