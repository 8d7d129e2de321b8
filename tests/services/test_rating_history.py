"""A pool's rating history as the results service answers it: each bot's rating after each
of its games there, numbered in the pool's order of rating, from the pool's initial rating
to the rating the leaderboard shows; by default the leaderboard's first bots, in its
order. Real games played by the engine, stored in a real SQLite file."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from arena.services.errors import ServiceError
from arena.services.recent import RecentAnswers
from arena.services.results import CHARTED, MAX_CHARTED, ResultsService
from arena.store import BotKind, Store, UnknownBot, UnknownPool
from benchmarks.stats import random_hand
from benchmarks.web import record_game

RULES = {"target_score": None}
BOTS = [f"bot{index}" for index in range(10)]


def record(store: Store, seats: Sequence[str], seed: int) -> int:
    """Play a single hand among `seats` with seeded random moves and store it, rated."""
    return record_game(store, seats, seed, random_hand(seats, seed, RULES))


def filled_store(path: Path, games: int, seed: int) -> Store:
    """A store at `path` with `BOTS` and `games` rated two-seat hands between pairs of them
    drawn from `seed`."""
    opened = Store.open(path)
    for name in BOTS:
        opened.add_bot(name, BotKind.REMOTE)
    pairs = random.Random(seed)
    for number in range(games):
        record(opened, pairs.sample(BOTS, 2), number)
    return opened


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = filled_store(tmp_path / "arena.db", 30, 3)
    yield opened
    opened.close()


def pool_key(store: Store) -> str:
    (pool,) = store.pools()
    return pool.key


def test_each_bot_runs_from_the_initial_rating_to_the_leaderboards_after_each_of_its_games(
        store: Store) -> None:
    service = ResultsService(store)
    key = pool_key(store)
    ranking = service.rankings(pool=key).ranking
    history = service.rating_history(pool=key)
    assert history.pool.key == key and history.pool.games == 30
    assert [h.bot for h in history.histories] == [line.bot for line in ranking.lines][:CHARTED]
    start = store.pool(key).parameters.initial_skill
    order = {game_id: number for number, game_id in enumerate(store.pool_game_ids(key), 1)}
    for bot_history, line in zip(history.histories, ranking.lines, strict=False):
        first, last = bot_history.points[0], bot_history.points[-1]
        assert (first.game, first.mu, first.sigma) == (0, start.mu, start.sigma)
        assert (last.mu, last.sigma) == (line.mu, line.sigma)
        assert len(bot_history.points) == line.games + 1
        played = [order[p.game_id] for p in store.rating_history(line.bot, pool=key)]
        assert [p.game for p in bot_history.points[1:]] == played


def test_the_pools_order_of_rating_numbers_the_games_from_one(store: Store) -> None:
    key = pool_key(store)
    ids = store.pool_game_ids(key)
    assert ids == sorted(ids) and len(ids) == 30
    everyone = ResultsService(store).rating_history(pool=key, bots=BOTS).histories
    numbers = sorted(p.game for h in everyone for p in h.points[1:])
    assert numbers == sorted([n for n in range(1, 31)] * 2), "two seats in each game"


def test_named_bots_come_in_the_order_named_once_each(store: Store) -> None:
    history = ResultsService(store).rating_history(
        pool=pool_key(store), bots=["bot7", "bot2", "bot7"])
    assert [h.bot for h in history.histories] == ["bot7", "bot2"]


def test_top_picks_how_many_of_the_leaderboard_are_drawn(store: Store) -> None:
    service = ResultsService(store)
    key = pool_key(store)
    lines = service.rankings(pool=key).ranking.lines
    assert [h.bot for h in service.rating_history(pool=key, top=3).histories] == [
        line.bot for line in lines[:3]]


def test_a_bot_without_a_game_in_the_pool_has_only_its_starting_point(store: Store) -> None:
    store.add_bot("idle", BotKind.REMOTE)
    (idle,) = ResultsService(store).rating_history(pool=pool_key(store), bots=["idle"]).histories
    assert [p.game for p in idle.points] == [0]


def test_a_new_game_moves_the_history_once_the_pool_changed(store: Store) -> None:
    service = ResultsService(store, RecentAnswers(fresh_for=0))
    key = pool_key(store)
    before = service.rating_history(pool=key, bots=["bot0", "bot1"])
    record(store, ["bot0", "bot1"], 99)
    after = service.rating_history(pool=key, bots=["bot0", "bot1"])
    assert after.pool.games == before.pool.games + 1 == 31
    for old, new in zip(before.histories, after.histories, strict=True):
        assert new.points[:-1] == old.points and new.points[-1].game == 31


@pytest.mark.parametrize(("bots", "top"), [(BOTS * 6, 0), ((), MAX_CHARTED + 1), ((), -1)])
def test_too_many_bots_is_refused_with_the_limit(store: Store, bots: Sequence[str],
                                                 top: int) -> None:
    unique = [f"b{n}" for n in range(len(bots))]
    with pytest.raises(ServiceError, match=f"1 to {MAX_CHARTED} bots"):
        ResultsService(store).rating_history(pool=pool_key(store), bots=unique, top=top)


def test_an_unknown_pool_or_bot_says_which(store: Store) -> None:
    service = ResultsService(store)
    with pytest.raises(UnknownPool, match="no rating pool 'rules:nope'"):
        service.rating_history(pool="rules:nope")
    with pytest.raises(UnknownBot, match="no bot named 'ghost'"):
        service.rating_history(pool=pool_key(store), bots=["ghost"])
