"""The permission matrix: every admin RPC called by the organizer, the author who owns
the bot it names, another author, a viewer and someone with no token, each answer
checked against `arena.server.permissions.RULES` — over real gRPC, on a real SQLite
file."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.server.permissions import CALLER_SECONDS, RULES, STRICT_OWNER, Need
from arena.store import BotKind, Quota
from arena.submissions import pack
from arena.v1 import admin_pb2, admin_pb2_grpc
from arena.wire_admin import upload_chunks
from tests.support import managed_server

ORGANIZER_TOKEN = "organizer-secret-token"
CALLERS = ("nobody", "viewer", "other", "owner", "organizer")
"""Who calls, in the order each RPC is tried (the owner and the organizer last, so that
what they change is not what the others are refused)."""
REFUSALS = {grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED}
SERVICE = admin_pb2.DESCRIPTOR.services_by_name["ArenaAdmin"]


def python_bot(folder: Path, name: str) -> bytes:
    """The archive of a small submitted Python bot called `name`."""
    folder.mkdir(parents=True)
    (folder / "arena-bot.toml").write_text(f'name = "{name}"\nrun = "./bot"\n')
    (folder / "bot").write_text("#!/bin/sh\necho a bot\n")
    return pack(folder)


def requests(caller: str, archive: bytes, invite: str) -> dict[str, Any]:
    """A request for every RPC; what it names is the owner's where a bot is named."""
    return {
        "ListConnectedBots": admin_pb2.ListConnectedBotsRequest(),
        "ListTables": admin_pb2.ListTablesRequest(),
        "WatchGame": admin_pb2.WatchGameRequest(game_id="no-such-game"),
        "AddBot": admin_pb2.AddBotRequest(name=f"added-by-{caller}", kind="remote"),
        "ListBots": admin_pb2.ListBotsRequest(),
        "RemoveBot": admin_pb2.RemoveBotRequest(name="alice-spare"),
        "SubmitBot": upload_chunks(archive, admin_pb2.SubmitBotHeader(name="alice-sub")),
        "ListBotVersions": admin_pb2.ListBotVersionsRequest(name="alice-sub"),
        "GetBotLog": _optional("GetBotLogRequest", name="alice-bot"),
        "CreateTournament": admin_pb2.CreateTournamentRequest(
            name=f"cup-{caller}", bots=["alice-bot", "bob-bot"]),
        "ListTournaments": admin_pb2.ListTournamentsRequest(),
        "GetSchedule": admin_pb2.GetScheduleRequest(tournament="no-such-cup"),
        "RunTournament": admin_pb2.RunTournamentRequest(tournament="no-such-cup"),
        "ScheduleTournament": admin_pb2.ScheduleTournamentRequest(
            name=f"weekly-{caller}", bots=["alice-bot", "bob-bot"]),
        "UnscheduleTournament": admin_pb2.UnscheduleTournamentRequest(name="no-such-cup"),
        "RunLadder": admin_pb2.RunLadderRequest(settings_json="not json"),
        "PlayMatch": admin_pb2.PlayMatchRequest(bots=["no-such-1", "no-such-2"], games=1),
        "GetRankings": admin_pb2.GetRankingsRequest(),
        "ListPools": admin_pb2.ListPoolsRequest(),
        "GetCrosstable": admin_pb2.GetCrosstableRequest(),
        "GetStats": admin_pb2.GetStatsRequest(),
        "GetRatingHistory": admin_pb2.GetRatingHistoryRequest(),
        "FitRatings": admin_pb2.FitRatingsRequest(apply=True),
        "ListGames": admin_pb2.ListGamesRequest(),
        "GetGame": admin_pb2.GetGameRequest(game_id=999, as_bot="alice-bot"),
        "ExportTournament": admin_pb2.ExportTournamentRequest(tournament="no-such-cup"),
        "AddAuthor": admin_pb2.AddAuthorRequest(name=f"new-{caller}"),
        "ListAuthors": admin_pb2.ListAuthorsRequest(),
        "RemoveAuthor": admin_pb2.RemoveAuthorRequest(name="ghost"),
        "RotateAuthorToken": admin_pb2.RotateAuthorTokenRequest(name="ghost-too"),
        "SetAuthor": admin_pb2.SetAuthorRequest(name="ghost-too"),
        "CreateInvite": admin_pb2.CreateInviteRequest(cap=1),
        "RegisterAuthor": admin_pb2.RegisterAuthorRequest(invite=invite,
                                                          name=f"registered-{caller}"),
        "WhoAmI": admin_pb2.WhoAmIRequest(),
        "ListAudit": admin_pb2.ListAuditRequest(),
    }


def _optional(message: str, **fields: Any) -> Any:
    """A request of a message this build may not have yet (None without it)."""
    kind = getattr(admin_pb2, message, None)
    return None if kind is None else kind(**fields)


def expected_refused(method: str, caller: str, *, public: bool = False) -> bool:
    """Whether `RULES` (and `STRICT_OWNER`) refuse `caller` the matrix's call of `method`."""
    rule = RULES[method]
    if caller == "nobody":
        return rule.need is not Need.INVITE and not (rule.need is Need.PUBLIC and public
                                                    and rule.owned is None)
    if method in STRICT_OWNER:
        return caller != "owner"
    if caller == "organizer":
        return False
    if rule.organizer_field is not None:
        return True  # the matrix sets the field
    if rule.owned is not None:
        return caller != "owner"
    need = rule.need
    if need in (Need.INVITE, Need.PUBLIC, Need.SIGNED_IN):
        return False
    if need is Need.AUTHOR:
        return caller == "viewer"
    if need is Need.RUNNER:
        return True  # neither author may run competitions in the matrix
    return True


async def _answer(stub: admin_pb2_grpc.ArenaAdminStub, method: str, request: Any,
                  token: str | None, scheme: str = "Bearer ") -> tuple[grpc.StatusCode, str]:
    """How `method` answered `request` sent with `token` (after `scheme`): its status and
    its words."""
    metadata = [] if token is None else [("authorization", f"{scheme}{token}")]
    function = getattr(stub, method)
    try:
        if SERVICE.methods_by_name[method].server_streaming:
            async with asyncio.timeout(20):
                async for _ in function(request, metadata=metadata):
                    pass
        else:
            await asyncio.wait_for(function(request, metadata=metadata), 20)
    except grpc.aio.AioRpcError as exc:
        return exc.code(), exc.details() or ""
    return grpc.StatusCode.OK, ""


async def _call(stub: admin_pb2_grpc.ArenaAdminStub, method: str, request: Any,
                token: str | None) -> grpc.StatusCode:
    code, details = await _answer(stub, method, request, token)
    if code in REFUSALS:
        assert details, f"{method}: a refusal says what was missing"
    return code


@pytest.fixture
def matrix(tmp_path: Path, store_target: Path | str,
           ) -> Iterator[dict[tuple[str, str], grpc.StatusCode]]:
    """Every RPC × every caller → the status it answered, on each backend."""
    archives = {caller: python_bot(tmp_path / "bots" / caller, "alice-sub")
                for caller in CALLERS}

    async def walk() -> dict[tuple[str, str], grpc.StatusCode]:
        async with managed_server(tmp_path, admin_token=ORGANIZER_TOKEN,
                                  database=store_target) as served:
            store = served.store
            alice, alice_token = store.add_author("alice")
            _, bob_token = store.add_author("bob")
            _, viewer_token = store.add_author("vic", "viewer")
            store.add_author("ghost")
            store.add_author("ghost-too")
            store.add_bot("alice-bot", BotKind.REMOTE, author_id=alice.id)
            store.add_bot("alice-spare", BotKind.REMOTE, author_id=alice.id)
            store.add_bot("bob-bot", BotKind.REMOTE,
                          author_id=store.author("bob").id)
            served.services.bots.submit(python_bot(tmp_path / "first", "alice-sub"),
                                        "arena-bot.toml", None, False,
                                        author_id=alice.id, quota=Quota())
            _, invite = store.create_invite(len(CALLERS))
            tokens = {"nobody": None, "viewer": viewer_token, "other": bob_token,
                      "owner": alice_token, "organizer": ORGANIZER_TOKEN}
            answers = {}
            async with grpc.aio.insecure_channel(f"127.0.0.1:{served.port}") as channel:
                stub = admin_pb2_grpc.ArenaAdminStub(channel)
                for method in SERVICE.methods_by_name:
                    for caller in CALLERS:
                        request = requests(caller, archives[caller], invite)[method]
                        answers[method, caller] = await _call(stub, method, request,
                                                              tokens[caller])
            return answers

    yield asyncio.run(walk())


def test_every_admin_rpc_has_one_rule_and_every_rule_an_rpc() -> None:
    assert set(RULES) == set(SERVICE.methods_by_name)


def test_every_rpc_answers_every_caller_as_the_table_says(
        matrix: dict[tuple[str, str], grpc.StatusCode]) -> None:
    assert len(matrix) == len(SERVICE.methods_by_name) * len(CALLERS)
    wrong = {key: code.name for key, code in matrix.items()
             if (code in REFUSALS) != expected_refused(*key)}
    assert not wrong, f"answered against the table: {wrong}"
    for (method, caller), code in matrix.items():
        if expected_refused(method, caller) and caller != "nobody":
            assert code is grpc.StatusCode.PERMISSION_DENIED, (method, caller, code)


def test_every_cross_author_attempt_is_refused(
        matrix: dict[tuple[str, str], grpc.StatusCode]) -> None:
    owned = [m for m, rule in RULES.items() if rule.owned or m in STRICT_OWNER]
    assert owned  # the matrix names the owner's bot in each of these
    assert all(matrix[m, "other"] is grpc.StatusCode.PERMISSION_DENIED for m in owned)
    assert all(matrix[m, "viewer"] in REFUSALS for m in owned)


def test_an_rpc_without_a_rule_is_refused_to_everyone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(RULES, "ListPools")

    async def ask() -> grpc.StatusCode:
        async with managed_server(tmp_path, admin_token=ORGANIZER_TOKEN) as served, \
                grpc.aio.insecure_channel(f"127.0.0.1:{served.port}") as channel:
            return await _call(admin_pb2_grpc.ArenaAdminStub(channel), "ListPools",
                               admin_pb2.ListPoolsRequest(), ORGANIZER_TOKEN)

    assert asyncio.run(ask()) is grpc.StatusCode.PERMISSION_DENIED


async def _ask(port: int, method: str, request: Any, token: str | None,
               scheme: str = "Bearer ") -> tuple[grpc.StatusCode, str]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        return await _answer(admin_pb2_grpc.ArenaAdminStub(channel), method, request, token,
                             scheme)


def test_a_public_server_lets_anyone_read_the_leaderboard_but_nothing_else(
        tmp_path: Path) -> None:
    async def scenario() -> dict[str, tuple[grpc.StatusCode, str]]:
        async with managed_server(tmp_path, admin_token=ORGANIZER_TOKEN,
                                  public=True) as served:
            port = served.port
            return {
                "ListTournaments": await _ask(port, "ListTournaments",
                                              admin_pb2.ListTournamentsRequest(), None),
                "AddBot": await _ask(port, "AddBot", admin_pb2.AddBotRequest(name="x"), None),
                "WhoAmI": await _ask(port, "WhoAmI", admin_pb2.WhoAmIRequest(), None),
                "FitRatings apply": await _ask(port, "FitRatings",
                                               admin_pb2.FitRatingsRequest(apply=True), None),
                "ListBotVersions": await _ask(port, "ListBotVersions",
                                              admin_pb2.ListBotVersionsRequest(name="x"), None),
            }

    answers = asyncio.run(scenario())
    assert answers["ListTournaments"][0] is grpc.StatusCode.OK
    assert answers["AddBot"][0] is grpc.StatusCode.UNAUTHENTICATED
    assert "needs a token" in answers["AddBot"][1]
    assert answers["WhoAmI"][0] is grpc.StatusCode.UNAUTHENTICATED
    assert answers["FitRatings apply"][0] is grpc.StatusCode.UNAUTHENTICATED
    assert answers["ListBotVersions"][0] is grpc.StatusCode.UNAUTHENTICATED


def test_a_refusal_says_what_was_missing_and_who_asked(tmp_path: Path) -> None:
    async def scenario() -> tuple[tuple[grpc.StatusCode, str], ...]:
        async with managed_server(tmp_path, admin_token=ORGANIZER_TOKEN) as served:
            _, viewer = served.store.add_author("vic", "viewer")
            _, author = served.store.add_author("ann")
            port = served.port
            return (
                await _ask(port, "AddAuthor", admin_pb2.AddAuthorRequest(name="x"), author),
                await _ask(port, "AddBot", admin_pb2.AddBotRequest(name="y"), viewer),
                await _ask(port, "PlayMatch", admin_pb2.PlayMatchRequest(), author),
                await _ask(port, "ListBots", admin_pb2.ListBotsRequest(), "made-up"),
                await _ask(port, "ListAudit", admin_pb2.ListAuditRequest(author="vic"), author),
                await _ask(port, "ListBots", admin_pb2.ListBotsRequest(), ORGANIZER_TOKEN,
                           scheme=""),
            )

    add_author, add_bot, _, made_up, others_audit, without_bearer = asyncio.run(scenario())
    assert add_author == (grpc.StatusCode.PERMISSION_DENIED,
                          "AddAuthor needs the organizer's token; you are author ann")
    assert add_bot == (grpc.StatusCode.PERMISSION_DENIED,
                       "AddBot needs an author's token; you are viewer vic")
    assert made_up[0] is grpc.StatusCode.UNAUTHENTICATED
    assert "not valid on this server" in made_up[1]
    assert without_bearer[0] is grpc.StatusCode.UNAUTHENTICATED
    assert "must read `Bearer TOKEN`" in without_bearer[1]
    assert others_audit == (grpc.StatusCode.PERMISSION_DENIED,
                            "ListAudit of vic's lines needs the organizer's token; you are "
                            "author ann, who reads only their own")


def test_an_author_may_run_competitions_once_the_organizer_allows_it(tmp_path: Path) -> None:
    async def scenario() -> tuple[grpc.StatusCode, grpc.StatusCode]:
        async with managed_server(tmp_path, admin_token=ORGANIZER_TOKEN) as served:
            _, token = served.store.add_author("ann")
            for bot in ("one", "two"):
                served.store.add_bot(bot, BotKind.REMOTE)
            request = admin_pb2.CreateTournamentRequest(
                name="cup", bots=["one", "two"], settings_json='{"table_size": 2}')
            before = await _ask(served.port, "CreateTournament", request, token)
            allowed = await _ask(served.port, "SetAuthor", admin_pb2.SetAuthorRequest(
                name="ann", may_run=True), ORGANIZER_TOKEN)
            assert allowed[0] is grpc.StatusCode.OK
            after = await _ask(served.port, "CreateTournament", request, token)
            return before[0], after[0]

    assert asyncio.run(scenario()) == (grpc.StatusCode.PERMISSION_DENIED,
                                       grpc.StatusCode.OK)


def test_a_removed_or_rotated_token_is_refused_at_once(tmp_path: Path) -> None:
    async def scenario() -> list[grpc.StatusCode]:
        async with managed_server(tmp_path, admin_token=ORGANIZER_TOKEN) as served:
            _, ann = served.store.add_author("ann")
            _, bob = served.store.add_author("bob")
            port, listing = served.port, admin_pb2.ListBotsRequest()
            codes = [(await _ask(port, "ListBots", listing, token))[0] for token in (ann, bob)]
            await _ask(port, "RemoveAuthor", admin_pb2.RemoveAuthorRequest(name="ann"),
                       ORGANIZER_TOKEN)
            codes.append((await _ask(port, "ListBots", listing, ann))[0])
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                rotated = await admin_pb2_grpc.ArenaAdminStub(channel).RotateAuthorToken(
                    admin_pb2.RotateAuthorTokenRequest(name="bob"),
                    metadata=(("authorization", f"Bearer {ORGANIZER_TOKEN}"),))
            codes.append((await _ask(port, "ListBots", listing, bob))[0])
            codes.append((await _ask(port, "ListBots", listing, rotated.token))[0])
            return codes

    assert asyncio.run(scenario()) == [
        grpc.StatusCode.OK, grpc.StatusCode.OK, grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.OK]


def test_a_change_made_beside_the_server_counts_within_a_second(tmp_path: Path) -> None:
    async def scenario() -> list[grpc.StatusCode]:
        async with managed_server(tmp_path, admin_token=ORGANIZER_TOKEN) as served:
            _, ann = served.store.add_author("ann")
            port, listing = served.port, admin_pb2.ListBotsRequest()
            codes = [(await _ask(port, "ListBots", listing, ann))[0]]
            served.store.remove_author("ann")
            await asyncio.sleep(CALLER_SECONDS + 0.1)
            codes.append((await _ask(port, "ListBots", listing, ann))[0])
            return codes

    assert asyncio.run(scenario()) == [grpc.StatusCode.OK, grpc.StatusCode.UNAUTHENTICATED]



def test_every_change_and_every_refused_change_is_in_the_audit_trail(tmp_path: Path) -> None:
    async def scenario() -> tuple[list[admin_pb2.AuditLine], tuple[grpc.StatusCode, str]]:
        async with managed_server(tmp_path, admin_token=ORGANIZER_TOKEN) as served:
            port = served.port
            _, ann = served.store.add_author("ann")
            _, ben = served.store.add_author("ben")
            await _ask(port, "AddBot", admin_pb2.AddBotRequest(name="anns"), ann)
            await _ask(port, "RemoveBot", admin_pb2.RemoveBotRequest(name="anns"), ben)
            await _ask(port, "ListBots", admin_pb2.ListBotsRequest(), ann)  # a read: not kept
            await _ask(port, "AddAuthor", admin_pb2.AddAuthorRequest(name="cy"),
                       ORGANIZER_TOKEN)
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = admin_pb2_grpc.ArenaAdminStub(channel)
                lines = (await stub.ListAudit(
                    admin_pb2.ListAuditRequest(),
                    metadata=[("authorization", f"Bearer {ORGANIZER_TOKEN}")])).lines
            others = await _ask(port, "ListAudit", admin_pb2.ListAuditRequest(author="ann"),
                                ben)
            return list(lines), others

    lines, others = asyncio.run(scenario())
    seen = [(line.actor, line.action, line.target, line.result.split(" ")[0])
            for line in reversed(lines)]
    assert seen == [("ann", "AddBot", "anns", "ok"), ("ben", "RemoveBot", "anns", "refused"),
                    ("organizer", "AddAuthor", "cy", "ok")]
    assert others[0] is grpc.StatusCode.PERMISSION_DENIED



def test_a_stream_that_ended_just_before_the_server_stopped_is_in_the_audit_trail(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stream's line is written once it has ended; an in-process CLI stops its server
    the moment its run's stream ends, and the store is closed right after."""
    async def scenario() -> list[tuple[str, str]]:
        async with managed_server(tmp_path, admin_token=ORGANIZER_TOKEN) as served:
            write = served.store.record_audit

            def slow_write(*args: Any) -> None:
                time.sleep(0.5)
                write(*args)

            monkeypatch.setattr(served.store, "record_audit", slow_write)
            code, _ = await _ask(served.port, "RunTournament",
                                 admin_pb2.RunTournamentRequest(tournament="no-such-cup"),
                                 ORGANIZER_TOKEN)
            assert code is grpc.StatusCode.NOT_FOUND
            await served.server.stop(0.1)
            return [(line.action, line.result) for line in served.store.audit()]

    assert asyncio.run(scenario()) == [("RunTournament", "failed (NOT_FOUND)")]


def test_an_author_sees_a_stored_game_as_the_public_did_or_as_their_bot_did_once_its_deal_is_over(
        tmp_path: Path) -> None:
    from dataclasses import dataclass
    from datetime import UTC, datetime

    from arena.engine.outcome import Outcome, Termination

    @dataclass(frozen=True)
    class Slot:
        game_index: int
        seats: tuple[str, ...]
        seed: int
        round: int = 1
        table: int = 1
        teams: None = None

    outcome = Outcome(Termination.SINGLE_HAND, (50, 0), (0, 1), hands_played=1)
    now = datetime(2026, 1, 1, tzinfo=UTC)

    async def scenario() -> dict[str, tuple[grpc.StatusCode, Any]]:
        async with managed_server(tmp_path, admin_token=ORGANIZER_TOKEN) as served:
            store = served.store
            alice, alice_token = store.add_author("alice")
            store.add_bot("alpha", BotKind.REMOTE, author_id=alice.id)
            store.add_bot("beta", BotKind.REMOTE)
            store.create_tournament(
                "dup", "round_robin", {"seed": 1}, {"target_score": None},
                games=[Slot(0, ("alpha", "beta"), seed=11),
                       Slot(1, ("beta", "alpha"), seed=11)])
            first, second = store.pending_games("dup")

            def record(slot: Any) -> int:
                return store.record_game(
                    seats=slot.seats, seed=11, rules={"target_score": None},
                    outcome=outcome, seat_terminations=["normal", "normal"], events=[],
                    actions=[], started_at=now, finished_at=now,
                    scheduled_game_id=slot.id).id

            number = record(first)
            answers: dict[str, tuple[grpc.StatusCode, Any]] = {}
            async with grpc.aio.insecure_channel(f"127.0.0.1:{served.port}") as channel:
                stub = admin_pb2_grpc.ArenaAdminStub(channel)

                async def get(key: str, token: str, as_bot: str = "") -> None:
                    try:
                        answers[key] = (grpc.StatusCode.OK, await stub.GetGame(
                            admin_pb2.GetGameRequest(game_id=number, as_bot=as_bot),
                            metadata=[("authorization", f"Bearer {token}")]))
                    except grpc.aio.AioRpcError as exc:
                        answers[key] = (exc.code(), exc.details())

                await get("author, deal in play", alice_token)
                await get("own bot, deal in play", alice_token, "alpha")
                await get("organizer, deal in play", ORGANIZER_TOKEN)
                record(second)
                await get("author", alice_token)
                await get("own bot", alice_token, "alpha")
                await get("organizer", ORGANIZER_TOKEN)
            return answers

    answers = asyncio.run(scenario())
    for key in ("author, deal in play", "own bot, deal in play"):
        code, details = answers[key]
        assert code is grpc.StatusCode.FAILED_PRECONDITION
        assert "shares its deal with a seating still to be played" in details
    assert answers["organizer, deal in play"][0] is grpc.StatusCode.OK
    public, own, whole = (answers[k][1] for k in ("author", "own bot", "organizer"))
    assert (public.full, public.seed, list(public.visible_seats)) == (False, 0, [])
    assert (own.full, own.seed, list(own.visible_seats)) == (False, 0, [0])
    assert (whole.full, whole.seed) == (True, 11)
