"""The ladder's field on a server: launched, joined, left and failed bots, and what it says
(a real store; the server and the bot supervisor are FAKES that the tests drive)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.services.bots import BotService
from arena.services.ladder import LadderField
from arena.store import BotKind, Store
from arena.submissions import Submissions
from arena.supervisor.fleet import Launch


class FakeServer:
    """FAKE server: the bots the test says are connected, one table each."""

    def __init__(self) -> None:
        self.connected: set[str] = set()

    def connected_bots(self) -> list[str]:
        return sorted(self.connected)

    def table_slots(self, bot: str) -> int:
        return int(bot in self.connected)


class FakeFleet:
    """FAKE fleet of managed bots: launches counted, failures as told."""

    def __init__(self) -> None:
        self.log_dir = Path("logs")
        self.launches: list[str] = []
        self.failed: set[str] = set()

    async def launch(self, name: str, launch: Launch) -> None:
        self.launches.append(name)

    def has_failed(self, name: str) -> bool:
        return name in self.failed


class Players:
    """What the field plays with: a real store and its real bot service, a fake server
    and a fake fleet."""

    def __init__(self, store: Store, tmp_path: Path) -> None:
        self.store = store
        self.server = FakeServer()
        self.fleet = FakeFleet()
        self.bots = BotService(store, Submissions(store, tmp_path / "bots"), lambda: [],
                               lambda name: None)
        self.launches = self.fleet.launches
        self.failed = self.fleet.failed


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "arena.db") as opened:
        opened.add_bot("ann", BotKind.MANAGED, "python ann.py")
        opened.add_bot("bob", BotKind.MANAGED, "python bob.py")
        opened.add_bot("rem", BotKind.REMOTE)
        yield opened


def ask(field: LadderField) -> list[str]:
    return asyncio.run(field())


def test_managed_bots_are_launched_once_and_join_when_they_connect(
    store: Store, tmp_path: Path,
) -> None:
    management = Players(store, tmp_path)
    said: list[str] = []
    field = LadderField(management, said.append)  # type: ignore[arg-type]
    assert ask(field) == []
    assert management.launches == ["ann", "bob"]
    assert said == ["ladder: 0 bots in the field, 2 starting"]
    management.server.connected |= {"ann", "bob"}
    assert ask(field) == ["ann", "bob"]
    assert management.launches == ["ann", "bob"], "not launched again"
    assert said[-1] == "ladder: ann, bob joined; 2 bots in the field"


def test_a_remote_bot_is_not_launched_and_joins_when_its_owner_connects_it(
        store: Store, tmp_path: Path) -> None:
    management = Players(store, tmp_path)
    field = LadderField(management)  # type: ignore[arg-type]
    management.server.connected |= {"ann", "bob"}
    assert ask(field) == ["ann", "bob"]
    assert "rem" not in management.launches
    management.server.connected.add("rem")
    assert ask(field) == ["ann", "bob", "rem"]


def test_a_crashed_bot_leaves_until_its_restart_connects_and_one_that_failed_for_good_stays_out(
        store: Store, tmp_path: Path) -> None:
    management = Players(store, tmp_path)
    said: list[str] = []
    field = LadderField(management, said.append)  # type: ignore[arg-type]
    ask(field)  # launches ann and bob
    management.server.connected |= {"ann", "bob", "rem"}
    ask(field)
    management.server.connected.discard("ann")  # crashed; the supervisor restarts it
    assert ask(field) == ["bob", "rem"]
    assert said[-1] == "ladder: ann left; 2 bots in the field"
    management.server.connected.add("ann")
    assert ask(field) == ["ann", "bob", "rem"]
    management.server.connected.discard("bob")
    management.failed.add("bob")  # its restarts are spent
    assert ask(field) == ["ann", "rem"]
    assert field.failed == {"bob"}
    assert management.launches.count("bob") == 1


def test_a_field_too_small_for_a_table_says_what_it_waits_for(
    store: Store, tmp_path: Path,
) -> None:
    management = Players(store, tmp_path)
    said: list[str] = []
    field = LadderField(management, said.append, table_size=4)  # type: ignore[arg-type]
    management.server.connected |= {"ann", "bob", "rem"}
    ask(field)
    assert said[-1].startswith("ladder: ann, bob, rem joined; 3 bots in the field, waiting "
                               "for 4, a table's seats (`arena bot submit` or `arena bot add`")


def test_a_removed_bot_leaves_the_field(store: Store, tmp_path: Path) -> None:
    management = Players(store, tmp_path)
    field = LadderField(management)  # type: ignore[arg-type]
    management.server.connected |= {"ann", "bob", "rem"}
    assert ask(field) == ["ann", "bob", "rem"]
    store.remove_bot("bob")
    assert ask(field) == ["ann", "rem"]


def test_at_most_k_bots_of_each_author_take_part_in_the_ladder(
    store: Store, tmp_path: Path,
) -> None:
    alice, _ = store.add_author("alice")
    for name in ("alice-old", "alice-new"):
        store.add_bot(name, BotKind.REMOTE, author_id=alice.id)
    management = Players(store, tmp_path)
    management.server.connected = {"ann", "bob", "rem", "alice-old", "alice-new"}
    every = LadderField(management)  # type: ignore[arg-type]
    capped = LadderField(management, per_author=1)  # type: ignore[arg-type]
    assert ask(every) == ["alice-new", "alice-old", "ann", "bob", "rem"]
    assert ask(capped) == ["alice-new", "ann", "bob", "rem"]
