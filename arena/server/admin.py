"""`ArenaAdmin`: what operators and the CLI may ask a running server.

One servicer serves every call. The live calls (connections, tables, watching
a game) read the server's own state; the management calls (bots, tournaments,
rankings, stored games) go to a `Management` over a store, and answer
UNIMPLEMENTED on a server built without one. Every message is built in
`arena.wire_admin`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sqlite3
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any, NoReturn, TypeVar

import grpc

from arena import stats, wire_admin
from arena.engine.rules import RuleSetError
from arena.game_id import parse_game_id, public_game_id
from arena.ladder.settings import DEFAULT_NAME
from arena.server.connection import BotConnection
from arena.server.management import Management, ManagementError, Progress, ProgressListener
from arena.server.policy import BotPolicy
from arena.server.result import GameAbortedError
from arena.server.table import GameTable
from arena.store import (
    DuplicateName,
    GameSummary,
    InvalidInput,
    Pool,
    ReconnectFailed,
    Store,
    StoreError,
    Tournament,
    UnknownBot,
    UnknownGame,
    UnknownPool,
    UnknownTournament,
)
from arena.submissions import MANIFEST
from arena.tournament import ScheduleError
from arena.v1 import admin_pb2, admin_pb2_grpc

SERVICE_NAME = admin_pb2.DESCRIPTOR.services_by_name["ArenaAdmin"].full_name
"""The full name of the admin service ("arena.v1.ArenaAdmin")."""

_STATUS: tuple[tuple[type[Exception], grpc.StatusCode], ...] = (
    (DuplicateName, grpc.StatusCode.ALREADY_EXISTS),
    (UnknownBot, grpc.StatusCode.NOT_FOUND),
    (UnknownTournament, grpc.StatusCode.NOT_FOUND),
    (UnknownGame, grpc.StatusCode.NOT_FOUND),
    (UnknownPool, grpc.StatusCode.NOT_FOUND),
    (InvalidInput, grpc.StatusCode.INVALID_ARGUMENT),
    (StoreError, grpc.StatusCode.FAILED_PRECONDITION),
    (sqlite3.Error, grpc.StatusCode.FAILED_PRECONDITION),
    (RuleSetError, grpc.StatusCode.INVALID_ARGUMENT),
    (ScheduleError, grpc.StatusCode.INVALID_ARGUMENT),
    (ManagementError, grpc.StatusCode.FAILED_PRECONDITION),
    (wire_admin.RequestError, grpc.StatusCode.FAILED_PRECONDITION),
    (wire_admin.UploadTooLarge, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (ValueError, grpc.StatusCode.INVALID_ARGUMENT),
)


def status_for(exc: Exception) -> grpc.StatusCode:
    """The gRPC status a management error is reported with."""
    for kind, code in _STATUS:
        if isinstance(exc, kind):
            return code
    return grpc.StatusCode.INTERNAL


async def _abort(context: Any, exc: Exception) -> NoReturn:
    """End the call with the gRPC status and message of a management error."""
    message = f"the database cannot be used: {exc}" if isinstance(exc, sqlite3.Error) else exc
    await context.abort(status_for(exc), str(message))
    raise AssertionError("abort returned")  # pragma: no cover


Request = TypeVar("Request")
Response = TypeVar("Response")
UnaryCall = Callable[["AdminService", Request, Any], Awaitable[Response]]
"""A unary servicer method: (self, request, context) to an awaited response."""


def _management_call(method: UnaryCall[Request, Response]) -> UnaryCall[Request, Response]:
    """A unary management call: UNIMPLEMENTED without a store; its errors end the call
    with their gRPC status."""
    @functools.wraps(method)
    async def call(self: AdminService, request: Request, context: Any) -> Response:
        await self._available_management(context, method.__name__)
        try:
            return await method(self, request, context)
        except (StoreError, ValueError, sqlite3.Error) as exc:
            await _abort(context, exc)
    return call


class AdminService(admin_pb2_grpc.ArenaAdminServicer):
    """Lists connections and tables, streams a game's public events, and (given a
    `Management`) manages bots, tournaments, rankings and stored games.

    It reads the server's state through three callables: the open connections,
    the tables being played, and a lookup of a game (playing or recently
    finished) by id.
    """

    def __init__(self, connections: Callable[[], list[BotConnection]],
                 tables: Callable[[], list[GameTable]],
                 find_table: Callable[[str], GameTable | None],
                 management: Management | None = None) -> None:
        self._connections = connections
        self._tables = tables
        self._find_table = find_table
        self._management = management

    def management_for(self, method: str) -> Management:
        """The management the call `method` needs; `ManagementUnavailable` without one."""
        if self._management is None:
            raise ManagementUnavailable(method)
        return self._management

    # ------------------------------------------------------------ live calls

    async def ListConnectedBots(self, request: admin_pb2.ListConnectedBotsRequest,
                                context: Any) -> admin_pb2.ListConnectedBotsResponse:
        """Every open bot connection."""
        return admin_pb2.ListConnectedBotsResponse(bots=[
            admin_pb2.ConnectedBot(
                name=c.bot_name, connection_id=c.connection_id, bot_version=c.hello.bot_version,
                max_tables=c.hello.max_tables, tables_playing=len(c.tables), peer=c.peer)
            for c in self._connections()
        ])

    async def ListTables(self, request: admin_pb2.ListTablesRequest,
                         context: Any) -> admin_pb2.ListTablesResponse:
        """Every table being played."""
        return admin_pb2.ListTablesResponse(tables=[t.info() for t in self._tables()])

    async def WatchGame(self, request: admin_pb2.WatchGameRequest,
                        context: Any) -> AsyncIterator[admin_pb2.WatchGameUpdate]:
        """The game's public events from its start, then live; the outcome comes last."""
        table = self._find_table(request.game_id)
        if table is None:
            await context.abort(
                grpc.StatusCode.NOT_FOUND,
                f"no game {request.game_id} is being played on this server (`arena --server "
                f"HOST:PORT tables` lists those that are); a game that has ended is stored: "
                f"`arena replay {request.game_id}` shows it")
            return
        updates = table.watch()
        try:
            while (update := await updates.get()) is not None:
                yield update
        finally:
            table.unwatch(updates)

    # ------------------------------------------------------------------ bots

    @_management_call
    async def AddBot(self, request: admin_pb2.AddBotRequest,
                     context: Any) -> admin_pb2.AddBotResponse:
        """Register a bot and return its token."""
        bot, token = self.management_for("AddBot").add_bot(
            request.name, request.kind or "remote", request.command or None)
        return admin_pb2.AddBotResponse(bot=wire_admin.bot_info(bot), token=token)

    @_management_call
    async def ListBots(self, request: admin_pb2.ListBotsRequest,
                       context: Any) -> admin_pb2.ListBotsResponse:
        """Every registered bot."""
        return admin_pb2.ListBotsResponse(bots=[
            wire_admin.bot_info(b, c) for b, c in self.management_for("ListBots").list_bots()])

    @_management_call
    async def RemoveBot(self, request: admin_pb2.RemoveBotRequest,
                        context: Any) -> admin_pb2.RemoveBotResponse:
        """Remove a bot."""
        bot = await self.management_for("RemoveBot").remove_bot(request.name)
        return admin_pb2.RemoveBotResponse(bot=wire_admin.bot_info(bot))

    @_management_call
    async def SubmitBot(self, request: AsyncIterator[admin_pb2.SubmitBotChunk],
                        context: Any) -> admin_pb2.SubmitBotResponse:
        """Take a bot's archive in chunks, within the size limit, and make it the bot's
        next version, built (in a worker thread: a build takes a while)."""
        management = self.management_for("SubmitBot")
        header, archive = await wire_admin.read_upload(
            request, management.upload_limits.max_upload_bytes)
        submitted = await asyncio.to_thread(
            management.submit_bot, archive, header.manifest or MANIFEST, header.name or None,
            header.inherit_rating)
        rating = management.store.latest_rating(submitted.version.name)
        return admin_pb2.SubmitBotResponse(
            version=wire_admin.version_info((submitted.version, rating)),
            created=submitted.created)

    @_management_call
    async def ListBotVersions(self, request: admin_pb2.ListBotVersionsRequest,
                              context: Any) -> admin_pb2.ListBotVersionsResponse:
        """A bot's versions with their builds and ratings (and one build's whole log)."""
        management = self.management_for("ListBotVersions")
        response = admin_pb2.ListBotVersionsResponse(versions=[
            wire_admin.version_info(line) for line in management.bot_versions(request.name)])
        if request.log_version:
            response.log = management.build_log(request.name, request.log_version)
        return response

    # --------------------------------------------------------- ranks and games

    @_management_call
    async def GetRankings(self, request: admin_pb2.GetRankingsRequest,
                          context: Any) -> admin_pb2.GetRankingsResponse:
        """The leaderboard of one pool, with intervals and shared places."""
        management = self.management_for("GetRankings")
        ranking = management.rankings(request.tournament, request.pool, request.confidence,
                                      request.all_versions)
        tournament = self._tournament_of(ranking.pool)
        faults = management.tournament_faults(tournament) if tournament else None
        return wire_admin.rankings_response(ranking, tournament, faults)

    @_management_call
    async def ListPools(self, request: admin_pb2.ListPoolsRequest,
                        context: Any) -> admin_pb2.ListPoolsResponse:
        """Every rating pool with a rated game."""
        return admin_pb2.ListPoolsResponse(pools=[
            wire_admin.pool_info(pool, self._tournament_of(pool))
            for pool in self.management_for("ListPools").pools()])

    @_management_call
    async def GetCrosstable(self, request: admin_pb2.GetCrosstableRequest,
                            context: Any) -> admin_pb2.GetCrosstableResponse:
        """Head-to-head results in one pool."""
        confidence = request.confidence or stats.CONFIDENCE
        pool, rows = self.management_for("GetCrosstable").crosstable(
            request.tournament, request.pool, confidence)
        return wire_admin.crosstable_response(pool, rows, confidence, self._tournament_of(pool))

    @_management_call
    async def GetStats(self, request: admin_pb2.GetStatsRequest,
                       context: Any) -> admin_pb2.GetStatsResponse:
        """Per-seat results and the duplicate design of one pool."""
        statistics = self.management_for("GetStats").statistics(request.tournament,
                                                                request.pool)
        return wire_admin.stats_response(statistics, self._tournament_of(statistics.pool))

    @_management_call
    async def FitRatings(self, request: admin_pb2.FitRatingsRequest,
                         context: Any) -> admin_pb2.FitRatingsResponse:
        """TrueSkill's beta and draw probability fitted to one pool's games."""
        fitted = await asyncio.to_thread(self.management_for("FitRatings").fit,
                                         request.tournament, request.pool)
        return wire_admin.fit_response(fitted, self._tournament_of(fitted.pool))

    def _tournament_of(self, pool: Pool) -> str:
        if pool.tournament_id is None:
            return ""
        return self.management_for("GetRankings").store.tournament(pool.tournament_id).name

    @_management_call
    async def ListGames(self, request: admin_pb2.ListGamesRequest,
                        context: Any) -> admin_pb2.ListGamesResponse:
        """Stored games, newest first."""
        management = self.management_for("ListGames")
        games = management.games(request.tournament, request.bot, request.limit)
        ids = management.public_ids(games)
        return admin_pb2.ListGamesResponse(games=[
            wire_admin.summary_info(g, self._tournament_name(management, g), ids[g.id])
            for g in games])

    @_management_call
    async def GetGame(self, request: admin_pb2.GetGameRequest,
                      context: Any) -> admin_pb2.GetGameResponse:
        """One stored game with its events and actions."""
        management = self.management_for("GetGame")
        game_id = parse_game_id(request.id) if request.id else request.game_id
        game = management.game(game_id)
        return wire_admin.game_response(game, self._tournament_name(management, game),
                                        management.public_ids([game])[game.id])

    async def ExportTournament(self, request: admin_pb2.ExportTournamentRequest,
                               context: Any) -> AsyncIterator[admin_pb2.ExportedGame]:
        """Every stored game of a tournament in schedule order, each with its record."""
        management = await self._available_management(context, "ExportTournament")
        try:
            games = management.export(request.tournament)
            name = request.tournament
            for entry, game in games:
                yield wire_admin.exported_game(
                    entry, game, name, public_game_id(name, entry.game_index))
        except (StoreError, ValueError, sqlite3.Error) as exc:
            await _abort(context, exc)

    @staticmethod
    def _tournament_name(management: Management, game: GameSummary) -> str:
        if game.tournament_id is None:
            return ""
        return management.store.tournament(game.tournament_id).name

    # ----------------------------------------------------------- tournaments

    @_management_call
    async def CreateTournament(self, request: admin_pb2.CreateTournamentRequest,
                               context: Any) -> admin_pb2.TournamentInfo:
        """Create a tournament with its schedule, built in a worker thread so that a big
        schedule does not hold up the event loop (bot streams, health checks)."""
        management = self.management_for("CreateTournament")
        tournament = await asyncio.to_thread(
            management.create_tournament,
            request.name, list(request.bots), wire_admin.tournament_settings_from(request))
        return self._tournament_info(management, tournament)

    @_management_call
    async def ListTournaments(self, request: admin_pb2.ListTournamentsRequest,
                              context: Any) -> admin_pb2.ListTournamentsResponse:
        """Every tournament, and every tournament on the timetable."""
        management = self.management_for("ListTournaments")
        return admin_pb2.ListTournamentsResponse(tournaments=[
            self._tournament_info(management, t)
            for t in management.store.list_tournaments()], scheduled=[
            wire_admin.scheduled_tournament_info(t) for t in management.store.timetables()])

    @_management_call
    async def GetSchedule(self, request: admin_pb2.GetScheduleRequest,
                          context: Any) -> admin_pb2.GetScheduleResponse:
        """A tournament's schedule (unless `skip_games`) and where it stands."""
        management = self.management_for("GetSchedule")
        tournament = management.store.tournament(request.tournament)
        response = admin_pb2.GetScheduleResponse(
            tournament=self._tournament_info(management, tournament))
        if not request.skip_games:
            wire_admin.add_scheduled_games(
                response, management.store.scheduled_games(tournament.id), tournament.name)
        return response

    @_management_call
    async def ScheduleTournament(self, request: admin_pb2.ScheduleTournamentRequest,
                                 context: Any) -> admin_pb2.ScheduledTournamentInfo:
        """Put a tournament on the timetable (its schedule checked in a worker thread)."""
        management = self.management_for("ScheduleTournament")
        timetable = await asyncio.to_thread(
            management.schedule_tournament, request.name, list(request.bots),
            wire_admin.tournament_settings_from(request), wire_admin.schedule_start(request),
            request.every_seconds or None)
        return wire_admin.scheduled_tournament_info(timetable)

    @_management_call
    async def UnscheduleTournament(self, request: admin_pb2.UnscheduleTournamentRequest,
                                   context: Any) -> admin_pb2.ScheduledTournamentInfo:
        """Take a tournament off the timetable; its editions stay."""
        return wire_admin.scheduled_tournament_info(
            self.management_for("UnscheduleTournament").unschedule_tournament(request.name))

    @staticmethod
    def _tournament_info(management: Management, tournament: Tournament
                         ) -> admin_pb2.TournamentInfo:
        store = management.store
        return wire_admin.tournament_info(tournament, store.schedule_progress(tournament.id),
                                          store.tournament_bots(tournament.id))

    async def RunTournament(self, request: admin_pb2.RunTournamentRequest,
                            context: Any) -> AsyncIterator[admin_pb2.RunProgress]:
        """Run (or resume) a tournament, streaming progress."""
        management = await self._available_management(context, "RunTournament")
        try:
            wait = wire_admin.wait_seconds(request)
        except ValueError as exc:
            await _abort(context, exc)

        def start(listener: ProgressListener) -> Awaitable[int]:
            return management.run_tournament(
                request.tournament, request.concurrency, wait, listener,
                wire_admin.until_separated(request), workers=request.workers,
                cluster=request.cluster)

        resume = f"run `arena tournament run {request.tournament}` again to resume"
        async for update in _progress_stream(context, start, resume, management.track,
                                             management.store):
            yield update

    async def RunLadder(self, request: admin_pb2.RunLadderRequest,
                        context: Any) -> AsyncIterator[admin_pb2.RunProgress]:
        """Play the ladder until the call ends, streaming progress."""
        management = await self._available_management(context, "RunLadder")

        async def start(listener: ProgressListener) -> int:
            name = request.name or DEFAULT_NAME
            settings = management.ladder_settings(
                name, wire_admin.json_table(request.settings_json, "ladder settings"),
                request.tables or None)
            return await management.run_ladder(name, settings, listener,
                                               max_games=request.max_games,
                                               workers=request.workers or 1,
                                               cluster=request.cluster)

        resume = "run `arena ladder run` again to go on"
        async for update in _progress_stream(context, start, resume, management.track,
                                             management.store):
            yield update

    async def PlayMatch(self, request: admin_pb2.PlayMatchRequest,
                        context: Any) -> AsyncIterator[admin_pb2.RunProgress]:
        """Play an ad-hoc match, streaming progress."""
        management = await self._available_management(context, "PlayMatch")

        async def start(listener: ProgressListener) -> int:
            rules = wire_admin.rules_from_json(request.rules_json)
            return await management.play_match(
                list(request.bots), request.games or 1, request.seed, rules, BotPolicy(),
                request.concurrency or 1, wire_admin.wait_seconds(request), listener,
                wire_admin.sprt_plan(request), workers=request.workers or 1)

        async for update in _progress_stream(context, start, track=management.track,
                                             store=management.store):
            yield update

    async def _available_management(self, context: Any, method: str) -> Management:
        try:
            return self.management_for(method)
        except ManagementUnavailable as exc:
            await context.abort(grpc.StatusCode.UNIMPLEMENTED, str(exc))
            raise AssertionError("abort returned") from None  # pragma: no cover


class ManagementUnavailable(Exception):
    """A management call reached a server built without a store."""

    def __init__(self, method: str) -> None:
        super().__init__(f"{method} needs a server with a store (arena serve)")


async def _progress_stream(context: Any, start: Callable[[ProgressListener], Awaitable[int]],
                           resume: str = "",
                           track: Callable[[asyncio.Future[Any]], None] | None = None,
                           store: Store | None = None,
                           ) -> AsyncIterator[admin_pb2.RunProgress]:
    """Run `start` as a task and stream its progress; errors become a gRPC status.

    A run cut short by the server stopping (its games in play aborted) ends
    with ABORTED and how far it came, plus the `resume` hint; the run's own
    error is always retrieved, even when the caller has gone away. `track` is handed
    the run's task, so that a stopping server can let it finish with the store.
    While it runs, the `store` losing its connection to the database, and
    reconnecting, are streamed as notices.
    """
    updates: asyncio.Queue[Progress] = asyncio.Queue()
    loop = asyncio.get_running_loop()
    last = Progress(0, 0)

    def notice(line: str) -> None:
        # Called from whichever thread the store found out in.
        loop.call_soon_threadsafe(lambda: updates.put_nowait(replace(last, notice=line)))

    with contextlib.ExitStack() as watching:
        if store is not None:
            watching.enter_context(store.reporting_connection(notice))
        stream = _stream_updates(context, start, updates, resume, track)
        async with contextlib.aclosing(stream):  # the run ends with the call
            async for update in stream:
                if not update.notice:
                    last = update
                yield wire_admin.run_progress(update, "running")
        yield wire_admin.run_progress(last, "finished" if last.done >= last.total
                                      else "stopped")


async def _stream_updates(context: Any, start: Callable[[ProgressListener], Awaitable[int]],
                          updates: asyncio.Queue[Progress], resume: str,
                          track: Callable[[asyncio.Future[Any]], None] | None
                          ) -> AsyncGenerator[Progress, None]:
    """Run `start` as a task and give each update it puts in `updates` (see
    `_progress_stream`)."""
    task = asyncio.ensure_future(start(updates.put_nowait))
    if track is not None:
        track(task)
    getter: asyncio.Future[Progress] | None = None
    last = Progress(0, 0)
    try:
        while not task.done() or not updates.empty():
            getter = asyncio.ensure_future(updates.get())
            await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
            if getter.done():
                update = getter.result()
                if not update.notice:
                    last = update
                yield update
            else:
                getter.cancel()
        task.result()
    except GameAbortedError:
        hint = f"; {resume}" if resume else ""
        await context.abort(grpc.StatusCode.ABORTED,
                            f"the server stopped: {last.done} of {last.total} games done{hint}")
    except ReconnectFailed as exc:
        hint = f"; {resume}" if resume else ""
        await context.abort(status_for(exc), f"{exc}{hint}")
    except (StoreError, ValueError, sqlite3.Error) as exc:
        await _abort(context, exc)
    finally:
        if getter is not None:
            getter.cancel()
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, GameAbortedError):
                await task
        elif not task.cancelled():
            task.exception()  # reported above, or nobody is left to tell
