"""Who may call what on the admin service: the callers, the one table of rules, and
the gatekeeper that applies it to every call.

A caller is the organizer (the server's admin token), an author or a viewer (a token
the organizer gave them, or one they registered with an invite), or, on a server
started with `--public`, anyone without a token. `RULES` names, for every RPC of the
admin service, what it needs; an RPC without a rule is refused to everyone. A refusal
is PERMISSION_DENIED (UNAUTHENTICATED for a missing or unknown token) and says what
was missing. The calls that change something are written to the audit trail, refusals
included.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hmac
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import grpc

from arena.server.auth import ADMIN_TOKEN_VARIABLE, TokenError, bearer_token
from arena.store import AuthorRole, Quota, Store, StoreError, UnknownBot, hash_token


class Role(StrEnum):
    """What a caller is."""

    ORGANIZER = "organizer"
    AUTHOR = "author"
    VIEWER = "viewer"
    ANONYMOUS = "anonymous"
    """No token, on a server that lets anyone read (`arena serve --public`)."""


@dataclass(frozen=True, slots=True)
class Caller:
    """Who is calling: their role, their name, and for an author their id, whether they
    may run competitions and their quota."""

    role: Role
    name: str
    author_id: int | None = None
    may_run: bool = False
    quota: Quota | None = None

    @property
    def is_organizer(self) -> bool:
        """Whether the caller holds the admin token."""
        return self.role is Role.ORGANIZER

    def owns(self, author_id: int | None) -> bool:
        """Whether a bot of author `author_id` (None: the organizer's) is the caller's."""
        return self.is_organizer if author_id is None else author_id == self.author_id


ORGANIZER = Caller(Role.ORGANIZER, "organizer", may_run=True)
"""The organizer; also whoever calls a server built without an admin token (in-process
sessions, tests), which has no one else to tell apart."""

_caller: contextvars.ContextVar[Caller] = contextvars.ContextVar("arena_caller",
                                                                 default=ORGANIZER)


def current_caller() -> Caller:
    """The caller of the admin call being served (the organizer outside the gatekeeper)."""
    return _caller.get()


class Need(StrEnum):
    """What an RPC asks of its caller, from the least to the most."""

    INVITE = "an invite code"
    """No token: the request carries an invite code (registering)."""
    PUBLIC = "nothing on a public server, else any token"
    """What every participant may read."""
    SIGNED_IN = "any token"
    AUTHOR = "an author's token"
    """An author acting for themself; the organizer too."""
    OWNER = "the token of the bot's author"
    """An author, for a bot of their own named in the request; the organizer for any."""
    RUNNER = "the organizer's token, or an author's allowed to run competitions"
    ORGANIZER = "the organizer's token"


@dataclass(frozen=True, slots=True)
class Rule:
    """What one RPC needs. `owned`: the request field naming a bot that must be the
    caller's (OWNER; for PUBLIC calls, only when the field is set). `organizer_field`: a
    request field that, when set, makes the call the organizer's. `audited`: the call
    changes something, and goes in the audit trail."""

    need: Need
    owned: str | None = None
    organizer_field: str | None = None
    audited: bool = False

    def audits(self, request: Any) -> bool:
        """Whether the call with `request` (None: a stream of them) goes in the audit
        trail: an audited call, and for one with an `organizer_field`, only with it set."""
        if not self.audited:
            return False
        if self.organizer_field is None or request is None:
            return True
        return bool(getattr(request, self.organizer_field, None))


RULES: Mapping[str, Rule] = {
    # live state of the match server
    "ListConnectedBots": Rule(Need.ORGANIZER),
    "ListTables": Rule(Need.PUBLIC),
    "WatchGame": Rule(Need.PUBLIC),
    # bots
    "AddBot": Rule(Need.AUTHOR, audited=True),
    "ListBots": Rule(Need.PUBLIC),
    "RemoveBot": Rule(Need.OWNER, owned="name", audited=True),
    "SubmitBot": Rule(Need.AUTHOR, audited=True),
    "ListBotVersions": Rule(Need.OWNER, owned="name"),
    "GetBotLog": Rule(Need.OWNER, owned="name"),
    # competitions
    "CreateTournament": Rule(Need.RUNNER, audited=True),
    "ListTournaments": Rule(Need.PUBLIC),
    "GetSchedule": Rule(Need.PUBLIC),
    "RunTournament": Rule(Need.RUNNER, audited=True),
    "ScheduleTournament": Rule(Need.ORGANIZER, audited=True),
    "UnscheduleTournament": Rule(Need.ORGANIZER, audited=True),
    "RunLadder": Rule(Need.RUNNER, audited=True),
    "PlayMatch": Rule(Need.RUNNER, audited=True),
    # results
    "GetRankings": Rule(Need.PUBLIC),
    "ListPools": Rule(Need.PUBLIC),
    "GetCrosstable": Rule(Need.PUBLIC),
    "GetStats": Rule(Need.PUBLIC),
    "GetRatingHistory": Rule(Need.PUBLIC),
    "FitRatings": Rule(Need.PUBLIC, organizer_field="apply", audited=True),
    "ListGames": Rule(Need.PUBLIC),
    "GetGame": Rule(Need.PUBLIC, owned="as_bot"),
    "ExportTournament": Rule(Need.PUBLIC),
    # people
    "AddAuthor": Rule(Need.ORGANIZER, audited=True),
    "ListAuthors": Rule(Need.ORGANIZER),
    "RemoveAuthor": Rule(Need.ORGANIZER, audited=True),
    "RotateAuthorToken": Rule(Need.ORGANIZER, audited=True),
    "SetAuthor": Rule(Need.ORGANIZER, audited=True),
    "CreateInvite": Rule(Need.ORGANIZER, audited=True),
    "RegisterAuthor": Rule(Need.INVITE, audited=True),
    "WhoAmI": Rule(Need.SIGNED_IN),
    "ListAudit": Rule(Need.AUTHOR),
}
"""Every admin RPC by name → what it needs. The one place permissions are decided."""

STRICT_OWNER = frozenset({"SubmitBot"})
"""The calls that are a bot's author's alone, the organizer's too: the versions of a
submitted bot are its first submitter's (the store refuses anyone else, so that nobody
but an author ever puts code under their bot's name)."""


def missing(rule: Rule, caller: Caller | None, public: bool) -> str | None:
    """What `caller` (None: no token) lacks for `rule`'s need, or None when it may go on
    (ownership, which needs the request, is `Gatekeeper`'s to check after)."""
    need = rule.need
    if need is Need.INVITE:
        return None
    if caller is None:
        return None if need is Need.PUBLIC and public else "a token"
    role = caller.role
    if role is Role.ORGANIZER:
        return None
    if need in (Need.PUBLIC, Need.SIGNED_IN):
        return None
    if need in (Need.AUTHOR, Need.OWNER):
        return None if role is Role.AUTHOR else need.value
    if need is Need.RUNNER:
        return None if role is Role.AUTHOR and caller.may_run else (
            "the organizer's leave to run competitions (`arena author set NAME --may-run`)")
    return need.value


class Refused(Exception):
    """A call refused for a permission; `code` is its gRPC status."""

    def __init__(self, code: grpc.StatusCode, detail: str) -> None:
        super().__init__(detail)
        self.code = code


if TYPE_CHECKING:
    _ServerInterceptor = grpc.aio.ServerInterceptor[Any, Any]
else:  # the runtime class takes no type arguments
    _ServerInterceptor = grpc.aio.ServerInterceptor

Behavior = Callable[..., Any]

CALLER_SECONDS = 1.0
"""How long the gatekeeper keeps who holds a token before it asks the store again. Every
call that changes something here forgets them all at once; this bounds how long a change
made beside the server (`arena author remove` on its database) takes to count."""


class Gatekeeper(_ServerInterceptor):
    """Applies `RULES` to every call of the admin service (`service`): names the caller
    from its token, refuses what the caller may not do, lets the servicer know the caller
    (`current_caller`), and writes the calls that change something to the audit trail.

    Tokens are the organizer's `admin_token`, and the authors' tokens in `store` (none
    without one). With `public`, a call without a token may read what is PUBLIC.
    """

    def __init__(self, admin_token: str, service: str, store: Store | None = None, *,
                 public: bool = False) -> None:
        if not admin_token:
            raise TokenError("the admin token must not be empty")
        self._digest = hash_token(admin_token)
        self._prefix = f"/{service}/"
        self._store = store
        self.public = public
        self._pending: set[asyncio.Future[None]] = set()
        """Audit lines being written after their stream ended."""
        self._callers: dict[str, tuple[float, Caller]] = {}
        """Who holds each token asked for lately (by the token's hash), and until when
        (`time.monotonic`) that answer stands."""

    async def intercept_service(
        self, continuation: Callable[[grpc.HandlerCallDetails],
                                     Awaitable[grpc.RpcMethodHandler[Any, Any]]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any]:
        """The handler of an admin call, wrapped to check and audit it; others as they are."""
        handler = await continuation(details)
        if handler is None or not details.method.startswith(self._prefix):
            return handler
        method = details.method.removeprefix(self._prefix)
        token = bearer_token(details.invocation_metadata) or _unschemed(
            details.invocation_metadata)
        return _wrapped(handler, self, method, token)

    async def admit(self, method: str, token: str | None, request: Any, context: Any,
                     streamed_request: bool) -> tuple[Caller | None, Rule]:
        """The caller, once every check of `method` passed; `Refused` otherwise."""
        rule = RULES.get(method)
        if rule is None:
            raise Refused(grpc.StatusCode.PERMISSION_DENIED,
                          f"{method} has no permission rule on this server: nobody may call it")
        caller = await self.caller(token)
        lacking = missing(rule, caller, self.public)
        if lacking is not None:
            if caller is None:
                raise Refused(grpc.StatusCode.UNAUTHENTICATED, _no_token_detail(self.public))
            raise Refused(grpc.StatusCode.PERMISSION_DENIED,
                          f"{method} needs {lacking}; you are {_who(caller)}")
        if (caller is None or not caller.is_organizer) and not streamed_request:
            if rule.organizer_field and getattr(request, rule.organizer_field, None):
                if caller is None:
                    raise Refused(grpc.StatusCode.UNAUTHENTICATED, _no_token_detail(True))
                raise Refused(grpc.StatusCode.PERMISSION_DENIED,
                              f"{method} with {rule.organizer_field} needs the organizer's "
                              f"token; you are {_who(caller)}")
            if rule.owned and (name := getattr(request, rule.owned, "")):
                if caller is None:
                    raise Refused(grpc.StatusCode.UNAUTHENTICATED, _no_token_detail(True))
                await self._check_owner(method, caller, name)
        return caller, rule

    async def caller(self, token: str | None) -> Caller | None:
        """Who holds `token` (None for no token); `Refused` for a token nobody holds."""
        if token is None:
            return None
        if isinstance(token, _Unschemed):
            raise Refused(grpc.StatusCode.UNAUTHENTICATED,
                          "the authorization metadata must read `Bearer TOKEN`: this call "
                          "sent a token without the `Bearer ` before it")
        digest = hash_token(token)
        if hmac.compare_digest(digest, self._digest):
            return ORGANIZER
        now = time.monotonic()
        kept = self._callers.get(digest)
        if kept is not None and kept[0] > now:
            return kept[1]
        author = None if self._store is None else await asyncio.to_thread(
            self._store.author_by_token, token)
        if author is None:
            raise Refused(grpc.StatusCode.UNAUTHENTICATED,
                          "that token is not valid on this server (removed, rotated, or "
                          "never issued here): ask the organizer for a new one")
        role = Role.AUTHOR if author.role is AuthorRole.AUTHOR else Role.VIEWER
        caller = Caller(role, author.name, author.id, author.may_run, author.quota)
        if len(self._callers) >= _CALLERS_KEPT:
            self._callers.clear()
        self._callers[digest] = (now + CALLER_SECONDS, caller)
        return caller

    def forget_callers(self) -> None:
        """Ask the store again about every token (after a call that may have changed who
        holds one, or what they may do)."""
        self._callers.clear()

    async def _check_owner(self, method: str, caller: Caller, name: str) -> None:
        assert self._store is not None
        try:
            owner = await asyncio.to_thread(self._store.bot_author, name)
        except UnknownBot:
            return  # the call itself says there is no such bot
        except StoreError as exc:
            raise Refused(grpc.StatusCode.FAILED_PRECONDITION, str(exc)) from None
        if not caller.owns(owner):
            raise Refused(grpc.StatusCode.PERMISSION_DENIED,
                          f"{method} of bot {name} needs its author's token; it is not yours")

    async def audit(self, method: str, caller: Caller | None, request: Any, result: str,
                    detail: str, response: Any = None) -> None:
        """Write one call to the audit trail (in a worker thread). A call worth a line
        that was not refused may have changed who holds a token: the callers kept are
        forgotten."""
        if not result.startswith("refused"):
            self.forget_callers()
        if self._store is None:
            return
        actor = caller.name if caller is not None else "(no token)"
        role = caller.role.value if caller is not None else "none"
        target = _target(request, response)
        author_id = None if caller is None else caller.author_id
        # The call's own answer matters more than its audit line (a store closing under a
        # stopping server included).
        with contextlib.suppress(StoreError, sqlite3.Error):
            await asyncio.to_thread(self._store.record_audit, actor, role, author_id, method,
                                    target, result, detail)

    async def settle(self, within: float) -> None:
        """Wait, at most `within` seconds, for the audit lines of the streams that ended
        to be written (a stopping server, before its store is closed)."""
        if self._pending:
            await asyncio.wait(set(self._pending), timeout=within)

    def audit_later(self, method: str, caller: Caller | None, request: Any, result: str,
                    detail: str) -> None:
        """`audit`, without holding up the call: a stream's answer (the status a stopping
        server ends a run with) goes out at once, and its audit line follows."""
        task = asyncio.ensure_future(self.audit(method, caller, request, result, detail))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)


_CALLERS_KEPT = 10_000
"""The most tokens the gatekeeper keeps at once (it starts afresh beyond)."""


class _Unschemed(str):
    """An authorization metadata value without the `Bearer ` scheme."""


def _unschemed(metadata: Any) -> _Unschemed | None:
    """The value of an authorization entry of `metadata` that lacks its `Bearer ` scheme."""
    for key, value in metadata or ():
        if key.lower() == "authorization" and isinstance(value, str) and value.strip():
            return _Unschemed(value.strip())
    return None


def _who(caller: Caller) -> str:
    return "the organizer" if caller.is_organizer else f"{caller.role.value} {caller.name}"


def _no_token_detail(public: bool) -> str:
    if public:
        return "this call needs a token: `arena login --server ADDR` (or --token)"
    return (f"missing token: `arena login --server ADDR` with the token the organizer gave "
            f"you, or --token (the organizer's is in {ADMIN_TOKEN_VARIABLE}, or in the file "
            "arena serve writes beside its database)")


_TARGET_FIELDS = ("name", "tournament", "as_bot", "bot")


def _target(request: Any, response: Any) -> str:
    """What a call was about, for its audit line."""
    version: Any = getattr(response, "version", None)
    if version is not None and version.name:
        return str(version.name)
    for field in _TARGET_FIELDS:
        value = getattr(request, field, None)
        if isinstance(value, str) and value:
            return value
    bots = getattr(request, "bots", None)
    if bots:
        return ",".join(bots)
    return ""


_HANDLER_FACTORIES = {
    (False, False): grpc.unary_unary_rpc_method_handler,
    (False, True): grpc.unary_stream_rpc_method_handler,
    (True, False): grpc.stream_unary_rpc_method_handler,
    (True, True): grpc.stream_stream_rpc_method_handler,
}

_ANONYMOUS = Caller(Role.ANONYMOUS, "(no token)")


def _wrapped(handler: grpc.RpcMethodHandler[Any, Any], keeper: Gatekeeper, method: str,
             token: str | None) -> grpc.RpcMethodHandler[Any, Any]:
    """`handler`, its call first admitted by `keeper`, then run as its caller, then
    audited."""
    streaming_request = handler.request_streaming
    streaming_response = handler.response_streaming

    def audit_request(request: Any) -> Any:
        return _plain(request, streaming_request)

    inner: Behavior = (
        handler.unary_unary or handler.unary_stream or handler.stream_unary
        or handler.stream_stream)  # type: ignore[assignment]

    async def enter(request: Any, context: Any) -> tuple[Caller | None, Rule]:
        try:
            return await keeper.admit(method, token, request, context, streaming_request)
        except Refused as refused:
            rule = RULES.get(method)
            if rule is None or rule.audits(_plain(request, streaming_request)):
                caller = None
                with contextlib.suppress(Refused):
                    caller = await keeper.caller(token)
                await keeper.audit(method, caller, _plain(request, streaming_request),
                                   f"refused ({refused.code.name})", str(refused))
            await context.abort(refused.code, str(refused))
            raise AssertionError("abort returned") from None  # pragma: no cover

    if not streaming_response:
        async def unary(request: Any, context: Any) -> Any:
            caller, rule = await enter(request, context)
            _caller.set(caller or _ANONYMOUS)
            audited = rule.audits(audit_request(request))
            if audited:
                async def audit_abort(code: grpc.StatusCode, details: str) -> None:
                    await keeper.audit(method, caller, audit_request(request),
                                       _result(code, None), details)
                context = _AuditedAbort(context, audit_abort)
            try:
                response = await inner(request, context)
            except BaseException as exc:
                if audited and not context.audited:
                    await keeper.audit(method, caller, audit_request(request),
                                       _failure(context, exc), _details(context, exc))
                raise
            if audited:
                await keeper.audit(method, caller, audit_request(request), "ok", "", response)
            return response
        behavior: Behavior = unary
    else:
        async def stream(request: Any, context: Any) -> AsyncIterator[Any]:
            caller, rule = await enter(request, context)
            _caller.set(caller or _ANONYMOUS)
            result, detail = "ok", ""
            try:
                async for update in inner(request, context):
                    yield update
            except BaseException as exc:
                result, detail = _failure(context, exc), _details(context, exc)
                raise
            finally:
                if rule.audits(audit_request(request)):
                    keeper.audit_later(method, caller, audit_request(request), result, detail)
        behavior = stream

    factory: Any = _HANDLER_FACTORIES[streaming_request, streaming_response]
    wrapped: grpc.RpcMethodHandler[Any, Any] = factory(
        behavior, request_deserializer=handler.request_deserializer,
        response_serializer=handler.response_serializer)
    return wrapped


def _plain(request: Any, streamed: bool) -> Any:
    """The request to name an audit line's target from (none for a stream of requests)."""
    return None if streamed else request


class _AuditedAbort:
    """A unary call's servicer context whose `abort` writes the call's audit line before
    the status goes out, so that a caller who has heard of its failure finds it in the
    trail (as one told of a success does), and a server stopped just after the answer
    does not cancel a call still writing its line. Everything else is the context's."""

    def __init__(self, context: Any,
                 audit: Callable[[grpc.StatusCode, str], Awaitable[None]]) -> None:
        self._context = context
        self._audit = audit
        self.audited = False

    async def abort(self, code: grpc.StatusCode, details: str = "",
                    trailing_metadata: Any = ()) -> None:
        """Write the audit line, then end the call with `code` and `details`."""
        if not self.audited:
            self.audited = True
            await self._audit(code, details)
        await self._context.abort(code, details, trailing_metadata)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)


def _failure(context: Any, exc: BaseException) -> str:
    """How a call that raised ended, for its audit line."""
    if isinstance(exc, asyncio.CancelledError):
        return "cancelled"
    return _result(context.code(), exc)


def _result(code: Any, exc: BaseException | None) -> str:
    """The audit result of a call that ended with status `code` (raising `exc`)."""
    if code in (grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED):
        return f"refused ({code.name})"
    if isinstance(code, grpc.StatusCode) and code is not grpc.StatusCode.OK:
        return f"failed ({code.name})"
    return f"failed ({type(exc).__name__})"


def _details(context: Any, exc: BaseException) -> str:
    """What a call that raised said."""
    details = context.details()
    if isinstance(details, bytes):
        details = details.decode("utf-8", "replace")
    return str(details or exc or "")
