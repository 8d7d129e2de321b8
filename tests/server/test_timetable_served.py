"""The timetable at work in a served server, in-process: real gRPC on 127.0.0.1, real
SQLite, bots that connect over the protocol (held up where a test needs games in play)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from arena.services.timetable import Timetable
from arena.store import TournamentStatus
from arena.v1 import bot_pb2
from tests.server.bots import TestBot, first_legal
from tests.support import ManagedServer, managed_server

SETTINGS = {"table_size": 2, "deals_per_table": 2, "rules": {"target_score": None},
            "policy": {"decision_timeout": 10}}
"""Round robins of single hands at tables of two: 3 bots play 12 games."""


async def _until(condition: Callable[[], object], what: str, timeout: float = 15.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.01)


def _held_at(gate: asyncio.Event) -> Callable[[TestBot, bot_pb2.DecisionRequest],
                                              object]:
    async def held(bot: TestBot, request: bot_pb2.DecisionRequest) -> bot_pb2.Decision:
        await gate.wait()
        return await first_legal(bot, request)
    return held


async def _bots(served: ManagedServer, names: tuple[str, ...],
                gate: asyncio.Event) -> list[TestBot]:
    bots = []
    for name in names:
        token = served.services.bots.add(name, "remote", None)[1]
        bots.append(await TestBot(served.port, token, _held_at(gate),  # type: ignore[arg-type]
                                  max_tables=4).start())
    return bots


def test_a_due_tournament_starts_once_on_its_share_of_the_tables(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with managed_server(tmp_path) as served:
            gate = asyncio.Event()
            bots = await _bots(served, ("alice", "bob", "carol"), gate)
            served.services.competitions.schedule_tournament("cup", [], {**SETTINGS, "share": 0.5},
                                                  None, None)
            said: list[str] = []
            timetable = Timetable(served.services.runs, 4, poll=0.05, say=said.append)
            stop = asyncio.Event()
            running = asyncio.create_task(timetable.run(stop))
            await _until(lambda: len(served.server.tables()) == 2, "two tables in play")
            [edition] = timetable.playing
            assert edition.startswith("cup-") and timetable.tables_in_use == 2
            await asyncio.sleep(0.2)  # the run starts no third table meanwhile
            assert len(served.server.tables()) == 2
            gate.set()
            await _until(lambda: not timetable.playing, "the edition to end")
            assert timetable.tables_in_use == 0
            tournament = served.store.tournament(edition)
            assert tournament.status is TournamentStatus.FINISHED
            assert served.store.schedule_progress(tournament.id) == (12, 12)
            assert sorted(served.store.tournament_bots(tournament.id)) == [
                "alice", "bob", "carol"]
            entry = served.store.timetable("cup")
            assert (entry.editions, entry.next_due, entry.last_edition) == (1, None, edition)
            await asyncio.sleep(0.2)  # a single edition: nothing more starts
            assert [t.name for t in served.store.list_tournaments()] == [edition]
            stop.set()
            await running
            for bot in bots:
                await bot.close()
            assert any(line.startswith(f"timetable: started {edition}") for line in said)
            assert f"timetable: {edition} finished (12 games played)" in said

    asyncio.run(scenario())


def test_with_fewer_than_two_entrants_it_says_so_and_tries_again(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with managed_server(tmp_path) as served:
            gate = asyncio.Event()
            gate.set()
            bots = await _bots(served, ("alice",), gate)
            served.services.competitions.schedule_tournament("cup", [], SETTINGS, None, None)
            said: list[str] = []
            timetable = Timetable(served.services.runs, 4, poll=0.05, retry=0.2,
                                  say=said.append)
            stop = asyncio.Event()
            running = asyncio.create_task(timetable.run(stop))
            await _until(lambda: len(said) >= 2, "two tries")
            assert said[:2] == ["timetable: cup cannot start: it has 1 entrant(s), fewer "
                                "than 2; trying again in 0.2 s"] * 2
            assert served.store.list_tournaments() == [] and not running.done()
            bots += await _bots(served, ("bob",), gate)
            await _until(lambda: served.store.timetable("cup").editions == 1, "an edition")
            # The edition is stored (in a worker thread) a moment before it is in play.
            await _until(lambda: not timetable.playing and [
                t.status for t in served.store.list_tournaments()] != [TournamentStatus.CREATED],
                "the edition to end")
            [edition] = served.store.list_tournaments()
            assert edition.status is TournamentStatus.FINISHED
            assert sorted(served.store.tournament_bots(edition.id)) == ["alice", "bob"]
            stop.set()
            await running
            for bot in bots:
                await bot.close()

    asyncio.run(scenario())


def test_an_edition_a_stopped_server_left_is_resumed_not_made_anew(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with managed_server(tmp_path) as served:
            gate = asyncio.Event()
            bots = await _bots(served, ("alice", "bob", "carol"), gate)
            served.services.competitions.schedule_tournament(
                "cup", ["alice", "bob", "carol"], SETTINGS, None, 3600)
            said: list[str] = []
            first = Timetable(served.services.runs, 4, poll=0.05, say=said.append)
            stop = asyncio.Event()
            running = asyncio.create_task(first.run(stop))
            await _until(lambda: len(served.server.tables()) == 2, "two tables in play")
            [edition] = first.playing
            stop.set()
            await running
            assert served.store.tournament(edition).status is TournamentStatus.STOPPED
            assert served.store.schedule_progress(edition)[0] == 0
            gate.set()
            second = Timetable(served.services.runs, 4, poll=0.05, say=said.append)
            stop = asyncio.Event()
            running = asyncio.create_task(second.run(stop))
            await _until(lambda: served.store.tournament(edition).status
                         is TournamentStatus.FINISHED, "the edition to finish")
            entry = served.store.timetable("cup")
            assert (entry.editions, [t.name for t in served.store.list_tournaments()]) == (
                1, [edition])
            assert served.store.schedule_progress(edition) == (12, 12)
            stop.set()
            await running
            for bot in bots:
                await bot.close()
            assert "timetable: stopped 1 edition(s); they resume when the server is back" \
                in said
            assert f"timetable: resuming {edition} (stopped), on 2 table(s)" in said

    asyncio.run(scenario())
