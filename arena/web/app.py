"""The web front as an ASGI application: its routes, its security headers, and its
lifespan (the channel to the match server, the live-update poller)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.web import authors, pages, watch
from arena.web.client import Answer
from arena.web.front import HERE, SECURITY_HEADERS, Front, WebSettings


class SecurityHeaders:
    """Adds the Content-Security-Policy and the other security headers to every answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._headers = [(name.lower().encode(), value.encode())
                         for name, value in SECURITY_HEADERS.items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve `scope`, its answer's headers completed."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + self._headers
            await send(message)

        await self.app(scope, receive, with_headers)


ROUTES = [
    Route("/", pages.home),
    Route("/pool", pages.leaderboard),
    Route("/pool/crosstable", pages.crosstable),
    Route("/pool/stats", pages.seat_stats),
    Route("/pool/chart", pages.rating_chart),
    Route("/chart.css", pages.chart_style),
    Route("/tournaments", pages.tournaments),
    Route("/tournaments/{name}", pages.tournament),
    Route("/games", pages.games),
    Route("/games/{id}", pages.game),
    Route("/tables", pages.tables),
    Route("/tables/{id}", watch.watch_page),
    Route("/tables/{id}/events", watch.watch_events),
    Route("/bots", pages.bots),
    Route("/bots/{name}", authors.bot_versions),
    Route("/bots/{name}/log", authors.bot_log),
    Route("/events", pages.events),
    Route("/audit", pages.audit),
    Route("/login", authors.login_form, methods=["GET"]),
    Route("/login", authors.login, methods=["POST"]),
    Route("/logout", authors.logout, methods=["POST"]),
    Route("/me", authors.me),
    Route("/me/submit", authors.submit, methods=["POST"]),
    Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
]


def create_app(settings: WebSettings) -> Starlette:
    """The web front of the match server `settings.server`."""
    front = Front.build(settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await front.client.open()
        try:
            yield
        finally:
            await front.feed.stop()
            await front.client.close()

    app = Starlette(routes=ROUTES, lifespan=lifespan,
                    middleware=[Middleware(SecurityHeaders)],
                    exception_handlers={Answer: pages.answered, 404: pages.not_found})
    app.state.front = front
    return app
