"""Finished games in the store, beyond the basics in test_store: games are recorded and
listed from arguments named, never placed; a scheduled game played with other teams is
refused, naming both; a game with the largest id the database holds reads back; a bot's
games are found by its base name and by its author; the listeners hear of each game
recorded; and the reads of games run on a reader while the writer is busy."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from arena.engine.outcome import Outcome, Termination
from arena.record import Decision, SeatTermination
from arena.store import MIGRATIONS, BotKind, InvalidInput, Store
from tests.store.test_query_plans import _in_thread, _writer_busy
from tests.store.test_store import (
    DECISIONS,
    START,
    Entry,
    add_remote_bots,
    record,
    two_player_outcome,
)

PARTNERS = Outcome(Termination.TARGET_REACHED, (510, 120, 510, 120), (0, 1, 0, 1), 4)


@pytest.fixture
def store(store_target: Path | str) -> Iterator[Store]:
    with Store.open(store_target) as opened:
        yield opened


def submit(store: Store, base: str, number: int) -> str:
    """Store a version of `base` (nothing to build) and return its name."""
    return store.add_version(base, f"{number:064x}", {"name": base, "run": "./bot"}, "./bot",
                             "native", "/nowhere").name


def test_games_are_recorded_and_listed_from_named_arguments_only(store: Store) -> None:
    add_remote_bots(store, "alpha", "beta")
    with pytest.raises(TypeError, match="positional argument"):
        store.record_game(  # type: ignore[call-arg]
            ("alpha", "beta"), 7, {"target_score": None}, two_player_outcome(),
            [SeatTermination.NORMAL] * 2, [], [], START, START)
    record(store, ("alpha", "beta"))
    with pytest.raises(TypeError, match="positional argument"):
        store.games(None, "alpha")  # type: ignore[call-arg]
    assert len(store.games(bot="alpha")) == 1


def test_a_scheduled_game_played_with_other_teams_is_refused_naming_both(
        store: Store) -> None:
    add_remote_bots(store, "a", "b", "c", "d")
    store.create_tournament("pairs", "partners", {"seed": 1}, {"scoring": "partners"},
                            games=[Entry(1, 1, 0, ("a", "b", "c", "d"), 5, ((0, 2), (1, 3)))])
    scheduled = store.pending_games("pairs")[0]
    with pytest.raises(InvalidInput) as refused:
        record(store, ("a", "b", "c", "d"), seed=5, scheduled_game_id=scheduled.id,
               outcome=PARTNERS, seat_terminations=["normal"] * 4, teams=((0, 1), (2, 3)))
    assert str(refused.value) == (
        f"scheduled game {scheduled.id} is seats ['a', 'b', 'c', 'd'], seed 5, teams"
        " ((0, 2), (1, 3)); got seats ['a', 'b', 'c', 'd'], seed 5, teams ((0, 1), (2, 3))")
    assert store.games() == [] and store.schedule_progress("pairs") == (0, 1)


def test_a_game_with_the_largest_id_the_database_holds_reads_back(store: Store) -> None:
    add_remote_bots(store, "alpha", "beta")
    largest = 2**63 - 1
    seats = [(largest, seat, store.bot(name).id, rank)
             for seat, (name, rank) in enumerate((("alpha", 0), ("beta", 1)))]
    with store._transaction() as conn:
        conn.execute(
            "INSERT INTO games (id, rules, seed, termination, hands_played, rated, events,"
            " actions, started_at, finished_at) VALUES (?, '{}', 7, 'single_hand', 1, 0,"
            " '[]', '[]', '2026-01-01T00:00:00+00:00', '2026-01-01T00:00:01+00:00')",
            (largest,))
        conn.executemany(
            "INSERT INTO game_seats (game_id, seat, bot_id, score, rank, termination)"
            " VALUES (?, ?, ?, 0, ?, 'normal')", seats)
    game = store.get_game(largest)
    assert (game.id, game.seats) == (largest, ("alpha", "beta"))


def test_a_base_name_finds_the_games_of_every_version_of_the_bot(store: Store) -> None:
    add_remote_bots(store, "rival", "other")
    first = record(store, (submit(store, "tiny", 1), "rival"))
    record(store, ("rival", "other"))
    second = record(store, ("rival", submit(store, "tiny", 2)))
    assert [game.id for game in store.games(bot="tiny")] == [second.id, first.id]
    assert [game.id for game in store.games(bot="tiny@1")] == [first.id]


def test_a_database_from_before_versions_finds_a_bots_games_by_its_name(
        tmp_path: Path) -> None:
    before_versions = tuple(m for m in MIGRATIONS if m.version < 5)
    with Store.open(tmp_path / "arena.db", migrations=before_versions) as store:
        add_remote_bots(store, "alpha", "beta", "gamma")
        with store._transaction() as conn:
            for game_id, bot_ids in ((1, (1, 2)), (2, (2, 3))):
                conn.execute(
                    "INSERT INTO games (id, rules, seed, termination, hands_played, rated,"
                    " events, actions, started_at, finished_at) VALUES (?, '{}', 7,"
                    " 'single_hand', 1, 0, '[]', '[]', '2026-01-01T00:00:00+00:00',"
                    " '2026-01-01T00:00:01+00:00')", (game_id,))
                conn.executemany(
                    "INSERT INTO game_seats (game_id, seat, bot_id, score, rank, termination)"
                    " VALUES (?, ?, ?, 0, ?, 'normal')",
                    [(game_id, seat, bot_id, seat) for seat, bot_id in enumerate(bot_ids)])
        assert [game.id for game in store.games(bot="alpha")] == [1]
        assert [game.id for game in store.games(bot="beta")] == [2, 1]


def test_an_authors_games_are_those_any_of_their_bots_played(store: Store) -> None:
    alice = store.add_author("alice")[0]
    store.add_bot("alice-one", BotKind.REMOTE, author_id=alice.id)
    store.add_bot("alice-two", BotKind.REMOTE, author_id=alice.id)
    add_remote_bots(store, "house", "guest")
    first = record(store, ("alice-one", "house"))
    record(store, ("house", "guest"))
    second = record(store, ("guest", "alice-two"))
    assert [game.id for game in store.games(author_id=alice.id)] == [second.id, first.id]
    assert [game.id for game in store.games(author_id=alice.id, bot="alice-one")] == [
        first.id]
    assert store.games(author_id=alice.id + 1) == []


def test_a_record_listener_hears_each_game_with_the_seconds_its_recording_took(
        store: Store) -> None:
    add_remote_bots(store, "alpha", "beta")
    heard: list[tuple[Sequence[str], Sequence[Decision] | None, float]] = []
    store.record_listeners.append(lambda *told: heard.append(told))
    began = time.perf_counter()
    record(store, ("alpha", "beta"), decisions=DECISIONS)
    took = time.perf_counter() - began
    record(store, ("beta", "alpha"))
    assert [(tuple(seats), decisions) for seats, decisions, _ in heard] == [
        (("alpha", "beta"), DECISIONS), (("beta", "alpha"), None)]
    assert 0 < heard[0][2] <= took


def test_the_reads_of_games_run_on_a_reader_while_the_writer_is_busy(
        store_target: Path | str) -> None:
    with Store.open(store_target, readers=1) as store:
        add_remote_bots(store, "alpha", "beta")
        store.create_tournament("cup", "round_robin", {"seed": 1}, {"target_score": None},
                                games=[Entry(1, 1, 0, ("alpha", "beta"), seed=11)])
        scheduled = store.pending_games("cup")[0]
        game = record(store, ("alpha", "beta"), seed=11, scheduled_game_id=scheduled.id,
                      seat_terminations=["crash", "normal"])
        with _writer_busy(store):
            thread, answer = _in_thread(lambda: (
                [g.id for g in store.games()], store.get_game(game.id).seat_terminations,
                store.seat_endings("cup")))
            thread.join(10)
            assert not thread.is_alive(), "a reader waited for the writer"
    assert answer == [([game.id], (SeatTermination.CRASH, SeatTermination.NORMAL),
                       {"alpha": {SeatTermination.CRASH: 1}})]
