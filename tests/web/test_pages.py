"""The web front over HTTP (Starlette's TestClient) against a real match server: every
read page, the permission matrix walked page by page against the server's table, escaped
names, CSRF refusals, the sign-in limit, cookies, uploads and the live feed."""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import re
import time
from collections.abc import AsyncIterator, Iterator

import grpc
import pytest
from starlette.requests import Request
from starlette.testclient import TestClient

from arena.server.permissions import RULES
from arena.services.recent import FRESH_FOR
from arena.v1 import admin_pb2
from arena.web import WebSettings, create_app, pages
from arena.web.client import AdminClient, answer_for
from arena.web.front import MAX_UPLOAD_BYTES
from arena.web.live import GameFeed, Update, event_stream, part_event
from tests.server.test_permissions import expected_refused
from tests.web.web_support import HOSTILE, ONE_HAND, TOURNAMENT, Served, bot_archive

pytestmark = pytest.mark.timeout(120)

ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"
CALLER_OF = {"nobody": "nobody", "vera": "viewer", "bob": "other", "alice": "owner",
             "organizer": "organizer"}
"""The web tests' people → their part in `tests.server.test_permissions`' matrix."""


def client_for(served: Served, anonymous: str | None = "vera", **options: object
               ) -> TestClient:
    """A web front of `served` whose anonymous visitors call as `anonymous`."""
    settings = WebSettings(served.address, served.token(anonymous) if anonymous else None,
                           **options)  # type: ignore[arg-type]
    return TestClient(create_app(settings))


def csrf_of(page: str) -> str:
    """The CSRF token a page's forms carry."""
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, "the page has a form with its CSRF token"
    return found.group(1)


def sign_in(web: TestClient, token: str | None) -> None:
    """Sign `web`'s visitor in with `token`."""
    form = web.get("/login")
    answer = web.post("/login", data={"csrf": csrf_of(form.text), "token": token or ""},
                      follow_redirects=False)
    assert answer.status_code == 303, answer.text


@pytest.fixture(scope="module")
def web(served: Served) -> Iterator[TestClient]:
    with client_for(served) as client:
        yield client


READ_PAGES = {
    "/": "Leaderboards",
    f"/pool?tournament={TOURNAMENT}": "μ − 3σ",
    f"/pool/crosstable?tournament={TOURNAMENT}": "W-L-D",
    f"/pool/stats?tournament={TOURNAMENT}": "Seat",
    f"/pool/chart?tournament={TOURNAMENT}": '<svg class="chart"',
    "/tournaments": TOURNAMENT,
    f"/tournaments/{TOURNAMENT}": "The schedule",
    "/games": "Stored games",
    f"/games?tournament={TOURNAMENT}": "Games of cup",
    "/tables": "Tables in play",
    "/bots": "greedy@1",
}


@pytest.mark.parametrize("path", READ_PAGES)
def test_every_read_page_is_served_whole_without_javascript(web: TestClient, path: str
                                                            ) -> None:
    answer = web.get(path)
    assert answer.status_code == 200, answer.text
    assert READ_PAGES[path] in answer.text
    assert answer.headers["content-security-policy"].startswith("default-src 'self'")
    assert "<script>" not in answer.text.replace('<script src="/static/live.js" defer>', "")


def test_a_games_page_replays_its_public_events(web: TestClient, served: Served) -> None:
    page = web.get(f"/games/{served.seeded.alice_game}")
    assert page.status_code == 200
    steps = re.findall(r'<li class="public"', page.text)
    assert len(steps) > 3, "every public event is a step of the replay"
    assert 'class="private"' not in page.text, "the public view shows no hand"


def test_names_are_shown_as_text_never_as_markup(web: TestClient, served: Served) -> None:
    for path in (f"/pool?tournament={TOURNAMENT}", "/bots", f"/tournaments/{TOURNAMENT}",
                 f"/games/{served.seeded.alice_game}", "/games"):
        text = web.get(path).text
        assert HOSTILE not in text, path
        assert ESCAPED in text, path


SERIES = re.compile(r'<g class="series" data-bot="([^"]*)">\s*<polygon class="band" '
                    r'fill="[^"]+" points="([^"]+)"/>\s*<polyline class="mu" stroke="[^"]+" '
                    r'points="([^"]+)"/>\s*<circle[^>]*><title>([^<]*)</title>')
ROW_BOT = re.compile(r'<td><a href="/games\?bot=[^"]*">([^<]*)</a></td>')


def test_the_leaderboard_page_draws_each_bots_rating_after_each_of_its_games(
        web: TestClient, served: Served) -> None:
    page = web.get(f"/pool?tournament={TOURNAMENT}").text
    rows = served.call("GetRankings", admin_pb2.GetRankingsRequest(tournament=TOURNAMENT)).rows
    assert ROW_BOT.findall(page) == [html.escape(row.bot) for row in rows]
    chart = page[page.index('<svg class="chart"'):page.index("</svg>")]
    series = SERIES.findall(chart)
    assert [bot for bot, *_ in series] == [html.escape(row.bot) for row in rows], \
        "one line per bot, in the leaderboard's order"
    for (_, band, line, title), row in zip(series, rows, strict=True):
        corners = [tuple(float(v) for v in pair.split(",")) for pair in line.split()]
        # A step line: two corners for each point, the starting rating and each game.
        assert len(corners) == 2 * (row.games + 1)
        assert len(band.split()) == 2 * len(corners)
        assert corners[0][0] == chart_left(chart), "from the pool's initial rating at 0"
        assert corners[-1][0] == max(x for x, _ in corners), "held to the pool's last game"
        assert title.endswith(f"μ {row.mu:.2f}, σ {row.sigma:.2f} after {row.games} games")
    assert f"{len(rows)} bots, after {served.seeded.games} games" in page


def test_the_chart_is_styled_by_the_style_sheet_the_report_inlines(web: TestClient) -> None:
    from arena.chart import STYLE
    from arena.report.assets import STYLE as REPORT_STYLE

    page = web.get(f"/pool?tournament={TOURNAMENT}").text
    assert '<link rel="stylesheet" href="/chart.css">' in page
    answer = web.get("/chart.css")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/css")
    assert answer.text == STYLE and ".chart .mu" in STYLE
    assert ".chart" not in REPORT_STYLE and ".chart" not in web.get("/static/arena.css").text


def test_a_leaderboards_table_is_rendered_once_for_each_answer_whoever_asks(
        served: Served) -> None:
    served.call("PlayMatch", admin_pb2.PlayMatchRequest(
        bots=["greedy@1", "rnd"], games=1, seed=31, rules_json=ONE_HAND))
    time.sleep(FRESH_FOR + 0.2)  # the server's kept answers now say the match was played
    pool = next(p for p in served.call("ListPools", admin_pb2.ListPoolsRequest()).pools
                if p.key.startswith("rules:") and p.key.endswith(":2"))
    path = f"/pool?key={pool.key}"
    with client_for(served) as web, client_for(served) as signed:
        sign_in(signed, served.token("alice"))
        parts = web.app.state.front.parts  # type: ignore[attr-defined]
        first = web.get(path).text
        made = parts.rendered
        assert web.get(path).text.count("<tr") == first.count("<tr")
        assert web.get(path + "&fragment=1").status_code == 200
        assert parts.rendered == made, "the same answer is not rendered again"
        signed_page = signed.get(path).text
        assert table_of(signed_page) == table_of(first)
        served.call("PlayMatch", admin_pb2.PlayMatchRequest(
            bots=["greedy@1", "rnd"], games=1, seed=32, rules_json=ONE_HAND))
        deadline = time.monotonic() + 10
        while f"after {pool.games + 2} games" not in (page := web.get(path).text):
            assert time.monotonic() < deadline, "the new games reach the table"
            time.sleep(0.2)
        assert parts.rendered > made and table_of(page) != table_of(first)


def table_of(page: str) -> str:
    """The leaderboard table of a page."""
    return page[page.index('<table class="leaderboard">'):page.index("</table>")]


def chart_left(chart: str) -> float:
    """The x of game 0: the left end of the chart's grid lines."""
    found = re.search(r'<line class="grid" x1="([0-9.]+)"', chart)
    assert found
    return float(found.group(1))


PRIVATE_PAGES = {
    "/games/{game}?as=greedy@1": "GetGame",
    "/bots/greedy": "ListBotVersions",
    "/bots/greedy@1/log": "GetBotLog",
    "/audit": "ListAudit",
    f"/pool?tournament={TOURNAMENT}": "GetRankings",
    f"/pool/chart?tournament={TOURNAMENT}": "GetRatingHistory",
    "/tables": "ListTables",
}
"""Pages → the RPC whose rule decides who may open them."""


@pytest.mark.parametrize("who", list(CALLER_OF))
def test_each_page_answers_each_caller_as_the_servers_permission_table_says(
        served: Served, who: str) -> None:
    with client_for(served, anonymous=None) as web:
        if who != "nobody":
            sign_in(web, served.token(who))
        for pattern, method in PRIVATE_PAGES.items():
            path = pattern.format(game=served.seeded.alice_game)
            refused = expected_refused(method, CALLER_OF[who])
            expected = (401 if who == "nobody" else 403) if refused else 200
            answer = web.get(path)
            assert answer.status_code == expected, (who, path, RULES[method], answer.text)
            if refused:
                assert "problem" in answer.text and "<h1>" in answer.text


def test_an_author_sees_their_bots_game_as_their_bot_saw_it(served: Served) -> None:
    with client_for(served) as web:
        sign_in(web, served.token("alice"))
        page = web.get(f"/games/{served.seeded.alice_game}?as=greedy@1")
        assert page.status_code == 200
        assert "greedy@1&#39;s hand:" in page.text, "its own cards"
        assert "decision 0:" in page.text, "its decisions, with their times"
        public = web.get(f"/games/{served.seeded.alice_game}").text
        assert "?as=greedy%401" in public and "?as=rnd" not in public, \
            "links to the views of her own bots only"
        mine = web.get("/me")
        assert mine.status_code == 200 and "alice (author)" in mine.text
        assert served.seeded.alice_game in mine.text


def test_a_form_without_its_csrf_token_is_refused(served: Served) -> None:
    with client_for(served) as web:
        assert web.post("/login", data={"token": served.token("alice")}).status_code == 403
        web.get("/login")
        assert web.post("/login", data={"token": served.token("alice"), "csrf": "forged"
                                        + "x" * 30}).status_code == 403
        sign_in(web, served.token("alice"))
        assert web.post("/logout", data={}).status_code == 403
        assert web.post("/me/submit", files={"archive": ("bot.tar", b"x")}).status_code == 403
        assert web.get("/me").status_code == 200, "the refused sign-out did not sign out"


def test_sign_in_is_limited_to_five_tries_a_minute_per_address(served: Served) -> None:
    with client_for(served) as web:
        csrf = csrf_of(web.get("/login").text)
        codes = [web.post("/login", data={"csrf": csrf, "token": f"wrong-{n}"}).status_code
                 for n in range(6)]
        assert codes == [401] * 5 + [429]
        assert "too many sign-in tries" in web.post(
            "/login", data={"csrf": csrf, "token": served.token("alice")}).text


def test_the_session_cookie_is_httponly_strict_and_secure_over_https(served: Served) -> None:
    with TestClient(create_app(WebSettings(served.address)),
                    base_url="https://testserver") as web:
        form = web.get("/login")
        assert re.search(r"arena_csrf=.*HttpOnly.*Secure|arena_csrf=.*Secure.*HttpOnly",
                         form.headers["set-cookie"], re.I)
        answer = web.post("/login", data={"csrf": csrf_of(form.text),
                                          "token": served.token("alice")},
                          follow_redirects=False)
        cookie = answer.headers["set-cookie"]
        assert cookie.startswith("arena_session=")
        token = served.token("alice")
        assert token is not None and token not in cookie, "the token stays on the server"
        for flag in ("HttpOnly", "Secure", "SameSite=strict"):
            assert flag.lower() in cookie.lower()


def test_an_author_uploads_an_archive_and_follows_its_build(served: Served) -> None:
    with client_for(served) as web:
        sign_in(web, served.token("alice"))
        csrf = csrf_of(web.get("/me").text)
        answer = web.post("/me/submit", data={"csrf": csrf, "name": ""},
                          files={"archive": ("bot.tar.gz", bot_archive("webbot"))},
                          follow_redirects=False)
        assert answer.status_code == 303, answer.text
        assert answer.headers["location"] == "/bots/webbot?version=1"
        page = web.get("/bots/webbot?version=1")
        assert page.status_code == 200 and "Build of webbot@1" in page.text
        fragment = web.get("/bots/webbot?version=1&fragment=1").text
        assert fragment.lstrip().startswith("<h2>Build of webbot@1")
    with client_for(served) as other:
        sign_in(other, served.token("bob"))
        assert other.get("/bots/webbot").status_code == 403


def test_an_upload_over_the_limit_is_refused_before_the_server_sees_it(served: Served
                                                                         ) -> None:
    assert MAX_UPLOAD_BYTES == 64 * 2**20
    with client_for(served, max_upload_bytes=1000) as web:
        sign_in(web, served.token("alice"))
        csrf = csrf_of(web.get("/me").text)
        answer = web.post("/me/submit", data={"csrf": csrf},
                          files={"archive": ("big.tar", b"x" * 200_000)})
        assert answer.status_code == 413 and "over this site&#39;s limit" in answer.text


def test_refusals_become_http_statuses_with_a_sentence() -> None:
    def refusal(code: grpc.StatusCode, details: str) -> grpc.aio.AioRpcError:
        return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details,
                                    None)

    duplicate = answer_for(refusal(grpc.StatusCode.FAILED_PRECONDITION,
                                   "game cup:3 shares its deal"), "GetGame")
    assert (duplicate.status, duplicate.sentence) == (409, "game cup:3 shares its deal")
    assert answer_for(refusal(grpc.StatusCode.PERMISSION_DENIED, "not yours"), "x").status == 403
    assert answer_for(refusal(grpc.StatusCode.NOT_FOUND, "no game"), "x").status == 404
    assert answer_for(refusal(grpc.StatusCode.UNAVAILABLE, ""), "x").status == 503


def test_one_poller_tells_every_listener_when_a_game_ends(served: Served) -> None:
    async def follow() -> tuple[list[str], int]:
        client = AdminClient(served.address)
        await client.open()
        feed = GameFeed(client, served.token("vera"), interval=0.1)
        try:
            async with contextlib_all(feed, 50) as queues:
                await asyncio.sleep(0.3)
                before = feed.polls
                playing = asyncio.create_task(asyncio.to_thread(
                    served.call, "PlayMatch", admin_pb2.PlayMatchRequest(
                        bots=["greedy@1", "rnd"], games=1, seed=3,
                        rules_json='{"target_score": null}')))
                update = await asyncio.wait_for(queues[0].get(), 60)
                while update.kind != "game":
                    update = await asyncio.wait_for(queues[0].get(), 60)
                await playing
                kinds = [update.kind]
                polls = feed.polls - before
                assert all(not queue.empty() for queue in queues[1:])
                return kinds, polls
        finally:
            await feed.stop()
            await client.close()

    kinds, polls = asyncio.run(follow())
    assert kinds == ["game"]
    assert polls < 400, "one poller for fifty listeners, not one each"


class contextlib_all:  # noqa: N801 - reads as a context manager
    """Subscribe `count` listeners to `feed` at once."""

    def __init__(self, feed: GameFeed, count: int) -> None:
        self._feed = feed
        self._count = count
        self._stack: list[object] = []

    async def __aenter__(self) -> list[asyncio.Queue]:  # type: ignore[type-arg]
        queues = []
        for _ in range(self._count):
            manager = self._feed.listen()
            queues.append(await manager.__aenter__())
            self._stack.append(manager)
        assert self._feed.listeners == self._count
        return queues

    async def __aexit__(self, *exc: object) -> None:
        for manager in reversed(self._stack):
            await manager.__aexit__(None, None, None)  # type: ignore[attr-defined]


def test_watching_a_game_not_in_play_says_so_with_its_status(web: TestClient) -> None:
    page = web.get("/tables/cup:99")
    assert page.status_code == 200 and 'data-watch="/tables/cup%3A99/events"' in page.text
    answer = web.get("/tables/cup:99/events")
    assert answer.status_code in (404, 409), answer.text


def test_arena_web_needs_a_server_and_refuses_the_organizers_token(served: Served) -> None:
    from tests.cli.cli_support import invoke

    alone = invoke("web")
    assert alone.exit_code == 2 and "give --server HOST:PORT" in alone.output
    organizer = invoke("--server", served.address, "--token", served.token("organizer") or "",
                       "web")
    assert organizer.exit_code == 2 and "is the organizer's" in organizer.output
    unknown = invoke("--server", served.address, "--token", "no-such-token", "web")
    assert unknown.exit_code == 1 and "Traceback" not in unknown.output
    listen = invoke("--server", served.address, "web", "--listen", "nowhere")
    assert listen.exit_code == 2 and "is not HOST:PORT" in listen.output


def test_a_fragment_is_made_once_for_every_anonymous_viewer_of_a_game_end() -> None:
    from arena.web.live import SharedAnswers

    class Feed:
        newest_game: int | None = 7

    feed = Feed()
    shared = SharedAnswers(feed)  # type: ignore[arg-type]
    calls: list[int] = []

    async def make() -> bytes:
        calls.append(1)
        await asyncio.sleep(0.01)
        return f"table after {feed.newest_game}".encode()

    async def viewers() -> set[bytes]:
        return set(await asyncio.gather(*(shared.get("k", make) for _ in range(200))))

    async def rounds() -> None:
        assert await viewers() == {b"table after 7"} and len(calls) == 1
        feed.newest_game = 8
        assert await viewers() == {b"table after 8"} and len(calls) == 2
        feed.newest_game = None  # no one listens: nothing is kept current, each is made
        await viewers()
        assert len(calls) == 202

    asyncio.run(rounds())


def test_each_update_is_followed_by_the_parts_of_the_page_it_changes() -> None:
    updates: asyncio.Queue[Update] = asyncio.Queue()

    class Feed:
        @contextlib.asynccontextmanager
        async def listen(self) -> AsyncIterator[asyncio.Queue[Update]]:
            yield updates

    async def make_part(url: str, update: Update) -> str | None:
        return None if url == "/gone" else part_event(url, f"<p>game {update.newest_game}</p>")

    async def first(count: int) -> list[str]:
        for update in (Update("game", 5, 2), Update("tables", 5, 3)):
            updates.put_nowait(update)
        stream = event_stream(Feed(), parts={"game": ["/pool?fragment=1", "/gone"],  # type: ignore[arg-type]
                                             "tables": ["/tables?fragment=1"]},
                              make_part=make_part)
        return [await anext(stream) for _ in range(count)]

    retry, game, tables = asyncio.run(first(3))
    assert retry.startswith("retry:")
    game_events, tables_events = (chunk.split("\n\n")[:-1] for chunk in (game, tables))
    assert [event.split("\n", 1)[0] for event in game_events + tables_events] == [
        "event: game", "event: part", "event: tables", "event: part"]
    sent = [json.loads(event.split("data: ", 1)[1])
            for event in (game_events[1], tables_events[1])]
    assert sent == [{"url": "/pool?fragment=1", "html": "<p>game 5</p>"},
                    {"url": "/tables?fragment=1", "html": "<p>game 5</p>"}]


@pytest.mark.parametrize("query, refused", [
    ("game=//elsewhere.example/pool", "is not a part of a page of this site"),
    ("game=https://elsewhere.example/pool", "is not a part of a page of this site"),
    ("tables=/tables/cup:1/events", "is not a part of a page of this site"),
    ("game=/events%3Fgame%3D/pool", "is not a part of a page of this site"),
    ("&".join(["game=/pool"] * 5), "at most 4 parts sent with updates"),
])
def test_a_page_may_have_only_a_few_of_this_sites_own_parts_sent(
        web: TestClient, query: str, refused: str) -> None:
    answer = web.get(f"/events?{query}")
    assert answer.status_code == 400 and refused in html.unescape(answer.text)


def test_a_part_sent_to_a_signed_in_visitor_is_made_with_their_own_session(
        served: Served) -> None:
    with client_for(served) as web:
        sign_in(web, served.token("alice"))
        cookies = "; ".join(f"{name}={value}" for name, value in web.cookies.items())

        def request_with(cookie: str | None) -> Request:
            headers = [(b"host", b"testserver")]
            if cookie:
                headers.append((b"cookie", cookie.encode()))
            return Request({"type": "http", "app": web.app, "method": "GET", "path": "/events",
                            "query_string": b"", "scheme": "http", "headers": headers,
                            "client": ("127.0.0.1", 1), "server": ("testserver", 80)})

        assert web.portal is not None
        status, body = web.portal.call(pages._own_page, request_with(cookies), "/me")
        assert status == 200 and "alice" in body.decode()
        status, _ = web.portal.call(pages._own_page, request_with(None), "/me")
        assert status != 200
