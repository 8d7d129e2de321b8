"""A run that knows which bots are connected: games wait for their bots, others go on."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from arena.engine.outcome import Outcome, Termination, ranks_from_keys
from arena.engine.rules import RuleSet
from arena.record import SeatTermination
from arena.store import ScheduledGame, Store, TournamentStatus
from arena.tournament.runner import PlayedGame, RunSummary, create_tournament, run_tournament
from arena.tournament.schedule import TournamentSettings
from tests.support import store_with_remote_bots

BOTS = ["ann", "bob", "cat", "dan", "eve"]
WITHOUT_BOB = 4 * 3
"""Games of the 3-seat round robin of `BOTS` that bob does not play: 4 tables, 3 rotations."""


class FakePresence:
    """FAKE presence for these tests: the bots in `away` are not connected."""

    def __init__(self, away: Sequence[str]) -> None:
        self.away = set(away)
        self._changed = asyncio.Event()

    def absent(self, bots: Sequence[str]) -> list[str]:
        return [bot for bot in bots if bot in self.away]

    async def changed(self) -> None:
        await self._changed.wait()

    def arrive(self, bot: str) -> None:
        self.away.discard(bot)
        self._changed.set()
        self._changed = asyncio.Event()


class FakeTable:
    """FAKE table runner: a random result seeded by the deal; it keeps the seats it played,
    and can call `after` with the number of games played so far."""

    def __init__(self, after: Callable[[int], None] | None = None) -> None:
        self.played: list[tuple[str, ...]] = []
        self.after = after

    async def __call__(self, game: ScheduledGame, rules: RuleSet) -> PlayedGame:
        await asyncio.sleep(0.001)
        self.played.append(tuple(game.seats))
        if self.after is not None:
            self.after(len(self.played))
        rng = random.Random(game.seed)
        scores = [rng.randrange(0, 300) for _ in game.seats]
        return PlayedGame(
            outcome=Outcome(Termination.TARGET_REACHED, tuple(scores),
                            ranks_from_keys([-score for score in scores]), hands_played=1),
            events=[], actions=[],
            seat_terminations=[SeatTermination.NORMAL] * len(game.seats))


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with store_with_remote_bots(tmp_path / "arena.db", BOTS) as opened:
        yield opened


def new_tournament(store: Store) -> int:
    settings = TournamentSettings.from_dict({"table_size": 3, "seed": 4, "concurrency": 2})
    return create_tournament(store, "cup", settings, BOTS).id


def test_games_of_an_absent_bot_wait_for_it_while_the_other_games_are_played(
        store: Store) -> None:
    tournament = new_tournament(store)
    presence = FakePresence(["bob"])

    def arrive_when_nothing_else_is_left(played: int) -> None:
        if played == WITHOUT_BOB:
            presence.arrive("bob")

    table = FakeTable(arrive_when_nothing_else_is_left)
    summary = asyncio.run(run_tournament(store, tournament, table, presence=presence,
                                         wait=30.0))
    assert all("bob" not in seats for seats in table.played[:WITHOUT_BOB])
    assert len(table.played) == len(store.scheduled_games(tournament)) == 30
    assert summary.status is TournamentStatus.FINISHED
    assert summary.absent == {} and summary.message == ""


def test_a_bot_away_past_the_wait_has_its_games_played_and_counted_absent(
        store: Store) -> None:
    tournament = new_tournament(store)
    table = FakeTable()

    async def run() -> tuple[RunSummary, float]:
        loop = asyncio.get_running_loop()
        started = loop.time()
        summary = await run_tournament(store, tournament, table,
                                       presence=FakePresence(["bob"]), wait=0.1)
        return summary, loop.time() - started

    summary, elapsed = asyncio.run(run())
    assert elapsed >= 0.1
    assert len(table.played) == 30
    assert summary.absent == {"bob": 30 - WITHOUT_BOB}
    message = summary.message
    assert "bob (18 games)" in message and "0.1 s" in message


def test_a_bot_back_before_the_wait_runs_out_is_never_counted_absent(store: Store) -> None:
    tournament = new_tournament(store)
    presence = FakePresence(["bob", "eve"])

    async def run() -> RunSummary:
        asyncio.get_running_loop().call_later(0.05, presence.arrive, "bob")
        asyncio.get_running_loop().call_later(0.1, presence.arrive, "eve")
        return await run_tournament(store, tournament, FakeTable(), presence=presence,
                                    wait=10.0)

    summary = asyncio.run(run())
    assert summary.absent == {}
    assert summary.done == 30


class CountingPresence(FakePresence):
    """FAKE presence that counts the bots it is asked about."""

    def __init__(self, away: Sequence[str]) -> None:
        super().__init__(away)
        self.asked = 0

    def absent(self, bots: Sequence[str]) -> list[str]:
        self.asked += len(bots)
        return super().absent(bots)


def test_starting_a_game_looks_at_the_queue_only_up_to_the_game_it_starts(
        tmp_path: Path) -> None:
    bots = [f"bot{n:02d}" for n in range(40)]
    with store_with_remote_bots(tmp_path / "big.db", bots) as store:
        settings = TournamentSettings.from_dict(
            {"table_size": 4, "seed": 1, "concurrency": 1, "rotations": False})
        tournament = create_tournament(store, "big", settings, bots).id
        games = len(store.scheduled_games(tournament))
        presence = CountingPresence([])
        asyncio.run(run_tournament(store, tournament, FakeTable(), presence=presence))
    # Asking about every bot of the queue at each start would ask about most of the
    # 40 bots for every game; the first game waiting is startable, so only its seats are.
    assert games >= 100
    assert presence.asked <= 4 * games
