"""What a report holds, and the page it becomes: self-contained, and escaped throughout."""

from __future__ import annotations

import json
import re
import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from arena import rankings
from arena.chart import STYLE as CHART_STYLE
from arena.chart import nice_ticks
from arena.rating import pools as rating_pools
from arena.record import SeatTermination
from arena.report import Report, gather, render
from arena.report.html import frame_json, script_json
from arena.store import Store
from tests.cli.cli_support import ok
from tests.report.report_support import TOURNAMENT, Played, copy_database

MADE_AT = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def _report(db: Path) -> Report:
    with Store.open(db, read_only=True) as store:
        return gather(store, TOURNAMENT, MADE_AT)


@pytest.fixture(scope="module")
def report(played: Played) -> Report:
    return _report(played.db)


def test_each_bots_rating_history_runs_from_the_initial_rating_to_its_rating_now(
        report: Report, played: Played) -> None:
    with Store.open(played.db, read_only=True) as store:
        key = rating_pools.tournament_pool(TOURNAMENT)
        start = store.pool(key).parameters.initial_skill
        now = {r.bot: r for r in store.ratings(pool=key)}
    assert [h.bot for h in report.histories] == played.ranking_order
    for history in report.histories:
        first, last = history.points[0], history.points[-1]
        assert (first.game, first.mu, first.sigma) == (0, start.mu, start.sigma)
        assert (last.mu, last.sigma) == (now[history.bot].mu, now[history.bot].sigma)
        assert len(history.points) == now[history.bot].games + 1
        assert [p.game for p in history.points] == sorted({p.game for p in history.points})


def test_each_game_is_shown_under_the_id_every_command_takes(report: Report) -> None:
    page = render(report)
    assert [g.public_id for g in report.games] == [f"{TOURNAMENT}:{i}" for i in range(6)]
    for game in report.games:
        assert f'<td class="name">{game.public_id}</td>' in page
        assert f">game {game.public_id}: " in page


def test_every_game_of_the_tournament_is_there_oldest_first_with_its_replay(
        report: Report) -> None:
    assert report.games_done == report.games_total == len(report.games) == 6
    assert [g.game_id for g in report.games] == sorted(g.game_id for g in report.games)
    for game in report.games:
        assert game.problem is None
        assert game.frames[-1].text.startswith("game over")


def test_every_seat_of_every_game_is_counted_once_in_the_terminations(
        report: Report) -> None:
    seats = sum(len(game.seats) for game in report.games)
    assert sum(sum(row.counts.values()) for row in report.seat_endings) == seats
    assert report.game_endings == {"single_hand": 6}


def test_the_leaderboard_is_the_pools_own(report: Report, played: Played) -> None:
    with Store.open(played.db, read_only=True) as store:
        ranking = rankings.pool_ranking(store, rating_pools.tournament_pool(TOURNAMENT))
    assert report.ranking == ranking


def test_the_page_refers_to_nothing_outside_itself(report: Report) -> None:
    page = render(report)
    assert "http://" not in page and "https://" not in page
    assert re.findall(r"\ssrc\s*=", page) == []
    assert {href for href in re.findall(r'href="([^"]*)"', page)} <= {
        "#leaderboard", "#crosstable", "#ratings", "#seats", "#terminations", "#games"}
    assert "<link" not in page and "@import" not in page and "url(" not in page
    assert CHART_STYLE in page, "the chart's style sheet is inlined with the page's own"


def test_the_page_carries_every_frame_of_every_game_as_changes_from_the_one_before(
        report: Report) -> None:
    page = render(report)
    block = re.search(r'<script type="application/json" id="games-data">(.*?)</script>',
                      page, re.S)
    assert block is not None
    games = json.loads(block.group(1))
    assert [g["id"] for g in games] == [g.game_id for g in report.games]
    for carried, game in zip(games, report.games, strict=True):
        rebuilt: list[dict[str, Any]] = []
        previous: dict[str, Any] = {}
        for change in carried["frames"]:
            previous = {**{k: v for k, v in previous.items() if k != "rev"}, **change}
            rebuilt.append(previous)
        assert rebuilt == [frame_json(frame) for frame in game.frames]
    assert sum(len(json.dumps(f)) for g in games for f in g["frames"]) < sum(
        len(json.dumps(frame_json(f))) for g in report.games for f in g.frames) * 0.7


def test_json_in_a_script_element_cannot_end_it_or_open_a_comment() -> None:
    text = script_json({"name": "</script><!-- & \u2028"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"name": "</script><!-- & \u2028"}


def test_a_forfeit_is_counted_and_flagged_on_its_bot_and_its_game(
        played: Played, tmp_path: Path) -> None:
    db = copy_database(played.db, tmp_path / "arena.db")
    with closing(sqlite3.connect(db)) as connection, connection:
        connection.execute(
            "UPDATE game_seats SET termination = 'timeout' WHERE game_id = 1 AND seat = 0")
        [bot] = connection.execute("SELECT b.name FROM game_seats s JOIN bots b ON "
                                   "b.id = s.bot_id WHERE game_id = 1 AND seat = 0").fetchone()
    report = _report(db)
    [row] = [row for row in report.seat_endings if row.bot == bot]
    assert row.counts[SeatTermination.TIMEOUT] == 1
    page = render(report)
    assert '<th>timeout</th>' in page
    assert f'<span class="bad">{bot}: timeout</span>' in page


def test_a_tournament_not_played_yet_has_a_page_that_says_so(played: Played,
                                                             tmp_path: Path) -> None:
    db = copy_database(played.db, tmp_path / "arena.db")
    ok(db, "tournament", "create", "later", "greedy", "rnd", "--table-size", "2")
    with Store.open(db, read_only=True) as store:
        report = gather(store, "later", MADE_AT)
    assert (report.ranking, report.games, report.histories) == (None, (), ())
    page = render(report)
    assert "No rated game yet" in page and "No games yet" in page


def test_a_stored_game_that_does_not_replay_is_listed_with_the_reason_and_no_frames(
        played: Played, tmp_path: Path) -> None:
    db = copy_database(played.db, tmp_path / "arena.db")
    with closing(sqlite3.connect(db)) as connection, connection:
        connection.execute("UPDATE games SET seed = seed + 1 WHERE id = 1")
    report = _report(db)
    [broken] = [game for game in report.games if game.game_id == 1]
    assert broken.frames == ()
    assert broken.problem is not None and "cannot be replayed" in broken.problem
    assert all(game.frames for game in report.games if game.game_id != 1)
    page = render(report)
    assert '<span class="bad" title="this game cannot be replayed: ' in page
    assert page.count(">no replay</span>") == 1


@pytest.mark.parametrize(("low", "high"), [(0.3, 0.9), (12.3, 41.7), (-7.2, 3.1), (5, 5),
                                           (0, 250)])
def test_chart_ticks_are_round_and_cover_the_range(low: float, high: float) -> None:
    ticks = nice_ticks(low, high)
    assert ticks[0] <= low and ticks[-1] >= high
    steps = {round(b - a, 9) for a, b in zip(ticks, ticks[1:], strict=False)}
    assert len(steps) == 1
    assert 3 <= len(ticks) <= 12
