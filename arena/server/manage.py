"""Management: bots, matches, tournaments, rankings and stored games, on a running server.

`Management` is the Python API (store + server + managed bots); `ManagedAdmin`
is the `ArenaAdmin` servicer that exposes it, so the CLI does the same thing
against `arena serve` or against a server it started in-process.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import math
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import grpc

from arena import wire
from arena.engine.rules import RuleSet, RuleSetError
from arena.managed import BotSupervisor, ManagedBot, ManagedBotError, command_words
from arena.rating import LeaderboardRow, leaderboard
from arena.server.admin import AdminService
from arena.server.auth_store import SessionTokens
from arena.server.policy import BotPolicy
from arena.server.result import GameAbortedError, GameResult
from arena.server.server import ArenaServer
from arena.store import (
    Bot,
    BotKind,
    DuplicateName,
    GameSummary,
    InvalidInput,
    ScheduledGame,
    Store,
    StoredGame,
    StoreError,
    Tournament,
    UnknownBot,
    UnknownGame,
    UnknownTournament,
)
from arena.tournament import (
    PlayedGame,
    RunHold,
    ScheduleError,
    TournamentSettings,
    check_entrants,
    create_tournament,
    holding,
    run_tournament,
    tournament_settings,
)
from arena.tournament.schedule import MAX_GAMES
from arena.v1 import admin_pb2

ProgressListener = Callable[["Progress"], None]


EXIT_POLL = 0.1
"""Seconds between looks, while waiting for bots, at whether a managed bot has exited."""

CRASH_GRACE = 0.5
"""Seconds a managed bot whose connection dropped is given to finish exiting, so that
its seats' violations are recorded as a crash rather than a disconnect."""


class ManagementError(ValueError):
    """A management request could not be carried out; the message says why."""


@dataclass(frozen=True, slots=True)
class Progress:
    """How far a run has come: `done` of `total` games, and the last game stored."""

    done: int
    total: int
    last_game_id: int = 0


class Management:
    """What the admin service can do, over one store and one running server."""

    def __init__(self, store: Store, server: ArenaServer, session_tokens: SessionTokens,
                 log_dir: Path, server_address: Callable[[], str]) -> None:
        self.store = store
        self.server = server
        self.session_tokens = session_tokens
        self.log_dir = log_dir
        self._server_address = server_address
        self._supervisor: BotSupervisor | None = None
        self._exits: dict[str, int] = {}
        """The last exit code of each managed bot launched here, once it has exited."""

    # ------------------------------------------------------------------ bots

    def add_bot(self, name: str, kind: str, command: str | None) -> tuple[Bot, str]:
        """Register a bot; return it and its token (shown once). A managed bot's command
        must read as a command line (closed quotes) now, not when it is first launched."""
        if command:
            try:
                command_words(name, command)
            except ManagedBotError as exc:
                raise ManagementError(str(exc)) from None
        return self.store.add_bot(name, kind, command or None)

    def list_bots(self) -> list[tuple[Bot, bool]]:
        """Registered bots, each with whether it is connected now."""
        connected = set(self.server.connected_bots())
        return [(bot, bot.name in connected) for bot in self.store.list_bots()]

    async def remove_bot(self, name: str) -> Bot:
        """Remove a bot: its tokens stop working and a managed bot this server runs is
        stopped; its games and ratings stay."""
        bot = self.store.remove_bot(name)
        self.session_tokens.revoke(name)
        if self._supervisor is not None:
            await self._supervisor.stop_bot(name)
        return bot

    # -------------------------------------------------------------- rankings

    def rankings(self, tournament: str | None = None) -> list[LeaderboardRow]:
        """The leaderboard, overall or of one tournament."""
        return leaderboard(self.store.ratings(tournament or None))

    # ----------------------------------------------------------- managed bots

    async def ensure_bots(self, names: Sequence[str], wait_seconds: float) -> None:
        """Launch the managed bots among `names` that are not connected, then wait for all;
        a managed bot that exits during the wait without connecting fails it at once."""
        for name in names:
            self._exits.pop(name, None)
        connected = set(self.server.connected_bots())
        for name in dict.fromkeys(names):
            bot = self.store.bot(name)
            running = self._supervisor is not None and self._supervisor.is_running(name)
            if bot.kind is BotKind.MANAGED and name not in connected and not running:
                await self._launch(bot)
        waiting = asyncio.ensure_future(
            self.server.wait_for_bots(list(dict.fromkeys(names)), timeout=wait_seconds))
        try:
            while not (await asyncio.wait({waiting}, timeout=EXIT_POLL))[0]:
                self._check_exits(names)
            waiting.result()
        except TimeoutError:
            missing = sorted(set(names) - set(self.server.connected_bots()))
            hint = f" (see the logs in {self.log_dir})" if self._supervisor is not None else ""
            raise ManagementError(
                f"bots not connected after {wait_seconds:g} s: {', '.join(missing)}{hint}"
            ) from None
        finally:
            waiting.cancel()

    def _check_exits(self, names: Sequence[str]) -> None:
        """Fail a wait at once if a managed bot it waits for has exited without connecting."""
        connected = set(self.server.connected_bots())
        exited = {name: self._exits[name] for name in names
                  if name in self._exits and name not in connected}
        if exited:
            which = ", ".join(f"{name} (exit code {code})" for name, code in sorted(exited.items()))
            raise ManagementError(f"bots exited before connecting: {which}; see the logs in "
                                  f"{self.log_dir}")

    async def _launch(self, bot: Bot) -> None:
        if self._supervisor is None:
            self._supervisor = BotSupervisor(self._server_address(), self.log_dir,
                                             on_exit=self._bot_exited)
            self.server.crash_check = self._crashed
        assert bot.command is not None
        token = self.session_tokens.mint(bot.name)
        try:
            await self._supervisor.start(ManagedBot(bot.name, bot.command, token))
        except ManagedBotError as exc:
            raise ManagementError(str(exc)) from None

    def _bot_exited(self, name: str, code: int) -> None:
        self._exits[name] = code
        if code != 0:
            self.server.bot_crashed(name)

    async def _crashed(self, name: str) -> bool:
        if self._supervisor is None:
            return False
        code = await self._supervisor.exit_code(name, CRASH_GRACE)
        return code is not None and code != 0

    async def stop_bots(self) -> None:
        """Stop every managed bot this server launched."""
        if self._supervisor is not None:
            await self._supervisor.stop()
            self._supervisor = None

    # --------------------------------------------------------------- playing

    async def play_match(self, bots: Sequence[str], games: int, seed: int, rules: RuleSet,
                         policy: BotPolicy, concurrency: int, wait_seconds: float,
                         progress: ProgressListener | None = None) -> int:
        """Play rated games between `bots`: a one-table tournament of its own.

        Each deal is played in every seat rotation (duplicate deals), so the
        number of games is `games` rounded up to a multiple of the table size.
        """
        if not 1 <= games <= MAX_GAMES:
            raise ManagementError(f"a match plays 1 to {MAX_GAMES:,} games, got {games:,}")
        if len(bots) < 2:
            raise ManagementError(f"a match needs at least 2 bots, got {len(bots)}")
        for bot in bots:
            self.store.bot(bot)
        settings = {
            "format": "round_robin", "table_size": len(bots),
            "deals_per_table": -(-games // len(bots)), "seed": seed,
            "concurrency": concurrency, "rules": rules.to_dict(), "policy": policy.to_dict()}
        TournamentSettings.from_dict(settings)  # bad settings are refused before the wait
        await self.ensure_bots(bots, wait_seconds)
        name = f"match-{datetime.now(UTC):%Y%m%d-%H%M%S-%f}"
        self.create_tournament(name, bots, settings)
        return await self.run_tournament(name, concurrency, wait_seconds, progress)

    # ----------------------------------------------------------- tournaments

    def create_tournament(self, name: str, bots: Sequence[str],
                          settings: Mapping[str, Any]) -> Tournament:
        """Create a tournament and its whole schedule, so it can be checked before play."""
        tournament_settings = TournamentSettings.from_dict(settings)
        bot_policy(tournament_settings)
        for bot in bots:
            self.store.bot(bot)
        return create_tournament(self.store, name, tournament_settings, list(bots))

    async def run_tournament(self, name: str, concurrency: int, wait_seconds: float,
                             progress: ProgressListener | None = None) -> int:
        """Play every pending game of a tournament; a stopped run resumes where it ended.

        A tournament that another run is playing, on this server or in another
        process on the same database, is refused (`TournamentBusy`) before any
        bot is launched: two runs would both play its pending games.
        """
        tournament = self.store.tournament(name)
        async with holding(self.store, tournament.id) as hold:
            return await self._run(tournament, hold, concurrency, wait_seconds, progress)

    async def _run(self, tournament: Tournament, hold: RunHold, concurrency: int,
                   wait_seconds: float, progress: ProgressListener | None) -> int:
        policy = bot_policy(tournament_settings(tournament))
        check_entrants(self.store, tournament)
        pending = self.store.pending_games(tournament.id)
        await self.ensure_bots(sorted({b for g in pending for b in g.seats}), wait_seconds)
        last_game = 0

        async def play(game: ScheduledGame, rules: RuleSet) -> PlayedGame:
            result = await self.server.play_game(list(game.seats), rules, game.seed, policy)
            return played_game(result)

        def on_game(summary: GameSummary) -> None:
            nonlocal last_game
            last_game = summary.id

        def on_progress(done: int, total: int) -> None:
            if progress is not None:
                progress(Progress(done, total, last_game))

        summary = await run_tournament(self.store, tournament.id, play,
                                       concurrency=concurrency or None,
                                       progress=on_progress, on_game=on_game, hold=hold)
        return summary.played

    # -------------------------------------------------------------- games

    def games(self, tournament: str | None, bot: str | None, limit: int) -> list[GameSummary]:
        """Stored games, newest first."""
        return self.store.games(tournament=tournament or None, bot=bot or None,
                                limit=limit or None)

    def game(self, game_id: int) -> StoredGame:
        """One stored game with its replay log."""
        return self.store.get_game(game_id)


def bot_policy(settings: TournamentSettings) -> BotPolicy:
    """The bot policy a tournament's settings ask for; a bad one is a `ManagementError`."""
    try:
        return BotPolicy.from_dict(settings.policy)
    except (TypeError, ValueError) as exc:
        raise ManagementError(f"policy: {exc}") from None


def played_game(result: GameResult) -> PlayedGame:
    """A server result as the tournament runner records it: JSON events and actions."""
    actions = [wire.action_to_dict(a) for a in result.actions]
    events = [wire.event_to_dict(e) for e in result.events]
    return PlayedGame(result.outcome, events, actions, result.seat_terminations,
                      result.started, result.finished, result.forfeited_seat)


# --------------------------------------------------------------------- servicer

_STATUS: tuple[tuple[type[Exception], grpc.StatusCode], ...] = (
    (DuplicateName, grpc.StatusCode.ALREADY_EXISTS),
    (UnknownBot, grpc.StatusCode.NOT_FOUND),
    (UnknownTournament, grpc.StatusCode.NOT_FOUND),
    (UnknownGame, grpc.StatusCode.NOT_FOUND),
    (InvalidInput, grpc.StatusCode.INVALID_ARGUMENT),
    (StoreError, grpc.StatusCode.FAILED_PRECONDITION),
    (sqlite3.Error, grpc.StatusCode.FAILED_PRECONDITION),
    (RuleSetError, grpc.StatusCode.INVALID_ARGUMENT),
    (ScheduleError, grpc.StatusCode.INVALID_ARGUMENT),
    (ManagementError, grpc.StatusCode.FAILED_PRECONDITION),
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


Servicer = TypeVar("Servicer")
Request = TypeVar("Request")
Response = TypeVar("Response")


def _management_call(
    method: Callable[[Servicer, Request, Any], Awaitable[Response]],
) -> Callable[[Servicer, Request, Any], Awaitable[Response]]:
    """A unary servicer method whose management errors end the call with their gRPC status."""
    @functools.wraps(method)
    async def call(self: Servicer, request: Request, context: Any) -> Response:
        try:
            return await method(self, request, context)
        except (StoreError, ValueError, sqlite3.Error) as exc:
            await _abort(context, exc)
    return call


def bot_info(bot: Bot, connected: bool = False) -> admin_pb2.BotInfo:
    """A registered bot as the admin service shows it."""
    return admin_pb2.BotInfo(name=bot.name, kind=bot.kind.value, command=bot.command or "",
                             created_at=bot.created_at.isoformat(timespec="seconds"),
                             connected=connected)


def summary_info(game: GameSummary, tournament: str = "") -> admin_pb2.GameSummaryInfo:
    """A stored game's summary as the admin service shows it."""
    return admin_pb2.GameSummaryInfo(
        game_id=game.id, tournament=tournament, seats=list(game.seats),
        scores=list(game.outcome.scores), ranks=list(game.outcome.ranks),
        termination=game.outcome.termination.value,
        seat_terminations=[t.value for t in game.seat_terminations],
        started_at=game.started_at.isoformat(timespec="seconds"),
        finished_at=game.finished_at.isoformat(timespec="seconds"),
    )


def tournament_info(store: Store, tournament: Tournament) -> admin_pb2.TournamentInfo:
    """A tournament as the admin service shows it, with its progress and its bots."""
    done, total = store.schedule_progress(tournament.id)
    return admin_pb2.TournamentInfo(
        name=tournament.name, format=tournament.format, status=tournament.status.value,
        settings_json=json.dumps(tournament.settings), rules_json=json.dumps(tournament.rules),
        games_total=total, games_done=done,
        created_at=tournament.created_at.isoformat(timespec="seconds"),
        bots=store.tournament_bots(tournament.id), run_by=tournament.run_by)


DEFAULT_WAIT_SECONDS = 30.0
"""How long a run waits for its bots to connect when the request does not say."""


def _wait_seconds(request: admin_pb2.RunTournamentRequest | admin_pb2.PlayMatchRequest
                  ) -> float:
    """The request's wait for the bots (0: not at all), or `DEFAULT_WAIT_SECONDS`."""
    if not request.HasField("remote_wait_seconds"):
        return DEFAULT_WAIT_SECONDS
    wait = request.remote_wait_seconds
    if not 0 <= wait < math.inf:
        raise ValueError(f"remote_wait_seconds: must be a number of seconds, got {wait}")
    return wait


def rules_from_json(text: str) -> RuleSet:
    """A rule set from JSON text; empty text is the official rules."""
    return RuleSet.from_json(text) if text.strip() else RuleSet()


class ManagedAdmin(AdminService):
    """`ArenaAdmin` with the management calls, backed by a `Management`."""

    def __init__(self, management: Management, *args: Any) -> None:
        super().__init__(*args)
        self.management = management

    @_management_call
    async def AddBot(self, request: admin_pb2.AddBotRequest,
                     context: Any) -> admin_pb2.AddBotResponse:
        """Register a bot and return its token."""
        bot, token = self.management.add_bot(request.name, request.kind or "remote",
                                             request.command or None)
        return admin_pb2.AddBotResponse(bot=bot_info(bot), token=token)

    @_management_call
    async def ListBots(self, request: admin_pb2.ListBotsRequest,
                       context: Any) -> admin_pb2.ListBotsResponse:
        """Every registered bot."""
        return admin_pb2.ListBotsResponse(
            bots=[bot_info(b, c) for b, c in self.management.list_bots()])

    @_management_call
    async def RemoveBot(self, request: admin_pb2.RemoveBotRequest,
                        context: Any) -> admin_pb2.RemoveBotResponse:
        """Remove a bot."""
        return admin_pb2.RemoveBotResponse(bot=bot_info(await self.management.remove_bot(
            request.name)))

    @_management_call
    async def GetRankings(self, request: admin_pb2.GetRankingsRequest,
                          context: Any) -> admin_pb2.GetRankingsResponse:
        """The leaderboard."""
        rows = self.management.rankings(request.tournament or None)
        return admin_pb2.GetRankingsResponse(rows=[
            admin_pb2.RankingRow(rank=r.place, bot=r.bot, mu=r.mu, sigma=r.sigma,
                                 conservative=r.conservative, games=r.games, wins=r.wins,
                                 win_rate=r.win_rate, average_points=r.average_points)
            for r in rows])

    @_management_call
    async def ListGames(self, request: admin_pb2.ListGamesRequest,
                        context: Any) -> admin_pb2.ListGamesResponse:
        """Stored games, newest first."""
        games = self.management.games(request.tournament, request.bot, request.limit)
        return admin_pb2.ListGamesResponse(games=[summary_info(g) for g in games])

    @_management_call
    async def GetGame(self, request: admin_pb2.GetGameRequest,
                      context: Any) -> admin_pb2.GetGameResponse:
        """One stored game with its events and actions."""
        game = self.management.game(request.game_id)
        response = admin_pb2.GetGameResponse(
            summary=summary_info(game), rules_json=json.dumps(game.rules), seed=game.seed)
        for event in game.events:
            wire.dict_into(event, response.events.add())
        for action in game.actions:
            wire.dict_into(action, response.actions.add())
        if game.forfeited_seat is not None:
            response.forfeited_seat = game.forfeited_seat
        return response

    @_management_call
    async def CreateTournament(self, request: admin_pb2.CreateTournamentRequest,
                               context: Any) -> admin_pb2.TournamentInfo:
        """Create a tournament with its schedule."""
        settings = _json_table(request.settings_json, "settings")
        if request.rules_json.strip():
            settings["rules"] = _json_table(request.rules_json, "rules")
        tournament = self.management.create_tournament(request.name, list(request.bots),
                                                       settings)
        return tournament_info(self.management.store, tournament)

    @_management_call
    async def ListTournaments(self, request: admin_pb2.ListTournamentsRequest,
                              context: Any) -> admin_pb2.ListTournamentsResponse:
        """Every tournament."""
        store = self.management.store
        return admin_pb2.ListTournamentsResponse(tournaments=[
            tournament_info(store, t) for t in store.list_tournaments()])

    @_management_call
    async def GetSchedule(self, request: admin_pb2.GetScheduleRequest,
                          context: Any) -> admin_pb2.GetScheduleResponse:
        """A tournament's schedule (unless `skip_games`) and where it stands."""
        store = self.management.store
        tournament = store.tournament(request.tournament)
        response = admin_pb2.GetScheduleResponse(tournament=tournament_info(store, tournament))
        if request.skip_games:
            return response
        for game in store.scheduled_games(tournament.id):
            teams = [0] * len(game.seats)
            for team, seats in enumerate(game.teams or ()):
                for seat in seats:
                    teams[seat] = team
            response.games.add(round=game.round, table=game.table,
                               game_index=game.game_index, seats=list(game.seats),
                               seed=game.seed, status=game.status.value,
                               teams=teams if game.teams else [],
                               game_id=game.game_id or 0)
        return response

    async def RunTournament(self, request: admin_pb2.RunTournamentRequest,
                            context: Any) -> AsyncIterator[admin_pb2.RunProgress]:
        """Run (or resume) a tournament, streaming progress."""
        try:
            wait = _wait_seconds(request)
        except ValueError as exc:
            await _abort(context, exc)

        def start(listener: ProgressListener) -> Awaitable[int]:
            return self.management.run_tournament(
                request.tournament, request.concurrency, wait, listener)

        resume = f"run `arena tournament run {request.tournament}` again to resume"
        async for update in _progress_stream(context, start, resume):
            yield update

    async def PlayMatch(self, request: admin_pb2.PlayMatchRequest,
                        context: Any) -> AsyncIterator[admin_pb2.RunProgress]:
        """Play an ad-hoc match, streaming progress."""
        async def start(listener: ProgressListener) -> int:
            rules = rules_from_json(request.rules_json)
            return await self.management.play_match(
                list(request.bots), request.games or 1, request.seed, rules, BotPolicy(),
                request.concurrency or 1, _wait_seconds(request), listener)

        async for update in _progress_stream(context, start):
            yield update


def _json_table(text: str, what: str) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ManagementError(f"{what}: not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ManagementError(f"{what}: must be a JSON object")
    return value


async def _progress_stream(context: Any, start: Callable[[ProgressListener], Awaitable[int]],
                           resume: str = "") -> AsyncIterator[admin_pb2.RunProgress]:
    """Run `start` as a task and stream its progress; errors become a gRPC status.

    A run cut short by the server stopping (its games in play aborted) ends
    with ABORTED and how far it came, plus the `resume` hint; the run's own
    error is always retrieved, even when the caller has gone away.
    """
    updates: asyncio.Queue[Progress] = asyncio.Queue()
    task = asyncio.ensure_future(start(updates.put_nowait))
    getter: asyncio.Future[Progress] | None = None
    last = Progress(0, 0)
    try:
        while not task.done() or not updates.empty():
            getter = asyncio.ensure_future(updates.get())
            await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
            if getter.done():
                last = p = getter.result()
                yield admin_pb2.RunProgress(done=p.done, total=p.total,
                                            last_game_id=p.last_game_id, status="running")
            else:
                getter.cancel()
        task.result()
    except GameAbortedError:
        hint = f"; {resume}" if resume else ""
        await context.abort(grpc.StatusCode.ABORTED,
                            f"the server stopped: {last.done} of {last.total} games done{hint}")
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
    status = "finished" if last.done >= last.total else "stopped"
    yield admin_pb2.RunProgress(done=last.done, total=last.total, status=status)
