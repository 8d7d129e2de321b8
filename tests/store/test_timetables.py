"""The timetable in the store, on SQLite and PostgreSQL: entries, what is due, editions
made exactly once with their tournament, and taking an entry off."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from arena.store import (
    BotKind,
    DuplicateName,
    InvalidInput,
    Store,
    Timetable,
    TournamentStatus,
    UnknownTimetable,
    UnknownTournament,
)
from arena.tournament.timetable import edition_schedule, stored_settings

DUE = datetime(2026, 12, 24, 17, 0, tzinfo=UTC)
DAY = 86_400
SETTINGS = {"format": "round_robin", "table_size": 2, "concurrency": 4}
RULES = {"target_score": None}


@pytest.fixture
def store(store_target: Path | str) -> Iterator[Store]:
    with Store.open(store_target) as opened:
        for bot in ("a", "b", "c"):
            opened.add_bot(bot, BotKind.REMOTE)
        yield opened


def _add(store: Store, name: str = "spring", *, entrants: list[str] | None = None,
         every: int | None = DAY, first_due: datetime = DUE) -> Timetable:
    return store.add_timetable(name, "round_robin", SETTINGS, RULES, entrants, share=0.5,
                               first_due=first_due, every=every)


def _start(store: Store, entry: Timetable, name: str, next_due: datetime | None
           ) -> str | None:
    settings, schedule = edition_schedule(entry.settings, entry.rules, ["a", "b", "c"])
    made = store.start_edition(entry, name, next_due, stored_settings(settings),
                               settings.rules.to_dict(), schedule)
    return None if made is None else made.name


def test_an_entry_is_stored_as_given_and_listed(store: Store) -> None:
    fixed = _add(store, "fixed", entrants=["a", "b"], every=None)
    latest = _add(store, "latest", first_due=DUE + timedelta(hours=1))
    assert store.timetables() == [fixed, latest]
    assert store.timetable("fixed") == fixed
    assert (fixed.entrants, fixed.every, fixed.next_due, fixed.first_due) == (
        ("a", "b"), None, DUE, DUE)
    assert (latest.entrants, latest.every, latest.editions, latest.last_edition) == (
        None, DAY, 0, None)
    assert (latest.settings, latest.rules, latest.share, latest.active) == (
        SETTINGS, RULES, 0.5, True)


def test_what_is_due_is_what_has_come_longest_due_first(store: Store) -> None:
    later = _add(store, "later", first_due=DUE + timedelta(minutes=5))
    sooner = _add(store, "sooner", first_due=DUE)
    assert store.due_timetables(DUE - timedelta(seconds=1)) == []
    assert store.due_timetables(DUE) == [sooner]
    assert store.due_timetables(DUE + timedelta(hours=1)) == [sooner, later]


def test_an_edition_is_made_with_its_tournament_and_moves_the_next_due(store: Store) -> None:
    entry = _add(store)
    assert _start(store, entry, "spring-2026-12-24", DUE + timedelta(days=1)) == \
        "spring-2026-12-24"
    after = store.timetable("spring")
    assert (after.editions, after.next_due, after.last_edition) == (
        1, DUE + timedelta(days=1), "spring-2026-12-24")
    tournament = store.tournament("spring-2026-12-24")
    assert (tournament.status, store.schedule_progress(tournament.id)) == (
        TournamentStatus.CREATED, (0, 6))  # 3 pairs, each in both seat orders
    [edition] = store.editions("spring")
    assert (edition.number, edition.tournament, edition.due, edition.status) == (
        1, "spring-2026-12-24", DUE, TournamentStatus.CREATED)


def test_an_edition_is_made_once_whoever_else_tries_with_the_same_entry(store: Store) -> None:
    entry = _add(store)
    assert _start(store, entry, "spring-2026-12-24", DUE + timedelta(days=1)) is not None
    # A second server that read the entry before the first made its edition.
    assert _start(store, entry, "spring-2026-12-24", DUE + timedelta(days=1)) is None
    assert [t.name for t in store.list_tournaments()] == ["spring-2026-12-24"]
    assert store.timetable("spring").editions == 1


def test_a_taken_name_gets_a_number(store: Store) -> None:
    store.create_tournament("spring-2026-12-24", "round_robin", {}, {})
    entry = _add(store, every=60)
    assert _start(store, entry, "spring-2026-12-24", DUE + timedelta(minutes=1)) == \
        "spring-2026-12-24-2"
    assert _start(store, store.timetable("spring"), "spring-2026-12-24", None) == \
        "spring-2026-12-24-3"


def test_a_single_edition_ends_the_entry(store: Store) -> None:
    entry = _add(store, every=None)
    _start(store, entry, "spring-2026-12-24", None)
    ended = store.timetable("spring")
    assert (ended.next_due, ended.editions) == (None, 1)
    assert store.due_timetables(DUE + timedelta(days=365)) == []
    assert _start(store, ended, "spring-2026-12-24", None) is None


def test_a_failed_edition_writes_nothing(store: Store) -> None:
    entry = _add(store)
    store.remove_bot("c")
    with pytest.raises(Exception, match="no bot named 'c'"):
        _start(store, entry, "spring-2026-12-24", DUE + timedelta(days=1))
    assert store.list_tournaments() == []
    assert store.timetable("spring") == entry


def test_the_unfinished_latest_edition_is_there_to_resume(store: Store) -> None:
    entry = _add(store, every=60)
    _start(store, entry, "spring-1", DUE + timedelta(minutes=1))
    [(unfinished_entry, tournament)] = store.unfinished_editions()
    assert (unfinished_entry.name, tournament.name) == ("spring", "spring-1")
    store.set_tournament_status("spring-1", TournamentStatus.STOPPED)
    assert [t.name for _, t in store.unfinished_editions()] == ["spring-1"]
    store.set_tournament_status("spring-1", TournamentStatus.FINISHED)
    assert store.unfinished_editions() == []
    _start(store, store.timetable("spring"), "spring-2", DUE + timedelta(minutes=2))
    assert [t.name for _, t in store.unfinished_editions()] == ["spring-2"]


def test_an_entry_taken_off_makes_no_more_editions_and_keeps_its_past(store: Store) -> None:
    entry = _add(store)
    _start(store, entry, "spring-2026-12-24", DUE + timedelta(days=1))
    removed = store.remove_timetable("spring")
    assert removed.removed_at is not None and not removed.active
    assert store.timetables() == [] and store.unfinished_editions() == []
    assert store.due_timetables(DUE + timedelta(days=30)) == []
    assert _start(store, entry, "spring-2026-12-25", None) is None
    assert [t.name for t in store.list_tournaments()] == ["spring-2026-12-24"]
    assert [e.tournament for e in store.editions()] == ["spring-2026-12-24"]
    with pytest.raises(UnknownTimetable, match="no tournament 'spring' on the timetable"):
        store.remove_timetable("spring")
    again = _add(store)  # the name is free again
    assert again.id != entry.id and again.editions == 0


def test_names_and_values_are_checked(store: Store) -> None:
    _add(store)
    with pytest.raises(DuplicateName, match="already on the timetable"):
        _add(store)
    with pytest.raises(InvalidInput, match="longer than 40"):
        _add(store, "x" * 41)
    with pytest.raises(InvalidInput, match="must start with a letter"):
        _add(store, "-x")
    with pytest.raises(InvalidInput, match="share"):
        store.add_timetable("s", "round_robin", {}, {}, None, share=0, first_due=DUE,
                            every=None)
    with pytest.raises(InvalidInput, match="every"):
        _add(store, "e", every=0)
    with pytest.raises(InvalidInput, match="no time zone"):
        _add(store, "n", first_due=datetime(2026, 12, 24, 17, 0))
    with pytest.raises(UnknownTournament):  # an UnknownTimetable is one
        store.timetable("nothing")
