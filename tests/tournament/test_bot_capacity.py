"""A run bounded by its bots' table slots: no bot plays more games at once than it can."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from arena.engine.outcome import Outcome, Termination, ranks_from_keys
from arena.engine.rules import RuleSet
from arena.record import SeatTermination
from arena.store import ScheduledGame, Store, TournamentStatus
from arena.tournament.runner import PlayedGame, create_tournament, run_tournament
from arena.tournament.schedule import TournamentSettings
from tests.support import store_with_remote_bots

BOTS = [f"bot{n}" for n in range(10)]
GAMES = 10 * 9 // 2
"""Every pair of `BOTS` once (no rotations)."""


class OneSlotEach:
    """FAKE presence for these tests: every bot is connected and plays one table at a time."""

    def __init__(self, slots: int = 1) -> None:
        self.slots = slots

    def absent(self, bots: Sequence[str]) -> list[str]:
        return []

    def table_slots(self, bot: str) -> int:
        return self.slots

    async def changed(self) -> None:
        await asyncio.Event().wait()  # the bots never change


class WatchedTable:
    """FAKE table runner: a short game that notes, while it plays, how many games each bot
    is in at that moment."""

    def __init__(self) -> None:
        self.in_play: Counter[str] = Counter()
        self.most_at_once: Counter[str] = Counter()
        self.most_tables = 0
        self.played = 0

    async def __call__(self, game: ScheduledGame, rules: RuleSet) -> PlayedGame:
        self.in_play.update(game.seats)
        for bot in game.seats:
            self.most_at_once[bot] = max(self.most_at_once[bot], self.in_play[bot])
        self.most_tables = max(self.most_tables, sum(self.in_play.values()) // len(game.seats))
        try:
            await asyncio.sleep(0.002)
        finally:
            self.in_play.subtract(game.seats)
        self.played += 1
        return PlayedGame(
            outcome=Outcome(Termination.TARGET_REACHED, (1, 0), ranks_from_keys([-1, 0]),
                            hands_played=1),
            events=[], actions=[], seat_terminations=[SeatTermination.NORMAL] * 2)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with store_with_remote_bots(tmp_path / "arena.db", BOTS) as opened:
        yield opened


def round_robin_of_pairs(store: Store) -> int:
    settings = TournamentSettings.from_dict(
        {"table_size": 2, "rotations": False, "seed": 5, "concurrency": 20})
    return create_tournament(store, "pairs", settings, BOTS).id


def test_a_bot_with_one_slot_never_plays_two_games_at_once_and_every_game_is_played(
        store: Store) -> None:
    tournament = round_robin_of_pairs(store)
    table = WatchedTable()
    summary = asyncio.run(asyncio.wait_for(
        run_tournament(store, tournament, table, concurrency=20, presence=OneSlotEach()), 20))
    assert set(table.most_at_once.values()) == {1}
    assert (summary.status, summary.done, table.played) == (
        TournamentStatus.FINISHED, GAMES, GAMES)


def test_bots_with_one_slot_each_still_fill_every_table_they_can(store: Store) -> None:
    tournament = round_robin_of_pairs(store)
    table = WatchedTable()
    asyncio.run(run_tournament(store, tournament, table, concurrency=20,
                               presence=OneSlotEach()))
    assert table.most_tables == len(BOTS) // 2


def test_bots_with_two_slots_play_up_to_two_games_at_once(store: Store) -> None:
    tournament = round_robin_of_pairs(store)
    table = WatchedTable()
    asyncio.run(run_tournament(store, tournament, table, concurrency=20,
                               presence=OneSlotEach(slots=2)))
    assert max(table.most_at_once.values()) == 2
    assert table.played == GAMES


def test_concurrency_still_caps_the_tables_when_the_bots_have_room(store: Store) -> None:
    tournament = round_robin_of_pairs(store)
    table = WatchedTable()
    asyncio.run(run_tournament(store, tournament, table, concurrency=3,
                               presence=OneSlotEach(slots=100)))
    assert table.most_tables == 3


def test_when_every_pending_game_needs_the_one_busy_bot_the_run_waits_and_finishes(
        store: Store) -> None:
    settings = TournamentSettings.from_dict(
        {"format": "gauntlet", "challenger": BOTS[0], "table_size": 2, "rotations": False,
         "seed": 5})
    tournament = create_tournament(store, "gauntlet", settings, BOTS).id
    table = WatchedTable()
    summary = asyncio.run(asyncio.wait_for(
        run_tournament(store, tournament, table, concurrency=20, presence=OneSlotEach()), 20))
    assert table.most_tables == 1
    assert summary.status is TournamentStatus.FINISHED and table.played == len(BOTS) - 1
