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
    StoredGameNumber,
)
from arena.cli.output import (
    emit,
    output_format,
    use_color,
)
from arena.cli.screen import can_redraw, delay_option
from arena.v1 import admin_pb2

if TYPE_CHECKING:
    from arena.cli.session import Session
    from arena.engine import events as ev

# ---------------------------------------------------------------------- games

@main.command()
@click.option("--tournament", default=None, help="Only this tournament's games.")
@click.option("--bot", "bot_name", default=None, help="Only games this bot played.")
@click.option("--limit", type=POSITIVE_UINT32, default=20, show_default=True)
@output_format
@pass_context
def games(context: Context, tournament: str | None, bot_name: str | None, limit: int,
          fmt: str) -> None:
    """List stored games, newest first.

    \b
    Example:
      arena games --bot greedy --limit 5
    """
    async def body(session: Session) -> admin_pb2.ListGamesResponse:
        return await session.admin.ListGames(admin_pb2.ListGamesRequest(
            tournament=tournament or "", bot=bot_name or "", limit=limit))

    rows = [{"game": g.game_id, "seats": " ".join(g.seats),
             "scores": " ".join(str(s) for s in g.scores),
             "winner": " ".join(g.seats[i] for i, r in enumerate(g.ranks) if r == 0),
             "ended": g.termination, "finished": g.finished_at}
            for g in context.run(body, read_only=True).games]
    emit(rows, fmt, "no games yet", ["game", "seats", "scores", "winner", "ended", "finished"])


@main.command()
@click.argument("game_id", type=StoredGameNumber())
@click.option("--export", "export", type=click.Choice(["jsonl"]), default=None,
              help="Print the full event log as JSON lines instead.")
@click.option("--step", is_flag=True, help="Wait for Enter after each hand.")
@click.option("--hands", is_flag=True, help="Show every seat's hand after each hand starts.")
@click.option("--board", "on_board", is_flag=True,
              help="Redraw a board in place on a terminal, frame by frame (plain lines "
                   "elsewhere).")
@delay_option
@pass_context
def replay(context: Context, game_id: int, export: str | None, step: bool, hands: bool,
           on_board: bool, delay: float) -> None:
    """Step through a stored game with coloured cards.

    The game is also replayed from its seed and actions by the engine, and the
    command fails if that does not reproduce the stored events. With --board,
    a terminal shows the table redrawn in place after every decision; --hands
    then shows every seat's cards all along.

    \b
    Example:
      arena replay 12
      arena replay 12 --board --delay 0.5
      arena replay 12 --export jsonl > game-12.jsonl
    """
    async def body(session: Session) -> admin_pb2.GetGameResponse:
        return await session.admin.GetGame(admin_pb2.GetGameRequest(game_id=game_id))

    from arena import wire
    from arena.cli import render
    from arena.engine import events as ev

    response = context.run(body, read_only=True)
    if export == "jsonl":
        for message in response.events:
            click.echo(json.dumps(wire.message_to_dict(message, with_defaults=True)))
        return
    events = [wire.event_from_proto(e) for e in response.events]
    _check_replay(response, events)
    names = list(response.summary.seats)
    color = use_color()
    if on_board and can_redraw():
        from arena.cli import board

        board.replay_on_board(response, color=color, delay=delay, hands=hands, step=step)
        return
    for event, dealt in zip(events, _deal_flags(events), strict=True):
        if hands and dealt and isinstance(event, ev.CardsReceived):
            click.echo(f"  {names[event.seat]}: {render.cards_text(event.cards, color)}")
        if event.audience is None:
            line = render.describe(event, names, color)
            if line is not None:
                click.echo(line)
        if step and isinstance(event, ev.HandEnded) and sys.stdin.isatty():
            _wait_for_enter("press Enter for the next hand")


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

    failure = f"game {response.summary.game_id} does not replay"
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

    rows = [{"game": t.game_id, "players": " ".join(t.players), "hand": t.hand_number,
             "decisions": t.decisions} for t in context.run(body, read_only=True).tables]
    emit(rows, fmt, "no games being played", ["game", "players", "hand", "decisions"])


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
      arena --server 127.0.0.1:50051 watch 3f2a9c...
    """
    if context.server is None:
        raise click.UsageError(
            "watch follows a live game of a running `arena serve`: give its address, "
            f"as in `arena --server HOST:PORT watch {game_id}` (`arena --server HOST:PORT "
            "tables` lists the games it is playing); stored games are replayed with "
            "`arena replay NUMBER`")
    from arena import wire
    from arena.cli import render

    color = use_color()
    if can_redraw():
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
