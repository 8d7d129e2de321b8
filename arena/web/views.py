"""What the pages show, made from the server's answers: a game's steps for the replay,
the lines of a bot's own view of it, and small formatting helpers for the templates.

The words of each public event are `arena.narration`'s, as in the terminal and the
report; the events come as the server sent them (`arena.wire` turns them back into the
engine's).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from markupsafe import Markup

from arena import chart, narration, wire
from arena.v1 import admin_pb2, uno_pb2
from arena.wire_admin import rating_histories


def rating_chart(history: admin_pb2.GetRatingHistoryResponse) -> Markup:
    """The report's rating chart (`arena.chart`: inline SVG, every name escaped, no
    script and no style attribute) of a `GetRatingHistory` answer, its x axis running to
    the pool's last game."""
    over = f"the {history.pool.games} games of {history.pool.description or history.pool.key}"
    return Markup(chart.rating_chart(rating_histories(history), history.pool.games, over))


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a replay: its line, and the board after it."""

    number: int
    text: str
    private: bool
    counts: tuple[int, ...]
    top: str
    colour: str


def _card(card: uno_pb2.Card) -> str:
    return str(wire.card_from_proto(card).short())


def _colour_name(value: int) -> str:
    if not value:
        return ""
    return str(uno_pb2.Color.Name(value)).removeprefix("COLOR_").lower()


class _Board:
    """The public state a replay shows: each seat's card count and the discard's top."""

    def __init__(self, seats: int) -> None:
        self.counts = [0] * seats
        self.top = ""
        self.colour = ""

    def apply(self, event: uno_pb2.Event) -> None:
        kind = event.WhichOneof("kind")
        body: Any = getattr(event, kind) if kind else None
        if kind == "hand_started" or kind == "hands_shuffled":
            self.counts = list(body.hand_sizes) + [0] * (len(self.counts) - len(body.hand_sizes))
        elif kind == "first_card":
            self.top, self.colour = _card(body.card), _colour_name(body.card.color)
        elif kind == "card_played":
            self._add(body.seat, -1)
            self.top = _card(body.card)
            self.colour = _colour_name(body.color or body.card.color)
        elif kind == "color_chosen":
            self.colour = _colour_name(body.color)
        elif kind == "cards_drawn":
            self._add(body.seat, body.count)
        elif kind == "hands_swapped" and max(body.seat, body.other) < len(self.counts):
            counts = self.counts
            counts[body.seat], counts[body.other] = counts[body.other], counts[body.seat]
        elif kind == "hands_rotated" and self.counts:
            size = len(self.counts)
            self.counts = [self.counts[(seat - body.direction) % size] for seat in range(size)]

    def _add(self, seat: int, count: int) -> None:
        if seat < len(self.counts):
            self.counts[seat] = max(0, self.counts[seat] + count)


def replay_steps(game: admin_pb2.GetGameResponse) -> list[Step]:
    """The replay of a game as the view `game` shows it: a step per event with words,
    the board after each; a seat's own cards (in a bot's view) are steps too."""
    names = list(game.summary.seats)
    board = _Board(len(names))
    hands: dict[int, list[str]] = {seat: [] for seat in game.visible_seats}
    steps: list[Step] = []
    for message in game.events:
        board.apply(message)
        text, private = _words(message, names, hands)
        if text is None:
            continue
        steps.append(Step(len(steps) + 1, text, private, tuple(board.counts), board.top,
                          board.colour))
    return steps


def _words(message: uno_pb2.Event, names: Sequence[str], hands: dict[int, list[str]]
           ) -> tuple[str | None, bool]:
    kind = message.WhichOneof("kind")
    body: Any = getattr(message, kind) if kind else None
    if kind == "hand_started":
        for hand in hands.values():
            hand.clear()
    elif kind == "card_played" and body.seat in hands and _card(body.card) in hands[body.seat]:
        hands[body.seat].remove(_card(body.card))
    if kind in ("cards_received", "hand_replaced") and body.seat in hands:
        hand = hands[body.seat]
        if kind == "hand_replaced":
            hand.clear()
        hand.extend(_card(card) for card in body.cards)
        return f"{_name(names, body.seat)}'s hand: {' '.join(hand)}", True
    if kind == "hand_revealed" and body.to_seat in hands:
        shown = " ".join(_card(card) for card in body.cards)
        return f"{_name(names, body.to_seat)} is shown {_name(names, body.seat)}'s hand: " \
               f"{shown}", True
    event = wire.event_from_proto(message)
    if event.audience is not None:
        return None, True
    return narration.describe(event, names), False


def _name(names: Sequence[str], seat: int) -> str:
    return names[seat] if seat < len(names) else f"seat {seat}"


def decision_line(decision: admin_pb2.DecisionInfo, names: Sequence[str]) -> str:
    """One line for a decision a seat owed: which, how long, what came of it."""
    words = narration.OUTCOME_WORDS.get(decision.outcome, decision.outcome)
    timing = "" if decision.auto else f" in {decision.elapsed_ms} ms"
    line = f"{_name(names, decision.seat)} decision {decision.index}: {words}{timing}"
    if decision.penalty == "fallback":
        line += f"; the fallback was played, strike {decision.strikes}"
    elif decision.penalty == "forfeit":
        line += f"; forfeit (strikes: {decision.strikes})"
    return line


def number(value: float, digits: int = 3) -> str:
    """A number for a table: `digits` decimals."""
    return f"{value:.{digits}f}"


def path_part(text: str) -> str:
    """`text` quoted for a URL's path (a game id holds ':', a bot name '@')."""
    return quote(str(text), safe="")


def game_link(summary: admin_pb2.GameSummaryInfo) -> str:
    """The page of a stored game."""
    return "/games/" + path_part(summary.id or str(summary.game_id))


def result_text(summary: admin_pb2.GameSummaryInfo) -> str:
    """Who placed where in a game: "a: 1st (120), b: 2nd (0)" (ranks count from 0)."""
    parts = []
    for seat, name in enumerate(summary.seats):
        place = summary.ranks[seat] + 1 if seat < len(summary.ranks) else 0
        score = summary.scores[seat] if seat < len(summary.scores) else 0
        parts.append(f"{name}: {_ordinal(place)} ({score})")
    return ", ".join(parts)


def _ordinal(place: int) -> str:
    if place <= 0:
        return "-"
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(place if place < 20 else place % 10, "th")
    return f"{place}{suffix}"


def public_lines(events: Sequence[uno_pb2.Event], names: Sequence[str]) -> list[str]:
    """The words of the public events among `events` (a live game's, as watched)."""
    lines = []
    for message in events:
        event = wire.event_from_proto(message)
        if event.audience is None:
            text = narration.describe(event, names)
            if text is not None:
                lines.append(text)
    return lines
