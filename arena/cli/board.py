"""The live board of a game: public events folded into a table picture, drawn in place.

`Board` is a pure model: it folds public events (as `arena watch` receives them
and as a stored game holds them) into what a spectator knows — each seat's
card count and score, the hand, the dealer, the direction of play, the top card
and the colour to match, whose turn it is, the last few events and the game's
end. `board_lines` turns it into lines of text, coloured like the cards unless told
not to. `show_live` and `show_replay` draw those lines on a `Screen`, frame
after frame.

Whose decision is due is exact when the board is told (`Board.await_decision`,
as a replay does from the engine). From public events alone it is inferred: a
seat that draws a card it cannot play passes the turn without an event, so a
live board shows the turn passing only with the next event.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections import deque
from collections.abc import AsyncIterable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import click

from arena.cli import render
from arena.cli.screen import Screen
from arena.engine import Card, Color, Game, Phase, Rank
from arena.engine import events as ev

if TYPE_CHECKING:
    from arena.cli.context import Context
    from arena.cli.session import Session
    from arena.engine import Action, RuleSet
    from arena.v1 import admin_pb2

RECENT_EVENTS = 6
"""How many of the last events the board shows (fewer on a short terminal)."""


@dataclass
class SeatState:
    """One seat as a spectator sees it."""

    name: str
    cards: int = 0
    score: int = 0
    active: bool = True
    uno: bool = False
    hand: tuple[Card, ...] | None = None


@dataclass(frozen=True, slots=True)
class Decision:
    """The decision a seat is being asked for."""

    seat: int
    phase: Phase


@dataclass
class Board:
    """What a spectator knows of a game after the public events folded into it."""

    seats: list[SeatState]
    hand_number: int = 0
    dealer: int | None = None
    direction: int = 1
    top: Card | None = None
    color: Color | None = None
    turn: int | None = None
    pending: Decision | None = None
    draw_owed: int = 0
    recent: deque[ev.Event] = field(default_factory=lambda: deque(maxlen=RECENT_EVENTS))
    last_player: int | None = None
    ended: ev.GameEnded | None = None
    events_seen: int = 0

    @classmethod
    def for_players(cls, names: Sequence[str]) -> Board:
        """An empty board for seats with these names."""
        return cls(seats=[SeatState(name) for name in names])

    def name(self, seat: int) -> str:
        """The name of `seat` (`seat N` when the board has no name for it)."""
        return self.seats[seat].name if seat < len(self.seats) else f"seat {seat}"

    def fold(self, events: Iterable[ev.Event]) -> None:
        """Apply each public event in turn; private events are ignored."""
        for event in events:
            if event.audience is None:
                self.apply(event)

    def apply(self, event: ev.Event) -> None:
        """Apply one public event."""
        self.events_seen += 1
        if render.describe(event, [s.name for s in self.seats], color=False) is not None:
            self.recent.append(event)
        handler = _HANDLERS.get(type(event))
        if handler is not None:
            handler(self, event)

    def await_decision(self, seat: int | None, phase: Phase) -> None:
        """Say exactly which decision is due (None or `GAME_OVER`: none)."""
        if seat is None or phase is Phase.GAME_OVER:
            self.pending = None
            return
        self.pending = Decision(seat, phase)
        if phase in (Phase.PLAY, Phase.PLAY_DRAWN, Phase.CHOOSE_COLOR):
            self.turn = seat

    def show_hands(self, hands: Sequence[Sequence[Card]]) -> None:
        """Show every seat's cards (a replay knows them; a spectator does not)."""
        for seat, cards in zip(self.seats, hands, strict=False):
            seat.hand = tuple(cards)
            seat.cards = len(cards)

    def next_seat(self, seat: int) -> int:
        """The active seat after `seat` in the direction of play."""
        count = len(self.seats)
        nxt = seat
        for _ in range(count):
            nxt = (nxt + self.direction) % count
            if self.seats[nxt].active:
                return nxt
        return seat

    def _play_on(self, seat: int, phase: Phase = Phase.PLAY) -> None:
        self.turn = seat
        self.pending = Decision(seat, phase)


# --------------------------------------------------------------- folding events

def _dealer_chosen(board: Board, event: ev.DealerChosen) -> None:
    board.dealer = event.dealer


def _hand_started(board: Board, event: ev.HandStarted) -> None:
    board.hand_number = event.hand_number
    board.dealer = event.dealer
    board.top = board.color = None
    board.turn = board.pending = None
    board.draw_owed = 0
    while len(board.seats) < len(event.hand_sizes):
        board.seats.append(SeatState(f"seat {len(board.seats)}"))
    for index, seat in enumerate(board.seats):
        seat.active = index in event.active_seats
        seat.cards = event.hand_sizes[index] if index < len(event.hand_sizes) else 0
        seat.uno = False
        seat.hand = None


def _first_card(board: Board, event: ev.FirstCard) -> None:
    board.top, board.color = event.card, event.card.color
    board.direction = event.direction
    if event.card.is_wild:
        board._play_on(event.first_seat, Phase.CHOOSE_COLOR)
    else:
        board._play_on(event.first_seat)


def _color_chosen(board: Board, event: ev.ColorChosen) -> None:
    board.color = event.color
    board._play_on(event.seat)


def _card_played(board: Board, event: ev.CardPlayed) -> None:
    seat = board.seats[event.seat]
    seat.cards = max(seat.cards - 1, 0)
    seat.uno = seat.cards == 1 and event.uno
    board.top, board.color = event.card, event.color
    following = board.next_seat(event.seat)
    if seat.cards == 0:
        board.turn, board.pending = None, None
    elif seat.cards == 1 and not event.uno:
        board.turn, board.pending = following, Decision(event.seat, Phase.CATCH_WINDOW)
    elif event.card.rank is Rank.WILD_DRAW_FOUR:
        board.draw_owed += 4
        board.turn, board.pending = following, Decision(following, Phase.CHALLENGE)
    else:
        if event.card.rank is Rank.DRAW_TWO:
            board.draw_owed += 2
        board._play_on(following)
    board.last_player = event.seat


def _cards_drawn(board: Board, event: ev.CardsDrawn) -> None:
    seat = board.seats[event.seat]
    seat.cards += event.count
    seat.uno = False
    if event.reason in (ev.DrawReason.DRAW_TWO, ev.DrawReason.DRAW_FOUR, ev.DrawReason.STACK,
                        ev.DrawReason.CHALLENGE_FAILED, ev.DrawReason.CHALLENGE_GUILTY):
        board.draw_owed = 0
    if event.reason is ev.DrawReason.CHOICE:
        board._play_on(event.seat, Phase.PLAY_DRAWN)
    elif event.reason is ev.DrawReason.CHALLENGE_GUILTY and board.pending is not None:
        board._play_on(board.pending.seat)
    elif event.reason is ev.DrawReason.UNO_PENALTY and board.turn is not None:
        board._play_on(board.turn)


def _turn_passes(board: Board, event: ev.CardKept | ev.TurnSkipped) -> None:
    board._play_on(board.next_seat(event.seat))


def _direction_changed(board: Board, event: ev.DirectionChanged) -> None:
    board.direction = event.direction
    if board.last_player is not None:
        board._play_on(board.next_seat(board.last_player))


def _challenge_resolved(board: Board, event: ev.ChallengeResolved) -> None:
    board.pending = Decision(event.challenger, Phase.PLAY) if event.guilty else None


def _uno_answered(board: Board, event: ev.UnoCalled | ev.UnoCaught) -> None:
    if isinstance(event, ev.UnoCalled):
        board.seats[event.seat].uno = True
    if board.turn is not None:
        board._play_on(board.turn)


def _hands_swapped(board: Board, event: ev.HandsSwapped) -> None:
    one, other = board.seats[event.seat], board.seats[event.other]
    one.cards, other.cards = other.cards, one.cards
    one.uno = other.uno = False


def _hands_rotated(board: Board, event: ev.HandsRotated) -> None:
    active = [i for i, s in enumerate(board.seats) if s.active]
    before = {i: board.seats[i].cards for i in active}
    saved, board.direction = board.direction, event.direction
    for index in active:
        board.seats[board.next_seat(index)].cards = before[index]
        board.seats[index].uno = False
    board.direction = saved


def _hands_shuffled(board: Board, event: ev.HandsShuffled) -> None:
    for seat, size in zip(board.seats, event.hand_sizes, strict=False):
        seat.cards, seat.uno = size, False


def _hand_ended(board: Board, event: ev.HandEnded) -> None:
    for seat, total, left in zip(board.seats, event.totals, event.cards_left, strict=False):
        seat.score, seat.cards = total, len(left)
    board.turn = board.pending = None
    board.draw_owed = 0


def _player_eliminated(board: Board, event: ev.PlayerEliminated) -> None:
    board.seats[event.seat].active = False


def _game_ended(board: Board, event: ev.GameEnded) -> None:
    for seat, score in zip(board.seats, event.scores, strict=False):
        seat.score = score
    board.turn = board.pending = None
    board.ended = event


_HANDLERS: dict[type[ev.Event], Callable[[Board, Any], None]] = {
    ev.DealerChosen: _dealer_chosen, ev.HandStarted: _hand_started, ev.FirstCard: _first_card,
    ev.ColorChosen: _color_chosen, ev.CardPlayed: _card_played, ev.CardsDrawn: _cards_drawn,
    ev.CardKept: _turn_passes, ev.TurnSkipped: _turn_passes,
    ev.DirectionChanged: _direction_changed, ev.ChallengeResolved: _challenge_resolved,
    ev.UnoCalled: _uno_answered, ev.UnoCaught: _uno_answered,
    ev.HandsSwapped: _hands_swapped, ev.HandsRotated: _hands_rotated,
    ev.HandsShuffled: _hands_shuffled, ev.HandEnded: _hand_ended,
    ev.PlayerEliminated: _player_eliminated, ev.GameEnded: _game_ended,
}


# ------------------------------------------------------------------ rendering

_DECISIONS: dict[Phase, str] = {
    Phase.PLAY: "to play a card or draw",
    Phase.PLAY_DRAWN: "to play the card just drawn or keep it",
    Phase.CHOOSE_COLOR: "to name the colour of the first card",
    Phase.CHALLENGE: "to challenge the Wild Draw Four or take the cards",
    Phase.STACK: "to stack a Draw Two or take the cards",
    Phase.JUMP_IN: "may jump in with the same card, or pass",
}

_NAME_WIDTH = 24


def board_lines(board: Board, title: str, *, color: bool = True, recent: int = RECENT_EVENTS,
           footer: str | None = None) -> list[str]:
    """The board as lines of text: a heading, a row per seat (the seat to play marked
    ▶), the top card and the colour to match, the decision due or the game's result,
    and the last `recent` events. Cards are coloured like themselves when `color`."""
    lines = [_heading(board, title, color), ""]
    lines.extend(_seat_rows(board, color))
    lines.append("")
    lines.append(_pile_line(board, color))
    lines.append(_status_line(board, color))
    names = [s.name for s in board.seats]
    shown = list(board.recent)[-recent:] if recent > 0 else []
    if shown:
        lines.append("")
        lines.extend("  " + (render.describe(event, names, color) or "") for event in shown)
    if footer is not None:
        lines.extend(["", footer])
    return lines


def _bold(text: str, color: bool) -> str:
    return click.style(text, bold=True) if color else text


def _heading(board: Board, title: str, color: bool) -> str:
    parts = [_bold(title, color)]
    if board.hand_number:
        parts.append(f"hand {board.hand_number}")
    if board.dealer is not None:
        parts.append(f"dealer {board.name(board.dealer)}")
    parts.append("play goes " + ("clockwise →" if board.direction == 1
                                 else "counter-clockwise ←"))
    return " · ".join(parts)


def _seat_rows(board: Board, color: bool) -> list[str]:
    width = min(max([len(s.name) for s in board.seats] + [4]), _NAME_WIDTH)
    rows = [f"    {'seat':<{width}}  cards  score"]
    winners = set(board.ended.winners) if board.ended is not None else set()
    for index, seat in enumerate(board.seats):
        turn = index == board.turn
        marker = _bold("▶", color) if turn else " "
        name = seat.name[:width]
        padded = _bold(f"{name:<{width}}", color) if turn else f"{name:<{width}}"
        notes = []
        if index in winners:
            notes.append(_bold("wins", color))
        if not seat.active:
            notes.append("out")
        if seat.uno:
            notes.append(click.style("UNO", fg="red", bold=True) if color else "UNO")
        if seat.hand is not None:
            notes.append(render.cards_text(seat.hand, color))
        rows.append(f"  {marker} {padded}  {seat.cards:>5}  {seat.score:>5}  "
                    + "  ".join(notes))
    return [row.rstrip() for row in rows]


def _pile_line(board: Board, color: bool) -> str:
    if board.top is None:
        return "  top card  –"
    line = f"  top card  {render.card_text(board.top, color)}"
    if board.color is not None:
        line += f"   colour to match  {render.color_text(board.color, color)}"
    return line


def _status_line(board: Board, color: bool) -> str:
    if board.ended is not None:
        names = [s.name for s in board.seats]
        return "  " + _bold(render.describe(board.ended, names, False) or "game over", color)
    pending = board.pending
    if pending is None:
        return "  waiting for the next hand" if board.hand_number else "  waiting for the deal"
    who = _bold(board.name(pending.seat), color)
    if pending.phase is Phase.CATCH_WINDOW:
        offender = board.last_player
        if offender is None or offender == pending.seat:
            what = "left with one card without calling UNO: may call it now"
        else:
            what = f"may catch {board.name(offender)} (one card, no UNO), or pass"
    else:
        what = _DECISIONS.get(pending.phase, pending.phase.value.replace("_", " "))
    owed = f" ({board.draw_owed} to draw)" if pending.phase in (
        Phase.CHALLENGE, Phase.STACK) and board.draw_owed else ""
    return f"  waiting for {who} {what}{owed}"


# -------------------------------------------------------------------- drawing

_FIXED_LINES = 8
"""Lines of a frame besides the seat rows and the events: heading, gaps, pile, status."""


def frame(board: Board, title: str, screen: Screen, color: bool,
          footer: str | None = None) -> list[str]:
    """The board's lines for `screen`, with as many recent events as its height leaves."""
    _, rows = screen.size()
    room = rows - 1 - _FIXED_LINES - len(board.seats) - (2 if footer else 0)
    return board_lines(board, title, color=color, recent=min(RECENT_EVENTS, room),
                       footer=footer)


ReplayStep = tuple[list[ev.Event], Game]
"""The events one step of a replay produced, and the game after it."""


def replay_steps(rules: RuleSet, seat_count: int, seed: int, actions: Sequence[Action],
                 forfeited: int | None = None) -> Iterator[ReplayStep]:
    """A stored game played again by the engine: the deal, then each action's events
    (and the forfeit's, if a seat forfeited), each with the game as it stands after."""
    game = Game.new(rules, seat_count, seed)
    yield list(game.events), game
    for action in actions:
        yield game.apply(action), game
    if forfeited is not None:
        yield game.forfeit(forfeited), game


STEP_PROMPT = "press Enter for the next hand"


def show_replay(steps: Iterable[ReplayStep], names: Sequence[str], title: str,
                screen: Screen, *, color: bool, delay: float, hands: bool = False,
                step: bool = False) -> None:
    """Draw a replay frame by frame: after the deal and after every action, with the
    decision due exactly as the engine has it; `hands` shows every seat's cards, `step`
    waits for Enter after each hand (when input is a terminal), `delay` paces the rest."""
    board = Board.for_players(names)
    for events, game in steps:
        board.fold(events)
        board.await_decision(game.decider, game.phase)
        if hands:
            board.show_hands(game.hands)
        pause = (step and not game.is_over and sys.stdin.isatty()
                 and any(isinstance(e, ev.HandEnded) for e in events))
        screen.draw(frame(board, title, screen, color, STEP_PROMPT if pause else None))
        if pause:
            sys.stdin.readline()
        elif delay > 0 and not game.is_over:
            time.sleep(delay)


async def show_live(updates: AsyncIterable[admin_pb2.WatchGameUpdate], title: str,
                    screen: Screen, *, color: bool, delay: float) -> Board | None:
    """Draw a live game as its updates come, at most one frame every `delay` seconds;
    return the board at the end (None if no update came)."""
    from arena import wire

    board: Board | None = None
    drawn_at = -delay
    async for update in updates:
        if board is None:
            board = Board.for_players(list(update.players))
        for seat, name in zip(board.seats, update.players, strict=False):
            seat.name = name
        board.fold(wire.event_from_proto(message) for message in update.events)
        wait = delay - (time.monotonic() - drawn_at)
        if wait > 0:
            await asyncio.sleep(wait)
        screen.draw(frame(board, title, screen, color))
        drawn_at = time.monotonic()
    return board


# ----------------------------------------------------------------- commands

def replay_on_board(response: admin_pb2.GetGameResponse, *, color: bool, delay: float,
                    hands: bool, step: bool, ending: str | None = None) -> None:
    """`arena replay --board`: a stored game (already checked to replay) on the board,
    then `ending` (who forfeited or failed, and why) below it if given."""
    from arena import wire
    from arena.engine import RuleSet

    rules = RuleSet.from_json(response.rules_json)
    actions = [wire.action_from_proto(a) for a in response.actions]
    forfeited = response.forfeited_seat if response.HasField("forfeited_seat") else None
    names = list(response.summary.seats)
    steps = replay_steps(rules, len(names), response.seed, actions, forfeited)
    try:
        with Screen() as screen:
            show_replay(steps, names, f"game {response.summary.id or response.summary.game_id}",
                        screen, color=color, delay=delay, hands=hands, step=step)
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    if ending is not None:
        click.echo(ending)


def watch_on_board(context: Context, game_id: str, *, color: bool, delay: float) -> None:
    """`arena watch` on a terminal: the live game on the board until it ends."""
    from arena.v1 import admin_pb2

    async def body(session: Session) -> None:
        with Screen() as screen:
            await show_live(session.admin.WatchGame(admin_pb2.WatchGameRequest(
                game_id=game_id)), f"game {game_id}", screen, color=color, delay=delay)

    try:
        context.run(body, read_only=True)
    except KeyboardInterrupt:
        raise SystemExit(130) from None
