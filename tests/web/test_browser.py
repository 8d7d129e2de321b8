"""The web front in a real headless browser: Debian's chromium, driven by Playwright,
against uvicorn serving the front of a real match server.

Every page loads with no script error and no request leaving the site; axe-core (npm,
`make web-axe`) finds no serious or critical violation on any of them; a leaderboard
follows a game's end within 2 s without a reload; the replay steps; a second author is
refused the first's private pages; a leaderboard's rating chart is drawn, passes axe, and
follows a game's end. Screenshots go to test-artifacts/web/.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.services.recent import FRESH_FOR
from arena.v1 import admin_pb2
from arena.web import WebSettings, create_app
from tests.support import ROOT, chromium, free_port
from tests.web.web_support import HOSTILE, TOURNAMENT, Served, bot_archive

pytestmark = pytest.mark.timeout(180)

AXE = ROOT / "tests" / "web" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
ARTIFACTS = ROOT / "test-artifacts" / "web"
ONE_HAND = '{"target_score": null}'
SERIOUS = ("serious", "critical")
AXE_PATH = "/axe-core-under-test.js"
SCREENSHOTS = ("leaderboard", "game", "me", "private-game")
"""The pages whose whole-page screenshots are kept (the rating chart's is its own test's)."""


class Uvicorn:
    """The web front served by uvicorn in a thread of its own."""

    def __init__(self, settings: WebSettings) -> None:
        import uvicorn

        self.port = free_port()
        config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=self.port,
                                log_level="warning", lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=lambda: asyncio.run(self.server.serve()),
                                       daemon=True, name="web-test-uvicorn")

    @property
    def url(self) -> str:
        """The front's origin."""
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Uvicorn:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture(scope="module")
def front(served: Served) -> Iterator[Uvicorn]:
    with Uvicorn(WebSettings(served.address, served.token("vera"), poll_seconds=0.25)) as up:
        yield up


@pytest.fixture(scope="module")
def browser(front: Uvicorn) -> Iterator[Any]:
    if not AXE.exists():
        pytest.skip(f"no {AXE} (make web-axe installs it with npm)")
    with chromium() as launched:
        yield launched


class Visit:
    """A browser context on the front: every request it made, every script error."""

    def __init__(self, browser: Any, front: Uvicorn) -> None:
        self.front = front
        self.context = browser.new_context(viewport={"width": 1200, "height": 900})
        # axe-core is handed to the page as a script of the site's own origin, so that the
        # page's Content-Security-Policy (no inline script) stays in force while it runs.
        self.context.route(front.url + AXE_PATH, lambda route: route.fulfill(
            path=str(AXE), content_type="text/javascript"))
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.page = self.context.new_page()
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", lambda message: self.errors.append(message.text)
                     if message.type == "error" else None)

    def open(self, path: str) -> int:
        """Open `path`; its HTTP status."""
        answer = self.page.goto(self.front.url + path)
        assert answer is not None
        return int(answer.status)

    def sign_in(self, token: str | None) -> None:
        """Sign in through the form."""
        self.open("/login")
        self.page.fill("#token", token or "")
        self.page.click("form[action='/login'] button")
        self.page.wait_for_url("**/me")

    def serious_violations(self) -> list[str]:
        """axe-core's serious and critical findings on the open page."""
        self.page.add_script_tag(url=self.front.url + AXE_PATH)
        found = self.page.evaluate("axe.run(document, {resultTypes: ['violations']})")
        return [f"{v['id']} ({v['impact']}): {v['help']} — {[n['target'] for n in v['nodes']]}"
                for v in found["violations"] if v["impact"] in SERIOUS]

    def left_the_origin(self) -> list[str]:
        """Requests to anywhere but the front."""
        return [url for url in self.requests if not url.startswith(self.front.url + "/")]

    def close(self) -> None:
        """Close the context."""
        self.context.close()


def _pages(served: Served) -> dict[str, str]:
    game = served.seeded.alice_game
    return {"home": "/", "leaderboard": f"/pool?tournament={TOURNAMENT}",
            "crosstable": f"/pool/crosstable?tournament={TOURNAMENT}",
            "stats": f"/pool/stats?tournament={TOURNAMENT}", "tournaments": "/tournaments",
            "tournament": f"/tournaments/{TOURNAMENT}", "games": "/games",
            "game": f"/games/{game}", "tables": "/tables", "bots": "/bots",
            "login": "/login"}


def _author_pages(served: Served) -> dict[str, str]:
    return {"me": "/me", "private-game": f"/games/{served.seeded.alice_game}?as=greedy@1",
            "versions": "/bots/greedy", "bot-log": "/bots/greedy@1/log", "audit": "/audit"}


def test_every_page_loads_in_chromium_and_axe_finds_nothing_serious(
        browser: Any, front: Uvicorn, served: Served) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    visit = Visit(browser, front)
    try:
        findings: dict[str, list[str]] = {}

        def check(name: str, path: str) -> None:
            assert visit.open(path) == 200, path
            findings[name] = visit.serious_violations()
            if name in SCREENSHOTS:
                visit.page.screenshot(path=str(ARTIFACTS / f"{name}.png"))

        for name, path in _pages(served).items():
            check(name, path)
        visit.sign_in(served.token("alice"))
        for name, path in _author_pages(served).items():
            check(name, path)
        assert visit.errors == [], "no script error, nothing the CSP refused"
        assert visit.left_the_origin() == []
        assert {name: found for name, found in findings.items() if found} == {}
    finally:
        visit.close()


def test_the_leaderboard_follows_a_games_end_without_a_reload(
        browser: Any, front: Uvicorn, served: Served) -> None:
    match = admin_pb2.PlayMatchRequest(bots=["greedy@1", "rnd"], games=1, seed=11,
                                       rules_json=ONE_HAND)
    served.call("PlayMatch", match)
    pool = next(p for p in served.call("ListPools", admin_pb2.ListPoolsRequest()).pools
                if p.key.startswith("rules:") and p.key.endswith(":2"))
    visit = Visit(browser, front)
    try:
        assert visit.open(f"/pool?key={pool.key}") == 200
        caption = visit.page.locator("#leaderboard caption")
        before = caption.inner_text()
        assert f"after {pool.games} games" in before
        visit.page.wait_for_timeout(600)  # the page's event stream is open
        asked = len(visit.requests)
        served.call("PlayMatch", admin_pb2.PlayMatchRequest(
            bots=["greedy@1", "rnd"], games=1, seed=12, rules_json=ONE_HAND))
        ended = time.monotonic()
        # The match's duplicate pair is two games: both are on the table within 2 s.
        visit.page.wait_for_function(
            "text => document.querySelector('#leaderboard caption').textContent.includes(text)",
            arg=f"after {pool.games + 2} games", timeout=2000)
        assert time.monotonic() - ended < 2.0
        assert visit.requests[asked:] == [], "the table came with the update, not fetched"
        assert visit.page.url.endswith(f"/pool?key={pool.key}"), "no reload, no navigation"
        visit.page.screenshot(path=str(ARTIFACTS / "leaderboard-live.png"), full_page=True)
        assert visit.errors == [] and visit.left_the_origin() == []
    finally:
        visit.close()


CHART_AS_DRAWN = """() => {
  const chart = document.querySelector("#chart svg.chart");
  const box = chart.getBoundingClientRect();
  return {width: box.width, height: box.height, label: chart.getAttribute("aria-label"),
          bots: Array.from(chart.querySelectorAll("g.series"), g => g.dataset.bot),
          lineFill: getComputedStyle(chart.querySelector("polyline.mu")).fill,
          bandOpacity: getComputedStyle(chart.querySelector("polygon.band")).fillOpacity};
}"""
"""What the browser drew of a leaderboard page's rating chart."""


def test_the_leaderboards_rating_chart_is_drawn_accessible_and_follows_the_games(
        browser: Any, front: Uvicorn, served: Served) -> None:
    served.call("PlayMatch", admin_pb2.PlayMatchRequest(
        bots=["greedy@1", "rnd", HOSTILE], games=1, seed=21, rules_json=ONE_HAND))
    time.sleep(FRESH_FOR + 0.2)  # the server's kept answers now say the match was played
    pool = next(p for p in served.call("ListPools", admin_pb2.ListPoolsRequest()).pools
                if p.key.startswith("rules:") and p.key.endswith(":3"))
    rows = served.call("GetRankings", admin_pb2.GetRankingsRequest(pool=pool.key)).rows
    visit = Visit(browser, front)
    try:
        assert visit.open(f"/pool?key={pool.key}") == 200
        # Read in one evaluation: a game's end may refresh the chart between two reads.
        drawn = visit.page.evaluate(CHART_AS_DRAWN)
        assert drawn["width"] > 400 and drawn["height"] > 150, drawn
        assert drawn["bots"] == [row.bot for row in rows], \
            "one line per bot, in the leaderboard's order"
        assert drawn["label"] == (
            f"rating of each bot over the {pool.games} games of {pool.description}")
        # The page's style sheet reached the SVG: lines are stroked, bands are faint.
        assert (drawn["lineFill"], drawn["bandOpacity"]) == ("none", "0.13")
        assert visit.serious_violations() == []
        visit.page.locator("#chart svg.chart").screenshot(
            path=str(ARTIFACTS / "rating-chart.png"))
        visit.page.wait_for_timeout(600)  # the page's event stream is open
        served.call("PlayMatch", admin_pb2.PlayMatchRequest(
            bots=["greedy@1", "rnd", HOSTILE], games=1, seed=22, rules_json=ONE_HAND))
        ended = time.monotonic()
        now = next(p for p in served.call("ListPools", admin_pb2.ListPoolsRequest()).pools
                   if p.key == pool.key)
        assert now.games > pool.games
        visit.page.wait_for_function(
            "text => document.querySelector('#chart svg').getAttribute('aria-label')"
            ".includes(text)", arg=f"over the {now.games} games", timeout=2000)
        assert time.monotonic() - ended < 2.0
        assert visit.page.url.endswith(f"/pool?key={pool.key}"), "no reload, no navigation"
        assert visit.errors == [] and visit.left_the_origin() == []
    finally:
        visit.close()


def test_the_replay_steps_through_a_game(browser: Any, front: Uvicorn, served: Served) -> None:
    visit = Visit(browser, front)
    try:
        assert visit.open(f"/games/{served.seeded.alice_game}") == 200
        at = visit.page.locator("#step-at")
        assert at.inner_text().startswith("step 1 of ")
        assert visit.page.locator("#steps li.current").count() == 1
        visit.page.click("#step-next")
        visit.page.click("#step-next")
        assert at.inner_text().startswith("step 3 of ")
        counts = visit.page.locator("#board .count").all_inner_texts()
        assert len(counts) == 3 and all(text.isdigit() for text in counts)
        visit.page.click("#step-last")
        total = int(at.inner_text().split(" of ")[1].split(":")[0])
        assert at.inner_text().startswith(f"step {total} of {total}")
        visit.page.click("#step-back")
        assert at.inner_text().startswith(f"step {total - 1} of ")
        visit.page.screenshot(path=str(ARTIFACTS / "replay.png"), full_page=True)
        assert visit.errors == []
    finally:
        visit.close()


def test_a_second_author_cannot_open_the_firsts_private_pages(
        browser: Any, front: Uvicorn, served: Served) -> None:
    visit = Visit(browser, front)
    try:
        visit.sign_in(served.token("bob"))
        for path in (f"/games/{served.seeded.alice_game}?as=greedy@1", "/bots/greedy",
                     "/bots/greedy@1/log"):
            assert visit.open(path) == 403, path
            assert "not yours" in visit.page.locator("main").inner_text().lower() or \
                "Not yours to see" in visit.page.locator("h1").inner_text()
        visit.open("/bots")
        assert HOSTILE in visit.page.locator("main").inner_text(), "shown as text"
    finally:
        visit.close()


def test_an_author_uploads_a_bot_follows_its_build_and_finds_it_on_the_leaderboard(
        browser: Any, front: Uvicorn, served: Served, tmp_path: Path) -> None:
    archive = tmp_path / "browserbot.tar.gz"
    archive.write_bytes(bot_archive("browserbot"))
    visit = Visit(browser, front)
    try:
        visit.sign_in(served.token("alice"))
        visit.page.set_input_files("#archive", str(archive))
        visit.page.click("form[action='/me/submit'] button")
        visit.page.wait_for_url("**/bots/browserbot?version=1")
        visit.page.wait_for_function(  # the page follows the build without a reload
            "() => document.querySelector('[data-status]').dataset.status !== 'building'",
            timeout=60_000)
        assert visit.page.locator("[data-status]").inner_text() == "ok", \
            visit.page.locator("pre.log").inner_text()
        progress = served.call("PlayMatch", admin_pb2.PlayMatchRequest(
            bots=["browserbot@1", "rnd"], games=1, seed=5, rules_json=ONE_HAND))
        assert visit.open(f"/pool?tournament={progress[-1].tournament}") == 200
        assert "browserbot@1" in visit.page.locator("#leaderboard").inner_text()
        assert visit.errors == [] and visit.left_the_origin() == []
    finally:
        visit.close()
