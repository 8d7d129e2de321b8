"""The ladder played through the tournament runner with a fake table: whole deals, a field
that changes while it plays, withdrawn games, budgets, resuming, and an order that
matches the bots' strengths."""

from __future__ import annotations

import asyncio
import math
import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import pytest

from arena.engine.outcome import Outcome, Termination, ranks_from_keys
from arena.engine.rules import RuleSet
from arena.ladder.feed import LadderError, LadderFeed, open_ladder
from arena.ladder.settings import LadderSettings, Matchmaking
from arena.rankings import pool_ranking
from arena.rating.pools import tournament_pool
from arena.record import SeatTermination
from arena.store import LADDER_FORMAT, BotKind, GameStatus, ScheduledGame, Store, TournamentBusy
from arena.tournament.runner import PlayedGame, RunSummary, run_tournament
from arena.tournament.schedule import SettingsError, TournamentSettings
from tests.support import store_with_remote_bots

BOTS = ["ann", "bob", "cat", "dan", "eve", "fay"]
STRENGTH = {"ann": 1.5, "bob": 1.0, "cat": 0.5, "dan": 0.0, "eve": -0.5, "fay": -1.0}


class StrengthTable:
    """FAKE table runner: each seat's performance is its bot's strength plus the luck of its
    seat in this deal (shared by the deal's rotations) plus noise; `before` is called with
    each game before it is played."""

    def __init__(self, strength: Mapping[str, float] | None = None,
                 before: Callable[[ScheduledGame], None] | None = None) -> None:
        self.strength = dict(strength or STRENGTH)
        self.before = before
        self.played: list[ScheduledGame] = []

    async def __call__(self, game: ScheduledGame, rules: RuleSet) -> PlayedGame:
        if self.before is not None:
            self.before(game)
        await asyncio.sleep(0)
        self.played.append(game)
        deal = random.Random(game.seed)
        first = list(game.seats).index(min(game.seats))  # seat luck follows the deal's seats
        luck = [deal.gauss(0.0, 1.0) for _ in game.seats]
        noise = random.Random(game.seed * 31 + game.game_index)
        performance = [self.strength.get(bot, 0.0) + luck[(seat - first) % len(luck)]
                       + noise.gauss(0.0, 1.0) for seat, bot in enumerate(game.seats)]
        return PlayedGame(
            outcome=Outcome(Termination.SINGLE_HAND, tuple(0 for _ in game.seats),
                            ranks_from_keys([-p for p in performance]), hands_played=1),
            events=[], actions=[],
            seat_terminations=[SeatTermination.NORMAL] * len(game.seats))


class Field:
    """FAKE field: the bots that can be seated now, changed by the test."""

    def __init__(self, bots: Sequence[str]) -> None:
        self.bots = list(bots)

    def __call__(self) -> list[str]:
        return list(self.bots)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with store_with_remote_bots(tmp_path / "arena.db", BOTS) as opened:
        yield opened


@pytest.fixture
def store_on_each_backend(store_target: Path | str) -> Iterator[Store]:
    """The store with `BOTS`, once on SQLite and once on PostgreSQL."""
    with Store.open(store_target) as opened:
        for bot in BOTS:
            opened.add_bot(bot, BotKind.REMOTE)
        yield opened


def play_ladder(store: Store, field: Field, table: StrengthTable, *, max_games: int | None,
                tables: int = 2, stop: asyncio.Event | None = None,
                settings: LadderSettings | None = None) -> RunSummary:
    settings = settings or LadderSettings(table_size=4, seed=7, tables=tables)
    ladder = open_ladder(store, "ladder", settings)
    feed = LadderFeed(store, ladder, settings, field, max_games=max_games, poll=0.01)
    return asyncio.run(run_tournament(store, ladder.id, table, concurrency=tables, feed=feed,
                                      stop=stop))


def blocks(store: Store) -> dict[int, list[ScheduledGame]]:
    games: dict[int, list[ScheduledGame]] = {}
    for game in store.scheduled_games("ladder"):
        games.setdefault(game.round, []).append(game)
    return games


def test_a_ladder_plays_every_bot_in_whole_deals_each_in_all_its_rotations(store: Store) -> None:
    summary = play_ladder(store, Field(BOTS), StrengthTable(), max_games=120)
    assert summary.played == summary.done == summary.total == 120
    made = blocks(store)
    assert len(made) == 30
    for games in made.values():
        seatings = {tuple(game.seats) for game in games}
        first = games[0].seats
        assert seatings == {first[shift:] + first[:shift] for shift in range(4)}
        assert len({game.seed for game in games}) == 1  # one duplicate deal
    seated = Counter(bot for games in made.values() for bot in games[0].seats)
    assert set(seated) == set(BOTS)


def test_every_pair_of_bots_meets_on_a_long_ladder(store: Store) -> None:
    play_ladder(store, Field(BOTS), StrengthTable(), max_games=400)
    met = {frozenset(pair) for games in blocks(store).values()
           for pair in _pairs(games[0].seats)}
    assert met == {frozenset(pair) for pair in _pairs(BOTS)}


def test_a_bot_joining_the_field_sits_at_the_next_table(store: Store) -> None:
    field = Field(BOTS[:5])
    joined: list[int] = []

    def before(game: ScheduledGame) -> None:
        if game.game_index == 40 and "fay" not in field.bots:
            field.bots.append("fay")
            joined.append(max(blocks(store)))

    play_ladder(store, field, StrengthTable(before=before), max_games=80, tables=1)
    made = blocks(store)
    first_with_fay = min(number for number, games in made.items() if "fay" in games[0].seats)
    assert joined and first_with_fay == joined[0] + 1


def test_a_bot_leaving_the_field_has_its_queued_games_withdrawn_and_keeps_its_history(
        store_on_each_backend: Store) -> None:
    store = store_on_each_backend
    field = Field(BOTS)
    left_after: list[int] = []

    def before(game: ScheduledGame) -> None:
        if game.game_index == 41 and "ann" in field.bots:
            field.bots.remove("ann")
            left_after.append(game.game_index)

    table = StrengthTable(before=before)
    summary = play_ladder(store, field, table, max_games=100, tables=4)
    assert summary.done == summary.total == store.schedule_progress("ladder")[1]
    later = [game for game in table.played if game.game_index > left_after[0] + 4]
    assert later and all("ann" not in game.seats for game in later)
    assert all(game.status is GameStatus.DONE for game in store.scheduled_games("ladder"))
    assert any("ann" in game.seats for game in store.scheduled_games("ladder"))
    assert "ann" in {r.bot for r in store.ratings(pool=tournament_pool("ladder"))}


def test_a_bot_that_left_the_field_keeps_its_line_on_the_ladders_leaderboard(
        store: Store) -> None:
    """Superseded or removed, a version that played has results: the board shows them."""
    play_ladder(store, Field(BOTS), StrengthTable(), max_games=80)
    store.remove_bot("ann")
    assert "ann" not in store.latest_entrants()
    ranking = pool_ranking(store, tournament_pool("ladder"))
    line = next(line for line in ranking.lines if line.bot == "ann")
    assert line.games > 0
    assert sorted(line.bot for line in ranking.lines) == sorted(BOTS)


def test_a_game_in_play_whose_bot_is_removed_is_withdrawn_not_recorded(
        store_on_each_backend: Store) -> None:
    store = store_on_each_backend
    removed: list[ScheduledGame] = []
    field = Field(BOTS)

    def before(game: ScheduledGame) -> None:
        if game.game_index == 9 and not removed:
            store.remove_bot(game.seats[0])
            field.bots.remove(game.seats[0])
            removed.append(game)

    summary = play_ladder(store, field, StrengthTable(before=before), max_games=40, tables=1)
    schedule = store.scheduled_games("ladder")
    gone = removed[0].seats[0]
    assert (removed[0].game_index, removed[0].seats) not in {
        (game.game_index, game.seats) for game in schedule}
    assert summary.done == summary.total == len(schedule)
    assert not [game for game in schedule
                if game.game_index >= removed[0].game_index and gone in game.seats]


def test_a_stopped_ladder_plays_its_queued_games_first_and_doubles_nothing(
        store_on_each_backend: Store) -> None:
    store = store_on_each_backend
    stop = asyncio.Event()

    def before(game: ScheduledGame) -> None:
        if game.game_index == 13:
            stop.set()

    first = StrengthTable(before=before)
    stopped = play_ladder(store, Field(BOTS), first, max_games=60, tables=3, stop=stop)
    assert stopped.done < stopped.total <= 60 + 3
    queued = [game.id for game in store.pending_games("ladder")]
    second = StrengthTable()
    resumed = play_ladder(store, Field(BOTS), second, max_games=60, tables=3)
    assert [game.id for game in second.played[:len(queued)]] == queued
    played_ids = [game.id for game in first.played + second.played]
    recorded = [game.game_id for game in store.scheduled_games("ladder")]
    assert resumed.done == resumed.total == len(recorded) == len(set(recorded))
    assert len(store.games(tournament="ladder")) == len(recorded) <= len(played_ids)


def test_the_game_budget_ends_the_ladder_after_whole_deals(store: Store) -> None:
    summary = play_ladder(store, Field(BOTS), StrengthTable(), max_games=10, tables=2)
    assert summary.total == 12  # three deals of four rotations: the third passes 10
    assert store.tournament("ladder").format == LADDER_FORMAT


def test_a_field_smaller_than_a_table_plays_nothing_until_it_grows(store: Store) -> None:
    field = Field(BOTS[:3])
    stop = asyncio.Event()

    async def grow_later() -> RunSummary:
        settings = LadderSettings(table_size=4, seed=1, tables=1)
        ladder = open_ladder(store, "ladder", settings)
        feed = LadderFeed(store, ladder, settings, field, max_games=8, poll=0.01)
        run = asyncio.ensure_future(run_tournament(store, ladder.id, StrengthTable(),
                                                   concurrency=1, feed=feed, stop=stop))
        await asyncio.sleep(0.1)
        assert store.schedule_progress("ladder") == (0, 0)
        field.bots.append("dan")
        return await asyncio.wait_for(run, 10)

    summary = asyncio.run(grow_later())
    assert summary.done == 8


def test_random_matchmaking_is_a_setting_of_the_ladder(store: Store) -> None:
    settings = LadderSettings(table_size=4, seed=3, tables=2,
                              matchmaking=Matchmaking.RANDOM)
    summary = play_ladder(store, Field(BOTS), StrengthTable(), max_games=40, settings=settings)
    assert summary.done == 40


def test_a_ladder_keeps_its_table_size_deals_and_rules(store: Store) -> None:
    open_ladder(store, "ladder", LadderSettings(seed=1, table_size=4))
    open_ladder(store, "ladder", LadderSettings(seed=1, table_size=4, tables=9,
                                                matchmaking=Matchmaking.RANDOM))
    with pytest.raises(LadderError, match="table_size: 4 stored, 3 given"):
        open_ladder(store, "ladder", LadderSettings(seed=1, table_size=3))
    with pytest.raises(LadderError, match="rules"):
        open_ladder(store, "ladder", LadderSettings(seed=1, table_size=4,
                                                    rules=RuleSet(target_score=None)))


def test_a_tournament_of_that_name_is_not_taken_for_a_ladder(store: Store) -> None:
    store.create_tournament("cup", "round_robin", {}, {})
    with pytest.raises(LadderError, match="cup is a tournament, not a ladder"):
        open_ladder(store, "cup", LadderSettings())


def test_ladder_settings_read_from_a_table_name_a_bad_key() -> None:
    settings = LadderSettings.from_dict({"table_size": 3, "tables": 2, "matchmaking": "random",
                                         "wait": 5, "rules": {"target_score": None}})
    assert (settings.table_size, settings.tables, settings.matchmaking) == (3, 2,
                                                                            Matchmaking.RANDOM)
    assert LadderSettings.from_dict(settings.to_dict()) == settings
    assert LadderSettings.from_stored(settings.stored(), settings.rules.to_dict()
                                      ).table_size == 3
    TournamentSettings.from_dict({**settings.stored(), "rules": settings.rules.to_dict()})
    for bad, message in (({"tabels": 2}, "tabels: unknown ladder setting"),
                         ({"tables": 0}, "tables: must be between 1"),
                         ({"matchmaking": "elo"}, "matchmaking: 'elo' is not one of"),
                         ({"wait": "soon"}, "wait: must be a number"),
                         ({"table_size": 11}, "table_size"),
                         ({"rules": {"scoring": "partners"}}, "cannot be 'partners'")):
        with pytest.raises(SettingsError, match=message):
            LadderSettings.from_dict(bad)


def test_the_ladders_order_matches_the_true_strengths_and_never_separates_them_wrongly(
        tmp_path: Path) -> None:
    """Over seeded ladders of 6 bots of known strength, 240 games each: no adjacent pair is
    ever separated in the wrong order, and the board's order agrees with the strengths
    (Spearman's rho above 0.8 in every ladder, near 1 on average)."""
    rhos = []
    for seed in range(6):
        with Store.open(tmp_path / f"ladder-{seed}.db") as store:
            for bot in BOTS:
                store.add_bot(bot, BotKind.REMOTE)
            settings = LadderSettings(table_size=4, seed=seed, tables=2)
            play_ladder(store, Field(BOTS), StrengthTable(), max_games=240, settings=settings)
            ranking = pool_ranking(store, tournament_pool("ladder"))
        order = [line.bot for line in ranking.lines]
        for separation in ranking.separations:
            if separation.separated:
                assert STRENGTH[separation.upper] > STRENGTH[separation.lower]
        truth = sorted(BOTS, key=lambda bot: -STRENGTH[bot])
        rhos.append(_spearman(order, truth))
    assert min(rhos) > 0.8
    assert sum(rhos) / len(rhos) > 0.9


def _pairs(bots: Sequence[str]) -> list[tuple[str, str]]:
    return [(a, b) for index, a in enumerate(bots) for b in bots[index + 1:]]


def _spearman(order: Sequence[str], truth: Sequence[str]) -> float:
    n = len(truth)
    squares = sum((order.index(bot) - truth.index(bot)) ** 2 for bot in truth)
    return 1 - 6 * squares / (n * (n * n - 1)) if n > 1 else math.nan


def test_a_second_run_of_a_ladder_is_refused_naming_the_ladder(store: Store) -> None:
    ladder = open_ladder(store, "ladder", LadderSettings(seed=1))
    store.claim_run(ladder.id)
    with pytest.raises(TournamentBusy, match="^ladder 'ladder' is already being run by"):
        store.claim_run(ladder.id)
