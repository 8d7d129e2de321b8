"""`arena export`: a whole tournament as JSON Lines, for analysis outside arena."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from arena.cli.app import (
    main,
)
from arena.cli.context import (
    Context,
    pass_context,
)
from arena.cli.output import plain_dict
from arena.v1 import admin_pb2

if TYPE_CHECKING:
    from arena.cli.session import Session

EXPORT_FORMAT = "arena-tournament-export"
"""The `export` key of an export's header line."""
EXPORT_VERSION = 1
"""The version of the export's lines this module writes."""


@main.command("export")
@click.argument("tournament")
@pass_context
def export(context: Context, tournament: str) -> None:
    """Print TOURNAMENT as JSON Lines: a header, then one line per stored game.

    The header line is {"header": {...}}: the tournament's format, status,
    entrants, settings and rules. Each game line is {"game": {...}}, in schedule
    order: its id (as `replay` takes it), its place in the schedule, seed,
    outcome, each seat's bot, score, rank and how its game ended (normal,
    timeout, crash, illegal, ...), and its game record, from which the engine
    replays it exactly. Games not yet played are left out. Only the organizer
    gets the records (a record's seed reveals every hand); anyone else gets each
    game's public events instead.

    \b
    Example:
      arena export spring > spring.jsonl
    """
    async def body(session: Session) -> None:
        info = (await session.admin.GetSchedule(admin_pb2.GetScheduleRequest(
            tournament=tournament, skip_games=True))).tournament
        click.echo(json.dumps({"header": export_header(info)}))
        async for game in session.admin.ExportTournament(
                admin_pb2.ExportTournamentRequest(tournament=tournament)):
            click.echo(json.dumps({"game": export_game(game)}))

    context.run(body, read_only=True)


def export_header(info: admin_pb2.TournamentInfo) -> dict[str, Any]:
    """The first line of an export: what it is, and the tournament it holds."""
    return {"export": EXPORT_FORMAT, "version": EXPORT_VERSION, "tournament": info.name,
            "format": info.format, "status": info.status, "bots": list(info.bots),
            "settings": json.loads(info.settings_json), "rules": json.loads(info.rules_json),
            "games_total": info.games_total, "games_done": info.games_done,
            "created_at": info.created_at}


def version_of(entrant: str) -> dict[str, Any]:
    """The base name and version number of an entrant: `greedy@2` is version 2 of greedy;
    a bot added with a command (no `@NUMBER`) is version 0 of itself."""
    base, _, number = entrant.rpartition("@")
    if base and number.isdigit():
        return {"base_name": base, "version": int(number)}
    return {"base_name": entrant, "version": 0}


def export_game(game: admin_pb2.ExportedGame) -> dict[str, Any]:
    """One stored game of an export: where it sits in the schedule, each seat's bot and
    result, and the game record it replays from (for anyone but the organizer, whose
    export leaves out the record and its seed, the game's public events instead)."""
    summary = game.summary
    seats = [{"seat": seat, "bot": bot, **version_of(bot), "score": score, "rank": rank,
              "termination": ending}
             for seat, (bot, score, rank, ending) in enumerate(zip(
                 summary.seats, summary.scores, summary.ranks, summary.seat_terminations,
                 strict=True))]
    return {"id": summary.id, "number": summary.game_id, "game_index": game.game_index,
            "round": game.round, "table": game.table, "seats": seats,
            "winners": [s["bot"] for s in seats if s["rank"] == 0],
            "termination": summary.termination,
            "forfeited_seat": (summary.forfeited_seat if summary.HasField("forfeited_seat")
                               else None),
            "started_at": summary.started_at, "finished_at": summary.finished_at,
            **({"record": json.loads(game.record_json)} if game.record_json else
               {"public_events": [plain_dict(event) for event in game.public_events]})}
