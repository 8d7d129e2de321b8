"""Versions in the store: each an entrant of its own; a base name stands for its latest
built version; `--inherit-rating` starts a version from its predecessor's skill; a
version that is not built never plays."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from arena import rating
from arena.engine.outcome import Outcome, Termination
from arena.rating import pools
from arena.record import SeatTermination
from arena.store import BotKind, BuildStatus, DuplicateName, InvalidInput, Store, UnknownBot
from arena.submissions import launch_command

RULES = {"target_score": None}
POOL = pools.rules_pool(RULES, 2)
START = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def store(store_target: Path | str) -> Iterator[Store]:
    """A store on each backend (SQLite file, PostgreSQL schema) with a remote rival."""
    with Store.open(store_target) as opened:
        opened.add_bot("rival", BotKind.REMOTE)
        yield opened


def add_version(store: Store, content: str, *, build: bool = False,
                inherit: bool = False) -> str:
    manifest = {"name": "tiny", "run": "./bot", "runtime": "native"}
    if build:
        manifest["build"] = "make"
    return store.add_version("tiny", content * 64, manifest, "./bot", "native", "/nowhere",
                             inherit_rating=inherit).name


def win(store: Store, winner: str, loser: str) -> None:
    store.record_game(seats=(winner, loser), seed=1, rules=RULES,
                      outcome=Outcome(Termination.SINGLE_HAND, (50, 0), (0, 1), 1),
                      seat_terminations=[SeatTermination.NORMAL] * 2, events=[], actions=[],
                      started_at=START, finished_at=START + timedelta(seconds=1))


def skill(store: Store, bot: str) -> rating.Skill:
    found = {r.bot: rating.Skill(r.mu, r.sigma) for r in store.ratings(pool=POOL)}
    return found[bot]


def test_versions_are_numbered_entrants_and_the_base_name_is_the_latest(store: Store) -> None:
    assert [add_version(store, "a"), add_version(store, "b")] == ["tiny@1", "tiny@2"]
    assert store.bot("tiny").name == "tiny@2"
    assert store.bot("tiny@1").kind is BotKind.MANAGED


def test_games_and_ratings_belong_to_the_version_that_played(store: Store) -> None:
    add_version(store, "a")
    win(store, "tiny", "rival")
    add_version(store, "b")
    win(store, "rival", "tiny")
    assert [g.seats for g in store.games()] == [("rival", "tiny@2"), ("tiny@1", "rival")]
    assert [g.seats for g in store.games(bot="tiny@1")] == [("tiny@1", "rival")]
    assert len(store.games(bot="tiny")) == 2, "a base name finds every version's games"
    assert {r.bot: r.games for r in store.ratings(pool=POOL)} == {
        "tiny@1": 1, "tiny@2": 1, "rival": 2}


def test_a_new_version_starts_from_the_default_skill(store: Store) -> None:
    add_version(store, "a")
    win(store, "tiny@1", "rival")
    add_version(store, "b")
    rival = skill(store, "rival")
    win(store, "tiny@2", "rival")
    expected = rating.rate_game({"rival": rival}, ["tiny@2", "rival"], (0, 1), None,
                                parameters=store.pool(POOL).parameters)
    assert skill(store, "tiny@2") == pytest.approx(expected["tiny@2"])


def test_an_inheriting_version_starts_from_its_predecessors_skill(store: Store) -> None:
    add_version(store, "a")
    for _ in range(3):
        win(store, "tiny@1", "rival")
    add_version(store, "b", inherit=True)
    before = {"tiny@2": skill(store, "tiny@1"), "rival": skill(store, "rival")}
    win(store, "tiny@2", "rival")
    expected = rating.rate_game(before, ["tiny@2", "rival"], (0, 1), None,
                                parameters=store.pool(POOL).parameters)
    assert skill(store, "tiny@2") == pytest.approx(expected["tiny@2"])
    assert store.bot_version("tiny@2").inherits_from == "tiny@1"  # type: ignore[union-attr]
    assert store.rebuilt_ratings(POOL) == store.ratings(pool=POOL)


def test_a_failed_build_never_plays_and_the_base_name_skips_it(store: Store) -> None:
    add_version(store, "a")
    add_version(store, "b", build=True)
    failed = store.finish_build("tiny@2", False, "make: *** [all] Error 1\n")
    assert failed.build_status is BuildStatus.FAILED
    assert store.bot("tiny").name == "tiny@1"
    with pytest.raises(InvalidInput, match="bot tiny@2 cannot play: its build failed"):
        win(store, "tiny@2", "rival")


def test_a_building_version_cannot_play_yet(store: Store) -> None:
    add_version(store, "b", build=True)
    with pytest.raises(UnknownBot):
        store.bot("tiny")
    with pytest.raises(InvalidInput, match="its build is not done"):
        win(store, "tiny@1", "rival")


def test_a_name_is_either_added_or_submitted(store: Store) -> None:
    add_version(store, "a")
    with pytest.raises(DuplicateName):
        store.add_bot("tiny", BotKind.REMOTE)
    with pytest.raises(DuplicateName, match="was added with `arena bot add`"):
        store.check_version_name("rival")


def test_a_version_starts_its_own_program_and_a_python_bot_arenas_python(
        store: Store) -> None:
    native = store.add_version("nat", "a" * 64, {"name": "nat", "run": "build/bot -v"},
                               "build/bot -v", "native", "/versions/nat")
    python = store.add_version("py", "b" * 64, {"name": "py", "run": "python bot.py"},
                               "python bot.py", "python", "/versions/py")
    assert launch_command(native) == "/versions/nat/build/bot -v"
    assert launch_command(python) == shlex.join([sys.executable, "bot.py"])


def test_the_latest_entrants_are_added_bots_and_each_submitted_bots_newest_built_version(
        store: Store) -> None:
    first = add_version(store, "a")
    assert store.latest_entrants() == ["rival", first]
    building = add_version(store, "b", build=True)
    assert store.latest_entrants() == ["rival", first]
    store.finish_build(building, ok=True, log="")
    assert store.latest_entrants() == ["rival", building]
    failed = add_version(store, "c", build=True)
    store.finish_build(failed, ok=False, log="error")
    assert store.latest_entrants() == ["rival", building]
    store.remove_bot(building)
    store.remove_bot("rival")
    assert store.latest_entrants() == [first]
