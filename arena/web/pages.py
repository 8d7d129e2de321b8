"""The pages: each asks the server what it shows with the visitor's token, and renders
it. What a visitor may see is the server's to say (its permission table); a refusal
becomes the page's status (`arena.web.client.HTTP_STATUS`)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse

from arena import chart
from arena.v1 import admin_pb2
from arena.web import views
from arena.web.client import Answer
from arena.web.front import Front, Visitor
from arena.web.live import Update, event_stream, part_event
from arena.web.security import SESSION_COOKIE

GAMES_SHOWN = 100
"""Games a listing shows."""

CHARTED = 8
"""Bots a leaderboard's rating chart draws: its first, one colour each."""

MAX_LISTENERS = 10_000
"""Pages that may follow the live updates at once (each holds a connection open)."""
PUSHED_PARTS = 4
"""The parts of one page that may be sent with each update."""
MAX_PART_URL = 2000
"""The longest URL of a part sent with updates."""


def front_of(request: Request) -> Front:
    """The front serving `request`."""
    front: Front = request.app.state.front
    return front


def _pool_of(request: Request) -> tuple[str, str]:
    """The tournament and the pool key a pool's page names."""
    params = request.query_params
    return params.get("tournament", ""), params.get("key", "")


def _pool_query(request: Request) -> str:
    params = request.query_params
    if params.get("tournament"):
        return "tournament=" + views.path_part(params["tournament"])
    return "key=" + views.path_part(params.get("key", ""))


async def home(request: Request) -> Response:
    """The pools, the tournaments, the tables in play and the latest games."""
    front = front_of(request)
    visitor = front.visitor(request)
    pools, tournaments, tables, games = await asyncio.gather(
        front.call(visitor, "ListPools", admin_pb2.ListPoolsRequest()),
        front.call(visitor, "ListTournaments", admin_pb2.ListTournamentsRequest()),
        front.call(visitor, "ListTables", admin_pb2.ListTablesRequest()),
        front.call(visitor, "ListGames", admin_pb2.ListGamesRequest(limit=10)))
    return front.render(request, visitor, "home.html", pools=pools.pools,
                        tournaments=tournaments.tournaments, tables=tables.tables,
                        games=games.games)


async def leaderboard(request: Request) -> Response:
    """A pool's leaderboard: shared places, scores with intervals, TrueSkill, and the
    chart of its first bots' ratings over the pool's games; with `fragment`, only its
    table (what the live page fetches when a game ends)."""
    front = front_of(request)
    visitor = front.visitor(request)
    tournament, key = _pool_of(request)

    async def ranked() -> admin_pb2.GetRankingsResponse:
        answer: admin_pb2.GetRankingsResponse = await front.call(
            visitor, "GetRankings",
            admin_pb2.GetRankingsRequest(tournament=tournament, pool=key))
        return answer

    if request.query_params.get("fragment"):
        async def table() -> Response:
            return HTMLResponse(front.part("_leaderboard.html", "ranking", await ranked()),
                                headers={"Cache-Control": "no-store"})
        return await _live_fragment(request, f"leaderboard?{tournament}&{key}", table)
    ranking, history = await asyncio.gather(ranked(), _rating_history(front, visitor,
                                                                      tournament, key))
    return front.render(request, visitor, "pool.html", ranking=ranking,
                        table=front.part("_leaderboard.html", "ranking", ranking),
                        chart=_chart(front, history), query=_pool_query(request))


async def chart_style(request: Request) -> Response:
    """The rating chart's style sheet, the one the report inlines."""
    return Response(chart.STYLE, media_type="text/css",
                    headers={"Cache-Control": "public, max-age=3600"})


async def rating_chart(request: Request) -> Response:
    """The chart of a pool's first bots' ratings over its games, alone: what the
    leaderboard page fetches again when a game ends."""
    front = front_of(request)
    visitor = front.visitor(request)
    tournament, key = _pool_of(request)

    async def chart() -> Response:
        history = await _rating_history(front, visitor, tournament, key)
        return HTMLResponse(_chart(front, history), headers={"Cache-Control": "no-store"})
    return await _live_fragment(request, f"chart?{tournament}&{key}", chart)


def _chart(front: Front, history: admin_pb2.GetRatingHistoryResponse) -> Markup:
    """The rating chart of `history`, drawn once for each answer."""
    return front.parts.get("chart", history, lambda: views.rating_chart(history))


async def _rating_history(front: Front, visitor: Visitor, tournament: str, key: str
                          ) -> admin_pb2.GetRatingHistoryResponse:
    history: admin_pb2.GetRatingHistoryResponse = await front.call(
        visitor, "GetRatingHistory",
        admin_pb2.GetRatingHistoryRequest(tournament=tournament, pool=key, top=CHARTED))
    return history


async def _live_fragment(request: Request, shared_as: str,
                         render: Callable[[], Awaitable[Response]]) -> Response:
    """A fragment a live page fetches when a game ends: made for a signed-in visitor
    alone, and once for everyone else (they all call with the same token)."""
    front = front_of(request)
    if front.visitor(request).signed is not None:
        return await render()

    async def made() -> bytes:
        return bytes((await render()).body)

    body = await front.shared.get(shared_as, made)
    return HTMLResponse(body, headers={"Cache-Control": "no-store"})


async def crosstable(request: Request) -> Response:
    """A pool's head-to-head results."""
    front = front_of(request)
    visitor = front.visitor(request)
    tournament, key = _pool_of(request)
    table: admin_pb2.GetCrosstableResponse = await front.call(
        visitor, "GetCrosstable", admin_pb2.GetCrosstableRequest(tournament=tournament, pool=key))
    return front.render(request, visitor, "crosstable.html", table=table,
                        query=_pool_query(request))


async def seat_stats(request: Request) -> Response:
    """A pool's per-seat results and what duplicate deals bought."""
    front = front_of(request)
    visitor = front.visitor(request)
    tournament, key = _pool_of(request)
    found: admin_pb2.GetStatsResponse = await front.call(
        visitor, "GetStats", admin_pb2.GetStatsRequest(tournament=tournament, pool=key))
    return front.render(request, visitor, "stats.html", stats=found,
                        query=_pool_query(request),
                        duplicate=found.duplicate if found.HasField("duplicate") else None)


async def tournaments(request: Request) -> Response:
    """Every tournament, and the timetable of those to come."""
    front = front_of(request)
    visitor = front.visitor(request)
    listed: admin_pb2.ListTournamentsResponse = await front.call(
        visitor, "ListTournaments", admin_pb2.ListTournamentsRequest())
    return front.render(request, visitor, "tournaments.html",
                        tournaments=listed.tournaments, scheduled=listed.scheduled)


async def tournament(request: Request) -> Response:
    """A tournament's progress and its schedule, each game linked once played."""
    front = front_of(request)
    visitor = front.visitor(request)
    name = request.path_params["name"]
    schedule: admin_pb2.GetScheduleResponse = await front.call(
        visitor, "GetSchedule", admin_pb2.GetScheduleRequest(tournament=name))
    return front.render(request, visitor, "tournament.html", info=schedule.tournament,
                        games=schedule.games)


async def games(request: Request) -> Response:
    """The newest stored games (of a bot, of a tournament, or the visitor's own)."""
    front = front_of(request)
    visitor = front.visitor(request)
    params = request.query_params
    mine = bool(params.get("mine"))
    listed: admin_pb2.ListGamesResponse = await front.call(visitor, "ListGames",
        admin_pb2.ListGamesRequest(tournament=params.get("tournament", ""),
                                   bot=params.get("bot", ""), limit=GAMES_SHOWN, mine=mine))
    return front.render(request, visitor, "games.html", games=listed.games, mine=mine,
                        bot=params.get("bot", ""), tournament=params.get("tournament", ""))


async def game(request: Request) -> Response:
    """A stored game with its replay: the public view, or with `as`, a bot's own view
    (its cards and decisions), which only its author and the organizer may open."""
    front = front_of(request)
    visitor = front.visitor(request)
    as_bot = request.query_params.get("as", "")
    shown: admin_pb2.GetGameResponse = await front.call(
        visitor, "GetGame", admin_pb2.GetGameRequest(id=request.path_params["id"],
                                                     as_bot=as_bot))
    names = list(shown.summary.seats)
    own = await _own_seats(front, visitor, names)
    steps = views.replay_steps(shown)
    decisions = [views.decision_line(d, names) for d in
                 sorted(shown.decisions, key=lambda d: (d.events_before, d.index))]
    return front.render(request, visitor, "game.html", game=shown, as_bot=as_bot,
                        steps=steps, decisions=decisions, names=names, own=own)


async def _own_seats(front: Front, visitor: Visitor, names: list[str]) -> list[str]:
    """The bots of a game whose own view the visitor may open: all of them for the
    organizer, an author's own (as the server says), none for anyone else."""
    if visitor.role == "organizer":
        return list(dict.fromkeys(names))
    if visitor.role != "author":
        return []
    who: admin_pb2.WhoAmIResponse = await front.call(visitor, "WhoAmI",
                                                     admin_pb2.WhoAmIRequest())
    mine = set(who.bots)
    return [name for name in dict.fromkeys(names) if name in mine]


async def tables(request: Request) -> Response:
    """The games being played right now."""
    front = front_of(request)
    visitor = front.visitor(request)
    listed: admin_pb2.ListTablesResponse = await front.call(
        visitor, "ListTables", admin_pb2.ListTablesRequest())
    template = "_tables.html" if request.query_params.get("fragment") else "tables.html"
    return front.render(request, visitor, template, tables=listed.tables)


async def bots(request: Request) -> Response:
    """Every registered bot and its author."""
    front = front_of(request)
    visitor = front.visitor(request)
    listed: admin_pb2.ListBotsResponse = await front.call(visitor, "ListBots",
                                                          admin_pb2.ListBotsRequest())
    return front.render(request, visitor, "bots.html", bots=listed.bots)


async def events(request: Request) -> Response:
    """Server-sent events: "game" when a game was stored, "tables" when the tables in
    play changed. Every listener shares one poller of the server.

    A page may name its parts that show what an update changes (`game=URL`,
    `tables=URL`: fragments of this site, at most `PUSHED_PARTS` in all): each update is
    then followed by those parts as they are now ("part" events), made with the
    visitor's own token, and once for every visitor not signed in, so the page need not
    fetch them."""
    front = front_of(request)
    if front.feed.listeners >= MAX_LISTENERS:
        raise Answer(503, "too many pages are following the games right now; reload later")
    parts = _pushed_parts(request)
    shared = front.visitor(request).signed is None

    async def make_part(url: str, update: Update) -> str | None:
        async def made() -> bytes:
            status, body = await _own_page(request, url)
            return part_event(url, body.decode()).encode() if status == 200 else b""

        event = (await front.shared.get(f"part:{update.tables}:{url}", made) if shared
                 else await made())
        return event.decode() or None

    return StreamingResponse(event_stream(front.feed, parts=parts, make_part=make_part),
                             media_type="text/event-stream",
                             headers={"Cache-Control": "no-store",
                                      "X-Accel-Buffering": "no"})


def _pushed_parts(request: Request) -> dict[str, list[str]]:
    """The parts a listening page names, by the kind of update that changes them."""
    parts: dict[str, list[str]] = {}
    named = 0
    for kind in ("game", "tables"):
        for url in request.query_params.getlist(kind):
            path = url.partition("?")[0]
            if (not url.startswith("/") or url.startswith("//") or "\\" in url
                    or path.endswith("/events") or len(url) > MAX_PART_URL):
                raise Answer(400, f"{url!r} is not a part of a page of this site")
            named += 1
            parts.setdefault(kind, []).append(url)
    if named > PUSHED_PARTS:
        raise Answer(400, f"a page may have at most {PUSHED_PARTS} parts sent with updates")
    return parts


async def _own_page(request: Request, url: str) -> tuple[int, bytes]:
    """This site's answer to a GET of `url` by the visitor of `request` (their cookies),
    made in this process: its status and body."""
    headers = [(name, value) for name, value in request.scope["headers"]
               if name in (b"host", b"cookie")]
    return await asgi_get(request.app, url, headers, request.url.scheme,
                          request.scope.get("client"), request.scope.get("server"))


async def asgi_get(app: Any, url: str, headers: list[tuple[bytes, bytes]],
                   scheme: str = "http", client: Any = None, server: Any = None
                   ) -> tuple[int, bytes]:
    """The ASGI `app`'s answer to a GET of `url` (a path and query) with `headers`, made
    in this process: its status and body."""
    path, _, query = url.partition("?")
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "GET", "scheme": scheme, "path": path,
             "raw_path": path.encode(), "query_string": query.encode(), "root_path": "",
             "headers": headers, "client": client, "server": server}
    status, body = 500, []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            body.append(message.get("body", b""))

    await app(scope, receive, send)
    return status, b"".join(body)


async def audit(request: Request) -> Response:
    """The audit trail: every call that changed something (an author sees their own)."""
    front = front_of(request)
    visitor = front.visitor(request)
    listed: admin_pb2.ListAuditResponse = await front.call(
        visitor, "ListAudit", admin_pb2.ListAuditRequest(limit=200))
    return front.render(request, visitor, "audit.html", lines=listed.lines)


async def not_found(request: Request, exc: Exception) -> Response:
    """A page that does not exist."""
    return error_page(request, Answer(404, "there is no such page"))


def error_page(request: Request, answer: Answer) -> Response:
    """The page that says why a page could not be shown."""
    front = front_of(request)
    visitor = front.visitor(request)
    response = front.render(request, visitor, "error.html", status=answer.status,
                            answer=answer)
    if answer.status == 429:
        response.headers["Retry-After"] = "60"
    return response


async def answered(request: Request, exc: Exception) -> Response:
    """`Answer` raised by a page, rendered."""
    assert isinstance(exc, Answer)
    return error_page(request, exc)


def redirect(path: str) -> Response:
    """See `path` (after a form)."""
    return RedirectResponse(path, status_code=303)


def signed_in_only(request: Request) -> Any:
    """The visitor's session; 401 when not signed in."""
    signed = front_of(request).sessions.get(request.cookies.get(SESSION_COOKIE))
    if signed is None:
        raise Answer(401, "sign in with your author's token to see this page")
    return signed
