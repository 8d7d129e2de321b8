"""`arena replay ID --as BOT`: a stored game as one bot saw it, to debug that bot.

The server sends only what the bot's seats saw (`GetGame` with `as_bot`): the
public events, the bot's own cards, and every decision it owed with its time and
what came of it. This module prints them in order: the public plays as `replay`
does, the bot's hand after each deal and draw, and each decision where it was
asked.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

import click

from arena import narration, wire
from arena.cli import render
from arena.engine import events as ev
from arena.engine.cards import Card
from arena.v1 import admin_pb2


def decision_line(decision: admin_pb2.DecisionInfo, name: str) -> str:
    """One line for a decision: whose, which, how long, what came of it and its cost."""
    words = narration.OUTCOME_WORDS.get(decision.outcome, decision.outcome)
    timing = "" if decision.auto else f" in {decision.elapsed_ms} ms"
    line = f"  > {name} decision {decision.index}: {words}{timing}"
    if decision.penalty == "fallback":
        line += f"; the fallback was played, strike {decision.strikes}"
    elif decision.penalty == "forfeit":
        line += f"; forfeit (strikes: {decision.strikes})"
    elif decision.strikes:
        line += f" (strikes so far: {decision.strikes})"
    return line


def print_seat_view(response: admin_pb2.GetGameResponse, bot: str | None, *, color: bool,
                    ending: str | None, wait: Callable[[str], None] | None) -> None:
    """Print the game of `response`, a view without its seed, as the bot `bot` saw it
    (or, for None, as the view shows it); `wait`, if given, is called between hands."""
    names = list(response.summary.seats)
    seats = list(response.visible_seats)
    events = [wire.event_from_proto(e) for e in response.events]
    click.echo(_heading(response, bot, seats))
    decisions = sorted(response.decisions, key=lambda d: (d.events_before, d.index))
    hands: dict[int, list[Card]] = {seat: [] for seat in seats}
    next_decision = 0
    for position, event in enumerate(events):
        while (next_decision < len(decisions)
               and decisions[next_decision].events_before <= position):
            decision = decisions[next_decision]
            click.echo(decision_line(decision, names[decision.seat]))
            next_decision += 1
        for line in _event_lines(event, names, hands, color, ending):
            click.echo(line)
        if wait is not None and isinstance(event, ev.HandEnded) and sys.stdin.isatty():
            wait("press Enter for the next hand")
    for decision in decisions[next_decision:]:
        click.echo(decision_line(decision, names[decision.seat]))
    if bot is not None:
        click.echo(_footer(response, bot))


def _heading(response: admin_pb2.GetGameResponse, bot: str | None,
             seats: Sequence[int]) -> str:
    game = response.summary.id or response.summary.game_id
    if bot is None or not seats:
        return f"game {game}: its public events (this view holds no seat's cards)"
    where = ", ".join(f"seat {seat}" for seat in seats)
    return (f"game {game} as {bot} saw it ({where}): the public plays, its cards, and "
            "its decisions with their times")


def _footer(response: admin_pb2.GetGameResponse, bot: str) -> str:
    decisions = response.decisions
    if not decisions:
        summary = "no decisions were kept for this game (it was played before arena kept them)"
    else:
        faults = sum(1 for d in decisions if d.outcome not in ("answered", "auto"))
        slowest = max(d.elapsed_ms for d in decisions)
        summary = (f"{len(decisions)} decisions, {faults} faulty, the slowest "
                   f"{slowest} ms")
    return f"{bot}: {summary}; its own output: arena bot log {bot}"


def _event_lines(event: ev.Event, names: Sequence[str], hands: dict[int, list[Card]],
                 color: bool, ending: str | None) -> list[str]:
    """The lines one event adds: a public event's own, then a visible seat's hand when
    cards come into it."""
    lines = []
    if isinstance(event, ev.HandStarted):
        for hand in hands.values():
            hand.clear()
    elif isinstance(event, ev.CardPlayed) and event.seat in hands \
            and event.card in hands[event.seat]:
        hands[event.seat].remove(event.card)
    if event.audience is None:
        line = render.describe(event, names, color)
        if ending is not None and isinstance(event, ev.GameEnded):
            line = ending
        if line is not None:
            lines.append(line)
    elif isinstance(event, ev.CardsReceived | ev.HandReplaced) and event.seat in hands:
        hand = hands[event.seat]
        if isinstance(event, ev.HandReplaced):
            hand.clear()
        hand.extend(event.cards)
        took = (f" (took {render.cards_text(event.cards, color)})"
                if isinstance(event, ev.CardsReceived) and len(hand) > len(event.cards)
                else "")
        lines.append(f"  {names[event.seat]}'s hand: {render.cards_text(hand, color)}{took}")
    elif isinstance(event, ev.HandRevealed) and event.to_seat in hands:
        lines.append(f"  {names[event.to_seat]} is shown {names[event.seat]}'s hand: "
                     f"{render.cards_text(event.cards, color)}")
    return lines
