"""Recording in schedule order, in one process and from chunks played by workers (fakes here:
no processes, no bots), so ratings do not depend on which game finished first."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.cli import tournaments
from arena.engine.rules import RuleSet
from arena.store import (
    BotKind,
    GameStatus,
    GameSummary,
    Rating,
    ScheduledGame,
    Store,
    TournamentStatus,
)
from arena.tournament.chunked import (
    MAX_CHUNK_GAMES,
    Chunk,
    ChunkResult,
    ChunkSizer,
    run_tournament_on_workers,
)
from arena.tournament.runner import (
    PlayedGame,
    ScheduleOrder,
    create_tournament,
    run_tournament,
)
from arena.tournament.schedule import MAX_WORKERS, SettingsError, TournamentSettings
from tests.support import store_with_remote_bots
from tests.tournament.test_runner import BOTS, FakeTable


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with store_with_remote_bots(tmp_path / "arena.db", BOTS) as opened:
        yield opened


def new_tournament(store: Store, name: str, **settings: object) -> int:
    values: dict[str, object] = {"table_size": 3, "seed": 4, **settings}
    return create_tournament(store, name, TournamentSettings.from_dict(values), BOTS).id


def _ratings(store: Store, tournament: int) -> list[tuple[str, float, float]]:
    ratings: list[Rating] = store.ratings(tournament)
    return sorted((r.bot, r.mu, r.sigma) for r in ratings)


def _recorded_order(store: Store, tournament: int) -> list[int]:
    """The game indexes of the tournament's games in the order they were recorded."""
    by_game = {g.game_id: g.game_index for g in store.scheduled_games(tournament)}
    return [by_game[g.id] for g in sorted(store.games(tournament=tournament), key=lambda g: g.id)]


class ShuffledTable(FakeTable):
    """The fake table, each game taking a random time, so they finish out of order."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.rng = random.Random(seed)

    async def __call__(self, game: ScheduledGame, rules: RuleSet) -> PlayedGame:
        await asyncio.sleep(self.rng.uniform(0, 0.01))
        return self.result(game)


class FakeWorkers:
    """FAKE worker pool: plays a chunk with the fake table after a random delay, and can
    hand back a chunk twice (as Dask may after a worker died) or games not asked for."""

    def __init__(self, size: int, seed: int, *, twice: bool = False) -> None:
        self.size = size
        self.table = FakeTable()
        self.rng = random.Random(seed)
        self.twice = twice
        self.chunks: list[int] = []
        self.most_out = 0
        self.out = 0

    async def play(self, chunk: Chunk) -> ChunkResult:
        self.out += 1
        self.most_out = max(self.most_out, self.out)
        try:
            await asyncio.sleep(self.rng.uniform(0, 0.01))
            self.chunks.append(len(chunk.games))
            games = [(game.id, self.table.result(game)) for game in chunk.games]
            if self.twice:
                games = games + games
            return ChunkResult(tuple(games), 0.001 * len(games))
        finally:
            self.out -= 1


def test_schedule_order_gives_items_back_in_schedule_order_only() -> None:
    games = [ScheduledGame(i, 1, 0, 0, i, ("a", "b"), (1, 2), i, None, GameStatus.PENDING, None)
             for i in range(1, 5)]
    order: ScheduleOrder[str] = ScheduleOrder(games)
    order.add(3, "three")
    order.add(2, "two")
    assert order.ready() == []
    order.add(1, "one")
    order.add(1, "one again")
    order.add(99, "not scheduled")
    assert order.ready() == ["one", "two", "three"]
    assert order.held == 0
    order.add(2, "two again")
    order.add(4, "four")
    assert order.ready() == ["four"]


def test_one_process_run_records_in_schedule_order_whatever_order_games_finish() -> None:
    with Store.open(":memory:") as store:
        for bot in BOTS:
            store.add_bot(bot, BotKind.REMOTE)
        tournament = new_tournament(store, "cup", concurrency=4)
        asyncio.run(run_tournament(store, tournament, ShuffledTable(seed=1)))
        assert _recorded_order(store, tournament) == sorted(_recorded_order(store, tournament))


def test_ratings_do_not_depend_on_concurrency_or_finishing_order(store: Store) -> None:
    one = new_tournament(store, "one", concurrency=1)
    many = new_tournament(store, "many", concurrency=5)
    asyncio.run(run_tournament(store, one, FakeTable()))
    asyncio.run(run_tournament(store, many, ShuffledTable(seed=2)))
    assert _ratings(store, one) == _ratings(store, many)


def test_chunks_from_workers_give_the_ratings_of_a_one_process_run(store: Store) -> None:
    alone = new_tournament(store, "alone", concurrency=1)
    spread = new_tournament(store, "spread", concurrency=2)
    asyncio.run(run_tournament(store, alone, FakeTable()))
    summary = asyncio.run(run_tournament_on_workers(store, spread, FakeWorkers(3, seed=3)))
    assert summary.status is TournamentStatus.FINISHED
    assert summary.played == summary.total == store.schedule_progress(spread)[1]
    assert _ratings(store, alone) == _ratings(store, spread)
    assert _recorded_order(store, spread) == sorted(_recorded_order(store, spread))


def test_a_chunk_handed_back_twice_is_recorded_once(store: Store) -> None:
    tournament = new_tournament(store, "twice")
    summary = asyncio.run(run_tournament_on_workers(store, tournament,
                                                    FakeWorkers(2, seed=4, twice=True)))
    done, total = store.schedule_progress(tournament)
    assert summary.played == done == total
    assert len(store.games(tournament=tournament)) == total


def test_games_recorded_by_an_earlier_run_are_not_handed_out_again(store: Store) -> None:
    tournament = new_tournament(store, "resumed")
    first = store.pending_games(tournament)[:4]
    table = FakeTable()
    for game in first:
        asyncio.run(run_tournament_on_workers(store, tournament, _OneGame(game, table)))
    workers = FakeWorkers(2, seed=5)
    summary = asyncio.run(run_tournament_on_workers(store, tournament, workers))
    assert summary.played == summary.total - len(first)
    assert sum(workers.chunks) == summary.total - len(first)


class _OneGame:
    """A pool whose run stops after one chunk of one game (a run killed after it)."""

    size = 1

    def __init__(self, game: ScheduledGame, table: FakeTable) -> None:
        self.game = game
        self.table = table

    async def play(self, chunk: Chunk) -> ChunkResult:
        return ChunkResult(((self.game.id, self.table.result(self.game)),), 0.001)


def test_chunks_out_at_once_stay_within_the_cap(store: Store) -> None:
    tournament = new_tournament(store, "capped", deals_per_table=4)
    workers = FakeWorkers(2, seed=6)
    asyncio.run(run_tournament_on_workers(store, tournament, workers, in_flight=3,
                                          chunk_seconds=0.0))
    assert workers.most_out == 3
    assert sum(workers.chunks) == store.schedule_progress(tournament)[1]


def test_stop_lets_the_chunks_out_finish_and_hands_out_no_more(store: Store) -> None:
    tournament = new_tournament(store, "stopped", concurrency=1)
    stop = asyncio.Event()
    seen: list[GameSummary] = []

    def after_game(summary: GameSummary) -> None:
        seen.append(summary)
        stop.set()

    workers = FakeWorkers(1, seed=7)
    summary = asyncio.run(run_tournament_on_workers(store, tournament, workers, stop=stop,
                                                    on_game=after_game, in_flight=1))
    assert summary.status is TournamentStatus.STOPPED
    assert summary.played == len(seen) == workers.chunks[0] < summary.total


def test_a_chunk_sized_by_the_game_time_seen_and_shared_out_at_the_end() -> None:
    sizer = ChunkSizer(first=4, seconds=0.25, spread=2)
    assert sizer.next(remaining=1000) == 4
    sizer.seen(games=4, seconds=0.04)  # 10 ms a game
    assert sizer.next(remaining=1000) == 25
    assert sizer.next(remaining=10) == 5
    sizer.seen(games=1000, seconds=0.001)
    assert sizer.next(remaining=10**6) == MAX_CHUNK_GAMES


def test_a_chunk_of_games_longer_than_its_seconds_still_has_a_game_for_every_table() -> None:
    sizer = ChunkSizer(first=4, seconds=0.25, spread=2)
    sizer.seen(games=4, seconds=3.0)  # games far longer than a chunk's quarter second
    assert sizer.next(remaining=1000) == 4
    assert sizer.next(remaining=6) == 3, "the last games are still shared out"


def test_the_workers_setting_round_trips_and_must_be_at_least_one() -> None:
    settings = TournamentSettings.from_dict({"workers": 3})
    assert TournamentSettings.from_dict(settings.to_dict()).workers == 3
    assert TournamentSettings.from_dict({}).workers == 1
    with pytest.raises(SettingsError, match="workers: must be between 1 and"):
        TournamentSettings.from_dict({"workers": 0})
    assert tournaments.MAX_WORKERS == MAX_WORKERS
