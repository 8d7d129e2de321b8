"""Human-readable text for cards and events, with terminal colours.

Used by the CLI to print games hand by hand (`arena demo`, `arena replay`,
`arena watch`). Colour is a choice of the caller: pass ``color=False`` under
NO_COLOR or when the output is not a terminal.
"""

from __future__ import annotations

from collections.abc import Sequence

import click

from arena.engine import Card, Color
from arena.engine import events as ev

_FG: dict[Color | None, str] = {
    Color.RED: "red",
    Color.YELLOW: "yellow",
    Color.GREEN: "green",
    Color.BLUE: "blue",
    None: "magenta",
}


def card_text(card: Card, color: bool = True) -> str:
    """A card in short notation (R5, W+4), coloured like the card when `color`."""
    text = card.short()
    return click.style(text, fg=_FG[card.color], bold=True) if color else text


def cards_text(cards: Sequence[Card], color: bool = True) -> str:
    """Several cards, space separated."""
    return " ".join(card_text(card, color) for card in cards)


def color_text(value: Color, color: bool = True) -> str:
    """A colour's name, in that colour when `color`."""
    return click.style(value.value, fg=_FG[value], bold=True) if color else value.value


def describe(event: ev.Event, names: Sequence[str], color: bool = True) -> str | None:
    """One line for a public event, or None for events not worth a line of their own."""
    def who(seat: int) -> str:
        return names[seat] if seat < len(names) else f"seat {seat}"

    match event:
        case ev.DealerChosen(dealer=dealer):
            return f"{who(dealer)} deals first"
        case ev.HandStarted(hand_number=number, dealer=dealer):
            return f"── hand {number} ── {who(dealer)} deals"
        case ev.FirstCard(card=card, first_seat=first):
            return f"first card {card_text(card, color)}; {who(first)} starts"
        case ev.StarterReturned(card=card):
            return f"{card_text(card, color)} turned up first goes back into the deck"
        case ev.CardPlayed(seat=seat, card=card, color=declared, uno=uno, jump_in=jump,
                           target=target):
            line = f"{who(seat)} {'jumps in with' if jump else 'plays'} {card_text(card, color)}"
            if card.is_wild:
                line += f" and names {color_text(declared, color)}"
            if target is not None:
                line += f" (with {who(target)})"
            return line + (" — UNO!" if uno else "")
        case ev.ColorChosen(seat=seat, color=declared):
            return f"{who(seat)} names {color_text(declared, color)}"
        case ev.CardsDrawn(seat=seat, count=count, reason=reason):
            noun = "card" if count == 1 else "cards"
            why = "" if reason is ev.DrawReason.CHOICE else f" ({reason.value.replace('_', ' ')})"
            return f"{who(seat)} draws {count} {noun}{why}"
        case ev.CardKept(seat=seat):
            return f"{who(seat)} keeps it"
        case ev.TurnSkipped(seat=seat):
            return f"{who(seat)} loses the turn"
        case ev.DirectionChanged(direction=direction):
            return "play goes " + ("clockwise" if direction == 1 else "counter-clockwise")
        case ev.ChallengeResolved(challenger=challenger, accused=accused, guilty=guilty):
            verdict = "guilty" if guilty else "not guilty"
            return f"{who(challenger)} challenges {who(accused)}: {verdict}"
        case ev.ChallengeDeclined(seat=seat):
            return f"{who(seat)} does not challenge"
        case ev.UnoCalled(seat=seat):
            return f"{who(seat)} calls UNO late, in time"
        case ev.UnoCaught(catcher=catcher, seat=seat):
            return f"{who(catcher)} catches {who(seat)} without UNO"
        case ev.HandsSwapped(seat=seat, other=other):
            return f"{who(seat)} and {who(other)} swap hands"
        case ev.HandsRotated():
            return "every hand passes to the next player"
        case ev.HandsShuffled(seat=seat):
            return f"{who(seat)} shuffles every hand and deals them out again"
        case ev.DeckReshuffled(cards=count):
            return f"the discard pile is shuffled into a new draw pile ({count} cards)"
        case ev.HandEnded(winner=winner, reason=reason, points=points, totals=totals):
            if winner is None:
                head = f"the hand ends with no winner ({reason.value.replace('_', ' ')})"
            else:
                head = f"{who(winner)} goes out"
            scored = ", ".join(f"{who(s)} {p:+d}" for s, p in enumerate(points) if p)
            board = ", ".join(f"{who(s)} {t}" for s, t in enumerate(totals))
            return f"{head}{'; ' + scored if scored else ''} — totals: {board}"
        case ev.PlayerEliminated(seat=seat):
            return f"{who(seat)} is eliminated"
        case ev.GameEnded(winners=winners, termination=termination):
            return f"game over ({termination.replace('_', ' ')}): " + ", ".join(
                who(s) for s in winners) + " wins"
    return None
