"""The one place where engine objects become protobuf messages and back.

Every conversion comes as a symmetric pair (`card_to_proto` / `card_from_proto`,
…). Information hiding has one rule, an event's `audience`: a seat sees the events
whose audience includes it, and public ones (audience None). `events_for_seat`
and `public_events` apply it to stored event lists; the table applies it to
live events as it routes each one to exactly its audience. Nothing here knows a
rule of UNO; a message that does not describe a valid engine object raises
`WireError`.

The JSON-object helpers (`event_to_dict`, `action_to_dict`, `dict_into`) are the
storage format: the protobuf JSON mapping with the `.proto` field names.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import re
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from enum import Enum
from typing import Any, TypeVar

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from arena.engine import events as ev
from arena.engine.actions import Action, ActionKind, Phase
from arena.engine.cards import Card, Color, Rank
from arena.engine.outcome import Outcome, Termination
from arena.engine.rules import RuleSet, RuleSetError
from arena.engine.view import SeatView
from arena.v1 import admin_pb2, bot_pb2, uno_pb2

__all__ = [
    "EVENT_CLASSES",
    "IllegalChoiceError",
    "WireError",
    "action_to_dict",
    "dict_into",
    "event_to_dict",
    "message_to_dict",
    "action_from_proto",
    "action_to_proto",
    "bot_seed",
    "card_from_proto",
    "card_to_proto",
    "chosen_action",
    "decision_request_to_bytes",
    "error_to_proto",
    "event_from_proto",
    "event_to_bytes",
    "event_to_proto",
    "events_for_seat",
    "game_end_to_proto",
    "game_events_to_proto",
    "game_start_to_proto",
    "outcome_from_proto",
    "outcome_to_proto",
    "public_events",
    "rules_from_proto",
    "rules_to_proto",
    "seat_termination_to_proto",
    "table_info_to_proto",
    "unfinished_outcome_to_proto",
    "view_to_bytes",
    "watch_update_to_proto",
    "welcome_to_proto",
]


class WireError(ValueError):
    """A protobuf message does not describe a valid engine object."""


class IllegalChoiceError(ValueError):
    """A well-formed Decision picks an action that is not one of the legal ones."""


# ------------------------------------------------------------------ enums

_E = TypeVar("_E", bound=Enum)
_M = TypeVar("_M", bound=Message)


def _enum_table(engine_enum: type[_E], proto_enum: Any, prefix: str) -> tuple[
        dict[_E, int], dict[int, _E]]:
    """Both directions between an engine enum and a proto enum named PREFIX_MEMBER."""
    to_proto = {member: int(proto_enum.Value(prefix + member.name)) for member in engine_enum}
    return to_proto, {number: member for member, number in to_proto.items()}


_COLOR_TO, _COLOR_FROM = _enum_table(Color, uno_pb2.Color, "COLOR_")
_RANK_TO, _RANK_FROM = _enum_table(Rank, uno_pb2.Rank, "RANK_")
_PHASE_TO, _PHASE_FROM = _enum_table(Phase, uno_pb2.Phase, "PHASE_")
_KIND_TO, _KIND_FROM = _enum_table(ActionKind, uno_pb2.ActionKind, "ACTION_KIND_")
_DRAW_TO, _DRAW_FROM = _enum_table(ev.DrawReason, uno_pb2.DrawReason, "DRAW_REASON_")
_HAND_END_TO, _HAND_END_FROM = _enum_table(
    ev.HandEndReason, uno_pb2.HandEndReason, "HAND_END_REASON_")


def _color_to_proto(color: Color | None) -> int:
    return 0 if color is None else _COLOR_TO[color]


def _color_from_proto(number: int) -> Color | None:
    if number == 0:
        return None
    try:
        return _COLOR_FROM[number]
    except KeyError:
        raise WireError(f"unknown colour {number}") from None


def _lookup(table: dict[int, _E], number: int, what: str) -> _E:
    try:
        return table[number]
    except KeyError:
        raise WireError(f"unknown {what} {number}") from None


def seat_termination_to_proto(termination: str) -> int:
    """The proto `SeatTermination` number of a termination name ("normal", "timeout", …)."""
    try:
        return int(uno_pb2.SeatTermination.Value("SEAT_TERMINATION_" + termination.upper()))
    except ValueError:
        raise WireError(f"unknown seat termination {termination!r}") from None


# ------------------------------------------------------------------ cards

def card_to_proto(card: Card) -> uno_pb2.Card:
    """A card as a message; wild cards carry COLOR_UNSPECIFIED."""
    return uno_pb2.Card(rank=_RANK_TO[card.rank],  # type: ignore[arg-type]
                        color=_color_to_proto(card.color))  # type: ignore[arg-type]


def card_from_proto(message: uno_pb2.Card) -> Card:
    """The card a message describes; raises `WireError` for a card that cannot exist."""
    rank = _lookup(_RANK_FROM, message.rank, "rank")
    try:
        return Card(rank, _color_from_proto(message.color))
    except ValueError as exc:
        raise WireError(str(exc)) from None


def _cards_to_proto(cards: Iterable[Card]) -> list[uno_pb2.Card]:
    return [card_to_proto(card) for card in cards]


def _cards_from_proto(messages: Iterable[uno_pb2.Card]) -> tuple[Card, ...]:
    return tuple(card_from_proto(m) for m in messages)


# ---------------------------------------------------------------- actions


def action_to_proto(action: Action) -> uno_pb2.Action:
    """An action as a message; unused fields stay unset."""
    return uno_pb2.Action(
        kind=_KIND_TO[action.kind],  # type: ignore[arg-type]
        card=None if action.card is None else card_to_proto(action.card),
        color=_color_to_proto(action.color),  # type: ignore[arg-type]
        target=action.target,
        uno=action.uno,
    )


def action_from_proto(message: uno_pb2.Action) -> Action:
    """The action a message describes; raises `WireError` for an unknown kind or card."""
    return Action(
        kind=_lookup(_KIND_FROM, message.kind, "action kind"),
        card=card_from_proto(message.card) if message.HasField("card") else None,
        color=_color_from_proto(message.color),
        target=message.target if message.HasField("target") else None,
        uno=message.uno,
    )


# -------------------------------------------------------------- rule sets

_RULE_FIELDS = tuple(f.name for f in fields(RuleSet))


def rules_to_proto(rules: RuleSet) -> uno_pb2.RuleSet:
    """A rule set as a message; option values are the engine's names."""
    return uno_pb2.RuleSet(**rules.to_dict())


def rules_from_proto(message: uno_pb2.RuleSet) -> RuleSet:
    """The rule set a message describes; raises `WireError` for a bad value."""
    data: dict[str, object] = {name: getattr(message, name) for name in _RULE_FIELDS}
    if not message.HasField("target_score"):
        data["target_score"] = None
    try:
        return RuleSet.from_dict(data)
    except RuleSetError as exc:
        raise WireError(str(exc)) from None


# ------------------------------------------------------------------ views
#
# A view and its decision request are built on every decision, so they are
# written straight to protobuf wire bytes: building the message field by field
# and serializing it costs several times as much. Each card and legal action is
# encoded once, as the bytes of a one-item repeated field (the encoding of a
# repeated field is the concatenation of its items), and each field's key is
# taken from the message descriptor. The tests check the bytes against what
# protobuf writes for the same message, and field by field against the views.

_VARINT, _LENGTH_DELIMITED = 0, 2
_SMALL_VARINTS = [bytes((n,)) for n in range(128)]
_INT64_MASK = (1 << 64) - 1


def _varint(value: int) -> bytes:
    if value < 128:
        return _SMALL_VARINTS[value] if value >= 0 else _varint(value & _INT64_MASK)
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _packed(values: Iterable[int]) -> bytes:
    return b"".join([_varint(v) for v in values])


def _zigzag32(value: int) -> int:
    return (value << 1) ^ (value >> 31)


_VARINT_TYPES = {FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_UINT64,
                 FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64,
                 FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_ENUM,
                 FieldDescriptor.TYPE_BOOL}


def _key(message_class: type[Message], name: str) -> bytes:
    """The key (field number and wire type) that starts field `name` of `message_class`.

    Repeated scalars are packed (proto3), so they are length-delimited too.
    """
    field = message_class.DESCRIPTOR.fields_by_name[name]
    packed_or_scalar = _LENGTH_DELIMITED if field.is_repeated else _VARINT
    wire_type = packed_or_scalar if field.type in _VARINT_TYPES else _LENGTH_DELIMITED
    return _varint(field.number << 3 | wire_type)


def _delimited(key: bytes, body: bytes) -> bytes:
    return key + _varint(len(body)) + body


class _RepeatedEncoder:
    """Encodes a list of engine values as one repeated field of `message_class`."""

    def __init__(self, message_class: type[Message], field_name: str,
                 convert: Callable[[Any], Message]) -> None:
        self._message_class = message_class
        self._field_name = field_name
        self._convert = convert
        self._cache: dict[Any, bytes] = {}

    def encode(self, items: Sequence[Any]) -> bytes:
        """The wire bytes of the field holding `items`, in order."""
        cache = self._cache
        try:
            return b"".join([cache[item] for item in items])
        except KeyError:
            for item in items:
                if item not in cache:
                    one = self._message_class(**{self._field_name: [self._convert(item)]})
                    cache[item] = one.SerializeToString()
            return b"".join([cache[item] for item in items])


class _FramedField:
    """Encodes already-serialized messages as one repeated field of `message_class`."""

    def __init__(self, message_class: type[Message], field_name: str) -> None:
        self._key = _key(message_class, field_name)

    def encode(self, items: Sequence[bytes]) -> bytes:
        """The wire bytes of the field holding `items` (each a serialized message)."""
        key = self._key
        return b"".join([key + _varint(len(item)) + item for item in items])


class _ViewKeys:
    """The key of every SeatView field, by field name."""

    def __init__(self) -> None:
        for name in uno_pb2.SeatView.DESCRIPTOR.fields_by_name:
            setattr(self, name, _key(uno_pb2.SeatView, name))


_V: Any = _ViewKeys()
_VIEW_HAND = _RepeatedEncoder(uno_pb2.SeatView, "hand", card_to_proto)
_VIEW_DISCARD_PILE = _RepeatedEncoder(uno_pb2.SeatView, "discard_pile", card_to_proto)
_REVEALED_SEAT = _key(uno_pb2.RevealedHand, "seat")
_REVEALED_CARDS = _RepeatedEncoder(uno_pb2.RevealedHand, "cards", card_to_proto)
_REQUEST_ID = _key(bot_pb2.DecisionRequest, "request_id")
_REQUEST_GAME_ID = _key(bot_pb2.DecisionRequest, "game_id")
_REQUEST_VIEW = _key(bot_pb2.DecisionRequest, "view")
_REQUEST_TIME_LEFT = _key(bot_pb2.DecisionRequest, "time_left_ms")
_REQUEST_TIME_BANK = _key(bot_pb2.DecisionRequest, "time_bank_ms")
_REQUEST_LEGAL_ACTIONS = _RepeatedEncoder(bot_pb2.DecisionRequest, "legal_actions",
                                          action_to_proto)
_REQUEST_EVENTS = _FramedField(bot_pb2.DecisionRequest, "events")
_SERVER_DECISION_REQUEST = _key(bot_pb2.ServerMessage, "decision_request")
_GAME_EVENTS = _FramedField(bot_pb2.GameEvents, "events")
_WATCH_EVENTS = _FramedField(admin_pb2.WatchGameUpdate, "events")
_CARD_BODIES: dict[Card, bytes] = {}


def _card_body(card: Card) -> bytes:
    body = _CARD_BODIES.get(card)
    if body is None:
        body = _CARD_BODIES[card] = card_to_proto(card).SerializeToString()
    return body


def _scalar(key: bytes, value: int) -> bytes:
    """A varint field; proto3 leaves out a zero."""
    if not value:
        return b""
    return key + (_SMALL_VARINTS[value] if 0 < value < 128 else _varint(value))


def _optional_scalar(key: bytes, value: int | None) -> bytes:
    """An optional varint field: written whenever it is set, zero too."""
    if value is None:
        return b""
    return key + (_SMALL_VARINTS[value] if 0 <= value < 128 else _varint(value))


def _packed_field(key: bytes, values: Sequence[int]) -> bytes:
    """A packed repeated varint field; left out when empty."""
    if not values:
        return b""
    one_byte_each = min(values) >= 0 and max(values) < 128  # then the values are the bytes
    return _delimited(key, bytes(values) if one_byte_each else _packed(values))


def _card_field(key: bytes, card: Card | None) -> bytes:
    return b"" if card is None else _delimited(key, _card_body(card))


def view_to_bytes(view: SeatView) -> bytes:
    """One seat's view as a serialized SeatView: its own hand, counts and public facts only."""
    v = _V
    (seat, num_players, phase, decider, turn, hand, hand_sizes, top_card, active_color,
     direction, dealer, hand_number, draw_pile_size, discard_pile, scores, active_seats,
     pending_draw, drawn_card, uno_offender, revealed, teams) = view
    parts = [
        _scalar(v.seat, seat),
        _scalar(v.num_players, num_players),
        _scalar(v.phase, _PHASE_TO[phase]),
        _optional_scalar(v.decider, decider),
        _scalar(v.turn, turn),
        _VIEW_HAND.encode(hand),
        _packed_field(v.hand_sizes, hand_sizes),
        _card_field(v.top_card, top_card),
        _scalar(v.active_color, _color_to_proto(active_color)),
        _scalar(v.direction, _zigzag32(direction)),
        _scalar(v.dealer, dealer),
        _scalar(v.hand_number, hand_number),
        _scalar(v.draw_pile_size, draw_pile_size),
        _VIEW_DISCARD_PILE.encode(discard_pile),
        _packed_field(v.scores, scores),
        _packed_field(v.active_seats, active_seats),
        _scalar(v.pending_draw, pending_draw),
        _card_field(v.drawn_card, drawn_card),
        _optional_scalar(v.uno_offender, uno_offender),
    ]
    for shown_seat, cards in revealed:
        parts.append(_delimited(v.revealed, _scalar(_REVEALED_SEAT, shown_seat)
                                + _REVEALED_CARDS.encode(cards)))
    if teams:
        parts.append(_packed_field(v.teams, teams))
    return b"".join(parts)


def decision_request_to_bytes(
    request_id: str, game_id: str, view: SeatView, legal_actions: Sequence[Action],
    time_left_ms: int, time_bank_ms: int = 0, events: Sequence[bytes] = (),
) -> bytes:
    """A serialized `ServerMessage` holding a decision request for `view.seat`, listing
    `legal_actions` in order.

    `events` are serialized event messages (`event_to_bytes`), already filtered
    for the seat.
    """
    body = b"".join((
        _delimited(_REQUEST_ID, request_id.encode()) if request_id else b"",
        _delimited(_REQUEST_GAME_ID, game_id.encode()) if game_id else b"",
        _delimited(_REQUEST_VIEW, view_to_bytes(view)),
        _REQUEST_LEGAL_ACTIONS.encode(legal_actions),
        _scalar(_REQUEST_TIME_LEFT, time_left_ms),
        _scalar(_REQUEST_TIME_BANK, time_bank_ms),
        _REQUEST_EVENTS.encode(events),
    ))
    return _delimited(_SERVER_DECISION_REQUEST, body)


def game_events_to_proto(game_id: str, events: Sequence[bytes]) -> bot_pb2.ServerMessage:
    """A `GameEvents` server message from serialized event messages (`event_to_bytes`)."""
    message = bot_pb2.ServerMessage()
    body = message.events
    body.game_id = game_id
    body.MergeFromString(_GAME_EVENTS.encode(events))
    return message


def table_info_to_proto(game_id: str, players: Sequence[str], hand_number: int,
                        decisions: int) -> admin_pb2.TableInfo:
    """The `ListTables` line of a table being played."""
    return admin_pb2.TableInfo(game_id=game_id, players=players, hand_number=hand_number,
                               decisions=decisions)


def watch_update_to_proto(game_id: str, events: Sequence[bytes], players: Sequence[str] = (),
                          outcome: uno_pb2.Outcome | None = None) -> admin_pb2.WatchGameUpdate:
    """A `WatchGameUpdate` from serialized (public) event messages."""
    message = admin_pb2.WatchGameUpdate(game_id=game_id, players=players, outcome=outcome)
    message.MergeFromString(_WATCH_EVENTS.encode(events))
    return message


# --------------------------------------------------- game and stream messages


_RULES_MESSAGES: dict[RuleSet, uno_pb2.RuleSet] = {}
_RULES_CACHE_SIZE = 64


def _rules_message(rules: RuleSet) -> uno_pb2.RuleSet:
    """`rules_to_proto(rules)`, converted once per rule set (a message it is copied into
    takes a copy, so the one kept is never changed)."""
    message = _RULES_MESSAGES.get(rules)
    if message is None:
        if len(_RULES_MESSAGES) >= _RULES_CACHE_SIZE:
            _RULES_MESSAGES.clear()
        message = _RULES_MESSAGES[rules] = rules_to_proto(rules)
    return message


_BOT_SEED_DOMAIN = b"arena.v1.GameStart.bot_seed\0"


def bot_seed(deal_seed: int, seat: int, players: Sequence[str]) -> int:
    """The `GameStart.bot_seed` of `seat` in the game dealt from `deal_seed` between
    `players` (`players[i]` at seat i): 64 bits of a SHA-256 hash of the three.

    The same game always brings the same value and every seat and seating its own
    (the rotations of a duplicate deal share the deal seed, not the seating); the
    hash is one-way, so a bot cannot compute the deal seed, and with it the deck,
    from its value.
    """
    text = json.dumps([deal_seed, seat, list(players)], separators=(",", ":"))
    digest = hashlib.sha256(_BOT_SEED_DOMAIN + text.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def game_start_to_proto(game_id: str, seat: int, players: Sequence[str], rules: RuleSet,
                        decision_timeout_ms: int, time_bank_ms: int,
                        bot_seed: int | None = None) -> bot_pb2.ServerMessage:
    """The `GameStart` a seat is sent when it takes its place (`players[i]` sits at seat i),
    with `bot_seed` (see `bot_seed`) unless it is None."""
    start = bot_pb2.GameStart(
        game_id=game_id,
        seat=seat,
        players=[bot_pb2.Player(seat=number, name=name) for number, name in enumerate(players)],
        rules=_rules_message(rules),
        decision_timeout_ms=decision_timeout_ms,
        time_bank_ms=time_bank_ms,
    )
    if bot_seed is not None:
        start.bot_seed = bot_seed
    return bot_pb2.ServerMessage(game_start=start)


def game_end_to_proto(game_id: str, outcome: uno_pb2.Outcome,
                      reason: str) -> bot_pb2.ServerMessage:
    """The `GameEnd` every seat is sent last, with the game's outcome message."""
    return bot_pb2.ServerMessage(game_end=bot_pb2.GameEnd(
        game_id=game_id, outcome=outcome, reason=reason))


def error_to_proto(code: bot_pb2.ErrorCode, message: str, game_id: str = "",
                   request_id: str = "") -> bot_pb2.ServerMessage:
    """An in-band `Error` server message."""
    return bot_pb2.ServerMessage(error=bot_pb2.Error(
        code=code, message=message, game_id=game_id, request_id=request_id))


def welcome_to_proto(bot_name: str, server_version: str,
                     max_tables: int) -> bot_pb2.ServerMessage:
    """The `Welcome` a bot is sent once its Hello is accepted."""
    return bot_pb2.ServerMessage(welcome=bot_pb2.Welcome(
        bot_name=bot_name, server_version=server_version, max_tables=max_tables))


def chosen_action(decision: bot_pb2.Decision, legal_actions: Sequence[Action]) -> Action:
    """The legal action a `Decision` picks, by index or by value.

    Raises `WireError` for a decision that sets neither or names no valid action,
    and `IllegalChoiceError` for one that picks an action not in `legal_actions`.
    """
    choice = decision.WhichOneof("choice")
    if choice == "action_index":
        if decision.action_index < len(legal_actions):
            return legal_actions[decision.action_index]
        raise IllegalChoiceError(f"action_index {decision.action_index} is out of range "
                                 f"({len(legal_actions)} legal actions)")
    if choice == "action":
        try:
            action = action_from_proto(decision.action)
        except WireError as exc:
            raise WireError(f"bad action: {exc}") from None
        if action in legal_actions:
            return action
        raise IllegalChoiceError(f"{action} is not one of the legal actions")
    raise WireError("a Decision must set action_index or action")


# ----------------------------------------------------------------- events
#
# Every event class maps to the `Event` oneof member named after it in snake case,
# and every dataclass field to the message field of the same name (one exception:
# DealerChosen.draws is the message's `rounds`). Converters are chosen by the
# field's declared type, so a new event field of a known type needs no code here.

_Convert = Callable[[Any], Any]


def _rounds_to_proto(draws: tuple[tuple[tuple[int, Card], ...], ...]) -> list[uno_pb2.DrawRound]:
    return [uno_pb2.DrawRound(draws=[uno_pb2.SeatCard(seat=seat, card=card_to_proto(card))
                                     for seat, card in draw_round])
            for draw_round in draws]


def _rounds_from_proto(rounds: Iterable[uno_pb2.DrawRound]) -> tuple[
        tuple[tuple[int, Card], ...], ...]:
    return tuple(tuple((d.seat, card_from_proto(d.card)) for d in r.draws) for r in rounds)


def _card_lists_to_proto(hands: tuple[tuple[Card, ...], ...]) -> list[uno_pb2.CardList]:
    return [uno_pb2.CardList(cards=_cards_to_proto(hand)) for hand in hands]


def _card_lists_from_proto(lists: Iterable[uno_pb2.CardList]) -> tuple[tuple[Card, ...], ...]:
    return tuple(_cards_from_proto(cards.cards) for cards in lists)


def _same(value: Any) -> Any:
    return value


def _ints(values: Iterable[int]) -> tuple[int, ...]:
    return tuple(values)


def _required_color(number: int) -> Color:
    color = _color_from_proto(number)
    if color is None:
        raise WireError("an event colour must be set")
    return color


_FIELD_CONVERTERS: dict[str, tuple[_Convert, _Convert]] = {
    "int": (_same, int),
    "bool": (_same, bool),
    "str": (_same, str),
    "int | None": (_same, _same),  # optional fields: None leaves the field unset
    "tuple[int, ...]": (_same, _ints),
    "Card": (card_to_proto, card_from_proto),
    "tuple[Card, ...]": (_cards_to_proto, _cards_from_proto),
    "Color": (_COLOR_TO.__getitem__, _required_color),
    "DrawReason": (_DRAW_TO.__getitem__, lambda n: _lookup(_DRAW_FROM, n, "draw reason")),
    "HandEndReason": (_HAND_END_TO.__getitem__,
                      lambda n: _lookup(_HAND_END_FROM, n, "hand end reason")),
    "tuple[tuple[tuple[int, Card], ...], ...]": (_rounds_to_proto, _rounds_from_proto),
    "tuple[tuple[Card, ...], ...]": (_card_lists_to_proto, _card_lists_from_proto),
}
_RENAMED_FIELDS = {("DealerChosen", "draws"): "rounds"}


@dataclass(frozen=True, slots=True)
class _FieldSpec:
    attribute: str
    proto_name: str
    to_proto: _Convert
    from_proto: _Convert
    optional: bool


@dataclass(frozen=True, slots=True)
class _EventSpec:
    event_class: type[ev.Event]
    oneof_name: str
    message_class: type[Message]
    fields: tuple[_FieldSpec, ...]


def _snake_case(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _event_spec(event_class: type[ev.Event]) -> _EventSpec:
    oneof_name = _snake_case(event_class.__name__)
    message_class = getattr(uno_pb2, event_class.__name__)
    specs = []
    for f in fields(event_class):
        type_name = str(f.type)
        if type_name not in _FIELD_CONVERTERS:
            raise TypeError(f"wire: no converter for {event_class.__name__}.{f.name}: {type_name}")
        to_proto, from_proto = _FIELD_CONVERTERS[type_name]
        proto_name = _RENAMED_FIELDS.get((event_class.__name__, f.name), f.name)
        specs.append(_FieldSpec(f.name, proto_name, to_proto, from_proto,
                                type_name.endswith("| None")))
    return _EventSpec(event_class, oneof_name, message_class, tuple(specs))


EVENT_CLASSES: tuple[type[ev.Event], ...] = tuple(
    obj for obj in vars(ev).values()
    if isinstance(obj, type) and issubclass(obj, ev.Event) and obj is not ev.Event
)
"""Every event class of the engine, each with its message in the `Event` oneof."""

_EVENT_SPECS: dict[type[ev.Event], _EventSpec] = {cls: _event_spec(cls) for cls in EVENT_CLASSES}
_EVENT_SPECS_BY_ONEOF = {spec.oneof_name: spec for spec in _EVENT_SPECS.values()}


def event_to_proto(event: ev.Event) -> uno_pb2.Event:
    """An event as a message (private events too: filter with `events_for_seat` first)."""
    spec = _EVENT_SPECS[type(event)]
    values = {f.proto_name: f.to_proto(getattr(event, f.attribute)) for f in spec.fields}
    body = spec.message_class(**values)
    return uno_pb2.Event(**{spec.oneof_name: body})  # type: ignore[arg-type]


EVENT_CACHE_SIZE = 1 << 16
"""How many distinct events `event_to_bytes` remembers before it starts afresh."""
_EVENT_BYTES: dict[ev.Event, bytes] = {}


def event_to_bytes(event: ev.Event) -> bytes:
    """The serialized `Event` message of an event; equal events are encoded once."""
    encoded = _EVENT_BYTES.get(event)
    if encoded is None:
        if len(_EVENT_BYTES) >= EVENT_CACHE_SIZE:
            _EVENT_BYTES.clear()
        encoded = _EVENT_BYTES[event] = event_to_proto(event).SerializeToString()
    return encoded


def event_from_proto(message: uno_pb2.Event) -> ev.Event:
    """The engine event a message describes; raises `WireError` for an empty or bad one."""
    kind = message.WhichOneof("kind")
    if kind is None:
        raise WireError("an event message must set one kind")
    spec = _EVENT_SPECS_BY_ONEOF[kind]
    body = getattr(message, kind)
    values: dict[str, Any] = {}
    for f in spec.fields:
        if f.optional and not body.HasField(f.proto_name):
            values[f.attribute] = None
        else:
            values[f.attribute] = f.from_proto(getattr(body, f.proto_name))
    return spec.event_class(**values)


def events_for_seat(events: Iterable[ev.Event], seat: int) -> list[ev.Event]:
    """The events `seat` may see: public ones and private ones addressed to it."""
    return [e for e in events if e.audience is None or seat in e.audience]


_PUBLIC_ONEOFS = frozenset(
    name for name, spec in _EVENT_SPECS_BY_ONEOF.items()
    if spec.event_class.audience is ev.Event.audience)
"""The kinds of event whose class never restricts its audience (most of them)."""


def stored_event_audience(event: Mapping[str, Any]) -> frozenset[int] | None:
    """The seats an event stored as JSON (`event_to_dict`) is addressed to; None for a
    public one. `WireError` for an object that is no event. An event of a kind that is
    always public is known by its key alone, without decoding it."""
    if len(event) == 1 and next(iter(event)) in _PUBLIC_ONEOFS:
        return None
    return _stored_event(event)[1]


# Reading stored games back goes the other way, and the protobuf JSON mapping is as
# slow there: each distinct stored event or action (keyed by its `marshal` bytes) is
# parsed once and kept as its serialized message, which the C runtime merges at once.

_STORED_EVENTS: dict[bytes, tuple[bytes, frozenset[int] | None]] = {}
_STORED_ACTIONS: dict[bytes, bytes] = {}


def _stored_key(data: Mapping[str, Any]) -> bytes | None:
    """The cache key of a stored JSON object; None for one `marshal` cannot write."""
    try:
        return marshal.dumps(data if type(data) is dict else dict(data))
    except (ValueError, TypeError):
        return None


def _stored_event(event: Mapping[str, Any]) -> tuple[bytes, frozenset[int] | None]:
    """A stored event's serialized `Event` message and its audience."""
    key = _stored_key(event)
    found = None if key is None else _STORED_EVENTS.get(key)
    if found is None:
        message = dict_into(event, uno_pb2.Event())
        found = (message.SerializeToString(), event_from_proto(message).audience)
        if key is not None:
            if len(_STORED_EVENTS) >= EVENT_CACHE_SIZE:
                _STORED_EVENTS.clear()
            _STORED_EVENTS[key] = found
    return found


def stored_event_into(event: Mapping[str, Any], message: uno_pb2.Event) -> uno_pb2.Event:
    """`dict_into` for an event stored by `event_to_dict`: `message` filled; `WireError`
    for an object that is no event."""
    message.MergeFromString(_stored_event(event)[0])
    return message


def stored_action_into(action: Mapping[str, Any], message: uno_pb2.Action
                       ) -> uno_pb2.Action:
    """`dict_into` for an action stored by `action_to_dict`: `message` filled."""
    key = _stored_key(action)
    encoded = None if key is None else _STORED_ACTIONS.get(key)
    if encoded is None:
        encoded = dict_into(action, uno_pb2.Action()).SerializeToString()
        if key is not None:
            if len(_STORED_ACTIONS) >= EVENT_CACHE_SIZE:
                _STORED_ACTIONS.clear()
            _STORED_ACTIONS[key] = encoded
    message.MergeFromString(encoded)
    return message


def public_events(events: Iterable[ev.Event]) -> list[ev.Event]:
    """The events everyone may see (what a spectator is shown)."""
    return [e for e in events if e.audience is None]


# --------------------------------------------------------------- outcomes


def outcome_to_proto(outcome: Outcome, seat_terminations: Sequence[str] = ()) -> uno_pb2.Outcome:
    """A finished game's outcome, with how each seat's game ended ("normal", "timeout", …)."""
    return uno_pb2.Outcome(
        termination=outcome.termination.value,
        scores=outcome.scores,
        ranks=outcome.ranks,
        winners=outcome.winners,
        hands_played=outcome.hands_played,
        seat_terminations=[seat_termination_to_proto(t) for t in seat_terminations],  # type: ignore[misc]
    )


def unfinished_outcome_to_proto(termination: str, scores: Sequence[int], hands_played: int,
                                seat_terminations: Sequence[str]) -> uno_pb2.Outcome:
    """The outcome message of a game stopped before the rules ended it (no ranks, no winners)."""
    return uno_pb2.Outcome(
        termination=termination, scores=scores, hands_played=hands_played,
        seat_terminations=[seat_termination_to_proto(t) for t in seat_terminations],  # type: ignore[misc]
    )


def outcome_from_proto(message: uno_pb2.Outcome) -> Outcome:
    """The engine outcome of a message (seat terminations are not part of it)."""
    try:
        termination = Termination(message.termination)
    except ValueError:
        raise WireError(f"unknown termination {message.termination!r}") from None
    return Outcome(termination, tuple(message.scores), tuple(message.ranks),
                   message.hands_played)


# ------------------------------------------------------------------- JSON


def message_to_dict(message: Message, *, with_defaults: bool = False) -> dict[str, Any]:
    """A message as a JSON object (`with_defaults`: zero values written out too)."""
    return json_format.MessageToDict(message, preserving_proto_field_name=True,
                                     always_print_fields_with_no_presence=with_defaults)


def dict_into(data: Mapping[str, Any], message: _M) -> _M:
    """Fill `message` from a JSON object written by `message_to_dict`; return it."""
    try:
        json_format.ParseDict(dict(data), message)
    except json_format.ParseError as exc:
        raise WireError(str(exc)) from None
    return message


# A finished game's events and actions are all written out as JSON objects, and
# the protobuf JSON mapping costs far more than the game took to play. The same
# events and actions come back game after game, so each distinct one is converted
# once and kept as `marshal` bytes, which give a fresh object (of dicts, lists,
# strings and numbers only) for every call in a fraction of the conversion's time.

_EVENT_DICTS: dict[ev.Event, bytes] = {}
_ACTION_DICTS: dict[Action, bytes] = {}


def event_to_dict(event: ev.Event) -> dict[str, Any]:
    """An event as a JSON object, for storage (a new object each call)."""
    return _fresh_dict(_EVENT_DICTS, event, lambda: message_to_dict(event_to_proto(event)))


def action_to_dict(action: Action) -> dict[str, Any]:
    """An action as a JSON object, for storage (a new object each call)."""
    return _fresh_dict(_ACTION_DICTS, action, lambda: message_to_dict(action_to_proto(action)))


def _fresh_dict(cache: dict[Any, bytes], key: Hashable,
                convert: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """A new copy of `convert()`, converted once per `key` and kept frozen in `cache`."""
    frozen = cache.get(key)
    if frozen is None:
        if len(cache) >= EVENT_CACHE_SIZE:
            cache.clear()
        frozen = cache[key] = marshal.dumps(convert())
    data: dict[str, Any] = marshal.loads(frozen)
    return data
