"""`ArenaAdmin`: what operators and the CLI may ask a running server.

One servicer serves every call. The live calls (connections, tables, watching
a game) read the server's own state; the management calls (bots, tournaments,
rankings, stored games) each go to one call of the `arena.services` over a store
(run in a worker thread, so that the event loop never waits for the store; the reads,
answers built and all, in threads of their own: `admin_calls.off_loop`), and answer
UNIMPLEMENTED on a server built without them (`admin_calls`); the calls about people
are `admin_people`'s. Every message is built in `arena.wire_admin`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sqlite3
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import replace
from typing import Any

import grpc

from arena import wire_admin
from arena.game_id import parse_game_id, public_game_id
from arena.ladder.settings import DEFAULT_NAME
from arena.policy import BotPolicy
from arena.result import GameAbortedError
from arena.server.admin_calls import (
    abort_with,
    management_call,
    off_loop,
    status_for,
)
from arena.server.admin_people import PeopleCalls
from arena.server.admin_results import ResultsCalls
from arena.server.connection import BotConnection
from arena.server.permissions import Caller, current_caller
from arena.server.table import GameTable
from arena.services import Progress, ProgressListener, ServiceError, Services
from arena.services.game_views import FULL, PUBLIC, GameView, bot_view
from arena.store import (
    GameSummary,
    ReconnectFailed,
    ScheduledGame,
    Store,
    StoredGame,
    StoreError,
)
from arena.submissions import MANIFEST
from arena.v1 import admin_pb2, admin_pb2_grpc

SERVICE_NAME = admin_pb2.DESCRIPTOR.services_by_name["ArenaAdmin"].full_name
"""The full name of the admin service ("arena.v1.ArenaAdmin")."""

HEARTBEAT_SECONDS = 5.0
"""How long a stream (a run's progress, a watched game) stays quiet before it sends a
heartbeat, so that a client can tell a quiet run from a server that stopped answering."""

def _game_view(game: GameSummary, as_bot: str, caller: Caller,
               deal_in_play: Callable[[GameSummary], bool]) -> GameView:
    """The view `GetGame` answers `caller` with: `as_bot`'s seats when it is set
    (`NotInGame`, an INVALID_ARGUMENT, when that bot did not play the game; the gatekeeper
    has checked the bot is the caller's), else the whole game for the organizer and its
    public events for anyone else. Only the organizer sees a game whose duplicate deal is
    still to be played in another seating: what was played of it tells the cards of the
    seatings to come."""
    if not caller.is_organizer and deal_in_play(game):
        raise ServiceError(
            f"game {game.id} shares its deal with a seating still to be played in its "
            "tournament: it is shown once that deal is played out")
    if as_bot:
        return bot_view(game, as_bot)
    return FULL if caller.is_organizer else PUBLIC


class AdminService(PeopleCalls, ResultsCalls, admin_pb2_grpc.ArenaAdminServicer):
    """Lists connections and tables, streams a game's public events, and (given the
    `Services`) manages bots, tournaments, rankings and stored games.

    It reads the server's state through three callables: the open connections,
    the tables being played, and a lookup of a game (playing or recently
    finished) by id.
    """

    def __init__(self, connections: Callable[[], list[BotConnection]],
                 tables: Callable[[], list[GameTable]],
                 find_table: Callable[[str], GameTable | None],
                 services: Services | None = None) -> None:
        self._connections = connections
        self._tables = tables
        self._find_table = find_table
        self._services = services


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
        """The game's public events from its start, then live; the outcome comes last.
        Anyone but the organizer may not watch a seating of a duplicate deal while another
        seating of it is still to be played: what they saw would tell its cards."""
        if not current_caller().is_organizer and self._services is not None and \
                await asyncio.to_thread(self._services.results.live_deal_shared,
                                        request.game_id):
            await context.abort(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"game {request.game_id} shares its deal with another seating still to be "
                "played: it can be watched by the organizer only, and replayed by anyone "
                "once the deal is played out")
            return
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
            while True:
                try:
                    async with asyncio.timeout(HEARTBEAT_SECONDS):
                        update = await updates.get()
                except TimeoutError:
                    yield admin_pb2.WatchGameUpdate(game_id=request.game_id, heartbeat=True)
                    continue
                if update is None:
                    break
                yield update
        finally:
            table.unwatch(updates)

    # ------------------------------------------------------------------ bots

    @management_call
    async def AddBot(self, request: admin_pb2.AddBotRequest,
                     context: Any) -> admin_pb2.AddBotResponse:
        """Register a bot and return its token."""
        caller = current_caller()
        bot, token = await asyncio.to_thread(
            self.services_for("AddBot").bots.add,
            request.name, request.kind or "remote", request.command or None,
            list(request.read_only_paths), caller.author_id)
        return admin_pb2.AddBotResponse(
            bot=wire_admin.bot_info(bot, author="" if caller.is_organizer else caller.name),
            token=token)

    @management_call
    async def ListBots(self, request: admin_pb2.ListBotsRequest,
                       context: Any) -> admin_pb2.ListBotsResponse:
        """Every registered bot."""
        services = self.services_for("ListBots")
        caller = current_caller()

        def listed() -> admin_pb2.ListBotsResponse:
            authors = services.store.author_names()
            return admin_pb2.ListBotsResponse(bots=[
                wire_admin.bot_info(bot, connected, authors.get(bot.author_id or 0, ""),
                                    private=caller.owns(bot.author_id))
                for bot, connected in services.bots.registered()])

        return await off_loop(listed)

    @management_call
    async def RemoveBot(self, request: admin_pb2.RemoveBotRequest,
                        context: Any) -> admin_pb2.RemoveBotResponse:
        """Remove a bot."""
        bot = await self.services_for("RemoveBot").bots.remove(request.name)
        return admin_pb2.RemoveBotResponse(bot=wire_admin.bot_info(bot))

    @management_call
    async def SubmitBot(self, request: AsyncIterator[admin_pb2.SubmitBotChunk],
                        context: Any) -> admin_pb2.SubmitBotResponse:
        """Take a bot's archive in chunks, within the size limit, and make it the bot's
        next version, built (in a worker thread: a build takes a while), or with `no_wait`
        building while the call answers."""
        bots = self.services_for("SubmitBot").bots
        caller = current_caller()
        limit, what = bots.upload_limits.max_upload_bytes, "this server's limit"
        if caller.quota is not None and caller.quota.upload_bytes < limit:
            limit, what = caller.quota.upload_bytes, "your upload quota"
        header, archive = await wire_admin.read_upload(request, limit, what)
        submitted, rating = await asyncio.to_thread(
            bots.submit, archive, header.manifest or MANIFEST, header.name or None,
            header.inherit_rating, not header.no_wait, caller.author_id, caller.quota)
        return admin_pb2.SubmitBotResponse(
            version=wire_admin.version_info((submitted.version, rating)),
            created=submitted.created)

    @management_call
    async def ListBotVersions(self, request: admin_pb2.ListBotVersionsRequest,
                              context: Any) -> admin_pb2.ListBotVersionsResponse:
        """A bot's versions with their builds and ratings (and one build's whole log)."""
        bots = self.services_for("ListBotVersions").bots

        def listed() -> admin_pb2.ListBotVersionsResponse:
            response = admin_pb2.ListBotVersionsResponse(versions=[
                wire_admin.version_info(line) for line in bots.versions(request.name)])
            if request.log_version:
                response.log = bots.build_log(request.name, request.log_version)
            return response

        return await off_loop(listed)

    @management_call
    async def GetBotLog(self, request: admin_pb2.GetBotLogRequest,
                        context: Any) -> admin_pb2.GetBotLogResponse:
        """The tail of a managed bot's current log."""
        log = await off_loop(self.services_for("GetBotLog").bots.log_tail,
                             request.name, request.lines)
        return admin_pb2.GetBotLogResponse(
            name=log.name, text=log.text,
            path_hint=log.path if current_caller().is_organizer else "")

    # --------------------------------------------------------- ranks and games

    @management_call
    async def FitRatings(self, request: admin_pb2.FitRatingsRequest,
                         context: Any) -> admin_pb2.FitRatingsResponse:
        """TrueSkill's beta and draw probability fitted to one pool's games (and, asked to
        `apply` them, the pool rebuilt under them)."""
        services = self.services_for("FitRatings")

        def fit() -> admin_pb2.FitRatingsResponse:
            fitted, tournament = services.results.fit(request.tournament, request.pool)
            applied = None
            if request.apply:
                applied = services.competitions.apply_fit(fitted)
                services.results.recent.forget()
            return wire_admin.fit_response(fitted, tournament, applied)

        return await asyncio.to_thread(fit)

    @management_call
    async def ListGames(self, request: admin_pb2.ListGamesRequest,
                        context: Any) -> admin_pb2.ListGamesResponse:
        """Stored games, newest first."""
        caller = current_caller()
        if request.mine and caller.author_id is None:
            raise wire_admin.RequestError(
                "--mine lists the games of an author's bots: sign in with an author's token "
                "(`arena login`)")
        results = self.services_for("ListGames").results

        def listed() -> admin_pb2.ListGamesResponse:
            lines = results.games(request.tournament, request.bot, request.limit,
                                  caller.author_id if request.mine else None)
            return admin_pb2.ListGamesResponse(games=[
                wire_admin.summary_info(line.game, line.tournament, line.public_id)
                for line in lines])

        return await off_loop(listed)

    @management_call
    async def GetGame(self, request: admin_pb2.GetGameRequest,
                      context: Any) -> admin_pb2.GetGameResponse:
        """One stored game: all of it, or with `as_bot` what that bot saw of it."""
        game_id = parse_game_id(request.id) if request.id else request.game_id
        results = self.services_for("GetGame").results
        view = functools.partial(_game_view, as_bot=request.as_bot, caller=current_caller(),
                                 deal_in_play=results.deal_in_play)

        def shown() -> admin_pb2.GetGameResponse:
            return wire_admin.game_response(*results.game(game_id, view))

        return await off_loop(shown)

    async def ExportTournament(self, request: admin_pb2.ExportTournamentRequest,
                               context: Any) -> AsyncIterator[admin_pb2.ExportedGame]:
        """Every stored game of a tournament in schedule order, each with its record (each
        read in a worker thread); for anyone but the organizer, each game's public events
        instead, and only the games whose deal is played out (see `_game_view`)."""
        services = await self._available_services(context, "ExportTournament")
        name = request.tournament
        organizer = current_caller().is_organizer
        exported = wire_admin.exported_game if organizer else wire_admin.public_exported_game

        def next_shown(games: Iterator[tuple[ScheduledGame, StoredGame]],
                       ) -> tuple[ScheduledGame, StoredGame] | None:
            for entry, game in games:
                if organizer or not services.results.deal_in_play(game):
                    return entry, game
            return None

        try:
            games = await asyncio.to_thread(services.results.export, name)
            while (found := await asyncio.to_thread(next_shown, games)) is not None:
                entry, game = found
                yield exported(entry, game, name, public_game_id(name, entry.game_index))
        except (StoreError, ValueError, sqlite3.Error) as exc:
            await abort_with(context, exc)

    # ----------------------------------------------------------- tournaments

    @management_call
    async def CreateTournament(self, request: admin_pb2.CreateTournamentRequest,
                               context: Any) -> admin_pb2.TournamentInfo:
        """Create a tournament with its schedule (a big schedule takes a while)."""
        services = self.services_for("CreateTournament")
        settings = wire_admin.tournament_settings_from(request)
        caller = current_caller()

        def create() -> admin_pb2.TournamentInfo:
            bots = list(request.bots)
            if request.latest_entrants:
                if bots:
                    raise wire_admin.RequestError("name the entrants or take the latest "
                                                  "entrants, not both")
                bots = services.store.latest_entrants_per_author(request.per_author or None)
            line = services.results.tournament_line(services.competitions.create_tournament(
                request.name, bots, settings))
            info = wire_admin.tournament_info(line.tournament, line.progress, line.bots)
            if not caller.is_organizer:
                wire_admin.without_seeds(info)
            return info

        return await asyncio.to_thread(create)

    @management_call
    async def ListTournaments(self, request: admin_pb2.ListTournamentsRequest,
                              context: Any) -> admin_pb2.ListTournamentsResponse:
        """Every tournament, and every tournament on the timetable."""
        lines, timetables = await off_loop(
            self.services_for("ListTournaments").results.tournaments)
        response = admin_pb2.ListTournamentsResponse(tournaments=[
            wire_admin.tournament_info(line.tournament, line.progress, line.bots)
            for line in lines], scheduled=[
            wire_admin.scheduled_tournament_info(t) for t in timetables])
        if not current_caller().is_organizer:
            for info in response.tournaments:
                wire_admin.without_seeds(info)
            for scheduled in response.scheduled:
                wire_admin.without_seeds(scheduled)
        return response

    @management_call
    async def GetSchedule(self, request: admin_pb2.GetScheduleRequest,
                          context: Any) -> admin_pb2.GetScheduleResponse:
        """A tournament's schedule (unless `skip_games`) and where it stands."""
        schedule = await off_loop(
            self.services_for("GetSchedule").results.schedule, request.tournament,
            not request.skip_games)
        line = schedule.line
        response = admin_pb2.GetScheduleResponse(
            tournament=wire_admin.tournament_info(line.tournament, line.progress, line.bots))
        if schedule.games is not None:
            await off_loop(wire_admin.add_scheduled_games, response, schedule.games,
                           line.tournament.name)
        if not current_caller().is_organizer:
            wire_admin.without_seeds(response)
        return response

    @management_call
    async def ScheduleTournament(self, request: admin_pb2.ScheduleTournamentRequest,
                                 context: Any) -> admin_pb2.ScheduledTournamentInfo:
        """Put a tournament on the timetable (its schedule checked in a worker thread)."""
        timetable = await asyncio.to_thread(
            self.services_for("ScheduleTournament").competitions.schedule_tournament,
            request.name, list(request.bots), wire_admin.tournament_settings_from(request),
            wire_admin.schedule_start(request), request.every_seconds or None,
            request.per_author or None)
        return wire_admin.scheduled_tournament_info(timetable)

    @management_call
    async def UnscheduleTournament(self, request: admin_pb2.UnscheduleTournamentRequest,
                                   context: Any) -> admin_pb2.ScheduledTournamentInfo:
        """Take a tournament off the timetable; its editions stay."""
        timetable = await asyncio.to_thread(
            self.services_for("UnscheduleTournament").competitions.unschedule_tournament,
            request.name)
        return wire_admin.scheduled_tournament_info(timetable)

    async def RunTournament(self, request: admin_pb2.RunTournamentRequest,
                            context: Any) -> AsyncIterator[admin_pb2.RunProgress]:
        """Run (or resume) a tournament, streaming progress."""
        services = await self._available_services(context, "RunTournament")
        try:
            wait = wire_admin.wait_seconds(request)
        except ValueError as exc:
            await abort_with(context, exc)

        def start(listener: ProgressListener) -> Awaitable[int]:
            return services.runs.run_tournament(
                request.tournament, request.concurrency, wait, listener,
                wire_admin.until_separated(request), workers=request.workers,
                cluster=request.cluster)

        resume = f"run `arena tournament run {request.tournament}` again to resume"
        async for update in _progress_stream(context, start, resume, services.runs.track,
                                             services.store):
            yield update

    async def RunLadder(self, request: admin_pb2.RunLadderRequest,
                        context: Any) -> AsyncIterator[admin_pb2.RunProgress]:
        """Play the ladder until the call ends, streaming progress."""
        services = await self._available_services(context, "RunLadder")

        async def start(listener: ProgressListener) -> int:
            name = request.name or DEFAULT_NAME
            settings = await asyncio.to_thread(
                services.competitions.ladder_settings, name,
                wire_admin.json_table(request.settings_json, "ladder settings"),
                request.tables or None)
            return await services.runs.run_ladder(name, settings, listener,
                                                  max_games=request.max_games,
                                                  workers=request.workers or 1,
                                                  cluster=request.cluster)

        resume = "run `arena ladder run` again to go on"
        async for update in _progress_stream(context, start, resume, services.runs.track,
                                             services.store):
            yield update

    async def PlayMatch(self, request: admin_pb2.PlayMatchRequest,
                        context: Any) -> AsyncIterator[admin_pb2.RunProgress]:
        """Play an ad-hoc match, streaming progress."""
        services = await self._available_services(context, "PlayMatch")

        async def start(listener: ProgressListener) -> int:
            rules = wire_admin.rules_from_json(request.rules_json)
            return await services.runs.play_match(
                list(request.bots), request.games or 1, request.seed, rules, BotPolicy(),
                request.concurrency or 1, wire_admin.wait_seconds(request), listener,
                wire_admin.sprt_plan(request), workers=request.workers or 1)

        async for update in _progress_stream(context, start, track=services.runs.track,
                                             store=services.store):
            yield update

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
                if update is None:
                    beat = wire_admin.run_progress(last, "running")
                    beat.heartbeat = True
                    yield beat
                    continue
                if not update.notice:
                    last = update
                yield wire_admin.run_progress(update, "running")
        yield wire_admin.run_progress(last, "finished" if last.done >= last.total
                                      else "stopped")


async def _stream_updates(context: Any, start: Callable[[ProgressListener], Awaitable[int]],
                          updates: asyncio.Queue[Progress], resume: str,
                          track: Callable[[asyncio.Future[Any]], None] | None
                          ) -> AsyncGenerator[Progress | None, None]:
    """Run `start` as a task and give each update it puts in `updates` (see
    `_progress_stream`), and None after each `HEARTBEAT_SECONDS` without one."""
    task = asyncio.ensure_future(start(updates.put_nowait))
    if track is not None:
        track(task)
    getter: asyncio.Future[Progress] | None = None
    last = Progress(0, 0)
    try:
        while not task.done() or not updates.empty():
            getter = asyncio.ensure_future(updates.get())
            await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED,
                               timeout=HEARTBEAT_SECONDS)
            if getter.done():
                update = getter.result()
                if not update.notice:
                    last = update
                yield update
            else:
                getter.cancel()
                if not task.done():
                    yield None
        task.result()
    except GameAbortedError:
        hint = f"; {resume}" if resume else ""
        await context.abort(grpc.StatusCode.ABORTED,
                            f"the server stopped: {last.done} of {last.total} games done{hint}")
    except ReconnectFailed as exc:
        hint = f"; {resume}" if resume else ""
        await context.abort(status_for(exc), f"{exc}{hint}")
    except (StoreError, ValueError, sqlite3.Error) as exc:
        await abort_with(context, exc)
    finally:
        if getter is not None:
            getter.cancel()
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, GameAbortedError):
                await task
        elif not task.cancelled():
            task.exception()  # reported above, or nobody is left to tell
