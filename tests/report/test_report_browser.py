"""The report in a real headless browser: Debian's chromium, driven by Playwright.

The tournament of `conftest.played` is reported by `arena report`, and chromium
opens the page from disk. The screenshot is kept in test-artifacts/report.png.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from arena.report.replay import frames
from arena.store import Store
from tests.cli.cli_support import ok
from tests.report.report_support import TOURNAMENT, Played, copy_database
from tests.support import ROOT, chromium

pytestmark = pytest.mark.timeout(120)

HOSTILE = "<script>alert(1)</script>"
SCREENSHOT = ROOT / "test-artifacts" / "report.png"


@pytest.fixture(scope="module")
def browser(played: Played) -> Iterator[Any]:
    """Chromium, started once the tournament is played: Playwright's driver keeps an
    event loop running in this thread, where the CLI's own could not start."""
    with chromium() as launched:
        yield launched


class Opened:
    """A page of the report open in the browser, with every request it made and every
    dialog and script error it raised."""

    def __init__(self, browser: Any, path: Path) -> None:
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.page = browser.new_page(viewport={"width": 1200, "height": 900})
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on("dialog", self._dialog)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.url = path.resolve().as_uri()
        self.page.goto(self.url)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def seat_counts(self) -> list[int]:
        """The card count each seat of the replay shows."""
        return [int(text) for text in self.page.locator("#viewer .seat .count").all_inner_texts()]

    def board(self) -> str:
        """The replay's board as text, and the classes that mark its seats."""
        seats = self.page.locator("#viewer .seat")
        marks = [seats.nth(i).get_attribute("class") for i in range(seats.count())]
        return f"{self.page.locator('#viewer').inner_text()} {marks}"


@pytest.fixture()
def opened(browser: Any, played: Played) -> Iterator[Opened]:
    page = Opened(browser, played.page)
    try:
        yield page
    finally:
        page.page.close()


def test_the_leaderboard_lists_every_bot_in_the_order_of_the_rankings(
        opened: Opened, played: Played) -> None:
    rows = opened.page.locator("tr.standing")
    assert [rows.nth(i).get_attribute("data-bot") for i in range(rows.count())] == \
        played.ranking_order
    names = opened.page.locator("tr.standing td.bot").all_inner_texts()
    assert [name.strip() for name in names] == played.ranking_order
    assert opened.errors == []


def test_stepping_a_replay_forward_changes_the_board_and_back_restores_it(
        opened: Opened, played: Played) -> None:
    first = opened.board()
    opened.page.click("#viewer [data-go=next]")
    second = opened.board()
    assert second != first
    with Store.open(played.db, read_only=True) as store:
        game_id = min(g.id for g in store.games(tournament=TOURNAMENT))
        shown = frames(store.get_game(game_id).game_record())
    assert opened.seat_counts() == list(shown[1].hand_counts)
    assert opened.page.locator("#viewer .event").inner_text() == shown[1].text
    opened.page.click("#viewer [data-go=prev]")
    assert opened.board() == first


def test_a_game_chosen_from_the_list_is_replayed_to_its_last_event(
        opened: Opened, played: Played) -> None:
    buttons = opened.page.locator("button[data-game]")
    last = buttons.nth(buttons.count() - 1)
    game_id = int(last.get_attribute("data-game"))
    last.click()
    opened.page.click("#viewer [data-go=last]")
    assert opened.page.locator("#viewer select").input_value() == str(game_id)
    assert opened.page.locator("#viewer .event").inner_text().startswith("game over")


def test_the_page_makes_no_request_but_its_own_and_a_screenshot_is_kept(
        opened: Opened) -> None:
    for _ in range(14):
        opened.page.click("#viewer [data-go=next]")
    opened.page.wait_for_load_state("networkidle")
    SCREENSHOT.parent.mkdir(exist_ok=True)
    opened.page.screenshot(path=str(SCREENSHOT), full_page=True)
    assert opened.requests == [opened.url]
    assert SCREENSHOT.stat().st_size > 10_000


def test_a_bot_named_like_a_script_is_shown_as_text_and_never_run(
        browser: Any, played: Played, tmp_path: Path) -> None:
    db = copy_database(played.db, tmp_path / "arena.db")
    with closing(sqlite3.connect(db)) as connection, connection:
        # The store refuses such a name; a page must stay safe even if one got in.
        connection.execute("UPDATE bots SET name = ? WHERE name = 'rnd'", (HOSTILE,))
    page = tmp_path / "report.html"
    ok(db, "report", TOURNAMENT, "-o", str(page))
    assert HOSTILE not in page.read_text(encoding="utf-8")
    hostile = Opened(browser, page)
    try:
        assert hostile.dialogs == [] and hostile.errors == []
        names = [n.strip() for n in hostile.page.locator("tr.standing td.bot").all_inner_texts()]
        assert HOSTILE in names
        assert HOSTILE in hostile.page.locator("#viewer .seats").inner_text() or \
            HOSTILE in hostile.page.locator("#viewer select").inner_text()
    finally:
        hostile.page.close()
