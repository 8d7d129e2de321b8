"""One table: drives one game between bots, asking each decision of the seat it is due.

The loop is: whose decision is due → ask that seat's connection (or decide for
it) → apply the action → queue the events each seat may see. Events reach a seat
lazily: they are sent just before the seat's next decision request (inside it,
for bots that opted in with `events_in_requests`), when many have piled up, and
at the end of the game. What a late, illegal, garbled or missing answer costs is
the table's `BotPolicy`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from arena import wire
from arena.engine import events as ev
from arena.engine.actions import Action
from arena.engine.game import Game
from arena.engine.rules import RuleSet
from arena.server.connection import (
    BotConnection,
    CloseReason,
    NoReply,
    PendingDecision,
    Reply,
    next_request_id,
)
from arena.server.policy import BotPolicy, SeatTermination, Violation, passive_action
from arena.server.result import GameAbortedError, GameResult
from arena.v1 import admin_pb2, bot_pb2, uno_pb2

FLUSH_AT = 64
"""Events queued for one seat that are sent at once, without waiting for a decision."""
REPLAY_BYTES = 256 * 1024
"""The most event bytes in one message of the replay a reconnected bot is sent."""
YIELD_EVERY = 64
"""Decisions taken without a round trip before the table lets other tasks run."""


@dataclass(eq=False, slots=True)
class Seat:
    """One seat at a table: its bot, the connection playing it now, and its record."""

    number: int
    bot_name: str
    bank_left: float = 0.0
    connection: BotConnection | None = None
    strikes: int = 0
    termination: SeatTermination = SeatTermination.NORMAL
    absent_cause: Violation = SeatTermination.DISCONNECT
    unsent: list[bytes] = field(default_factory=list)  # serialized Event messages
    pending: PendingDecision | None = None
    absence_checked: bool = False
    """Whether the crash check has run since the seat lost its connection."""


def absence_cause(connection: BotConnection) -> Violation:
    """What a seat's violation is called when its connection has closed."""
    if connection.close_reason is CloseReason.MALFORMED:
        return SeatTermination.MALFORMED
    return SeatTermination.DISCONNECT


class GameTable:
    """Drives one game. Create it, `seat` the claimed connections, then `await run()`."""

    def __init__(self, game_id: str, players: Sequence[str], rules: RuleSet, seed: int,
                 policy: BotPolicy,
                 crash_check: Callable[[str], Awaitable[bool]] | None = None) -> None:
        self.game_id = game_id
        self.crash_check = crash_check
        """Asked whether a bot whose connection dropped crashed (see `server.CrashCheck`)."""
        self.players = tuple(players)
        self.rules = rules
        self.seed = seed
        self.policy = policy
        self.game = Game.new(rules, len(players), seed)
        self.seats = [Seat(n, name, policy.time_bank) for n, name in enumerate(players)]
        self.decisions = 0
        self.forfeited_seat: int | None = None
        self.started = datetime.now(UTC)
        self.finished: datetime | None = None
        self.aborted = False
        self.closed = asyncio.Event()
        self._unawaited = 0
        self._watchers: list[asyncio.Queue[admin_pb2.WatchGameUpdate | None]] = []
        self._final_update: admin_pb2.WatchGameUpdate | None = None
        self._rules_proto = wire.rules_to_proto(rules)
        self._timeout_ms = policy.decision_timeout_ms

    # ------------------------------------------------------------- seating

    @property
    def is_over(self) -> bool:
        """True once the game has ended (or was aborted)."""
        return self.finished is not None

    def seat(self, number: int, connection: BotConnection) -> None:
        """Give seat `number` to `connection` and send it the GameStart."""
        seat = self.seats[number]
        seat.connection = connection
        connection.tables[self.game_id] = self
        connection.send(bot_pb2.ServerMessage(game_start=self._game_start(seat)))

    def take_over(self, number: int, connection: BotConnection) -> None:
        """A reconnected bot takes back its seat: GameStart again, then the events so far,
        in messages of at most `REPLAY_BYTES` each."""
        self.seat(number, connection)
        seat = self.seats[number]
        batch: list[bytes] = []
        size = 0
        for event in wire.events_for_seat(self.game.events, number):
            message = wire.event_to_bytes(event)
            if size + len(message) > REPLAY_BYTES and batch:
                seat.unsent = batch
                self._flush(seat)
                batch, size = [], 0
            batch.append(message)
            size += len(message) + 8  # its key and length
        seat.unsent = batch
        self._flush(seat)

    def orphan_seats(self, bot_name: str) -> list[int]:
        """Seats of `bot_name` that no connection plays now."""
        if self.is_over:
            return []
        return [s.number for s in self.seats if s.bot_name == bot_name and s.connection is None]

    def detach(self, connection: BotConnection, cause: Violation | None = None) -> None:
        """`connection` closed: its seats play on without it until the bot reconnects."""
        for seat in self.seats:
            if seat.connection is connection:
                seat.connection = None
                seat.absent_cause = cause or absence_cause(connection)
                seat.absence_checked = False
                seat.unsent = []
        connection.tables.pop(self.game_id, None)

    def mark_crashed(self, bot_name: str) -> None:
        """The bot's process died: violations of its absent seats count as crashes."""
        for seat in self.seats:
            if seat.bot_name == bot_name and seat.connection is None:
                seat.absent_cause = SeatTermination.CRASH

    def _game_start(self, seat: Seat) -> bot_pb2.GameStart:
        return bot_pb2.GameStart(
            game_id=self.game_id,
            seat=seat.number,
            players=[bot_pb2.Player(seat=s.number, name=s.bot_name) for s in self.seats],
            rules=self._rules_proto,
            decision_timeout_ms=self.policy.decision_timeout_ms,
            time_bank_ms=self.policy.time_bank_ms,
        )

    # ---------------------------------------------------------------- play

    async def run(self) -> GameResult:
        """Play the game to its end; raise `GameAbortedError` if it is aborted first."""
        try:
            # The deal's events; nothing can watch the table before this first step.
            self._publish(self.game.events)
            while not self.game.is_over:
                if self.aborted:
                    raise GameAbortedError(f"game {self.game_id} was aborted")
                await self._step()
        except GameAbortedError:
            self._end_aborted("aborted: the server stopped the game")
            raise
        except BaseException as exc:  # cancelled by the caller, or a bug: free the seats
            self._end_aborted(f"aborted: {type(exc).__name__}")
            raise
        self._end()
        return self.result()

    def abort(self) -> None:
        """Stop the game at the next decision (an open request is withdrawn now)."""
        self.aborted = True
        for seat in self.seats:
            if seat.pending is not None and seat.connection is not None:
                seat.connection.settle(seat.pending.request_id, NoReply.WITHDRAWN)

    async def _step(self) -> None:
        game = self.game
        assert game.decider is not None
        seat = self.seats[game.decider]
        legal = game.legal_actions()
        action = await self._decide(seat, legal)
        events = game.forfeit(seat.number) if action is None else game.apply(action)
        self.decisions += 1
        self._publish(events)
        if self._unawaited >= YIELD_EVERY:
            self._unawaited = 0
            await asyncio.sleep(0)

    async def _decide(self, seat: Seat, legal: list[Action]) -> Action | None:
        """The action for the decision due to `seat`; None when the seat forfeits instead."""
        connection = seat.connection
        if connection is None:
            self._unawaited += 1
            await self._check_absence(seat)
            return self._penalise(seat, seat.absent_cause, legal)
        if len(legal) == 1 and connection.hello.auto_single_action:
            self._unawaited += 1
            return legal[0]
        self._unawaited = 0
        request_id = next_request_id()
        reply = await self._ask(seat, connection, legal, request_id)
        if reply is NoReply.CLOSED:
            self.detach(connection)
            await self._check_absence(seat)
        return self._judge(seat, connection, reply, legal, request_id)

    async def _check_absence(self, seat: Seat) -> None:
        """Before the first violation of a seat whose connection dropped, learn whether
        the bot's process crashed: the drop is often seen before the process exit."""
        if seat.absence_checked:
            return
        seat.absence_checked = True
        if (seat.absent_cause is SeatTermination.DISCONNECT and self.crash_check is not None
                and await self.crash_check(seat.bot_name)):
            self.mark_crashed(seat.bot_name)

    async def _ask(self, seat: Seat, connection: BotConnection, legal: list[Action],
                   request_id: str) -> Reply:
        events: list[bytes] = []
        if connection.hello.events_in_requests:
            events, seat.unsent = seat.unsent, []
        else:
            self._flush(seat)
        request = wire.decision_request_to_bytes(
            request_id, self.game_id, self.game.view(seat.number), legal,
            self._timeout_ms, round(seat.bank_left * 1000), events)
        loop = asyncio.get_running_loop()
        asked = loop.time()
        seat.pending = connection.ask(request_id, request,
                                      self.policy.decision_timeout + seat.bank_left)
        try:
            reply = await seat.pending.future
        finally:
            connection.settle(request_id, NoReply.WITHDRAWN)
            seat.pending = None
        self._spend_bank(seat, loop.time() - asked, reply)
        return reply

    def _spend_bank(self, seat: Seat, elapsed: float, reply: Reply) -> None:
        if reply is NoReply.TIMEOUT:
            seat.bank_left = 0.0
        elif elapsed > self.policy.decision_timeout:
            seat.bank_left = max(0.0, seat.bank_left - (elapsed - self.policy.decision_timeout))

    def _judge(self, seat: Seat, connection: BotConnection, reply: Reply, legal: list[Action],
               request_id: str) -> Action | None:
        """The action a reply stands for, or what the policy makes of a bad one."""
        if reply is NoReply.WITHDRAWN:
            raise GameAbortedError(f"game {self.game_id} was aborted")
        if reply is NoReply.TIMEOUT:
            self._tell(seat, bot_pb2.ERROR_CODE_DEADLINE_EXCEEDED,
                       "no decision before the deadline; the policy decides", request_id)
            return self._penalise(seat, SeatTermination.TIMEOUT, legal)
        if reply is NoReply.CLOSED:
            return self._penalise(seat, seat.absent_cause, legal)
        assert isinstance(reply, bot_pb2.Decision)
        return self._chosen(seat, reply, legal, request_id)

    def _chosen(self, seat: Seat, decision: bot_pb2.Decision, legal: list[Action],
                request_id: str) -> Action | None:
        choice = decision.WhichOneof("choice")
        if choice == "action_index":
            if decision.action_index < len(legal):
                return legal[decision.action_index]
            problem = (f"action_index {decision.action_index} is out of range "
                       f"({len(legal)} legal actions)")
        elif choice == "action":
            try:
                action = wire.action_from_proto(decision.action)
            except wire.WireError as exc:
                self._tell(seat, bot_pb2.ERROR_CODE_MALFORMED, f"bad action: {exc}", request_id)
                return self._penalise(seat, SeatTermination.MALFORMED, legal)
            if action in legal:
                return action
            problem = f"{action} is not one of the legal actions"
        else:
            self._tell(seat, bot_pb2.ERROR_CODE_MALFORMED,
                       "a Decision must set action_index or action", request_id)
            return self._penalise(seat, SeatTermination.MALFORMED, legal)
        self._tell(seat, bot_pb2.ERROR_CODE_ILLEGAL_ACTION, problem, request_id)
        return self._penalise(seat, SeatTermination.ILLEGAL, legal)

    def _penalise(self, seat: Seat, violation: Violation, legal: list[Action]) -> Action | None:
        """Apply the bot policy: the fallback action plus a strike, or None to forfeit."""
        policy = self.policy
        if policy.on_violation == "forfeit":
            self._forfeit(seat, violation)
            return None
        seat.strikes += 1
        limit = "" if policy.max_strikes is None else f" of {policy.max_strikes}"
        self._tell(seat, bot_pb2.ERROR_CODE_STRIKE,
                   f"strike {seat.strikes}{limit} ({violation.value})")
        if policy.max_strikes is not None and seat.strikes >= policy.max_strikes:
            self._forfeit(seat, violation)
            return None
        return passive_action(legal)

    def _forfeit(self, seat: Seat, violation: Violation) -> None:
        seat.termination = violation
        self.forfeited_seat = seat.number
        self._tell(seat, bot_pb2.ERROR_CODE_FORFEIT, f"seat {seat.number} forfeits the game "
                   f"({violation.value})")

    def _tell(self, seat: Seat, code: bot_pb2.ErrorCode, message: str,
              request_id: str = "") -> None:
        if seat.connection is not None:
            seat.connection.send_error(code, message, self.game_id, request_id)

    # -------------------------------------------------------------- events

    def _publish(self, events: Sequence[ev.Event]) -> None:
        """Queue each event for the seats that may see it (and the watchers, if public).

        The rule is `wire.events_for_seat`'s, applied by routing each event to its
        `audience` (every seat when None) rather than by filtering per seat.
        """
        if not events:
            return
        seats = self.seats
        public: list[bytes] = []
        for event in events:
            message = wire.event_to_bytes(event)
            audience = event.audience
            if audience is None:
                public.append(message)
                for seat in seats:
                    if seat.connection is not None:
                        seat.unsent.append(message)
            else:
                for number in audience:
                    if seats[number].connection is not None:
                        seats[number].unsent.append(message)
        for seat in seats:
            if len(seat.unsent) >= FLUSH_AT:
                self._flush(seat)
        if public and self._watchers:
            update = wire.watch_update_to_proto(self.game_id, public)
            for queue in self._watchers:
                queue.put_nowait(update)

    def _flush(self, seat: Seat) -> None:
        """Send the events queued for `seat` now."""
        if seat.unsent and seat.connection is not None:
            seat.connection.send(wire.game_events_to_proto(self.game_id, seat.unsent))
        seat.unsent = []

    # ----------------------------------------------------------------- end

    def _end(self) -> None:
        outcome = self.game.outcome
        assert outcome is not None
        terminations = [seat.termination for seat in self.seats]
        reason = outcome.termination.value
        if self.forfeited_seat is not None:
            forfeiter = self.seats[self.forfeited_seat]
            reason = (f"forfeit: seat {forfeiter.number} ({forfeiter.bot_name}), "
                      f"{forfeiter.termination.value}")
        self._close(wire.outcome_to_proto(outcome, terminations), reason)

    def _end_aborted(self, reason: str) -> None:
        if self.is_over:
            return
        for seat in self.seats:
            seat.termination = SeatTermination.ABORTED
        self._close(wire.unfinished_outcome_to_proto(
            "aborted", self.game.totals, self.game.hand_number,
            [seat.termination for seat in self.seats]), reason)

    def _close(self, outcome: uno_pb2.Outcome, reason: str) -> None:
        """Send every seat its last events and the GameEnd, free the seats, tell watchers."""
        self.finished = datetime.now(UTC)
        end = bot_pb2.ServerMessage(game_end=bot_pb2.GameEnd(
            game_id=self.game_id, outcome=outcome, reason=reason))
        for seat in self.seats:
            self._flush(seat)
            if seat.connection is not None:
                seat.connection.send(end)
                seat.connection.tables.pop(self.game_id, None)
                seat.connection = None
        self._final_update = admin_pb2.WatchGameUpdate(
            game_id=self.game_id, players=self.players, outcome=outcome)
        for queue in self._watchers:
            queue.put_nowait(self._final_update)
            queue.put_nowait(None)
        self._watchers.clear()
        self.closed.set()

    def result(self) -> GameResult:
        """The record of the finished game."""
        game = self.game
        assert game.outcome is not None and self.finished is not None
        return GameResult(
            game_id=self.game_id,
            players=self.players,
            rules=self.rules,
            seed=self.seed,
            outcome=game.outcome,
            seat_terminations=tuple(seat.termination for seat in self.seats),
            actions=tuple(game.actions),
            events=tuple(game.events),
            forfeited_seat=self.forfeited_seat,
            strikes=tuple(seat.strikes for seat in self.seats),
            started=self.started,
            finished=self.finished,
        )

    # ------------------------------------------------------------- watching

    def info(self) -> admin_pb2.TableInfo:
        """A line for `ListTables`."""
        return admin_pb2.TableInfo(game_id=self.game_id, players=self.players,
                                   hand_number=self.game.hand_number, decisions=self.decisions)

    def watch(self) -> asyncio.Queue[admin_pb2.WatchGameUpdate | None]:
        """A queue of updates: the public events so far, then live ones, the outcome, None."""
        queue: asyncio.Queue[admin_pb2.WatchGameUpdate | None] = asyncio.Queue()
        history = [wire.event_to_bytes(e) for e in wire.public_events(self.game.events)]
        queue.put_nowait(wire.watch_update_to_proto(self.game_id, history, self.players))
        if self._final_update is not None:
            queue.put_nowait(self._final_update)
            queue.put_nowait(None)
        else:
            self._watchers.append(queue)
        return queue

    def unwatch(self, queue: asyncio.Queue[admin_pb2.WatchGameUpdate | None]) -> None:
        """Stop feeding a queue from `watch`."""
        if queue in self._watchers:
            self._watchers.remove(queue)
