"""Running tournaments against a fake table: every game once, concurrency, stop and resume."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from arena.engine.outcome import Outcome, Termination, ranks_from_keys
from arena.engine.rules import RuleSet
from arena.record import SeatTermination
from arena.store import (
    BotKind,
    EntrantRemoved,
    GameStatus,
    GameSummary,
    RunClaim,
    ScheduledGame,
    Store,
    TournamentBusy,
    TournamentStatus,
)
from arena.tournament.runner import (
    PlayedGame,
    create_tournament,
    holding,
    run_tournament,
    tournament_settings,
)
from arena.tournament.schedule import TournamentSettings

BOTS = ["ann", "bob", "cat", "dan", "eve"]


class TableFailure(RuntimeError):
    """Raised by the fake table to simulate a broken game server."""


class FakeTable:
    """FAKE table runner for these tests only: no engine, no bots.

    It invents a random result seeded by the game's deal seed, so results are
    reproducible; partner seats share their team's score. It can fail on chosen
    game indexes, pause to let games overlap, and counts what it plays.
    """

    def __init__(self, *, fail_on: frozenset[int] = frozenset(), delay: float = 0.0) -> None:
        self.fail_on = fail_on
        self.delay = delay
        self.played: list[int] = []
        self.in_play = 0
        self.most_in_play = 0

    def result(self, game: ScheduledGame) -> PlayedGame:
        if game.game_index in self.fail_on:
            raise TableFailure(f"table broke in game {game.game_index}")
        rng = random.Random(game.seed)
        scores = [rng.randrange(0, 300) for _ in game.seats]
        if game.teams is not None:
            for team in game.teams:
                for seat in team:
                    scores[seat] = scores[team[0]]
        ranks = ranks_from_keys([-score for score in scores])
        self.played.append(game.game_index)
        return PlayedGame(
            outcome=Outcome(Termination.TARGET_REACHED, tuple(scores), ranks, hands_played=3),
            events=[{"type": "game_ended", "scores": scores}],
            actions=[rng.randrange(5) for _ in range(4)],
            seat_terminations=[SeatTermination.NORMAL] * len(game.seats),
        )

    async def __call__(self, game: ScheduledGame, rules: RuleSet) -> PlayedGame:
        self.in_play += 1
        self.most_in_play = max(self.most_in_play, self.in_play)
        try:
            await asyncio.sleep(self.delay)
            return self.result(game)
        finally:
            self.in_play -= 1


@pytest.fixture
def store(store_target: Path | str) -> Iterator[Store]:
    with Store.open(store_target) as opened:
        for bot in BOTS:
            opened.add_bot(bot, BotKind.REMOTE)
        yield opened


def new_tournament(store: Store, name: str = "cup", **settings: object) -> int:
    values: dict[str, object] = {"table_size": 3, "seed": 4, **settings}
    created = create_tournament(store, name, TournamentSettings.from_dict(values), BOTS)
    return created.id


def test_every_scheduled_game_is_played_once_and_recorded(store: Store) -> None:
    tournament = new_tournament(store)
    table = FakeTable()
    summary = asyncio.run(run_tournament(store, tournament, table))
    total = len(store.scheduled_games(tournament))
    assert total == 10 * 3
    assert sorted(table.played) == list(range(total))
    assert (summary.status, summary.done, summary.total, summary.played) == (
        TournamentStatus.FINISHED, total, total, total
    )
    assert store.tournament(tournament).status is TournamentStatus.FINISHED
    assert all(game.status is GameStatus.DONE for game in store.scheduled_games(tournament))
    assert len(store.games(tournament=tournament)) == total


def test_ratings_count_each_game_once_per_seat(store: Store) -> None:
    tournament = new_tournament(store)
    asyncio.run(run_tournament(store, tournament, FakeTable()))
    games_per_bot = Counter(
        bot for game in store.scheduled_games(tournament) for bot in game.seats
    )
    assert {r.bot: r.games for r in store.ratings(tournament)} == games_per_bot
    assert {r.bot: r.games for r in store.ratings()} == games_per_bot


def test_recorded_games_carry_the_schedule_seats_seed_and_rules(store: Store) -> None:
    tournament = new_tournament(store, rules={"target_score": 200})
    asyncio.run(run_tournament(store, tournament, FakeTable()))
    for scheduled in store.scheduled_games(tournament):
        assert scheduled.game_id is not None
        game = store.get_game(scheduled.game_id)
        assert (game.seats, game.seed, game.scheduled_game_id) == (
            scheduled.seats, scheduled.seed, scheduled.id
        )
        assert game.rules["target_score"] == 200
        assert game.started_at <= game.finished_at


def test_progress_reports_start_and_every_game(store: Store) -> None:
    tournament = new_tournament(store)
    calls: list[tuple[int, int]] = []
    asyncio.run(run_tournament(store, tournament, FakeTable(),
                               progress=lambda d, t: calls.append((d, t))))
    assert calls == [(done, 30) for done in range(31)]


def test_on_game_sees_each_recorded_game(store: Store) -> None:
    tournament = new_tournament(store)
    seen: list[GameSummary] = []
    asyncio.run(run_tournament(store, tournament, FakeTable(), on_game=seen.append))
    assert sorted(game.id for game in seen) == sorted(g.id for g in store.games())


def test_tables_play_concurrently_up_to_the_setting(store: Store) -> None:
    tournament = new_tournament(store, concurrency=3)
    table = FakeTable(delay=0.01)
    asyncio.run(run_tournament(store, tournament, table))
    assert table.most_in_play == 3


def test_concurrency_argument_overrides_the_setting(store: Store) -> None:
    tournament = new_tournament(store, concurrency=3)
    table = FakeTable(delay=0.005)
    asyncio.run(run_tournament(store, tournament, table, concurrency=1))
    assert table.most_in_play == 1


def test_plain_callable_table_runner_is_run_in_threads(store: Store) -> None:
    tournament = new_tournament(store, concurrency=4)
    fake = FakeTable()
    threads: set[int] = set()
    gate = threading.Barrier(2, timeout=5)

    def play(game: ScheduledGame, rules: RuleSet) -> PlayedGame:
        threads.add(threading.get_ident())
        if game.game_index < 2:
            gate.wait()
        return fake.result(game)

    summary = asyncio.run(run_tournament(store, tournament, play))
    assert summary.status is TournamentStatus.FINISHED
    assert len(threads) >= 2


def test_failed_game_stops_the_tournament_and_keeps_finished_games(store: Store) -> None:
    tournament = new_tournament(store, concurrency=1)
    with pytest.raises(TableFailure, match="game 7"):
        asyncio.run(run_tournament(store, tournament, FakeTable(fail_on=frozenset({7}))))
    assert store.tournament(tournament).status is TournamentStatus.STOPPED
    assert store.schedule_progress(tournament) == (7, 30)
    assert [g.game_index for g in store.pending_games(tournament)][0] == 7


def test_resumed_tournament_plays_only_what_is_left(store: Store) -> None:
    tournament = new_tournament(store, concurrency=2)
    with pytest.raises(TableFailure):
        asyncio.run(run_tournament(store, tournament, FakeTable(fail_on=frozenset({12}))))
    done_before, total = store.schedule_progress(tournament)
    table = FakeTable()
    summary = asyncio.run(run_tournament(store, tournament, table))
    assert summary.played == total - done_before == len(table.played)
    assert summary.status is TournamentStatus.FINISHED
    games_per_bot = Counter(
        bot for game in store.scheduled_games(tournament) for bot in game.seats
    )
    assert {r.bot: r.games for r in store.ratings(tournament)} == games_per_bot
    assert len(store.games()) == total


def test_resumed_run_gives_the_same_ratings_as_an_uninterrupted_one(store: Store) -> None:
    interrupted = new_tournament(store, "interrupted", concurrency=1)
    whole = new_tournament(store, "whole", concurrency=1)
    with pytest.raises(TableFailure):
        asyncio.run(run_tournament(store, interrupted, FakeTable(fail_on=frozenset({9}))))
    asyncio.run(run_tournament(store, interrupted, FakeTable()))
    asyncio.run(run_tournament(store, whole, FakeTable()))
    assert [(r.bot, r.mu, r.sigma) for r in store.ratings(interrupted)] == [
        (r.bot, r.mu, r.sigma) for r in store.ratings(whole)
    ]


def test_stop_event_lets_games_in_play_finish_then_stops(store: Store) -> None:
    tournament = new_tournament(store, concurrency=1)
    stop = asyncio.Event()

    def after_game(done: int, total: int) -> None:
        if done == 5:
            stop.set()

    summary = asyncio.run(
        run_tournament(store, tournament, FakeTable(), progress=after_game, stop=stop)
    )
    assert (summary.status, summary.done, summary.played) == (TournamentStatus.STOPPED, 5, 5)
    assert store.tournament(tournament).status is TournamentStatus.STOPPED
    resumed = asyncio.run(run_tournament(store, tournament, FakeTable()))
    assert (resumed.status, resumed.played) == (TournamentStatus.FINISHED, 25)


def test_running_a_finished_tournament_plays_nothing(store: Store) -> None:
    tournament = new_tournament(store)
    asyncio.run(run_tournament(store, tournament, FakeTable()))
    table = FakeTable()
    summary = asyncio.run(run_tournament(store, tournament, table))
    assert (summary.played, summary.done, table.played) == (0, 30, [])
    assert summary.status is TournamentStatus.FINISHED


def test_game_recorded_elsewhere_meanwhile_is_not_counted_twice(store: Store) -> None:
    tournament = new_tournament(store, concurrency=1)
    fake = FakeTable()

    def play_and_record_behind_the_runners_back(game: ScheduledGame, rules: RuleSet) -> PlayedGame:
        played = fake.result(game)
        if game.game_index == 0:
            store.record_game(
                seats=game.seats, seed=game.seed, rules=rules.to_dict(), outcome=played.outcome,
                seat_terminations=played.seat_terminations, events=played.events,
                actions=played.actions, started_at=_now(), finished_at=_now(),
                scheduled_game_id=game.id,
            )
        return played

    summary = asyncio.run(
        run_tournament(store, tournament, play_and_record_behind_the_runners_back))
    assert (summary.done, summary.played) == (30, 29)
    assert len(store.games()) == 30


def test_partner_tournament_records_team_ratings(store: Store) -> None:
    store.add_bot("fay", BotKind.REMOTE)
    store.add_bot("gus", BotKind.REMOTE)
    store.add_bot("hal", BotKind.REMOTE)
    bots = [*BOTS, "fay", "gus", "hal"]
    settings = TournamentSettings.from_dict({"format": "partners", "rotations": False})
    created = create_tournament(store, "pairs", settings, bots)
    asyncio.run(run_tournament(store, created.id, FakeTable()))
    assert len(store.games(tournament="pairs")) == 14
    for game in store.games(tournament="pairs"):
        assert game.teams == ((0, 2), (1, 3))
    assert {r.games for r in store.ratings("pairs")} == {7}


def test_stored_tournament_remembers_its_settings(store: Store) -> None:
    settings = TournamentSettings.from_dict({"table_size": 3, "seed": 9, "concurrency": 2})
    created = create_tournament(store, "cup", settings, BOTS)
    assert tournament_settings(store.tournament(created.id)) == settings
    assert "rules" not in created.settings


def test_table_runner_returning_the_wrong_type_stops_the_run(store: Store) -> None:
    tournament = new_tournament(store)

    def broken(game: ScheduledGame, rules: RuleSet) -> PlayedGame:
        return "a score sheet"  # type: ignore[return-value]

    with pytest.raises(TypeError, match="returned str, not PlayedGame"):
        asyncio.run(run_tournament(store, tournament, broken))
    assert store.games() == []


def test_concurrency_below_one_is_refused(store: Store) -> None:
    tournament = new_tournament(store)
    with pytest.raises(ValueError, match="at least 1"):
        asyncio.run(run_tournament(store, tournament, FakeTable(), concurrency=0))


def test_second_run_of_a_tournament_in_play_is_refused(store: Store) -> None:
    tournament = new_tournament(store, concurrency=2)
    table = FakeTable(delay=0.005)

    async def both() -> tuple[object, object]:
        first = asyncio.create_task(run_tournament(store, tournament, table))
        await asyncio.sleep(0.02)
        second = await asyncio.gather(run_tournament(store, tournament, FakeTable()),
                                      return_exceptions=True)
        return await first, second[0]

    summary, refused = asyncio.run(both())
    assert isinstance(refused, TournamentBusy)
    assert "'cup' is already being run by process" in str(refused)
    assert sorted(table.played) == list(range(30)), "the first run played every game once"
    assert getattr(summary, "status", None) is TournamentStatus.FINISHED
    assert store.run_claim(tournament) is None, "a finished run gives its claim up"


def test_run_in_another_process_holds_the_tournament_until_that_process_dies(
        store: Store, store_target: Path | str) -> None:
    tournament = new_tournament(store)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from arena.store import Store; "
         "store = Store.open(sys.argv[1]); store.claim_run('cup'); print('claimed', flush=True); "
         "time.sleep(120)", str(store_target)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "claimed\n"
        with pytest.raises(TournamentBusy, match=f"process {holder.pid} on "):
            asyncio.run(run_tournament(store, tournament, FakeTable()))
        assert store.games() == []
    finally:
        holder.kill()
        holder.wait()
    summary = asyncio.run(run_tournament(store, tournament, FakeTable()))
    assert (summary.status, summary.played) == (TournamentStatus.FINISHED, 30)


def test_run_that_loses_its_claim_stops_and_keeps_its_games(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("arena.tournament.runner.HEARTBEAT_EVERY", 0.01)
    tournament = new_tournament(store, concurrency=1)

    def taken_over_after_three(done: int, total: int) -> None:
        if done == 3:
            store.claim_run(tournament, stale_after=0)

    with pytest.raises(TournamentBusy, match="taken over by another run"):
        asyncio.run(run_tournament(store, tournament, FakeTable(delay=0.02),
                                   progress=taken_over_after_three))
    done, _ = store.schedule_progress(tournament)
    assert 3 <= done < 30 and len(store.games()) == done
    assert store.run_claim(tournament) is not None, "the run that took over keeps its claim"


def test_bot_removed_and_added_again_under_its_name_does_not_take_its_games(
        store: Store) -> None:
    tournament = new_tournament(store, concurrency=1)
    store.remove_bot("bob")
    store.add_bot("bob", BotKind.REMOTE)
    table = FakeTable()
    with pytest.raises(EntrantRemoved, match="'cup' cannot go on: bob was removed after it "
                                             "was created"):
        asyncio.run(run_tournament(store, tournament, table))
    assert table.played == [] and store.games() == []
    assert store.removed_entrants(tournament) == ["bob"]


def test_a_heartbeat_that_fails_is_tried_again_and_the_run_goes_on(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("arena.tournament.runner.HEARTBEAT_EVERY", 0.01)
    tournament = new_tournament(store, concurrency=1)
    refresh = store.refresh_run
    calls: list[int] = []

    def busy_once(claim: RunClaim) -> bool:
        calls.append(1)
        if len(calls) == 1:
            raise sqlite3.OperationalError("database is locked")
        return refresh(claim)

    monkeypatch.setattr(store, "refresh_run", busy_once)
    summary = asyncio.run(run_tournament(store, tournament, FakeTable(delay=0.005)))
    assert summary.status is TournamentStatus.FINISHED and len(calls) >= 3


def test_a_hold_beats_from_the_moment_it_is_taken(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("arena.tournament.runner.HEARTBEAT_EVERY", 0.01)
    tournament = new_tournament(store)

    async def hold_while_waiting() -> None:
        async with holding(store, tournament):
            await asyncio.sleep(0.1)  # as a run waiting for its bots does
            claim = store.run_claim(tournament)
            assert claim is not None and claim.heartbeat_at > claim.claimed_at

    asyncio.run(hold_while_waiting())
    assert store.run_claim(tournament) is None


def _now() -> datetime:
    return datetime.now(UTC)
