"""A seat proxy: what a table needs from whoever plays one of its seats.

A table never sees a connection or a protocol message. It asks a `SeatProxy`
for the decision due with a deadline and gets back an `Answer`: a legal engine
`Action`, or the `Violation` the seat committed (in the spirit of Flower's
`GrpcClientProxy.fit(ins, timeout)`). Everything else it tells a seat is said
in domain terms too: its place at the table, the events it may see, strikes,
forfeits, the end of the game.

- `ConnectionSeat` plays a seat over a bot's `BotConnection`: it writes the
  protocol (through `arena.wire`), decides when queued events go out, holds the
  connection's table slot while it plays, and judges the bot's `Decision`.
- `ScriptedSeat` plays a seat in memory from a script, for tests of the table.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

from arena import wire
from arena.engine import events as ev
from arena.engine.actions import Action
from arena.engine.rules import RuleSet
from arena.engine.view import SeatView
from arena.policy import BotPolicy, SeatTermination, Violation
from arena.server.connection import BotConnection, CloseReason, NoReply, next_request_id
from arena.v1 import bot_pb2, uno_pb2

FLUSH_AT = 64
"""Events queued for one seat that are sent at once, without waiting for a decision."""


@dataclass(frozen=True, slots=True)
class Departed:
    """The seat's connection closed before it answered."""

    cause: Violation
    """What the seat's absence is called: a disconnect, or malformed when the
    bot sent bytes that are no message."""


class Withdrawn(Enum):
    """The table withdrew the request itself (it is being aborted)."""

    WITHDRAWN = "withdrawn"


WITHDRAWN = Withdrawn.WITHDRAWN

Answer = Action | Violation | Departed | Withdrawn
"""What a seat's decision comes back as: an action among the legal ones, the
violation it committed (timeout, illegal, malformed), its departure, or nothing
because the table withdrew the request."""


@dataclass(frozen=True, slots=True)
class SeatSetup:
    """What a seat is told when it takes its place at a table."""

    game_id: str
    seat: int
    players: tuple[str, ...]
    """The bots by seat: `players[i]` sits at seat i."""
    rules: RuleSet
    policy: BotPolicy
    bot_seed: int | None = None
    """The seed for the bot's own randomness (`arena.wire.bot_seed`); None sends none."""


class SeatProxy(Protocol):
    """Whoever plays one seat of one table, as the table sees it.

    Encoded events are `arena.wire.event_to_bytes` messages, already routed to
    the seat by their audience: the table encodes each event once for all seats.
    """

    @property
    def auto_single_action(self) -> bool:
        """True when a decision with exactly one legal action may be taken without asking."""
        ...

    def join(self, setup: SeatSetup, history: Iterable[Sequence[bytes]] = ()) -> None:
        """Take the seat: be told the game, then `history`, the encoded events so far in
        batches (each to be sent as one message)."""
        ...

    def events(self, events: Sequence[bytes]) -> None:
        """Encoded events the seat may see; they reach it before its next decision at latest.

        The sequence may be handed to other seats too: a proxy copies what it keeps.
        """
        ...

    async def decide(self, view: SeatView, legal: list[Action], timeout: float,
                     bank: float) -> tuple[Answer, float]:
        """The answer to the decision due, and the seconds it took.

        The seat has `timeout` seconds, of which `bank` are its time bank; an
        action in the answer is one of `legal`.
        """
        ...

    def withdraw(self) -> None:
        """Withdraw the decision being asked, if any: `decide` answers `WITHDRAWN`."""
        ...

    def strike(self, strikes: int, max_strikes: int | None, violation: Violation) -> None:
        """Tell the seat that `violation` earned it strike number `strikes`."""
        ...

    def forfeit(self, violation: Violation) -> None:
        """Tell the seat that `violation` forfeits it the game."""
        ...

    def end(self, outcome: uno_pb2.Outcome, reason: str) -> None:
        """The game is over: its last events, then the outcome; the seat is left."""
        ...

    def leave(self) -> None:
        """Stop playing the seat (its connection closed): nothing more is sent."""
        ...


def absence_cause(connection: BotConnection) -> Violation:
    """What a seat's violations are called once `connection` has closed."""
    if connection.close_reason is CloseReason.MALFORMED:
        return SeatTermination.MALFORMED
    return SeatTermination.DISCONNECT


class ConnectionSeat:
    """A seat played over a bot's connection, which holds a table slot for it meanwhile.

    Events queue up and go out just before the seat's next decision request
    (inside it, for bots that opted in with `events_in_requests`), or as soon as
    `FLUSH_AT` are queued, or at the end of the game.
    """

    def __init__(self, connection: BotConnection) -> None:
        self.connection = connection
        self.auto_single_action = connection.hello.auto_single_action
        self._events_in_requests = connection.hello.events_in_requests
        self._game_id = ""
        self._seat = 0
        self._unsent: list[bytes] = []
        self._asking: str | None = None

    def __repr__(self) -> str:
        return f"<ConnectionSeat {self._game_id}:{self._seat} {self.connection!r}>"

    def join(self, setup: SeatSetup, history: Iterable[Sequence[bytes]] = ()) -> None:
        """Take a slot of the connection, send the GameStart, then each batch of
        `history` as one GameEvents message."""
        self._game_id, self._seat = setup.game_id, setup.seat
        self.connection.take_slot(setup.game_id)
        self.connection.send(wire.game_start_to_proto(
            setup.game_id, setup.seat, setup.players, setup.rules,
            setup.policy.decision_timeout_ms, setup.policy.time_bank_ms, setup.bot_seed))
        for batch in history:
            self._unsent = list(batch)
            self._flush()

    def events(self, events: Sequence[bytes]) -> None:
        """Queue events for the bot; send them now if `FLUSH_AT` are waiting."""
        unsent = self._unsent
        unsent.extend(events)
        if len(unsent) >= FLUSH_AT:
            self._flush()

    def _flush(self) -> None:
        if self._unsent:
            self.connection.send(wire.game_events_to_proto(self._game_id, self._unsent))
        self._unsent = []

    async def decide(self, view: SeatView, legal: list[Action], timeout: float,
                     bank: float) -> tuple[Answer, float]:
        """Send a decision request (with the queued events, if the bot wants them
        inside it) and judge the reply."""
        connection = self.connection
        request_id = next_request_id()
        events: list[bytes] = []
        if self._events_in_requests:
            events, self._unsent = self._unsent, []
        else:
            self._flush()
        # The time left to decide, not counting the bank: less than the policy's deadline
        # when the table waited for this bot to reconnect.
        time_left_ms = max(0, round((timeout - bank) * 1000))
        request = wire.decision_request_to_bytes(
            request_id, self._game_id, view, legal, time_left_ms, round(bank * 1000), events)
        loop = asyncio.get_running_loop()
        asked = loop.time()
        pending = connection.ask(request_id, request, timeout)
        self._asking = request_id
        try:
            reply = await pending.future
        finally:
            connection.settle(request_id, NoReply.WITHDRAWN)
            self._asking = None
        elapsed = loop.time() - asked
        return self._judge(reply, legal, request_id), elapsed

    def _judge(self, reply: bot_pb2.Decision | NoReply, legal: list[Action],
               request_id: str) -> Answer:
        """The answer a reply stands for; the bot is told what was wrong with a bad one."""
        if isinstance(reply, bot_pb2.Decision):
            try:
                return wire.chosen_action(reply, legal)
            except wire.IllegalChoiceError as exc:
                self._error(bot_pb2.ERROR_CODE_ILLEGAL_ACTION, str(exc), request_id)
                return SeatTermination.ILLEGAL
            except wire.WireError as exc:
                self._error(bot_pb2.ERROR_CODE_MALFORMED, str(exc), request_id)
                return SeatTermination.MALFORMED
        if reply is NoReply.TIMEOUT:
            self._error(bot_pb2.ERROR_CODE_DEADLINE_EXCEEDED,
                        "no decision before the deadline; the policy decides", request_id)
            return SeatTermination.TIMEOUT
        if reply is NoReply.CLOSED:
            return Departed(absence_cause(self.connection))
        return WITHDRAWN

    def withdraw(self) -> None:
        """Settle the open request, if any, as withdrawn."""
        if self._asking is not None:
            self.connection.settle(self._asking, NoReply.WITHDRAWN)

    def strike(self, strikes: int, max_strikes: int | None, violation: Violation) -> None:
        """Send the STRIKE error."""
        limit = "" if max_strikes is None else f" of {max_strikes}"
        self._error(bot_pb2.ERROR_CODE_STRIKE, f"strike {strikes}{limit} ({violation.value})")

    def forfeit(self, violation: Violation) -> None:
        """Send the FORFEIT error."""
        self._error(bot_pb2.ERROR_CODE_FORFEIT,
                    f"seat {self._seat} forfeits the game ({violation.value})")

    def end(self, outcome: uno_pb2.Outcome, reason: str) -> None:
        """Send the queued events and the GameEnd, and free the connection's slot."""
        self._flush()
        self.connection.send(wire.game_end_to_proto(self._game_id, outcome, reason))
        self.connection.free_slot(self._game_id)

    def leave(self) -> None:
        """Drop the queued events and free the connection's slot."""
        self._unsent = []
        self.connection.free_slot(self._game_id)

    def _error(self, code: bot_pb2.ErrorCode, message: str, request_id: str = "") -> None:
        self.connection.send_error(code, message, self._game_id, request_id)


Script = Callable[[SeatView, Sequence[Action]], Action | Violation | Departed]
"""What a scripted seat answers: an action (legal or not), or the violation or
departure its answer stands for."""


@dataclass(frozen=True, slots=True)
class Asked:
    """One decision a scripted seat was asked for."""

    view: SeatView
    legal: list[Action]
    timeout: float
    bank: float


@dataclass(eq=False)
class ScriptedSeat:
    """A seat played in memory by `script`, with no connection and no clock, for tests.

    An action the script picks that is not legal is answered as `ILLEGAL`; a
    `TIMEOUT` takes the whole `timeout`. Everything the seat is told is kept.
    """

    script: Script
    auto_single_action: bool = False
    setup: SeatSetup | None = None
    seen: list[ev.Event] = field(default_factory=list)
    """Every event the seat was sent, decoded, in order."""
    asked: list[Asked] = field(default_factory=list)
    strikes: list[tuple[int, Violation]] = field(default_factory=list)
    forfeited: Violation | None = None
    ended: tuple[uno_pb2.Outcome, str] | None = None
    left: bool = False

    def join(self, setup: SeatSetup, history: Iterable[Sequence[bytes]] = ()) -> None:
        """Keep the setup and the history."""
        self.setup = setup
        for batch in history:
            self.events(batch)

    def events(self, events: Sequence[bytes]) -> None:
        """Decode and keep the events."""
        self.seen.extend(wire.event_from_proto(uno_pb2.Event.FromString(e)) for e in events)

    async def decide(self, view: SeatView, legal: list[Action], timeout: float,
                     bank: float) -> tuple[Answer, float]:
        """Ask the script; judge its action against `legal`."""
        self.asked.append(Asked(view, legal, timeout, bank))
        answer = self.script(view, legal)
        if isinstance(answer, Action):
            return (answer if answer in legal else SeatTermination.ILLEGAL), 0.0
        return answer, timeout if answer is SeatTermination.TIMEOUT else 0.0

    def withdraw(self) -> None:
        """Nothing is ever pending: `decide` answers at once."""

    def strike(self, strikes: int, max_strikes: int | None, violation: Violation) -> None:
        """Keep the strike."""
        self.strikes.append((strikes, violation))

    def forfeit(self, violation: Violation) -> None:
        """Keep the forfeit."""
        self.forfeited = violation

    def end(self, outcome: uno_pb2.Outcome, reason: str) -> None:
        """Keep the outcome and the reason."""
        self.ended = (outcome, reason)

    def leave(self) -> None:
        """Note that the seat was left."""
        self.left = True
