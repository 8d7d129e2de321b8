"""`arena games`, `replay`, `tables` and `watch`: stored and live games."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import click

from arena.cli.app import (
    main,
)
from arena.cli.context import (
    Context,
    pass_context,
)
from arena.cli.inputs import (
    POSITIVE_UINT32,
)
from arena.cli.output import (
    emit,
    output_format,
    plain_dict,
    use_color,
)
from arena.cli.screen import can_draw_board, delay_option
from arena.game_id import GAME_ID_HELP, GameIdError, parse_game_id
from arena.v1 import admin_pb2

if TYPE_CHECKING:
    from arena.cli.session import Session
    from arena.engine import events as ev

# ---------------------------------------------------------------------- games

@main.command()
@click.option("--tournament", default=None, help="Only this tournament's games.")
@click.option("--bot", "bot_name", default=None, help="Only games this bot played.")
@click.option("--limit", type=POSITIVE_UINT32, default=20, show_default=True,
              help="At most this many games, the newest (a line on stderr says when more "
                   "were left out).")
@click.option("--mine", is_flag=True,
              help="Only games your bots played (an author's token: `arena login`).")
@output_format
@pass_context
def games(context: Context, tournament: str | None, bot_name: str | None, limit: int,
          mine: bool, fmt: str) -> None:
    """List stored games, newest first.

    \b
    Example:
      arena games --bot greedy --limit 5
      arena --server HOST:PORT games --mine
    """
    async def body(session: Session) -> admin_pb2.ListGamesResponse:
        # One game more than shown tells whether the listing was cut.
        return await session.admin.ListGames(admin_pb2.ListGamesRequest(
            tournament=tournament or "", bot=bot_name or "", limit=min(limit + 1, 2**32 - 1),
            mine=mine))

    listed = list(context.run(body, read_only=True).games)
    if len(listed) > limit:
        listed = listed[:limit]
        click.echo(f"the newest {limit} games; more were left out (--limit N shows more)",
                   err=True)
    if fmt != "table":
        emit([game_record(g) for g in listed], fmt, "no games yet", GAME_RECORD_KEYS)
        return
    rows = [{"id": g.id, "seats": " ".join(g.seats),
             "scores": " ".join(str(s) for s in g.scores),
             "winner": " ".join(_winners(g)), "ended": g.termination,
             "faults": seat_faults_text(g) or "-", "finished": g.finished_at}
            for g in listed]
    emit(rows, fmt, "no games yet")


GAME_RECORD_KEYS = ("id", "number", "tournament", "seats", "scores", "ranks", "winners",
                    "termination", "seat_terminations", "forfeited_seat", "started_at",
                    "finished_at")


def game_record(game: admin_pb2.GameSummaryInfo) -> dict[str, object]:
    """A stored game under machine keys: its public `id` and stored `number`, lists per
    seat, and how each seat's game ended."""
    return {"id": game.id, "number": game.game_id, "tournament": game.tournament or None,
            "seats": list(game.seats), "scores": list(game.scores), "ranks": list(game.ranks),
            "winners": _winners(game), "termination": game.termination,
            "seat_terminations": list(game.seat_terminations),
            "forfeited_seat": game.forfeited_seat if game.HasField("forfeited_seat") else None,
            "started_at": game.started_at, "finished_at": game.finished_at}


def _winners(game: admin_pb2.GameSummaryInfo) -> list[str]:
    return [game.seats[i] for i, rank in enumerate(game.ranks) if rank == 0]


NORMAL = "normal"
"""The termination of a seat that played its game to the end."""

FAULT_REASONS = {
    "timeout": "missed its decision deadlines",
    "illegal": "answered with actions that were not legal",
    "disconnect": "its connection closed mid-game",
    "crash": "its process died",
    "malformed": "sent answers that could not be understood",
    "aborted": "the server stopped the game",
}
"""Why a seat's game ended, for each termination but the normal one
(`arena.record.SeatTermination`'s values)."""


def seat_faults_text(game: admin_pb2.GameSummaryInfo) -> str:
    """The seats of a game that did not end normally ("crasher crash"), or empty."""
    return ", ".join(f"{name} {ending}" for name, ending in zip(
        game.seats, game.seat_terminations, strict=True) if ending != NORMAL)


def ending_text(game: admin_pb2.GameSummaryInfo) -> str | None:
    """The last line of a replay whose seats did not all end normally: who forfeited or
    failed, why, and who won; None for a game every seat played to its end."""
    failed = {seat: f"{ending}: {FAULT_REASONS.get(ending, 'ended early')}"
              for seat, ending in enumerate(game.seat_terminations) if ending != NORMAL}
    if not failed:
        return None
    forfeited = game.forfeited_seat if game.HasField("forfeited_seat") else None
    others = "".join(f"; {game.seats[seat]} {why}" for seat, why in failed.items()
                     if seat != forfeited)
    if forfeited is not None:
        reason = failed.get(forfeited, "forfeit")
        head = f"game over: {game.seats[forfeited]} forfeited ({reason}){others}"
    else:
        head = f"game over ({game.termination.replace('_', ' ')}{others})"
    return f"{head}; {', '.join(_winners(game))} wins"


class GameIdParam(click.ParamType[str]):
    """A game id as `games`, `tables` and `tournament schedule` show it (TOURNAMENT:GAME),
    or a stored game's number; anything else is refused saying what an id looks like."""

    name = "game id"

    def convert(self, value: object, param: click.Parameter | None,
                ctx: click.Context | None) -> str:
        """The id, checked; a usage error for text that is not one."""
        text = str(value)
        try:
            parse_game_id(text)
        except GameIdError:
            hint = ""
            word = text.strip()
            if (len(word) >= 8 and not word.isdigit()
                    and all(c in "0123456789abcdefABCDEF" for c in word)):
                hint = (" (a hex id is a live game outside any tournament, which is not stored; "
                        "while it is played, `arena --server HOST:PORT watch ID` follows it)")
            self.fail(f"{text!r} is not a game id: {GAME_ID_HELP}{hint}", param, ctx)
        return text.strip()


@main.command()
@click.argument("game_id", type=GameIdParam())
@click.option("--export", "export", type=click.Choice(["jsonl"]), default=None,
              help="Print the game as JSON lines instead: a header (players, seed, rules, "
                   "outcome, how each seat ended), then every event.")
@click.option("--step", is_flag=True, help="Wait for Enter after each hand.")
@click.option("--hands", is_flag=True, help="Show every seat's hand after each hand starts.")
@click.option("--board", "on_board", is_flag=True,
              help="Redraw a board in place on a terminal, frame by frame (plain lines "
                   "elsewhere).")
@click.option("--as", "as_bot", default=None, metavar="BOT",
              help="The game as bot BOT saw it: its hand after each deal and draw, the "
                   "public plays, and each of its decisions with its time and outcome.")
@delay_option
@pass_context
def replay(context: Context, game_id: str, export: str | None, step: bool, hands: bool,
           on_board: bool, as_bot: str | None, delay: float) -> None:
    """Step through a stored game with coloured cards.

    GAME_ID is the id `arena games` lists (TOURNAMENT:GAME, the one `tables`
    and `watch` use while it is played), or the game's stored number. The
    game is also replayed from its seed and actions by the engine, and the
    command fails if that does not reproduce the stored events. A game a
    bot forfeited ends saying which bot, and why. With --board, a terminal
    shows the table redrawn in place after every decision; --hands then
    shows every seat's cards all along.

    With --as BOT, the server sends only what BOT saw: the public plays, its
    own cards and its decisions, each with the milliseconds it took and what
    came of it (answered, timeout, illegal, ...), and its strikes. That view
    holds no seed, so it is not replayed; `arena bot log BOT` shows the
    bot's own output.

    \b
    Example:
      arena replay spring:12
      arena replay spring:12 --board --delay 0.5
      arena replay spring:12 --export jsonl > game.jsonl
      arena replay spring:12 --as greedy
    """
    if as_bot is not None and hands:
        raise click.UsageError("--as shows only BOT's own cards; --hands (every seat's "
                               "cards) cannot go with it")
    if as_bot is not None and on_board:
        raise click.UsageError("--board replays the whole game from its seed, which --as "
                               "does not show; drop --board to see the game as "
                               f"{as_bot} saw it")

    async def body(session: Session) -> admin_pb2.GetGameResponse:
        return await session.admin.GetGame(admin_pb2.GetGameRequest(
            id=game_id, as_bot=as_bot or ""))

    from arena import wire
    from arena.cli import render
    from arena.engine import events as ev

    response = context.run(body, read_only=True)
    if export == "jsonl":
        click.echo(json.dumps({"header": replay_header(response)}))
        for message in response.events:
            click.echo(json.dumps(plain_dict(message)))
        return
    color = use_color()
    ending = ending_text(response.summary)
    if not (response.full or response.actions):  # a server before views sends no `full`
        from arena.cli.seat_view import print_seat_view

        print_seat_view(response, as_bot, color=color, ending=ending,
                        wait=_wait_for_enter if step else None)
        return
    events = [wire.event_from_proto(e) for e in response.events]
    _check_replay(response, events)
    names = list(response.summary.seats)
    if on_board and can_draw_board():
        from arena.cli import board

        board.replay_on_board(response, color=color, delay=delay, hands=hands, step=step,
                              ending=ending)
        return
    for event, dealt in zip(events, _deal_flags(events), strict=True):
        if hands and dealt and isinstance(event, ev.CardsReceived):
            click.echo(f"  {names[event.seat]}: {render.cards_text(event.cards, color)}")
        if event.audience is None:
            line = render.describe(event, names, color)
            if ending is not None and isinstance(event, ev.GameEnded):
                line = ending
            if line is not None:
                click.echo(line)
        if step and isinstance(event, ev.HandEnded) and sys.stdin.isatty():
            _wait_for_enter("press Enter for the next hand")


def replay_header(response: admin_pb2.GetGameResponse) -> dict[str, object]:
    """The first line of a replay export: the game, its players, seed and rules, and how
    it and each seat ended, and the decisions shown (each with the number of events
    before it), under machine keys. A partial view (`--as`) has no seed (null), says
    `"partial": true` and names the seats whose private events it holds."""
    summary = response.summary
    full = response.full or bool(response.actions)
    header: dict[str, object] = {**game_record(summary),
                                 "seed": response.seed if full else None,
                                 "rules": json.loads(response.rules_json),
                                 "decisions": [plain_dict(d) for d in response.decisions]}
    if not full:
        header["partial"] = True
        header["visible_seats"] = list(response.visible_seats)
    return header


def _wait_for_enter(prompt: str) -> None:
    """Say `prompt` and wait until a line is typed (Enter); end of input ends the wait."""
    click.echo(prompt, nl=False)
    sys.stdin.readline()


def _deal_flags(events: list[ev.Event]) -> list[bool]:
    """For each event, whether it is part of a deal: the cards received right after a hand starts.

    A later draw is not a deal, even when it comes a few events after the hand started.
    """
    from arena.engine import events as ev

    flags: list[bool] = []
    dealing = False
    for event in events:
        if isinstance(event, ev.HandStarted):
            dealing = True
        elif not isinstance(event, ev.CardsReceived):
            dealing = False
        flags.append(dealing and isinstance(event, ev.CardsReceived))
    return flags


def _check_replay(response: admin_pb2.GetGameResponse, events: list[ev.Event]) -> None:
    from arena import wire
    from arena.engine import IllegalActionError, RuleSet, RuleSetError
    from arena.engine import replay as replay_game

    failure = f"game {response.summary.id or response.summary.game_id} does not replay"
    try:
        rules = RuleSet.from_json(response.rules_json)
        actions = [wire.action_from_proto(a) for a in response.actions]
        game = replay_game(rules, len(response.summary.seats), response.seed, actions)
    except IllegalActionError as exc:
        raise click.ClickException(f"{failure}: a stored action is not legal: {exc}") from None
    except (RuleSetError, wire.WireError) as exc:
        raise click.ClickException(f"{failure}: its stored record is not usable: {exc}") from None
    if response.HasField("forfeited_seat"):
        game.forfeit(response.forfeited_seat)
    if game.events != events:
        raise click.ClickException(f"{failure}: its stored events differ")


@main.command()
@output_format
@pass_context
def tables(context: Context, fmt: str) -> None:
    """List the games being played on a server right now, to `watch` one.

    \b
    Example:
      arena --server 127.0.0.1:50051 tables
    """
    async def body(session: Session) -> admin_pb2.ListTablesResponse:
        return await session.admin.ListTables(admin_pb2.ListTablesRequest())

    listed = context.run(body, read_only=True).tables
    if fmt != "table":
        emit([{"id": t.game_id, "players": list(t.players), "hand": t.hand_number,
               "decisions": t.decisions} for t in listed], fmt, "no games being played",
             ["id", "players", "hand", "decisions"])
        return
    rows = [{"id": t.game_id, "players": " ".join(t.players), "hand": t.hand_number,
             "decisions": t.decisions} for t in listed]
    emit(rows, fmt, "no games being played")


@main.command()
@click.argument("game_id")
@delay_option
@pass_context
def watch(context: Context, game_id: str, delay: float) -> None:
    """Follow a game being played, live (its public events).

    On a terminal, a board is redrawn in place: the seats with their card counts
    and scores, whose turn it is, the top card, the last events. Elsewhere, or
    under TERM=dumb, each event is a line.

    \b
    Example:
      arena --server 127.0.0.1:50051 watch spring:3
    """
    if context.server is None:
        raise click.UsageError(
            "watching needs a running server: a game is live only on the `arena serve` "
            "that plays it. Start one with `arena serve --port 50051`, run the tournament "
            "on it (`arena --server 127.0.0.1:50051 tournament run NAME`), then "
            f"`arena --server 127.0.0.1:50051 watch {game_id}` (`arena --server "
            "127.0.0.1:50051 tables` lists the games it is playing); a game that has "
            f"ended is stored: `arena replay {game_id}` shows it")
    from arena import wire
    from arena.cli import render

    color = use_color()
    if can_draw_board():
        from arena.cli import board

        board.watch_on_board(context, game_id, color=color, delay=delay)
        return

    async def body(session: Session) -> None:
        names: list[str] = []
        async for update in session.admin.WatchGame(admin_pb2.WatchGameRequest(
                game_id=game_id)):
            names = list(update.players) or names
            for message in update.events:
                line = render.describe(wire.event_from_proto(message), names, color)
                if line is not None:
                    click.echo(line)

    try:
        context.run(body, read_only=True)
    except KeyboardInterrupt:
        raise SystemExit(130) from None
