"""The timetable's pure part: reading --at and --every, naming editions, the next due
moment, and an edition's share of the tables."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from arena.tournament import SettingsError
from arena.tournament.timetable import (
    DEFAULT_SHARE,
    TimetableError,
    edition_name,
    next_due,
    parse_at,
    parse_every,
    period_text,
    share_tables,
    timetable_settings,
)

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def berlin() -> Iterator[None]:
    """This process's local time is Berlin's (UTC+1 in December) for the test."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "Europe/Berlin"
    time.tzset()
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("TZ")
        else:
            os.environ["TZ"] = before
        time.tzset()


@pytest.mark.parametrize("text", ["2026-12-24 18:00", "2026-12-24T18:00", "2026-12-24 18:00:00",
                                  " 2026-12-24T18:00:00 "])
def test_a_time_without_an_offset_is_local_and_stored_in_utc(berlin: None, text: str) -> None:
    assert parse_at(text, NOW) == datetime(2026, 12, 24, 17, 0, tzinfo=UTC)


def test_a_date_alone_is_its_local_midnight(berlin: None) -> None:
    assert parse_at("2026-12-24", NOW) == datetime(2026, 12, 23, 23, 0, tzinfo=UTC)


@pytest.mark.parametrize(("text", "expected"), [
    ("2026-12-24T18:00:00+01:00", datetime(2026, 12, 24, 17, 0, tzinfo=UTC)),
    ("2026-12-24T18:00Z", datetime(2026, 12, 24, 18, 0, tzinfo=UTC)),
    ("2026-12-24 18:00:30-05:00", datetime(2026, 12, 24, 23, 0, 30, tzinfo=UTC)),
])
def test_an_iso_time_with_an_offset_keeps_it(text: str, expected: datetime) -> None:
    moment = parse_at(text, NOW)
    assert moment == expected and moment.tzinfo is UTC


def test_the_past_is_refused_saying_what_time_it_is(berlin: None) -> None:
    with pytest.raises(TimetableError, match=r"2026-11-30 18:00 is in the past \(it is "
                                             r"2026-12-01 13:00:00 now\)"):
        parse_at("2026-11-30 18:00", NOW)
    assert parse_at("2026-12-01T12:00:00Z", NOW) == NOW  # now is not the past


@pytest.mark.parametrize("text", ["tomorrow", "", "24/12/2026 18:00", "2026-13-01 10:00",
                                  "18:00"])
def test_text_that_is_no_time_is_refused_saying_how_to_write_one(text: str) -> None:
    with pytest.raises(TimetableError, match=r"is not a time: write it as \"2026-12-24 18:00\""):
        parse_at(text, NOW)


@pytest.mark.parametrize(("text", "seconds"), [
    ("24h", 86_400), ("30m", 1800), ("7d", 604_800), ("90s", 90), ("1w", 604_800),
    ("1h30m", 5400), (" 2H ", 7200), ("1d 12h", 129_600), ("1s", 1)])
def test_a_period_is_numbers_and_units(text: str, seconds: int) -> None:
    assert parse_every(text) == seconds


@pytest.mark.parametrize("text", ["24", "h", "1.5h", "-1h", "1y", "", "daily", "1h and 2m"])
def test_text_that_is_no_period_is_refused_saying_how_to_write_one(text: str) -> None:
    with pytest.raises(TimetableError, match="is not a period: write a number and a unit"):
        parse_every(text)


def test_a_period_of_nothing_is_refused() -> None:
    with pytest.raises(TimetableError, match="a period must be at least 1 s"):
        parse_every("0s")


@pytest.mark.parametrize(("seconds", "text"), [
    (86_400, "1d"), (5400, "1h30m"), (90, "1m30s"), (604_800, "1w"), (None, "-")])
def test_a_period_reads_back_as_written(seconds: int | None, text: str) -> None:
    assert period_text(seconds) == text
    if seconds is not None:
        assert parse_every(text) == seconds


def test_editions_a_day_or_more_apart_are_named_by_their_local_date(berlin: None) -> None:
    late = datetime(2026, 12, 24, 23, 30, tzinfo=UTC)  # 00:30 on the 25th in Berlin
    assert edition_name("spring", late, 86_400) == "spring-2026-12-25"
    assert edition_name("spring", late, 7 * 86_400) == "spring-2026-12-25"
    assert edition_name("spring", late, None) == "spring-2026-12-25"


def test_editions_less_than_a_day_apart_are_named_by_their_local_minute(berlin: None) -> None:
    assert edition_name("hourly", datetime(2026, 12, 24, 17, 5, 59, tzinfo=UTC), 3600) == \
        "hourly-2026-12-24-1805"


def test_the_next_edition_is_one_period_on() -> None:
    assert next_due(NOW, 3600, NOW) == NOW + timedelta(hours=1)
    assert next_due(NOW, 3600, NOW + timedelta(minutes=59)) == NOW + timedelta(hours=1)
    assert next_due(NOW, None, NOW) is None


def test_editions_a_stopped_server_missed_are_not_made_up_for() -> None:
    three_days_later = NOW + timedelta(days=3, hours=2)
    assert next_due(NOW, 86_400, three_days_later) == NOW + timedelta(days=4)
    on_the_grid = NOW + timedelta(days=3)
    assert next_due(NOW, 86_400, on_the_grid) == NOW + timedelta(days=4)


@pytest.mark.parametrize(("share", "tables", "expected"), [
    (0.5, 4, 2), (0.5, 5, 2), (0.25, 8, 2), (0.1, 4, 1), (1.0, 4, 4), (0.3, 10, 3),
    (0.5, 1, 1)])
def test_an_edition_plays_on_its_share_of_the_tables_at_least_one(
        share: float, tables: int, expected: int) -> None:
    assert share_tables(share, tables) == expected


def test_the_share_comes_out_of_the_settings() -> None:
    plain = timetable_settings({"table_size": 3})
    assert (plain.share, plain.tournament.table_size) == (DEFAULT_SHARE, 3)
    assert timetable_settings({"share": 0.25}).share == 0.25
    for bad in (0, 1.5, "half", True):
        with pytest.raises(TimetableError, match="share: must be a number above 0"):
            timetable_settings({"share": bad})
    with pytest.raises(SettingsError, match="unknown setting"):
        timetable_settings({"shares": 0.5})



def test_each_edition_deals_its_own_cards_and_the_same_edition_deals_the_same_again() -> None:
    from arena.tournament.timetable import edition_schedule

    settings = {"table_size": 2, "seed": 7}
    first, first_games = edition_schedule(settings, {}, ["a", "b", "c"], "cup-2026-12-01")
    second, second_games = edition_schedule(settings, {}, ["a", "b", "c"], "cup-2026-12-08")
    again, again_games = edition_schedule(settings, {}, ["a", "b", "c"], "cup-2026-12-01")
    assert len({first.seed, second.seed, 7}) == 3 and again.seed == first.seed
    assert [g.seed for g in first_games] != [g.seed for g in second_games]
    assert [g.seed for g in first_games] == [g.seed for g in again_games]
