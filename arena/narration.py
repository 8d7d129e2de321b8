"""What a game's public events say, one line of text each.

Shared by every place that tells a game as text: the CLI's hand-by-hand output
(`arena.cli.render`, which colours cards and colours for a terminal) and the HTML
report's replay (`arena.report.replay`, plain text). Imports only the engine, so
that neither has to import the other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from arena.engine import Card, Color
from arena.engine import events as ev

HAND_HEADING = "hand {number}: {dealer} deals"
"""The default line that opens a hand; `{number}` is the hand's number, `{dealer}` the
dealer's name."""

CARD_KEPT = "keeps the card drawn"
"""The default words after a seat's name when it keeps the card it drew."""


def colour_name(colour: Color) -> str:
    """A colour's plain name (red, yellow, green, blue)."""
    return colour.value


def describe(event: ev.Event, names: Sequence[str], *,
             card: Callable[[Card], str] = Card.short,
             colour: Callable[[Color], str] = colour_name,
             hand_heading: str = HAND_HEADING, card_kept: str = CARD_KEPT,
             totals: bool = False) -> str | None:
    """One line for a public event, or None for an event with nothing public to tell
    (the private ones: cards received, a hand replaced or revealed to one seat).

    Seats are named from `names`, "seat N" past its end and "nobody" for no seat;
    cards are shown with `card`, colours with `colour`. `hand_heading` (a format
    string with `{number}` and `{dealer}`) opens a hand, `card_kept` follows the name
    of a seat keeping its drawn card, and `totals` appends every seat's running total
    to a hand's end.
    """
    def who(seat: int | None) -> str:
        if seat is None:
            return "nobody"
        return names[seat] if 0 <= seat < len(names) else f"seat {seat}"

    match event:
        case ev.DealerChosen(dealer=dealer):
            return f"{who(dealer)} deals first"
        case ev.HandStarted(hand_number=number, dealer=dealer):
            return hand_heading.format(number=number, dealer=who(dealer))
        case ev.FirstCard(card=first_card, first_seat=first):
            return f"first card {card(first_card)}; {who(first)} starts"
        case ev.StarterReturned(card=returned):
            return f"{card(returned)} turned up first goes back into the deck"
        case ev.CardPlayed(seat=seat, card=played, color=declared, uno=uno, jump_in=jump,
                           target=target):
            line = f"{who(seat)} {'jumps in with' if jump else 'plays'} {card(played)}"
            if played.is_wild:
                line += f" and names {colour(declared)}"
            if target is not None:
                line += f" (with {who(target)})"
            return line + (" — UNO!" if uno else "")
        case ev.ColorChosen(seat=seat, color=declared):
            return f"{who(seat)} names {colour(declared)}"
        case ev.CardsDrawn(seat=seat, count=count, reason=reason):
            noun = "card" if count == 1 else "cards"
            why = "" if reason is ev.DrawReason.CHOICE else f" ({reason.value.replace('_', ' ')})"
            return f"{who(seat)} draws {count} {noun}{why}"
        case ev.CardKept(seat=seat):
            return f"{who(seat)} {card_kept}"
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
        case ev.HandEnded(winner=winner, reason=reason, points=points, totals=running):
            if winner is None:
                head = f"the hand ends with no winner ({reason.value.replace('_', ' ')})"
            else:
                head = f"{who(winner)} goes out"
            scored = ", ".join(f"{who(s)} {p:+d}" for s, p in enumerate(points) if p)
            line = head + (f"; {scored}" if scored else "")
            if totals:
                line += " — totals: " + ", ".join(f"{who(s)} {t}" for s, t in enumerate(running))
            return line
        case ev.PlayerEliminated(seat=seat):
            return f"{who(seat)} is eliminated"
        case ev.GameEnded(winners=winners, termination=termination):
            return (f"game over ({termination.replace('_', ' ')}): "
                    + ", ".join(who(s) for s in winners) + " wins")
    return None


OUTCOME_WORDS = {
    "answered": "answered",
    "auto": "played for it (its only legal action)",
    "timeout": "no answer before the deadline",
    "illegal": "answered with an action that was not legal",
    "malformed": "answered with a message that could not be understood",
    "disconnect": "its connection was closed",
    "crash": "its process had died",
}
"""What each decision outcome (`arena.record.DecisionOutcome`) means, in words."""
