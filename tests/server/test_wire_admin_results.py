"""The admin service's messages for results: a rating history round-trips between the
service's values and its message, and a kept leaderboard is turned into a message once.
Real games played by the engine, in a real SQLite file."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from arena import wire_admin
from arena.services.results import ResultsService
from arena.v1 import admin_pb2
from tests.services.test_rating_history import BOTS, filled_store


@pytest.fixture
def results(tmp_path: Path) -> Iterator[ResultsService]:
    store = filled_store(tmp_path / "arena.db", 12, 5)
    yield ResultsService(store)
    store.close()


def test_a_rating_history_comes_back_from_its_message_as_it_was(
        results: ResultsService) -> None:
    found = results.rating_history(bots=BOTS[:4])
    message = wire_admin.rating_history_response(found.pool, found.histories, "")
    sent = admin_pb2.GetRatingHistoryResponse.FromString(message.SerializeToString())
    assert sent.pool.key == found.pool.key and sent.pool.games == 12
    assert wire_admin.rating_histories(sent) == found.histories


def test_a_kept_leaderboard_is_one_message_and_a_new_one_another(
        results: ResultsService) -> None:
    ranked = results.rankings()
    first = wire_admin.rankings_response(ranked.ranking, ranked.tournament, ranked.faults)
    again = results.rankings()
    assert again is ranked, "the service keeps the leaderboard while its pool holds"
    assert wire_admin.rankings_response(again.ranking, again.tournament, again.faults) is first
    other = replace(ranked.ranking)
    rebuilt = wire_admin.rankings_response(other, ranked.tournament, ranked.faults)
    assert rebuilt is not first and rebuilt == first
    assert wire_admin.rankings_response(ranked.ranking, "cup", None) is not first
    assert [row.bot for row in first.rows] == [line.bot for line in ranked.ranking.lines]
