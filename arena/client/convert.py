"""The one place where protobuf messages become the SDK's dataclasses, and back.

Every ``x_from_proto`` has the proto it read as ``raw`` on its result; the
``x_to_proto`` functions build what the bot sends.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import fields
from typing import Any, Generic, TypeVar, cast

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

from arena.client import _generated
from arena.client import events as ev
from arena.client.model import (
    Action,
    ActionKind,
    Card,
    Color,
    Outcome,
    Phase,
    Player,
    Rank,
    Rules,
    ServerError,
)
from arena.client.table import Table
from arena.v1 import bot_pb2, uno_pb2

_T = TypeVar("_T")


def _enum_prefix(name: str) -> str:
    """The prefix of a protocol enum's value names: COLOR_ for Color, DRAW_REASON_ for
    DrawReason."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper() + "_"


def _members_by_number(enum: EnumDescriptor) -> dict[int, Any]:
    """The SDK enum of the same name as a protocol enum, by the protocol's numbers; a
    value the SDK enum does not have (UNSPECIFIED for a colour or rank) is left out."""
    ours = getattr(_generated, enum.name)
    prefix = _enum_prefix(enum.name)
    return {value.number: ours[value.name.removeprefix(prefix)] for value in enum.values
            if value.name.removeprefix(prefix) in ours.__members__}


_COLOR_FROM: dict[int, Color] = _members_by_number(uno_pb2.Color.DESCRIPTOR)
_COLOR_TO: dict[Color, uno_pb2.Color] = {v: cast(uno_pb2.Color, k) for k, v in _COLOR_FROM.items()}
_RANK_FROM: dict[int, Rank] = _members_by_number(uno_pb2.Rank.DESCRIPTOR)
_RANK_TO: dict[Rank, uno_pb2.Rank] = {v: cast(uno_pb2.Rank, k) for k, v in _RANK_FROM.items()}
_PHASE_FROM: dict[int, Phase] = _members_by_number(uno_pb2.Phase.DESCRIPTOR)
_KIND_FROM: dict[int, ActionKind] = _members_by_number(uno_pb2.ActionKind.DESCRIPTOR)
_KIND_TO: dict[ActionKind, uno_pb2.ActionKind] = {
    v: cast(uno_pb2.ActionKind, k) for k, v in _KIND_FROM.items()
}


# ------------------------------------------------------------------ cards

def color_from_proto(value: int) -> Color | None:
    """A protocol Color number as our Color (None for COLOR_UNSPECIFIED)."""
    return _COLOR_FROM.get(value)


def phase_from_proto(value: int) -> Phase:
    """A protocol Phase number as our Phase (UNSPECIFIED for one not known)."""
    return _PHASE_FROM.get(value, Phase.UNSPECIFIED)


def color_to_proto(color: Color | None) -> uno_pb2.Color:
    """Our Color (or None) as the protocol's number."""
    return uno_pb2.COLOR_UNSPECIFIED if color is None else _COLOR_TO[color]


def card_from_proto(card: uno_pb2.Card) -> Card | None:
    """A protocol Card as ours; None for an empty card (RANK_UNSPECIFIED) and for one this
    SDK cannot read (a rank or colour a newer server added, or a colour that does not
    fit the rank)."""
    key = (card.rank, card.color)
    try:
        return _CARDS[key]
    except KeyError:
        rank = _RANK_FROM.get(card.rank)
        try:
            converted = None if rank is None else Card(rank, color_from_proto(card.color))
        except ValueError:
            converted = None
        _CARDS[key] = converted
        return converted


_CARDS: dict[tuple[int, int], Card | None] = {}
"""Converted cards by (rank, colour) number: a hand or discard pile converts in a lookup each."""


def card_to_proto(card: Card) -> uno_pb2.Card:
    """Our Card as the protocol's."""
    return uno_pb2.Card(rank=_RANK_TO[card.rank], color=color_to_proto(card.color))


def cards_from_proto(items: Iterable[uno_pb2.Card]) -> tuple[Card, ...]:
    """Protocol cards as ours, empty cards dropped."""
    cards = [card_from_proto(item) for item in items]
    return tuple(c for c in cards if c is not None)


def optional_card(message: Any, name: str) -> Card | None:
    """The card in the message field `name`, or None when the field is not set."""
    return card_from_proto(getattr(message, name)) if message.HasField(name) else None


def optional_int(message: Any, name: str) -> int | None:
    """The number in the optional message field `name`, or None when it is not set."""
    return int(getattr(message, name)) if message.HasField(name) else None


# ---------------------------------------------------------------- actions

class _Converted(Generic[_T]):
    """Values already converted, by the wire bytes of the message they came from.

    Requests repeat the same actions and events over and over, and serializing
    a small message costs a fraction of converting it. Everything is forgotten
    once `size` entries are held.
    """

    def __init__(self, convert: Callable[[Any], _T], size: int = 1 << 14) -> None:
        self._convert = convert
        self._size = size
        self._values: dict[bytes, _T] = {}

    def __call__(self, message: Any) -> _T:
        key = message.SerializeToString()
        value = self._values.get(key)
        if value is None:
            if len(self._values) >= self._size:
                self._values.clear()
            # Converted from a copy of its own: a value kept here must not keep the
            # whole request the message was part of alive.
            value = self._values[key] = self._convert(type(message).FromString(key))
        return value

    def many(self, messages: Iterable[Any]) -> list[_T]:
        """`[self(m) for m in messages]`, at the cost of a lookup each once all are known."""
        values = self._values
        try:
            return [values[message.SerializeToString()] for message in messages]
        except KeyError:
            return [self(message) for message in messages]


def _read_action(action: uno_pb2.Action) -> Action:
    return Action(
        kind=_KIND_FROM.get(action.kind, ActionKind.UNSPECIFIED),
        card=optional_card(action, "card"),
        color=color_from_proto(action.color),
        target=optional_int(action, "target"),
        uno=action.uno,
        raw=action,
    )


action_from_proto = _Converted(_read_action)
"""A protocol Action as ours, with the message as `raw` (equal actions share one)."""


def action_to_proto(action: Action) -> uno_pb2.Action:
    """Our Action as the protocol's."""
    message = uno_pb2.Action(
        kind=_KIND_TO[action.kind],
        color=color_to_proto(action.color),
        uno=action.uno,
    )
    if action.card is not None:
        message.card.CopyFrom(card_to_proto(action.card))
    if action.target is not None:
        message.target = action.target
    return message


def decision_to_proto(request_id: str, choice: int | Action) -> bot_pb2.BotMessage:
    """A Decision answering `request_id` with an index or a full action."""
    message = bot_pb2.BotMessage()
    decision = message.decision  # filled in place: a message passed in would be copied
    decision.request_id = request_id
    if isinstance(choice, Action):
        decision.action.CopyFrom(action_to_proto(choice))
    else:
        decision.action_index = choice
    return message


def hello_to_proto(bot_version: str, max_tables: int, auto_single_action: bool,
                   events_in_requests: bool = False) -> bot_pb2.BotMessage:
    """The Hello that opens every connection."""
    return bot_pb2.BotMessage(hello=bot_pb2.Hello(
        bot_version=bot_version, max_tables=max_tables, auto_single_action=auto_single_action,
        events_in_requests=events_in_requests,
    ))


# ------------------------------------------------------------ game set-up

_RULE_FIELDS = tuple(f.name for f in fields(Rules) if f.name not in ("raw", "target_score"))


def rules_from_proto(rules: uno_pb2.RuleSet) -> Rules:
    """The protocol's RuleSet as our Rules (every field of the same name)."""
    return Rules(**{name: getattr(rules, name) for name in _RULE_FIELDS},
                 target_score=optional_int(rules, "target_score"), raw=rules)


def table_from_proto(start: bot_pb2.GameStart) -> Table:
    """A fresh Table for a GameStart."""
    return Table(
        game_id=start.game_id,
        seat=start.seat,
        players=tuple(Player(p.seat, p.name) for p in sorted(start.players, key=lambda p: p.seat)),
        rules=rules_from_proto(start.rules),
        decision_timeout_ms=start.decision_timeout_ms,
        time_bank_ms=start.time_bank_ms,
        bot_seed=start.bot_seed if start.HasField("bot_seed") else None,
        raw=start,
    )


def outcome_from_proto(outcome: uno_pb2.Outcome, reason: str = "") -> Outcome:
    """The protocol's Outcome (and GameEnd reason) as ours."""
    return Outcome(
        termination=outcome.termination,
        scores=tuple(outcome.scores),
        ranks=tuple(outcome.ranks),
        winners=tuple(outcome.winners),
        hands_played=outcome.hands_played,
        seat_terminations=tuple(
            uno_pb2.SeatTermination.Name(t).removeprefix("SEAT_TERMINATION_").lower()
            if t in uno_pb2.SeatTermination.values() else "unspecified"
            for t in outcome.seat_terminations
        ),
        reason=reason,
        raw=outcome,
    )


def error_from_proto(error: bot_pb2.Error) -> ServerError:
    """An in-band Error as ours; `code` is e.g. "illegal_action"."""
    code = (bot_pb2.ErrorCode.Name(error.code) if error.code in bot_pb2.ErrorCode.values()
            else "ERROR_CODE_UNSPECIFIED")
    return ServerError(code.removeprefix("ERROR_CODE_").lower(), error.message,
                       error.request_id, error.game_id)


# ----------------------------------------------------------- legal actions

def legal_from_proto(request: bot_pb2.DecisionRequest) -> list[Action]:
    """The legal actions of a DecisionRequest, in the server's order."""
    return action_from_proto.many(request.legal_actions)


# ---------------------------------------------------------------- events
#
# Every kind of the `Event` oneof reads into the generated class named after its
# message (arena.client._generated), each field into the dataclass field of the
# same name, by the field's descriptor: the rules `arena.protogen` writes the
# classes' annotations by. A singular Card must be one this SDK knows (else the
# event reads as unknown); repeated cards drop the ones it does not know.

_Read = Callable[[Any], Any]


def _enum_reader(enum: EnumDescriptor) -> _Read:
    """A number not known reads as UNSPECIFIED, or as None for an enum without it."""
    members = _members_by_number(enum)
    fallback = getattr(_generated, enum.name).__members__.get("UNSPECIFIED")
    return lambda number: members.get(number, fallback)


def _must_card(message: uno_pb2.Card) -> Card:
    card = card_from_proto(message)
    if card is None:
        raise ValueError("an event's card is empty or not known")
    return card


def _message_reader(message: Descriptor) -> _Read:
    """A Card; a message of one field as that field; else the tuple of its fields."""
    if message.name == "Card":
        return _must_card
    readers = [_field_reader(f) for f in message.fields]
    if len(readers) == 1:
        return readers[0]
    return lambda value: tuple(read(value) for read in readers)


def _value_reader(field: FieldDescriptor) -> _Read:
    if field.enum_type is not None:
        return _enum_reader(field.enum_type)
    if field.message_type is not None:
        return _message_reader(field.message_type)
    return _same


def _same(value: Any) -> Any:
    return value


def _field_reader(field: FieldDescriptor) -> _Read:
    """Read `field` out of its message: repeated fields as tuples, `optional` ones as None
    when unset."""
    name = field.name
    if field.is_repeated:
        if field.message_type is not None and field.message_type.name == "Card":
            return lambda message: cards_from_proto(getattr(message, name))
        read_item = _value_reader(field)
        return lambda message: tuple(read_item(item) for item in getattr(message, name))
    read = _value_reader(field)
    if field.has_presence and field.message_type is None:
        return lambda message: read(getattr(message, name)) if message.HasField(name) else None
    return lambda message: read(getattr(message, name))


def _event_reader(message: Descriptor) -> Callable[[Any], ev.Event]:
    event_class = getattr(_generated, message.name)
    readers = [(f.name, _field_reader(f)) for f in message.fields]
    return lambda body: event_class(**{name: read(body) for name, read in readers})


_EVENT_READERS: dict[str, Callable[[Any], ev.Event]] = {
    kind.name: _event_reader(cast(Descriptor, kind.message_type))
    for kind in uno_pb2.Event.DESCRIPTOR.oneofs_by_name["kind"].fields
}
"""How to read each kind of event, by its name in the `Event` oneof."""


def _read_event(event: uno_pb2.Event) -> ev.Event:
    kind = event.WhichOneof("kind")
    reader = _EVENT_READERS.get(kind or "")
    if reader is None:
        return ev.UnknownEvent(kind or "", raw=event)
    try:
        typed = reader(getattr(event, kind or ""))
    except ValueError:  # a card this SDK cannot read: the kind is known, its content is not
        return ev.UnknownEvent(kind or "", raw=event)
    object.__setattr__(typed, "raw", event)
    return typed


event_from_proto = _Converted(_read_event)
"""A protocol Event as the matching typed event (UnknownEvent for a kind not known),
with the message as `raw` (equal events share one)."""


def events_from_proto(items: Iterable[uno_pb2.Event]) -> list[ev.Event]:
    """Protocol events as typed events, in order."""
    return event_from_proto.many(items)
