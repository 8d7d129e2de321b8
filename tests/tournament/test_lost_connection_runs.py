"""A driver whose PostgreSQL connection is lost mid-run reconnects and goes on: every
game recorded once, the ratings an uninterrupted run's; a claim another driver took
meanwhile stops it; an outage past the budget stops it cleanly, and a rerun resumes.

The connection is really lost: the throwaway cluster ends the driver's sessions
(`pg_terminate_backend`), restarts, or refuses the driver's user for a while. The fake
table of `test_runner` plays the games; it disrupts the database between two games,
while the run waits for the game it plays (one table at a time, so the moment is the
same on every run).
"""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from arena.engine.rules import RuleSet
from arena.store import (
    BotKind,
    ClaimTakenOver,
    GameStatus,
    ReconnectFailed,
    ScheduledGame,
    Store,
    TournamentStatus,
)
from arena.tournament.chunked import Chunk, ChunkResult, run_tournament_on_workers
from arena.tournament.runner import PlayedGame, RunSummary, run_tournament
from tests.postgres_support import PostgresCluster
from tests.tournament.test_chunked import FakeWorkers
from tests.tournament.test_runner import BOTS, FakeTable, new_tournament

GAMES = 30
"""The games of `new_tournament`'s schedule (five bots, tables of three)."""

_users = itertools.count(1)


class DisruptingTable(FakeTable):
    """The fake table, doing something to the database before it returns the result
    of chosen games."""

    def __init__(self, disruptions: Mapping[int, Callable[[], object]]) -> None:
        super().__init__()
        self.disruptions = dict(disruptions)

    async def __call__(self, game: ScheduledGame, rules: RuleSet) -> PlayedGame:
        disrupt = self.disruptions.pop(game.game_index, None)
        if disrupt is not None:
            disrupt()
        return await super().__call__(game, rules)


@pytest.fixture
def driver_url(postgres_cluster: PostgresCluster) -> str:
    """A database holding arena's schema and the five bots, reached as a user of the
    driver's own, whose sessions can be ended and refused alone."""
    user = f"driver_{next(_users)}"
    postgres_cluster.add_user(user)
    url = postgres_cluster.as_user(postgres_cluster.migrated_database(), user)
    with Store.open(url) as store:
        for bot in BOTS:
            store.add_bot(bot, BotKind.REMOTE)
    return url


def user_of(url: str) -> str:
    return url.removeprefix("postgresql://").partition("@")[0]


@pytest.fixture
def uninterrupted(tmp_path: Path) -> list[tuple[object, ...]]:
    """The ratings of the same tournament run without a hitch (on SQLite)."""
    with Store.open(tmp_path / "calm.db") as store:
        for bot in BOTS:
            store.add_bot(bot, BotKind.REMOTE)
        tournament = new_tournament(store, concurrency=1)
        asyncio.run(run_tournament(store, tournament, FakeTable()))
        return ratings(store, tournament)


def ratings(store: Store, tournament: int) -> list[tuple[object, ...]]:
    return [(r.bot, r.mu, r.sigma, r.games, r.wins, r.points)
            for r in store.ratings(tournament)]


def run(store: Store, tournament: int, table: FakeTable,
        notices: list[str] | None = None) -> RunSummary:
    if notices is None:
        return asyncio.run(run_tournament(store, tournament, table))
    with store.reporting_connection(notices.append):
        return asyncio.run(run_tournament(store, tournament, table))


def assert_each_game_recorded_once(store: Store, tournament: int) -> None:
    scheduled = store.scheduled_games(tournament)
    assert len(scheduled) == GAMES
    assert all(game.status is GameStatus.DONE for game in scheduled)
    games = store.games(tournament=tournament)
    assert sorted(game.scheduled_game_id or 0 for game in games) == sorted(
        game.id for game in scheduled)
    per_bot = Counter(bot for game in scheduled for bot in game.seats)
    assert {r.bot: r.games for r in store.ratings(tournament)} == per_bot


def test_a_run_whose_sessions_are_ended_once_reconnects_and_finishes(
        postgres_cluster: PostgresCluster, driver_url: str,
        uninterrupted: list[tuple[object, ...]]) -> None:
    ended: list[int] = []
    table = DisruptingTable({9: lambda: ended.append(postgres_cluster.end_sessions())})
    notices: list[str] = []
    with Store.open(driver_url) as store:
        tournament = new_tournament(store, concurrency=1)
        summary = run(store, tournament, table, notices)
        assert ended == [1]
        assert (summary.status, summary.done, summary.played) == (
            TournamentStatus.FINISHED, GAMES, GAMES)
        assert sorted(table.played) == list(range(GAMES))
        assert_each_game_recorded_once(store, tournament)
        assert ratings(store, tournament) == uninterrupted
    assert len(notices) == 2
    assert notices[0].startswith("lost the connection to the database")
    assert notices[1].startswith("reconnected to the database")


@pytest.mark.parametrize("tables", [1, 3])
def test_a_run_whose_sessions_are_ended_again_and_again_finishes_as_if_uninterrupted(
        postgres_cluster: PostgresCluster, driver_url: str,
        uninterrupted: list[tuple[object, ...]], tables: int) -> None:
    table = DisruptingTable({index: postgres_cluster.end_sessions
                             for index in (1, 2, 8, 15, 16, 29)})
    table.delay = 0.002  # with three tables, games are recorded while others play
    notices: list[str] = []
    with Store.open(driver_url) as store:
        tournament = new_tournament(store, concurrency=tables)
        summary = run(store, tournament, table, notices)
        assert (summary.status, summary.played) == (TournamentStatus.FINISHED, GAMES)
        assert_each_game_recorded_once(store, tournament)
        assert ratings(store, tournament) == uninterrupted
    said = [line.split()[0] for line in notices]
    # With three tables, an ending while the store is reconnecting is the same loss.
    assert said == ["lost", "reconnected"] * (len(said) // 2)
    assert len(said) == 12 if tables == 1 else 2 <= len(said) <= 12


def test_a_run_goes_on_through_a_restart_of_the_server(
        postgres_cluster: PostgresCluster, driver_url: str,
        uninterrupted: list[tuple[object, ...]]) -> None:
    table = DisruptingTable({12: postgres_cluster.restart})
    with Store.open(driver_url) as store:
        tournament = new_tournament(store, concurrency=1)
        summary = run(store, tournament, table)
        assert (summary.status, summary.played) == (TournamentStatus.FINISHED, GAMES)
        assert_each_game_recorded_once(store, tournament)
        assert ratings(store, tournament) == uninterrupted


def test_a_run_stops_cleanly_when_the_database_stays_away_past_the_budget_and_resumes(
        postgres_cluster: PostgresCluster, driver_url: str,
        uninterrupted: list[tuple[object, ...]]) -> None:
    user = user_of(driver_url)

    def outage() -> None:
        postgres_cluster.allow_login(user, False)
        postgres_cluster.end_sessions(user)

    table = DisruptingTable({10: outage})
    with Store.open(driver_url, reconnect_within=0.3) as store:
        tournament = new_tournament(store, concurrency=1)
        with pytest.raises(ReconnectFailed, match="could not reconnect within 0.3 s"):
            run(store, tournament, table)
    postgres_cluster.allow_login(user, True)
    with Store.open(driver_url) as store:
        # Nothing half-written: the games before the outage, each whole.
        assert store.schedule_progress(tournament) == (10, GAMES)
        assert len(store.games(tournament=tournament)) == 10
        assert sum(r.games for r in store.ratings(tournament)) == 10 * 3
        assert store.run_claim(tournament) is not None  # left behind, and lapsed
        summary = run(store, tournament, FakeTable())
        assert (summary.status, summary.played) == (TournamentStatus.FINISHED, GAMES - 10)
        assert_each_game_recorded_once(store, tournament)
        assert ratings(store, tournament) == uninterrupted


def test_a_driver_whose_claim_was_taken_while_it_was_disconnected_stops(
        postgres_cluster: PostgresCluster, driver_url: str,
        uninterrupted: list[tuple[object, ...]]) -> None:
    user = user_of(driver_url)
    other_url = postgres_cluster.as_user(driver_url, "postgres")
    taken = []

    with Store.open(other_url) as other, Store.open(driver_url) as store:
        tournament = new_tournament(store, concurrency=1)

        def takeover() -> None:
            postgres_cluster.allow_login(user, False)
            try:
                postgres_cluster.end_sessions(user)
                taken.append(other.claim_run(tournament))
            finally:
                postgres_cluster.allow_login(user, True)

        with pytest.raises(ClaimTakenOver, match="another driver .* took over tournament "
                                                 "'cup' while this one was disconnected"):
            run(store, tournament, DisruptingTable({7: takeover}))
        # The first driver wrote nothing after the takeover: not the game in play, not
        # its status, not the release of the claim.
        assert store.schedule_progress(tournament) == (7, GAMES)
        claim = store.run_claim(tournament)
        assert claim is not None and claim.token == taken[0].token
        assert store.tournament(tournament).status is TournamentStatus.RUNNING
        other.release_run(taken[0])
        summary = run(other, tournament, FakeTable())
        assert (summary.status, summary.played) == (TournamentStatus.FINISHED, GAMES - 7)
        assert_each_game_recorded_once(other, tournament)
        assert ratings(other, tournament) == uninterrupted



class DisruptingWorkers(FakeWorkers):
    """The fake worker pool, ending the database's sessions before it hands back chosen
    chunks (counted from 0)."""

    def __init__(self, end_sessions: Callable[[], int], chunks: set[int]) -> None:
        super().__init__(2, seed=5)
        self.end_sessions = end_sessions
        self.disrupted = set(chunks)
        self.handed_back = 0

    async def play(self, chunk: Chunk) -> ChunkResult:
        result = await super().play(chunk)
        if self.handed_back in self.disrupted:
            self.end_sessions()
        self.handed_back += 1
        return result


def test_a_run_on_workers_goes_on_through_ended_sessions(
        postgres_cluster: PostgresCluster, driver_url: str,
        uninterrupted: list[tuple[object, ...]]) -> None:
    workers = DisruptingWorkers(postgres_cluster.end_sessions, {1, 3})
    with Store.open(driver_url) as store:
        tournament = new_tournament(store)
        summary = asyncio.run(run_tournament_on_workers(store, tournament, workers))
        assert (summary.status, summary.played) == (TournamentStatus.FINISHED, GAMES)
        assert workers.handed_back > 3
        assert_each_game_recorded_once(store, tournament)
        assert ratings(store, tournament) == uninterrupted
