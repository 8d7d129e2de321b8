"""A stored game as a spectator sees it: one board for each public event.

The game is replayed through the engine from its record, so that each frame can
say whose decision was due once the action behind it was applied. The board
itself is built from the public events alone (`arena.wire.public_events`): card
counts, never the cards in a hand, except the hands a hand's end lays open
(`HandEnded.cards_left`), which every seat sees.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from arena import narration
from arena.engine import Card, Game
from arena.engine import events as ev
from arena.engine.actions import IllegalActionError
from arena.record import GameRecord, ReplayMismatchError

Batch = tuple[list[ev.Event], int | None, str]
"""The events one step of the game produced, the seat whose decision was due after it
(None when the game is over) and the phase of that decision."""


@dataclass(frozen=True, slots=True)
class Frame:
    """The board after one public event.

    `step` is the step of the game the event came from (0: the deal, n: the n-th
    decision, one more: a forfeit); `text` says what happened; `actor` is the seat
    the event is about, if any; `to_act` the seat whose decision was due once that
    step was played (None when the game was over), in `phase`. `hand_counts[seat]`
    is how many cards the seat held; `top` the top card of the discard pile in
    short notation and `color` the colour in play (None before the first card, or
    while a wild turned up first waits for its colour); `direction` is +1
    clockwise. `totals` are the scores so far; `revealed[seat]` the cards a seat
    was left with when a hand ended (empty otherwise); `eliminated` the seats out
    of the game.
    """

    step: int
    text: str
    actor: int | None
    to_act: int | None
    phase: str
    hand_number: int
    hand_counts: tuple[int, ...]
    top: str | None
    color: str | None
    direction: int
    totals: tuple[int, ...]
    revealed: tuple[tuple[str, ...], ...]
    eliminated: tuple[int, ...]


@dataclass(slots=True)
class _Board:
    seats: int
    hand_number: int = 0
    hand_counts: list[int] = field(default_factory=list)
    top: Card | None = None
    color: str | None = None
    direction: int = 1
    totals: list[int] = field(default_factory=list)
    active: list[int] = field(default_factory=list)
    eliminated: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.hand_counts = [0] * self.seats
        self.totals = [0] * self.seats
        self.active = list(range(self.seats))

    def next_active(self, seat: int) -> int:
        ring = sorted(self.active)
        index = ring.index(seat)
        return ring[(index + self.direction) % len(ring)]


def batches(record: GameRecord) -> Iterator[Batch]:
    """The game replayed step by step: the deal, then each action, then the forfeit.
    Raises `ReplayMismatchError` at an action that is not legal where it is played, and
    at the end when the replay does not give the record's outcome."""
    game = Game.new(record.rules, len(record.seats), record.seed)
    yield list(game.events), game.decider, game.phase.value
    for index, action in enumerate(record.actions):
        try:
            events = game.apply(action)
        except IllegalActionError as exc:
            raise ReplayMismatchError(f"actions[{index}] ({action}): {exc}") from None
        yield events, game.decider, game.phase.value
    if record.forfeited_seat is not None:
        yield game.forfeit(record.forfeited_seat), None, game.phase.value
    if game.outcome != record.outcome:
        raise ReplayMismatchError(
            f"the replay ends with {game.outcome}, but the record stores {record.outcome}")


def frames(record: GameRecord) -> list[Frame]:
    """One frame for each public event of the game, in order; `ReplayMismatchError` if
    the record does not replay."""
    board = _Board(len(record.seats))
    names = record.seats
    result: list[Frame] = []
    for step, (events, to_act, phase) in enumerate(batches(record)):
        for event in events:
            if event.audience is not None:
                continue
            revealed = _apply(board, event)
            result.append(Frame(
                step=step, text=describe(event, names), actor=_actor(event), to_act=to_act,
                phase=phase, hand_number=board.hand_number,
                hand_counts=tuple(board.hand_counts),
                top=None if board.top is None else board.top.short(), color=board.color,
                direction=board.direction, totals=tuple(board.totals), revealed=revealed,
                eliminated=tuple(board.eliminated)))
    return result


def _apply(board: _Board, event: ev.Event) -> tuple[tuple[str, ...], ...]:
    """Move the board past one public event; return the hands it lays open."""
    match event:
        case ev.HandStarted(hand_number=number, hand_sizes=sizes, active_seats=active):
            board.hand_number = number
            board.hand_counts = list(sizes)
            board.active = [seat for seat in active if seat not in board.eliminated]
            board.top, board.color, board.direction = None, None, 1
        case ev.StarterReturned():
            board.top, board.color = None, None
        case ev.FirstCard(card=card, direction=direction):
            board.top, board.direction = card, direction
            board.color = None if card.color is None else card.color.value
        case ev.CardPlayed(seat=seat, card=card, color=color):
            board.hand_counts[seat] -= 1
            board.top, board.color = card, color.value
        case ev.ColorChosen(color=color):
            board.color = color.value
        case ev.CardsDrawn(seat=seat, count=count):
            board.hand_counts[seat] += count
        case ev.DirectionChanged(direction=direction):
            board.direction = direction
        case ev.HandsSwapped(seat=seat, other=other):
            counts = board.hand_counts
            counts[seat], counts[other] = counts[other], counts[seat]
        case ev.HandsRotated():
            before = list(board.hand_counts)
            for seat in board.active:
                board.hand_counts[board.next_active(seat)] = before[seat]
        case ev.HandsShuffled(hand_sizes=sizes):
            board.hand_counts = list(sizes)
        case ev.HandEnded(totals=totals, cards_left=left):
            board.totals = list(totals)
            return tuple(tuple(card.short() for card in cards) for cards in left)
        case ev.PlayerEliminated(seat=seat):
            board.eliminated.append(seat)
            board.active = [s for s in board.active if s != seat]
        case ev.GameEnded(scores=scores):
            board.totals = list(scores)
    return ()


def _actor(event: ev.Event) -> int | None:
    match event:
        case ev.DealerChosen(dealer=seat) | ev.HandStarted(dealer=seat):
            return seat
        case ev.FirstCard(first_seat=seat):
            return seat
        case ev.ChallengeResolved(challenger=seat) | ev.UnoCaught(catcher=seat):
            return seat
        case ev.HandEnded(winner=seat):
            return seat
    seat = getattr(event, "seat", None)
    return seat if isinstance(seat, int) else None


def describe(event: ev.Event, names: Sequence[str]) -> str:
    """One line of plain text for a public event (`arena.narration.describe`'s), or the
    event's class name for an event it has no words for."""
    line = narration.describe(event, names)
    return line if line is not None else type(event).__name__
