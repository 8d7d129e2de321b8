"""An SDK bot playing one seat of an engine game in this process, told what the SDK tells it.

`SdkSeat` stands where the match server's seat proxy and the SDK's `Client` stand
on the gRPC path, with the stream taken out: the bot gets the same `Table` (from
the same `GameStart`), the same event objects in the same batches (queued, sent
before its next decision or once `FLUSH_AT` wait, the rest at the end), a `View`
of the same `DecisionRequest` and the same list of legal actions; its choice is
resolved, and a raising or illegal `decide` answered with the passive fallback,
exactly as `arena.client.Client` does. Every message is built by `arena.wire`,
the one place a seat's view is made, and read by `arena.client.convert`.

What is saved is the transport, and work no bot asks for: a view's request is
encoded and parsed the first time the bot reads any of the view's fields (a bot
that only asks `view.table.rng`, like the random sample bot, never pays for it;
a view the bot keeps past its `decide` is built before the game moves on), the
legal actions and events are converted once per distinct engine value, and a
game's seats read one `EventLog`, each from where it last stopped.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property
from itertools import count

from arena import wire
from arena.client.bot import Bot, FunctionBot, resolve_choice
from arena.client.convert import (
    action_from_proto,
    event_from_proto,
    outcome_from_proto,
    table_from_proto,
)
from arena.client.events import Event as SdkEvent
from arena.client.model import Action as SdkAction
from arena.client.model import passive_index
from arena.client.table import Table
from arena.client.view import View
from arena.engine import events as ev
from arena.engine.actions import Action
from arena.engine.outcome import Outcome
from arena.engine.rules import RuleSet
from arena.engine.view import SeatView
from arena.v1 import bot_pb2, uno_pb2

_log = logging.getLogger("arena.client")

FLUSH_AT = 64
"""Events queued for a seat that are handed over at once (the match server's rule)."""

_REQUEST_IDS = count(1)
_UNSHARED = 2
"""The reference count of a view no one kept: the local name, and getrefcount's argument."""
_RAISED = object()


_SDK_ACTIONS: dict[Action, SdkAction] = {}
SDK_EVENTS: dict[ev.Event, SdkEvent] = {}
"""The SDK's events by engine event, as `sdk_event` converts them."""
_HEARD: dict[ev.Event, tuple[SdkEvent, frozenset[int] | None]] = {}
"""Each engine event's SDK event and audience, as `EventLog.add` reads them."""
_CACHE_SIZE = 1 << 16


def sdk_action(action: Action) -> SdkAction:
    """The SDK's Action for an engine action: what `legal_from_proto` reads from its message."""
    converted = _SDK_ACTIONS.get(action)
    if converted is None:
        if len(_SDK_ACTIONS) >= _CACHE_SIZE:
            _SDK_ACTIONS.clear()
        converted = _SDK_ACTIONS[action] = action_from_proto(wire.action_to_proto(action))
    return converted


def sdk_event(event: ev.Event) -> SdkEvent:
    """The SDK's event for an engine event: what `events_from_proto` reads from its message."""
    converted = SDK_EVENTS.get(event)
    if converted is None:
        if len(SDK_EVENTS) >= _CACHE_SIZE:
            SDK_EVENTS.clear()
        message = uno_pb2.Event.FromString(wire.event_to_bytes(event))
        converted = SDK_EVENTS[event] = event_from_proto(message)
    return converted


def _heard(event: ev.Event) -> tuple[SdkEvent, frozenset[int] | None]:
    """`event`'s SDK event and audience, kept for the next time it comes."""
    if len(_HEARD) >= _CACHE_SIZE:
        _HEARD.clear()
    entry = _HEARD[event] = (sdk_event(event), event.audience)
    return entry


class DeferredView(View):
    """A `View` whose `DecisionRequest` is encoded (by `arena.wire`) and parsed only when
    the bot first reads it; it is then the very request the match server would send."""

    def __init__(self, build: Callable[[], bot_pb2.DecisionRequest], table: Table) -> None:
        object.__setattr__(self, "table", table)
        object.__setattr__(self, "_build", build)

    @cached_property
    def request(self) -> bot_pb2.DecisionRequest:  # type: ignore[override]
        """The DecisionRequest this view reads, built on first use."""
        built: bot_pb2.DecisionRequest = self.__dict__["_build"]()
        return built

    @cached_property
    def raw(self) -> uno_pb2.SeatView:  # type: ignore[override]
        """The request's SeatView."""
        return self.request.view


def decision_request(request_id: str, game_id: str, view: SeatView, legal: Sequence[Action],
                     time_left_ms: int, time_bank_ms: int,
                     events: Sequence[ev.Event] = ()) -> bot_pb2.DecisionRequest:
    """The DecisionRequest the match server sends for `view` (events inside it, if any)."""
    encoded = wire.decision_request_to_bytes(
        request_id, game_id, view, legal, time_left_ms, time_bank_ms,
        [wire.event_to_bytes(e) for e in events])
    return bot_pb2.ServerMessage.FromString(encoded).decision_request


class EventLog:
    """One game's events as its seats read them: each kept and converted once, and read by
    each seat from where it last stopped (`publish` adds events and hands each seat its
    batch when `FLUSH_AT` of the events it may see are waiting)."""

    def __init__(self) -> None:
        self.events: list[ev.Event] = []
        self.converted: list[SdkEvent] = []
        self.audiences: list[frozenset[int] | None] = []
        self.private_before: list[int] = [0]
        """How many of the first i events are private."""

    def add(self, events: Sequence[ev.Event]) -> None:
        """Keep `events`, converted for the SDK."""
        known = _HEARD.get
        entries = [known(e) or _heard(e) for e in events]
        self.events += events
        self.converted += [entry[0] for entry in entries]
        audiences = [entry[1] for entry in entries]
        self.audiences += audiences
        private = self.private_before[-1]
        if audiences.count(None) == len(audiences):  # all public, as most are
            self.private_before += [private] * len(audiences)
            return
        for audience in audiences:
            private += audience is not None
            self.private_before.append(private)

    def visible(self, seat: int, start: int, end: int) -> list[int] | None:
        """The positions among `start:end` of the events `seat` may see; None if all."""
        if self.private_before[end] == self.private_before[start]:
            return None
        audiences = self.audiences
        return [i for i in range(start, end)
                if audiences[i] is None or seat in audiences[i]]  # type: ignore[operator]


def publish(log: EventLog, seats: Iterable[SdkSeat | None], events: Sequence[ev.Event]) -> None:
    """Add `events` to the game's `log` and hand each of `seats` its batch if it is due."""
    if events:
        log.add(events)
        end = len(log.events)
        for seat in seats:
            if seat is not None and end - seat._read >= FLUSH_AT:  # else it cannot be due
                seat.due()


class SdkSeat:
    """One SDK bot in one seat of one game: `start`, then `publish` and `decide` as the game
    goes, then `end`. With `auto_single_action` (the bot's Hello setting) a decision with
    one legal action is taken without asking the bot, as the server does."""

    def __init__(self, bot: Bot, *, auto_single_action: bool = False) -> None:
        self.bot = bot
        self.auto_single_action = auto_single_action
        self.table: Table | None = None
        self.seat = 0
        self.log = EventLog()
        self._read = 0
        """How many of the log's events this seat has been handed."""
        # A bot whose on_events does nothing is not called for every batch.
        self._hears_events = type(bot).on_events is not Bot.on_events and not (
            isinstance(bot, FunctionBot) and bot._on_events is None)
        self._time_left_ms = 0
        self._bank_ms = 0

    def start(self, game_id: str, seat: int, players: Sequence[str], rules: RuleSet,
              decision_timeout_ms: int, time_bank_ms: int, bot_seed: int | None,
              log: EventLog | None = None) -> None:
        """Take the seat: the bot gets a fresh `Table` from the GameStart the server sends;
        the game's events are read from `log` (shared by the game's seats)."""
        start = wire.game_start_to_proto(game_id, seat, players, rules, decision_timeout_ms,
                                         time_bank_ms, bot_seed).game_start
        self.seat = seat
        self.table = table_from_proto(start)
        self.log = log if log is not None else EventLog()
        self._read = len(self.log.events)
        self._time_left_ms = decision_timeout_ms
        self._bank_ms = time_bank_ms
        self._hook(self.bot.on_game_start, self.table)

    def events(self, events: Sequence[ev.Event]) -> None:
        """Add `events` to this seat's own log (a seat that shares none); its batch goes
        out once `FLUSH_AT` of those it may see wait."""
        publish(self.log, [self], events)

    def due(self) -> None:
        """Hand over the waiting events if `FLUSH_AT` of those this seat may see wait."""
        end = len(self.log.events)
        if end - self._read >= FLUSH_AT:
            mine = self.log.visible(self.seat, self._read, end)
            if (end - self._read if mine is None else len(mine)) >= FLUSH_AT:
                self._deliver(end, mine)

    def _waiting(self) -> tuple[int, list[int] | None]:
        end = len(self.log.events)
        return end, self.log.visible(self.seat, self._read, end)

    def _deliver(self, end: int, mine: list[int] | None) -> None:
        """Hand over the log's events up to `end` (those at `mine`, if not all)."""
        log = self.log
        converted = log.converted
        batch = converted[self._read:end] if mine is None else [converted[i] for i in mine]
        self._read = end
        if batch:
            table = self.table
            assert table is not None
            table.events.extend(batch)
            if self._hears_events:
                self._hook(self.bot.on_events, table, batch)

    def decide(self, view: SeatView | Callable[[], SeatView], legal: list[Action]) -> int:
        """The index in `legal` the bot picks for the decision in `view` (the passive
        fallback, logged, when `decide` raises or returns no legal action).

        `view` may be a function that takes the seat's view now: it is then called only
        if the bot reads its View, or keeps it past its `decide` (it is taken at once).
        """
        if len(legal) == 1 and self.auto_single_action:
            return 0
        table = self.table
        assert table is not None
        log, start = self.log, self._read
        end, mine = len(log.events), None
        if end > start:
            mine = log.visible(self.seat, start, end)
            self._deliver(end, mine)
        game_id, time_left, bank = table.game_id, self._time_left_ms, self._bank_ms

        def build() -> bot_pb2.DecisionRequest:
            seat_view = view if isinstance(view, SeatView) else view()
            inside = (log.events[start:end] if mine is None
                      else [log.events[i] for i in mine])
            return decision_request(str(next(_REQUEST_IDS)), game_id, seat_view, legal,
                                    time_left, bank, inside)

        known = _SDK_ACTIONS.get
        sdk_legal = [known(a) or sdk_action(a) for a in legal]
        table.decisions += 1
        given = DeferredView.__new__(DeferredView)  # as DeferredView(build, table), sooner
        given.__dict__.update(table=table, _build=build)
        choice: object
        try:
            choice = self.bot.decide(given, sdk_legal)
        except Exception:
            _log.exception("decide() raised in game %s; answering with the fallback", game_id)
            choice = _RAISED
        if "request" not in given.__dict__ and sys.getrefcount(given) > _UNSHARED:
            given.request  # noqa: B018  # the bot kept its view: fix it before the game moves
        if type(choice) is int and 0 <= choice < len(sdk_legal):
            return choice
        index = None if choice is _RAISED else resolve_choice(choice, sdk_legal)
        if index is None:
            index = passive_index(sdk_legal)
            if choice is not _RAISED:
                _log.error("decide() returned %r, which is not one of the %d legal actions; "
                           "answering %s", choice, len(sdk_legal), sdk_legal[index])
        return index

    def end(self, outcome: Outcome, terminations: Sequence[str], reason: str) -> None:
        """The game is over: the last events, then the outcome; the seat forgets the table."""
        end, mine = self._waiting()
        if end > self._read:
            self._deliver(end, mine)
        table = self.table
        assert table is not None
        message = wire.outcome_to_proto(outcome, terminations)
        table.outcome = outcome_from_proto(message, reason)
        try:
            self._hook(self.bot.on_game_end, table, table.outcome)
        finally:
            self.table = None

    def _hook(self, hook: Callable[..., object], *args: object) -> None:
        try:
            hook(*args)
        except Exception:
            _log.exception("%s raised", getattr(hook, "__name__", "a hook"))
