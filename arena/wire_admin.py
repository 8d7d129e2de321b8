"""Between the admin service's messages and arena's records: bots, games, tournaments, rankings.

The bot protocol's conversions live in `arena.wire`; these are the admin
service's, so that its servicer methods stay a line or two each.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from arena import wire
from arena.engine.rules import RuleSet
from arena.rating import LeaderboardRow
from arena.store import Bot, GameSummary, ScheduledGame, StoredGame, Tournament
from arena.v1 import admin_pb2

DEFAULT_WAIT_SECONDS = 30.0
"""How long a run waits for its bots to connect when the request does not say."""


class RequestError(ValueError):
    """An admin request's JSON text is not a JSON object; the message says which field."""


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


def game_response(game: StoredGame) -> admin_pb2.GetGameResponse:
    """A stored game with its events and actions, as `GetGame` answers."""
    response = admin_pb2.GetGameResponse(
        summary=summary_info(game), rules_json=json.dumps(game.rules), seed=game.seed)
    for event in game.events:
        wire.dict_into(event, response.events.add())
    for action in game.actions:
        wire.dict_into(action, response.actions.add())
    if game.forfeited_seat is not None:
        response.forfeited_seat = game.forfeited_seat
    return response


def tournament_info(tournament: Tournament, progress: tuple[int, int],
                    bots: Sequence[str]) -> admin_pb2.TournamentInfo:
    """A tournament as the admin service shows it, with its (done, total) games and bots."""
    done, total = progress
    return admin_pb2.TournamentInfo(
        name=tournament.name, format=tournament.format, status=tournament.status.value,
        settings_json=json.dumps(tournament.settings), rules_json=json.dumps(tournament.rules),
        games_total=total, games_done=done,
        created_at=tournament.created_at.isoformat(timespec="seconds"),
        bots=list(bots), run_by=tournament.run_by)


def add_scheduled_games(response: admin_pb2.GetScheduleResponse,
                        games: Sequence[ScheduledGame]) -> None:
    """Append a schedule's games to a `GetSchedule` answer."""
    for game in games:
        teams = [0] * len(game.seats)
        for team, seats in enumerate(game.teams or ()):
            for seat in seats:
                teams[seat] = team
        response.games.add(round=game.round, table=game.table,
                           game_index=game.game_index, seats=list(game.seats),
                           seed=game.seed, status=game.status.value,
                           teams=teams if game.teams else [],
                           game_id=game.game_id or 0)


def ranking_row(row: LeaderboardRow) -> admin_pb2.RankingRow:
    """One leaderboard row as `GetRankings` answers it."""
    return admin_pb2.RankingRow(rank=row.place, bot=row.bot, mu=row.mu, sigma=row.sigma,
                                conservative=row.conservative, games=row.games, wins=row.wins,
                                win_rate=row.win_rate, average_points=row.average_points)


def wait_seconds(request: admin_pb2.RunTournamentRequest | admin_pb2.PlayMatchRequest
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


def json_table(text: str, what: str) -> dict[str, Any]:
    """A JSON object from a request's text field (empty: an empty object)."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RequestError(f"{what}: not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise RequestError(f"{what}: must be a JSON object")
    return value


def tournament_settings_from(request: admin_pb2.CreateTournamentRequest) -> dict[str, Any]:
    """A `CreateTournament` request's settings, with its rules folded in."""
    settings = json_table(request.settings_json, "settings")
    if request.rules_json.strip():
        settings["rules"] = json_table(request.rules_json, "rules")
    return settings
