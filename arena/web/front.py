"""The web front's state and the helpers every page shares: who the visitor is, which
token their calls carry, rendering with the CSRF token and the security headers, and
checking what a form sends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import jinja2
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response
from starlette.templating import Jinja2Templates

from arena.web import views
from arena.web.client import AdminClient, Answer
from arena.web.live import POLL_SECONDS, GameFeed, SharedAnswers
from arena.web.parts import RenderedParts
from arena.web.security import (
    CSRF_COOKIE,
    CSRF_FIELD,
    SESSION_COOKIE,
    LoginLimiter,
    Sessions,
    SignedIn,
    new_csrf,
    same_token,
)

HERE = Path(__file__).resolve().parent

MAX_UPLOAD_BYTES = 64 * 1024 * 1024
"""The largest bot archive the web takes, as the gRPC upload's default limit
(`arena.submissions.Limits.max_upload_bytes`); the server's own limit and the author's
quota still apply after it."""

CONTENT_SECURITY_POLICY = ("default-src 'self'; base-uri 'none'; form-action 'self'; "
                           "frame-ancestors 'none'; object-src 'none'")
"""No script, style, image or connection from anywhere but this origin; no inline
script or style either."""

SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}


@dataclass
class WebSettings:
    """How `arena web` runs: the match server it shows, and the token anonymous visitors'
    calls carry (a viewer's, or None on a `--public` server)."""

    server: str
    anonymous_token: str | None = None
    tls: grpc.ChannelCredentials | None = None
    poll_seconds: float = POLL_SECONDS
    max_upload_bytes: int = MAX_UPLOAD_BYTES
    secure_cookies: bool | None = None
    """Mark cookies Secure: None decides by each request's scheme (https)."""


@dataclass
class Visitor:
    """Who opened a page: signed in (with their session), or not."""

    signed: SignedIn | None
    token: str | None
    csrf: str
    new_csrf: bool = False

    @property
    def name(self) -> str:
        """Their name as the server knows it ("" when not signed in)."""
        return self.signed.name if self.signed else ""

    @property
    def role(self) -> str:
        """organizer, author, viewer; "" when not signed in."""
        return self.signed.role if self.signed else ""


@dataclass
class Front:
    """Everything the pages share."""

    settings: WebSettings
    client: AdminClient
    feed: GameFeed
    templates: Jinja2Templates
    shared: SharedAnswers
    sessions: Sessions = field(default_factory=Sessions)
    limiter: LoginLimiter = field(default_factory=LoginLimiter)
    parts: RenderedParts = field(default_factory=RenderedParts)

    @classmethod
    def build(cls, settings: WebSettings) -> Front:
        """The front for `settings` (its channel opens with the app)."""
        client = AdminClient(settings.server, settings.tls)
        environment = jinja2.Environment(
            loader=jinja2.FileSystemLoader(HERE / "templates"),
            autoescape=True, undefined=jinja2.StrictUndefined)
        environment.filters["number"] = views.number
        environment.filters["path"] = views.path_part
        environment.globals["game_link"] = views.game_link
        environment.globals["result_text"] = views.result_text
        templates = Jinja2Templates(env=environment)
        feed = GameFeed(client, settings.anonymous_token, settings.poll_seconds)
        return cls(settings, client, feed, templates, SharedAnswers(feed))

    def visitor(self, request: Request) -> Visitor:
        """Who is asking, and the token their calls carry."""
        signed = self.sessions.get(request.cookies.get(SESSION_COOKIE))
        if signed is not None:
            return Visitor(signed, signed.token, signed.csrf)
        cookie = request.cookies.get(CSRF_COOKIE)
        if cookie and 20 <= len(cookie) <= 100:
            return Visitor(None, self.settings.anonymous_token, cookie)
        return Visitor(None, self.settings.anonymous_token, new_csrf(), new_csrf=True)

    def secure(self, request: Request) -> bool:
        """Whether cookies set for `request` are marked Secure."""
        if self.settings.secure_cookies is not None:
            return self.settings.secure_cookies
        return request.url.scheme == "https"

    def set_cookie(self, response: Response, request: Request, name: str, value: str) -> None:
        """Set an HttpOnly, SameSite=Strict cookie (Secure over https)."""
        response.set_cookie(name, value, httponly=True, samesite="strict",
                            secure=self.secure(request), path="/")

    def render(self, request: Request, visitor: Visitor, template: str,
               status: int = 200, **context: Any) -> Response:
        """A page from `template`, with the visitor and their CSRF token."""
        response = self.templates.TemplateResponse(
            request, template, {"visitor": visitor, "csrf": visitor.csrf,
                                "csrf_field": CSRF_FIELD, **context},
            status_code=status)
        if visitor.new_csrf:
            self.set_cookie(response, request, CSRF_COOKIE, visitor.csrf)
        return response

    def part(self, template: str, name: str, answer: Any) -> Markup:
        """`template` rendered with `answer` as `name` and nothing else: rendered once
        for each answer, whoever asks (`arena.web.parts`)."""
        return self.parts.get(template, answer, lambda: self.templates.get_template(
            template).render({name: answer}))

    def check_csrf(self, visitor: Visitor, sent: object) -> None:
        """Refuse (403) a form whose CSRF token is not the visitor's."""
        if visitor.new_csrf or not same_token(sent if isinstance(sent, str) else None,
                                              visitor.csrf):
            raise Answer(403, "this form has expired or did not come from this site: "
                              "open the page again and send it from there")

    async def call(self, visitor: Visitor, method: str, request: Any) -> Any:
        """The server's answer to `method`, called with the visitor's token."""
        return await self.client.call(method, request, visitor.token)
