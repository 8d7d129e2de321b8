"""Schedules: the balance each format promises, checked for 2 to 12 bots (and beyond)."""

from __future__ import annotations

import hashlib
import itertools
import math
import time
from collections import Counter
from collections.abc import Sequence

import pytest

from arena.engine import PARTNER_TEAMS
from arena.engine.rules import RuleSet, Scoring
from arena.tournament.schedule import (
    MAX_GAMES,
    MAX_PARTNER_BOTS,
    Format,
    ScheduledTable,
    ScheduleError,
    SettingsError,
    TournamentSettings,
    build_schedule,
    derive_seed,
    pack_rounds,
    partner_rounds,
    round_robin_tables,
    seat_rotations,
)

Seating = tuple[str, ...]


def names(count: int) -> list[str]:
    return [f"bot{i:02d}" for i in range(count)]


def pair_counts(tables: Sequence[Seating]) -> Counter[frozenset[str]]:
    return Counter(frozenset(pair) for table in tables for pair in itertools.combinations(table, 2))


def partnerships(tables: Sequence[Seating]) -> Counter[frozenset[str]]:
    return Counter(frozenset((table[a], table[c])) for table in tables for a, c in PARTNER_TEAMS)


def oppositions(tables: Sequence[Seating]) -> Counter[frozenset[str]]:
    return Counter(
        frozenset((table[x], table[y])) for table in tables for x in (0, 2) for y in (1, 3)
    )


def counts_over_all_pairs(counter: Counter[frozenset[str]], bots: list[str]) -> list[int]:
    return [counter[frozenset(pair)] for pair in itertools.combinations(bots, 2)]


ROUND_ROBIN_SIZES = [(n, k) for n in range(2, 13) for k in range(2, min(n, 10) + 1)]
EXACT_WHIST_SIZES = [n for n in range(4, MAX_PARTNER_BOTS + 1) if n % 4 in (0, 1)]
NEAR_WHIST_SIZES = [n for n in range(4, MAX_PARTNER_BOTS + 1) if n % 4 in (2, 3)]


# -- settings ---------------------------------------------------------------------


def test_settings_round_trip_through_plain_values() -> None:
    settings = TournamentSettings(
        format=Format.GAUNTLET, table_size=3, rotations=False, deals_per_table=2,
        duplicate=False, seed=99, max_tables=7, challenger="champ", concurrency=2,
        rules=RuleSet(target_score=None),
    )
    assert TournamentSettings.from_dict(settings.to_dict()) == settings


def test_settings_from_an_empty_table_are_the_defaults() -> None:
    assert TournamentSettings.from_dict({}) == TournamentSettings()


def test_partner_formats_default_to_partner_scoring() -> None:
    settings = TournamentSettings.from_dict({"format": "partners"})
    assert settings.rules.scoring is Scoring.PARTNERS
    assert settings.table_teams == PARTNER_TEAMS
    assert TournamentSettings().table_teams is None


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"colour": "red"}, "colour: unknown setting"),
        ({"format": "swiss"}, "format: 'swiss' is not one of"),
        ({"table_size": 1}, "table_size: must be between 2 and 10"),
        ({"table_size": 11}, "table_size: must be between 2 and 10"),
        ({"table_size": "4"}, "table_size: must be a whole number"),
        ({"seed": True}, "seed: must be a whole number"),
        ({"seed": -1}, "seed: must be between 0 and 18,446,744,073,709,551,615, got -1"),
        ({"seed": 2**64}, "seed: must be between 0 and 18,446,744,073,709,551,615, got "
                          "18,446,744,073,709,551,616"),
        ({"rotations": 1}, "rotations: must be true or false"),
        ({"deals_per_table": 0}, "deals_per_table: must be at least 1"),
        ({"max_tables": 0}, "max_tables: must be at least 1"),
        ({"concurrency": 0}, "concurrency: must be at least 1"),
        ({"deals_per_table": 10**9}, "deals_per_table: must be at most 100,000"),
        ({"max_tables": 2**40}, "max_tables: must be at most 100,000"),
        ({"format": "partners", "table_size": 6}, "table_size: the partners format seats 4"),
        ({"format": "partners", "rules": {"scoring": "standard"}}, "needs scoring = 'partners'"),
        ({"format": "gauntlet"}, "challenger: a gauntlet needs"),
        ({"challenger": 3}, "challenger: must be a bot name"),
        ({"format": "teams", "teams": [["a", "b"]]}, "at least 2 teams"),
        ({"format": "teams", "teams": [["a", "a"], ["b", "c"]]}, "can't partner itself"),
        ({"format": "teams", "teams": [["a", "b"], ["b", "c"]]}, "'b' is on two teams"),
        ({"teams": [["a", "b", "c"]]}, "each team is a pair"),
        ({"teams": "ab"}, "teams: must be a list"),
        ({"rules": {"hand_size": 0}}, "rules: hand_size"),
        ({"rules": "official"}, "rules: must be a table"),
        ({"table_size": 3, "rules": {"scoring": "individual"}}, "rules: scoring"),
    ],
)
def test_bad_settings_are_refused_with_the_key_named(data: dict[str, object], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        TournamentSettings.from_dict(data)


def test_a_schedule_over_the_game_limit_is_refused_before_it_is_built() -> None:
    bots = [f"b{i}" for i in range(12)]
    settings = TournamentSettings(table_size=4, deals_per_table=MAX_GAMES)
    with pytest.raises(ScheduleError,
                       match=r"would hold (at least )?[\d,]+ games, more than the 100,000"):
        build_schedule(settings, bots)
    tables = len(round_robin_tables(bots, 4, settings.max_tables))
    largest = TournamentSettings(table_size=4, deals_per_table=MAX_GAMES // (tables * 4))
    assert len(build_schedule(largest, bots)) <= MAX_GAMES


def test_settings_must_be_a_table() -> None:
    with pytest.raises(SettingsError, match="table of values"):
        TournamentSettings.from_dict([("format", "partners")])  # type: ignore[arg-type]


# -- round robin ------------------------------------------------------------------


@pytest.mark.parametrize(("bot_count", "table_size"), ROUND_ROBIN_SIZES)
def test_round_robin_plays_every_combination_when_they_fit(
    bot_count: int, table_size: int
) -> None:
    bots = names(bot_count)
    tables = round_robin_tables(bots, table_size, max_tables=math.comb(bot_count, table_size))
    assert sorted(frozenset(t) for t in tables) == sorted(
        frozenset(c) for c in itertools.combinations(bots, table_size)
    )
    assert set(counts_over_all_pairs(pair_counts(tables), bots)) == {
        math.comb(bot_count - 2, table_size - 2)
    }


@pytest.mark.parametrize(("bot_count", "table_size"), ROUND_ROBIN_SIZES)
@pytest.mark.parametrize("max_tables", [10, 20, 50])
def test_round_robin_subset_seats_bots_equally_and_every_pair_meets(
    bot_count: int, table_size: int, max_tables: int
) -> None:
    bots = names(bot_count)
    try:
        tables = round_robin_tables(bots, table_size, max_tables)
    except ScheduleError as exc:
        assert "too few" in str(exc)
        return
    assert len(tables) <= max(max_tables, math.comb(bot_count, table_size))
    assert all(len(set(table)) == table_size for table in tables)
    assert len(set(Counter(bot for table in tables for bot in table).values())) == 1
    assert min(counts_over_all_pairs(pair_counts(tables), bots)) >= 1


@pytest.mark.parametrize(("bot_count", "table_size"), ROUND_ROBIN_SIZES)
def test_round_robin_pairs_meet_within_one_of_each_other_at_the_default_limit(
    bot_count: int, table_size: int
) -> None:
    bots = names(bot_count)
    tables = round_robin_tables(bots, table_size, TournamentSettings().max_tables)
    meetings = counts_over_all_pairs(pair_counts(tables), bots)
    assert max(meetings) - min(meetings) <= 1


def test_round_robin_of_seven_at_tables_of_three_over_a_limit_is_a_fano_plane_pair() -> None:
    bots = names(7)
    tables = round_robin_tables(bots, 3, max_tables=20)
    assert len(tables) == 14
    assert set(counts_over_all_pairs(pair_counts(tables), bots)) == {2}


def test_round_robin_limit_too_small_for_every_pair_is_refused() -> None:
    with pytest.raises(ScheduleError, match="max_tables = 3 is too few"):
        round_robin_tables(names(12), 2, max_tables=3)


@pytest.mark.parametrize(
    ("bot_count", "table_size", "max_tables", "tables", "digest"),
    [
        (12, 4, 200, 183, "f06920dcda459415"),
        (12, 3, 50, 40, "9241e3795d5c9289"),
        (16, 4, 200, 120, "0ee5e315057cec01"),
        (30, 4, 200, 180, "7682e1ec443937d4"),
        (25, 5, 300, 180, "a8cad918ba9cc9c4"),
    ],
)
def test_round_robin_subsets_of_fields_whose_orbits_are_all_compared_stay_as_stored(
    bot_count: int, table_size: int, max_tables: int, tables: int, digest: str
) -> None:
    chosen = round_robin_tables(names(bot_count), table_size, max_tables)
    assert len(chosen) == tables
    assert hashlib.sha256(repr(chosen).encode()).hexdigest()[:16] == digest


@pytest.mark.parametrize(
    ("bot_count", "table_size", "max_tables"),
    [(100, 3, 1800), (100, 3, 2000), (100, 4, 1000), (100, 6, 500), (100, 6, 1000),
     (61, 5, 2000), (200, 4, 4000)],
)
def test_round_robin_subset_of_a_big_field_seats_bots_equally_and_pairs_within_one(
    bot_count: int, table_size: int, max_tables: int
) -> None:
    bots = names(bot_count)
    tables = round_robin_tables(bots, table_size, max_tables)
    assert len(tables) <= max_tables
    assert all(len(set(table)) == table_size for table in tables)
    assert len(set(Counter(bot for table in tables for bot in table).values())) == 1
    meetings = counts_over_all_pairs(pair_counts(tables), bots)
    assert min(meetings) >= 1 and max(meetings) - min(meetings) <= 1


def test_round_robin_subset_of_a_big_field_meets_pairs_at_one_cyclic_distance_equally() -> None:
    bots = names(120)
    meetings = pair_counts(round_robin_tables(bots, 5, 1500))
    by_distance: dict[int, set[int]] = {}
    for i, j in itertools.combinations(range(120), 2):
        distance = min(j - i, 120 - (j - i))
        by_distance.setdefault(distance, set()).add(meetings[frozenset((bots[i], bots[j]))])
    assert len(by_distance) == 60
    assert all(len(counts) == 1 for counts in by_distance.values())


def test_round_robin_of_a_big_field_fills_the_room_the_game_limit_leaves() -> None:
    settings = TournamentSettings(table_size=4, max_tables=MAX_GAMES)
    schedule = build_schedule(settings, names(100))
    assert MAX_GAMES - 100 * 4 < len(schedule) <= MAX_GAMES
    tables = {(game.round, game.table): game.seats for game in schedule}
    meetings = counts_over_all_pairs(pair_counts(list(tables.values())), names(100))
    assert max(meetings) - min(meetings) <= 1


@pytest.mark.parametrize(
    ("settings", "bot_count", "message"),
    [
        (TournamentSettings(table_size=4), 100, "max_tables = 200 is too few"),
        (TournamentSettings(table_size=6), 1000, "max_tables = 200 is too few"),
        (TournamentSettings(table_size=4, max_tables=MAX_GAMES), 1000,
         "would hold at least 333,000 games"),
        (TournamentSettings(table_size=4, max_tables=MAX_GAMES, deals_per_table=100), 100,
         "would hold at least 330,000 games"),
        (TournamentSettings(table_size=4, max_tables=MAX_GAMES), 30,
         "would hold 109,620 games"),
    ],
)
def test_a_round_robin_too_big_for_its_limits_is_refused_at_once(
    settings: TournamentSettings, bot_count: int, message: str
) -> None:
    started = time.perf_counter()
    with pytest.raises(ScheduleError, match=message):
        build_schedule(settings, names(bot_count))
    assert time.perf_counter() - started < 0.5


def test_rounds_are_packed_first_fit_in_order() -> None:
    tables = [(0, 1), (2, 3), (1, 2), (0, 3), (0, 2), (4, 5), (1, 3)]
    assert pack_rounds(tables) == [[(0, 1), (2, 3), (4, 5)], [(1, 2), (0, 3)],
                                   [(0, 2), (1, 3)]]


@pytest.mark.parametrize(("bot_count", "table_size"), ROUND_ROBIN_SIZES)
def test_rotations_seat_every_bot_in_every_seat_equally_often(
    bot_count: int, table_size: int
) -> None:
    settings = TournamentSettings(table_size=table_size, max_tables=70)
    schedule = build_schedule(settings, names(bot_count))
    seat_counts = Counter((bot, seat) for game in schedule for seat, bot in enumerate(game.seats))
    for bot in names(bot_count):
        assert len({seat_counts[bot, seat] for seat in range(table_size)}) == 1


def test_rounds_never_seat_a_bot_twice() -> None:
    schedule = build_schedule(TournamentSettings(table_size=3), names(9))
    for _, games in itertools.groupby(schedule, key=lambda game: game.round):
        tables = {game.table: set(game.seats) for game in games}
        seated = [bot for bots in tables.values() for bot in bots]
        assert len(seated) == len(set(seated))


def test_game_indexes_count_from_zero_in_playing_order() -> None:
    schedule = build_schedule(TournamentSettings(deals_per_table=2), names(5))
    assert [game.game_index for game in schedule] == list(range(len(schedule)))
    assert len(schedule) == 5 * 4 * 2
    assert schedule[0].round == 1 and schedule[0].table == 1


def test_without_rotations_each_table_plays_its_first_seat_order() -> None:
    schedule = build_schedule(TournamentSettings(rotations=False, table_size=2), names(4))
    assert [game.seats for game in schedule] == [
        ("bot00", "bot01"), ("bot02", "bot03"), ("bot00", "bot02"), ("bot01", "bot03"),
        ("bot00", "bot03"), ("bot01", "bot02"),
    ]


def test_seat_rotations_are_cyclic() -> None:
    assert seat_rotations(("a", "b", "c")) == [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]


# -- deals ------------------------------------------------------------------------


def test_duplicate_deals_give_each_bot_every_hand_of_a_deal_once() -> None:
    schedule = build_schedule(TournamentSettings(table_size=4, deals_per_table=2), names(6))
    by_seed: dict[int, list[ScheduledTable]] = {}
    for game in schedule:
        by_seed.setdefault(game.seed, []).append(game)
    assert len(by_seed) == len(schedule) // 4
    for games in by_seed.values():
        assert len(games) == 4
        bots = set(games[0].seats)
        for bot in bots:
            assert sorted(game.seats.index(bot) for game in games) == [0, 1, 2, 3]


def test_without_duplicate_every_game_has_its_own_deal() -> None:
    schedule = build_schedule(TournamentSettings(duplicate=False), names(6))
    assert len({game.seed for game in schedule}) == len(schedule)


def test_seeds_derive_from_the_tournament_seed_alone() -> None:
    first = build_schedule(TournamentSettings(seed=5), names(5))
    again = build_schedule(TournamentSettings(seed=5), names(5))
    other = build_schedule(TournamentSettings(seed=6), names(5))
    assert first == again
    assert {game.seed for game in first}.isdisjoint({game.seed for game in other})
    assert all(0 <= game.seed < 2**63 for game in first)


def test_derive_seed_is_stable_across_releases() -> None:
    assert derive_seed(0, "deal", 1, 1, 0) == 1291421848150116984
    assert derive_seed(0, "deal", 1, 1, 0) != derive_seed(0, "deal", 1, 1, 1)
    assert derive_seed(42, "game", 7) == 5022682337370576656


# -- partners ---------------------------------------------------------------------


@pytest.mark.parametrize("bot_count", EXACT_WHIST_SIZES)
def test_whist_design_partners_every_pair_once_and_opposes_twice(bot_count: int) -> None:
    bots = names(bot_count)
    rounds = partner_rounds(bots)
    tables = [table for tables in rounds for table in tables]
    assert set(counts_over_all_pairs(partnerships(tables), bots)) == {1}
    assert set(counts_over_all_pairs(oppositions(tables), bots)) == {2}


@pytest.mark.parametrize("bot_count", EXACT_WHIST_SIZES)
def test_whist_design_rounds_seat_everyone_or_all_but_one(bot_count: int) -> None:
    bots = names(bot_count)
    rounds = partner_rounds(bots)
    sitting_out: Counter[str] = Counter()
    for tables in rounds:
        seated = [bot for table in tables for bot in table]
        assert len(seated) == len(set(seated)) == 4 * (bot_count // 4)
        sitting_out.update(set(bots) - set(seated))
    if bot_count % 4 == 0:
        assert len(rounds) == bot_count - 1 and not sitting_out
    else:
        assert len(rounds) == bot_count and sitting_out == Counter(bots)


def test_eight_bots_play_seven_rounds_of_two_tables_with_28_partnerships() -> None:
    rounds = partner_rounds(names(8))
    assert [len(tables) for tables in rounds] == [2] * 7
    tables = [table for tables in rounds for table in tables]
    assert len(partnerships(tables)) == 28
    assert sum(partnerships(tables).values()) == 28


@pytest.mark.parametrize("bot_count", NEAR_WHIST_SIZES)
def test_other_partner_fields_partner_every_pair_once_but_the_last_two(bot_count: int) -> None:
    bots = names(bot_count)
    rounds = partner_rounds(bots)
    tables = [table for tables in rounds for table in tables]
    partnered = partnerships(tables)
    last_pair = frozenset(bots[-2:])
    assert partnered[last_pair] == 0
    other_pairs = [frozenset(p) for p in itertools.combinations(bots, 2)
                   if frozenset(p) != last_pair]
    assert {partnered[pair] for pair in other_pairs} == {1}
    opposed = counts_over_all_pairs(oppositions(tables), bots)
    assert min(opposed) >= 1 and max(opposed) <= 3
    for round_tables in rounds:
        seated = [bot for table in round_tables for bot in table]
        assert len(seated) == len(set(seated))


def test_partner_schedule_keeps_partners_through_rotations() -> None:
    settings = TournamentSettings.from_dict({"format": "partners", "seed": 3})
    schedule = build_schedule(settings, names(8))
    assert len(schedule) == 7 * 2 * 4
    assert all(game.teams == PARTNER_TEAMS for game in schedule)
    for _, games in itertools.groupby(schedule, key=lambda game: (game.round, game.table)):
        teams = {frozenset(frozenset(game.seats[s] for s in team) for team in PARTNER_TEAMS)
                 for game in games}
        assert len(teams) == 1


@pytest.mark.parametrize("bot_count", [3, MAX_PARTNER_BOTS + 1])
def test_partner_format_refuses_fields_it_cannot_schedule(bot_count: int) -> None:
    settings = TournamentSettings.from_dict({"format": "partners"})
    with pytest.raises(ScheduleError, match="partner format takes 4 to"):
        build_schedule(settings, names(bot_count))


# -- fixed teams and gauntlet -------------------------------------------------------


@pytest.mark.parametrize("team_count", [2, 3, 4, 5, 6])
def test_every_fixed_team_meets_every_other_once(team_count: int) -> None:
    bots = names(2 * team_count)
    teams = [bots[i:i + 2] for i in range(0, len(bots), 2)]
    settings = TournamentSettings.from_dict(
        {"format": "teams", "teams": teams, "rotations": False}
    )
    schedule = build_schedule(settings, bots)
    meetings = Counter(
        frozenset((game.seats[0], game.seats[2], game.seats[1], game.seats[3]))
        for game in schedule
    )
    assert len(schedule) == math.comb(team_count, 2) == len(meetings)
    for game in schedule:
        assert [game.seats[0], game.seats[2]] in teams
        assert [game.seats[1], game.seats[3]] in teams
    rounds = Counter(game.round for game in schedule)
    assert all(count == team_count // 2 for count in rounds.values())


def test_teams_must_match_the_tournament_bots() -> None:
    settings = TournamentSettings.from_dict({"format": "teams", "teams": [["a", "b"], ["c", "d"]]})
    with pytest.raises(ScheduleError, match="the teams list bots"):
        build_schedule(settings, ["a", "b", "c", "e"])


@pytest.mark.parametrize(("field_size", "table_size"), [(1, 2), (5, 2), (5, 3), (7, 4), (3, 4)])
def test_gauntlet_seats_the_challenger_everywhere_against_an_even_field(
    field_size: int, table_size: int
) -> None:
    field = names(field_size)
    settings = TournamentSettings(format=Format.GAUNTLET, table_size=table_size,
                                  challenger="champ")
    schedule = build_schedule(settings, ["champ", *field])
    assert all("champ" in game.seats for game in schedule)
    faced = Counter(bot for game in schedule for bot in game.seats if bot != "champ")
    assert set(faced) == set(field) and len(set(faced.values())) == 1
    seats = Counter(game.seats.index("champ") for game in schedule)
    assert sorted(seats) == list(range(table_size)) and len(set(seats.values())) == 1


def test_gauntlet_challenger_must_be_entered() -> None:
    settings = TournamentSettings(format=Format.GAUNTLET, challenger="champ")
    with pytest.raises(ScheduleError, match="challenger 'champ' is not among"):
        build_schedule(settings, names(4))


# -- bad fields -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bots", "message"),
    [
        (["solo"], "at least 2 bots"),
        (["a", "b", "a"], "more than once: a"),
        (["a", "b", "c"], "tables of 4 need at least 4 bots"),
    ],
)
def test_bad_fields_are_refused(bots: list[str], message: str) -> None:
    with pytest.raises(ScheduleError, match=message):
        build_schedule(TournamentSettings(), bots)
