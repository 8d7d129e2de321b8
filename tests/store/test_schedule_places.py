"""Where a stored game sits in a schedule, and how a tournament's seats ended: the store's
lookups behind public game ids and fault counts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.record import SeatTermination
from arena.store import Store, UnknownGame, UnknownTournament
from tests.store.test_store import Entry, add_remote_bots, record, two_player_outcome


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "arena.db") as opened:
        add_remote_bots(opened, "alpha", "beta")
        opened.create_tournament(
            "cup", "round_robin", {"seed": 1}, {"target_score": None},
            games=[Entry(1, 1, 0, ("alpha", "beta"), seed=11),
                   Entry(1, 1, 1, ("beta", "alpha"), seed=11)])
        yield opened


def _play(store: Store, game_index: int, terminations: list[SeatTermination]) -> int:
    scheduled = store.scheduled_game("cup", game_index)
    summary = record(store, scheduled.seats, seed=scheduled.seed,
                     scheduled_game_id=scheduled.id, seat_terminations=terminations,
                     outcome=two_player_outcome(winner=1))
    return int(summary.id)


def test_a_scheduled_game_is_found_by_its_tournament_and_index(store: Store) -> None:
    game = store.scheduled_game("cup", 1)
    assert (game.game_index, game.seats, game.game_id) == (1, ("beta", "alpha"), None)


def test_an_index_past_the_schedule_is_an_unknown_game(store: Store) -> None:
    for index in (2, -1, 2**70):
        with pytest.raises(UnknownGame):
            store.scheduled_game("cup", index)
    with pytest.raises(UnknownTournament):
        store.scheduled_game("nope", 0)


def test_schedule_places_name_the_tournament_and_index_of_scheduled_games_only(
        store: Store) -> None:
    second = _play(store, 1, [SeatTermination.NORMAL] * 2)
    loose = int(record(store, ("alpha", "beta")).id)
    assert store.schedule_places([second, loose, 999]) == {second: ("cup", 1)}


def test_seat_endings_count_each_bots_games_that_did_not_end_normally(store: Store) -> None:
    _play(store, 0, [SeatTermination.CRASH, SeatTermination.NORMAL])  # alpha, beta
    _play(store, 1, [SeatTermination.TIMEOUT, SeatTermination.CRASH])  # beta, alpha
    record(store, ("alpha", "beta"), seat_terminations=[SeatTermination.ILLEGAL] * 2)
    assert store.seat_endings("cup") == {"alpha": {SeatTermination.CRASH: 2},
                                         "beta": {SeatTermination.TIMEOUT: 1}}, \
        "only the tournament's games count"
