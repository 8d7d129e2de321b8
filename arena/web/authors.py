"""The author's area: signing in with a token, their bots and games, uploading a bot's
archive and following its build. The organizer signs in the same way."""

from __future__ import annotations

import asyncio

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import Response

from arena.v1 import admin_pb2
from arena.web.client import Answer
from arena.web.pages import GAMES_SHOWN, front_of, redirect, signed_in_only
from arena.web.security import CSRF_FIELD, SESSION_COOKIE

MAX_TOKEN_CHARS = 512
FORM_OVERHEAD_BYTES = 64 * 1024
"""What a multipart form may add to the archive it carries (boundaries, fields)."""


async def login_form(request: Request) -> Response:
    """The sign-in form."""
    front = front_of(request)
    visitor = front.visitor(request)
    return front.render(request, visitor, "login.html", problem="")


def _client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


async def login(request: Request) -> Response:
    """Check the token with the server (WhoAmI) and open a session for it; at most
    `arena.web.security.LOGIN_TRIES` tries a minute from one address."""
    front = front_of(request)
    visitor = front.visitor(request)
    address = _client_address(request)
    if not front.limiter.allow(address):
        raise Answer(429, "too many sign-in tries from your address: wait a minute "
                          f"({front.limiter.retry_after(address)} s) and try again")
    form = await request.form(max_files=0, max_fields=4, max_part_size=4096)
    front.check_csrf(visitor, form.get(CSRF_FIELD))
    token = str(form.get("token") or "").strip()
    if not token or len(token) > MAX_TOKEN_CHARS or not all(" " <= c <= "~" for c in token):
        return front.render(request, visitor, "login.html", status=400,
                            problem="paste the token you were given")
    try:
        who: admin_pb2.WhoAmIResponse = await front.client.call(
            "WhoAmI", admin_pb2.WhoAmIRequest(), token)
    except Answer as refused:
        if refused.status not in (401, 403):
            raise
        return front.render(request, visitor, "login.html", status=401,
                            problem="the server does not know this token")
    if who.role == "anonymous":
        return front.render(request, visitor, "login.html", status=401,
                            problem="the server does not know this token")
    session_id, _ = front.sessions.open(token, who.name, who.role)
    response = redirect("/me")
    front.set_cookie(response, request, SESSION_COOKIE, session_id)
    return response


async def logout(request: Request) -> Response:
    """Close the visitor's session."""
    front = front_of(request)
    visitor = front.visitor(request)
    form = await request.form(max_files=0, max_fields=2, max_part_size=1024)
    front.check_csrf(visitor, form.get(CSRF_FIELD))
    front.sessions.close(request.cookies.get(SESSION_COOKIE))
    response = redirect("/")
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict",
                           secure=front.secure(request))
    return response


async def me(request: Request) -> Response:
    """The signed-in visitor's own page: who they are, their bots, their games."""
    front = front_of(request)
    signed_in_only(request)
    visitor = front.visitor(request)
    who: admin_pb2.WhoAmIResponse = await front.call(visitor, "WhoAmI",
                                                     admin_pb2.WhoAmIRequest())
    mine: list[admin_pb2.GameSummaryInfo] = []
    if who.role == "author":
        listed = await front.call(visitor, "ListGames",
                                  admin_pb2.ListGamesRequest(limit=GAMES_SHOWN, mine=True))
        mine = list(listed.games)
    bases = sorted({bot.split("@", 1)[0] for bot in who.bots})
    return front.render(request, visitor, "me.html", who=who, games=mine, bases=bases,
                        problem="")


async def _bounded_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise Answer(413, f"the archive is over this site's limit of {limit / 2**20:.1f} MiB")
    parts: list[bytes] = []
    received = 0
    async for chunk in request.stream():
        received += len(chunk)
        if received > limit:
            raise Answer(413, f"the archive is over this site's limit of "
                              f"{limit / 2**20:.1f} MiB")
        parts.append(chunk)
    return b"".join(parts)


async def submit(request: Request) -> Response:
    """Upload a bot's archive (.zip, .tar.gz or .tar), bounded like the gRPC upload; the
    server stores it and builds it, and the bot's page follows the build."""
    front = front_of(request)
    signed_in_only(request)
    visitor = front.visitor(request)
    limit = front.settings.max_upload_bytes
    body = await _bounded_body(request, limit + FORM_OVERHEAD_BYTES)
    form = await _replayed(request, body).form(max_files=1, max_fields=4,
                                               max_part_size=4096)
    front.check_csrf(visitor, form.get(CSRF_FIELD))
    upload = form.get("archive")
    if not isinstance(upload, UploadFile) or not upload.filename:
        raise Answer(400, "choose the bot's archive (.zip, .tar.gz or .tar) to upload")
    archive = await upload.read()
    if len(archive) > limit:
        raise Answer(413, f"the archive is over this site's limit of {limit / 2**20:.1f} MiB")
    name = str(form.get("name") or "").strip()
    header = admin_pb2.SubmitBotHeader(name=name, no_wait=True)
    answer = await front.client.submit(archive, header, visitor.token)
    version = answer.version
    return redirect(f"/bots/{version.base_name}?version={version.version}")


def _replayed(request: Request, body: bytes) -> Request:
    """`request` again, its body `body` (already read, and bounded)."""
    sent = False

    async def receive() -> dict[str, object]:
        nonlocal sent
        if sent:
            await asyncio.sleep(3600)
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return Request(request.scope, receive)


async def bot_versions(request: Request) -> Response:
    """A bot's versions, with the build log of one (the newest by default); while it
    builds, the page refreshes itself."""
    front = front_of(request)
    visitor = front.visitor(request)
    name = request.path_params["name"]
    listed: admin_pb2.ListBotVersionsResponse = await front.call(
        visitor, "ListBotVersions", admin_pb2.ListBotVersionsRequest(name=name))
    wanted = request.query_params.get("version", "")
    shown = _version(listed, wanted)
    log = ""
    if shown is not None:
        with_log: admin_pb2.ListBotVersionsResponse = await front.call(
            visitor, "ListBotVersions",
            admin_pb2.ListBotVersionsRequest(name=name, log_version=shown.version))
        log = with_log.log
        shown = _version(with_log, str(shown.version)) or shown
    template = "_build.html" if request.query_params.get("fragment") else "bot.html"
    return front.render(request, visitor, template, name=name, versions=listed.versions,
                        shown=shown, log=log)


def _version(listed: admin_pb2.ListBotVersionsResponse, wanted: str
             ) -> admin_pb2.BotVersionInfo | None:
    versions = list(listed.versions)
    if wanted.isdigit():
        return next((v for v in versions if v.version == int(wanted)), None)
    return max(versions, key=lambda v: v.version, default=None)


async def bot_log(request: Request) -> Response:
    """The end of a managed bot's own log (its author's and the organizer's)."""
    front = front_of(request)
    visitor = front.visitor(request)
    name = request.path_params["name"]
    found: admin_pb2.GetBotLogResponse = await front.call(
        visitor, "GetBotLog", admin_pb2.GetBotLogRequest(name=name, lines=200))
    return front.render(request, visitor, "bot_log.html", name=name, log=found)
