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
that only asks `view.table.rng`, like the random sample bot, never pays for it),
and the legal actions and events are converted once per distinct engine value.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property
from itertools import count

from arena import wire
from arena.client.bot import Bot, resolve_choice
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

_SDK_ACTIONS: dict[Action, SdkAction] = {}
_SDK_EVENTS: dict[ev.Event, SdkEvent] = {}
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
    converted = _SDK_EVENTS.get(event)
    if converted is None:
        if len(_SDK_EVENTS) >= _CACHE_SIZE:
            _SDK_EVENTS.clear()
        message = uno_pb2.Event.FromString(wire.event_to_bytes(event))
        converted = _SDK_EVENTS[event] = event_from_proto(message)
    return converted


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


class SdkSeat:
    """One SDK bot in one seat of one game: `start`, then `events` and `decide` as the game
    goes, then `end`. With `auto_single_action` (the bot's Hello setting) a decision with
    one legal action is taken without asking the bot, as the server does."""

    def __init__(self, bot: Bot, *, auto_single_action: bool = False) -> None:
        self.bot = bot
        self.auto_single_action = auto_single_action
        self.table: Table | None = None
        self.seat = 0
        self._unsent: list[ev.Event] = []
        self._time_left_ms = 0
        self._bank_ms = 0

    def start(self, game_id: str, seat: int, players: Sequence[str], rules: RuleSet,
              decision_timeout_ms: int, time_bank_ms: int, bot_seed: int | None) -> None:
        """Take the seat: the bot gets a fresh `Table` from the GameStart the server sends."""
        start = wire.game_start_to_proto(game_id, seat, players, rules, decision_timeout_ms,
                                         time_bank_ms, bot_seed).game_start
        self.seat = seat
        self.table = table_from_proto(start)
        self._unsent = []
        self._time_left_ms = decision_timeout_ms
        self._bank_ms = time_bank_ms
        self._hook(self.bot.on_game_start, self.table)

    def events(self, events: Iterable[ev.Event]) -> None:
        """Queue the events among `events` this seat may see; hand them over at `FLUSH_AT`."""
        seat = self.seat
        unsent = self._unsent
        unsent.extend(e for e in events if e.audience is None or seat in e.audience)
        if len(unsent) >= FLUSH_AT:
            self._flush()

    def _flush(self) -> None:
        if self._unsent:
            batch, self._unsent = self._unsent, []
            self._deliver(batch)

    def _deliver(self, batch: Sequence[ev.Event]) -> None:
        table = self.table
        assert table is not None
        events = [sdk_event(e) for e in batch]
        table.events.extend(events)
        self._hook(self.bot.on_events, table, events)

    def decide(self, view: SeatView, legal: list[Action]) -> int:
        """The index in `legal` the bot picks for the decision in `view` (the passive
        fallback, logged, when `decide` raises or returns no legal action)."""
        if len(legal) == 1 and self.auto_single_action:
            return 0
        table = self.table
        assert table is not None
        batch, self._unsent = self._unsent, []
        if batch:
            self._deliver(batch)
        request_id = str(next(_REQUEST_IDS))
        game_id, time_left, bank = table.game_id, self._time_left_ms, self._bank_ms

        def build() -> bot_pb2.DecisionRequest:
            return decision_request(request_id, game_id, view, legal, time_left, bank, batch)

        sdk_legal = [sdk_action(a) for a in legal]
        table.decisions += 1
        try:
            choice = self.bot.decide(DeferredView(build, table), sdk_legal)
        except Exception:
            _log.exception("decide() raised in game %s; answering with the fallback", game_id)
            return passive_index(sdk_legal)
        index = resolve_choice(choice, sdk_legal)
        if index is None:
            index = passive_index(sdk_legal)
            _log.error("decide() returned %r, which is not one of the %d legal actions; "
                       "answering %s", choice, len(sdk_legal), sdk_legal[index])
        return index

    def end(self, outcome: Outcome, terminations: Sequence[str], reason: str) -> None:
        """The game is over: the last events, then the outcome; the seat forgets the table."""
        self._flush()
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
