"""The SDK and the engine agree on every card, enum and event.

The SDK (`arena.client`) may not import the engine, so it keeps its own copy of
what the wire does not carry (a card's points, its short notation, the deck) and
reads events into its own classes. These tests import both and compare.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import fields
from enum import StrEnum
from typing import Any

import pytest

import arena.client as sdk
from arena import engine, wire
from arena.client import counting
from arena.client import events as sdk_events
from arena.client.convert import event_from_proto, rules_from_proto
from arena.engine import events as engine_events
from arena.engine.cards import WILD_RANKS

ENUMS: list[tuple[type[StrEnum], type[StrEnum]]] = [
    (engine.Color, sdk.Color),
    (engine.Rank, sdk.Rank),
    (engine.Phase, sdk.Phase),
    (engine.ActionKind, sdk.ActionKind),
    (engine_events.DrawReason, sdk.DrawReason),
    (engine_events.HandEndReason, sdk.HandEndReason),
]

ENGINE_EVENTS = {cls.__name__: cls for cls in wire.EVENT_CLASSES}
SDK_EVENTS = {
    cls.__name__: cls for cls in vars(sdk_events).values()
    if isinstance(cls, type) and issubclass(cls, sdk.Event)
    and cls not in (sdk.Event, sdk.UnknownEvent)
}


def sdk_card(card: engine.Card) -> sdk.Card:
    """The SDK's card of the same rank and colour."""
    return sdk.Card(sdk.Rank(card.rank.value),
                    None if card.color is None else sdk.Color(card.color.value))


ALL_ENGINE_CARDS = sorted(set(engine.deck_2018()), key=lambda card: card.short())


# ------------------------------------------------------------------ enums

@pytest.mark.parametrize(("ours", "theirs"), ENUMS, ids=lambda e: e.__name__)
def test_every_enum_has_the_engines_members_with_the_engines_values(
        ours: type[StrEnum], theirs: type[StrEnum]) -> None:
    engine_members = {member.name: member.value for member in ours}
    sdk_members = {member.name: member.value for member in theirs
                   if member.name != "UNSPECIFIED"}  # the SDK's reading of an unknown value
    assert sdk_members == engine_members


def test_the_colours_come_in_the_engines_order() -> None:
    assert [c.value for c in sdk.COLORS] == [c.value for c in engine.COLORS]


# ------------------------------------------------------------------ cards

@pytest.mark.parametrize("card", ALL_ENGINE_CARDS, ids=lambda c: c.short())
def test_every_card_has_the_engines_points_notation_and_kind(card: engine.Card) -> None:
    ours = sdk_card(card)
    assert (ours.points, ours.number, ours.short()) == (card.points, card.number, card.short())
    assert (ours.is_wild, ours.is_number, ours.is_action) == (
        card.is_wild, card.is_number, card.is_action)
    assert sdk.Card.parse(card.short()) == ours


def test_the_wild_ranks_are_the_engines() -> None:
    assert {rank.value for rank in sdk.WILD_RANKS} == {rank.value for rank in WILD_RANKS}


@pytest.mark.parametrize("deck", ["classic", "2018"])
def test_the_deck_holds_the_engines_cards(deck: str) -> None:
    engine_deck = engine.classic_deck() if deck == "classic" else engine.deck_2018()
    ours = counting.deck(sdk.Rules(deck=deck))
    assert ours == Counter(sdk_card(card) for card in engine_deck)


def test_the_default_rules_are_the_engines() -> None:
    assert rules_from_proto(wire.rules_to_proto(engine.RuleSet())) == sdk.Rules()


# ----------------------------------------------------------------- events

def test_the_sdk_has_one_event_class_per_engine_event() -> None:
    assert set(SDK_EVENTS) == set(ENGINE_EVENTS)


def engine_field_names(event_class: type[Any]) -> list[str]:
    """The event's field names as the wire writes them (see arena/wire.py)."""
    return [wire._RENAMED_FIELDS.get((event_class.__name__, f.name), f.name)
            for f in fields(event_class)]


@pytest.mark.parametrize("name", sorted(ENGINE_EVENTS))
def test_every_event_has_the_engines_fields_in_its_order(name: str) -> None:
    ours = [f.name for f in fields(SDK_EVENTS[name]) if f.name != "raw"]
    assert ours == engine_field_names(ENGINE_EVENTS[name])


class Samples:
    """Distinct values for an engine event's fields, by their declared type, so that a
    field read into the wrong place shows."""

    def __init__(self) -> None:
        self.count = 0

    def number(self) -> int:
        self.count += 1
        return self.count

    def card(self) -> engine.Card:
        return ALL_ENGINE_CARDS[self.number() % len(ALL_ENGINE_CARDS)]

    def of(self, type_name: str) -> Any:
        simple: dict[str, Callable[[], Any]] = {
            "int": self.number,
            "int | None": self.number,
            "bool": lambda: True,
            "str": lambda: f"text{self.number()}",
            "tuple[int, ...]": lambda: (self.number(), self.number()),
            "Card": self.card,
            "tuple[Card, ...]": lambda: (self.card(), self.card()),
            "tuple[tuple[Card, ...], ...]": lambda: ((self.card(),), (), (self.card(),)),
            "tuple[tuple[tuple[int, Card], ...], ...]":
                lambda: (((self.number(), self.card()), (self.number(), self.card())),),
        }
        enums = {"Color": engine.Color, "DrawReason": engine_events.DrawReason,
                 "HandEndReason": engine_events.HandEndReason}
        if type_name in enums:
            members = list(enums[type_name])
            return members[self.number() % len(members)]
        return simple[type_name]()


def plain(value: Any) -> Any:
    """A value with cards as their notation and enum members as their values, so that an
    engine value and an SDK value compare."""
    if isinstance(value, engine.Card | sdk.Card):
        return value.short()
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, tuple):
        return tuple(plain(item) for item in value)
    return value


@pytest.mark.parametrize("name", sorted(ENGINE_EVENTS))
def test_every_event_reads_into_the_sdk_with_the_engines_values(name: str) -> None:
    event_class = ENGINE_EVENTS[name]
    samples = Samples()
    event = event_class(**{f.name: samples.of(str(f.type)) for f in fields(event_class)})
    ours = event_from_proto(wire.event_to_proto(event))
    assert type(ours) is SDK_EVENTS[name]
    wire_names = engine_field_names(event_class)
    assert {wire_name: plain(getattr(ours, wire_name)) for wire_name in wire_names} == {
        wire_name: plain(getattr(event, f.name))
        for wire_name, f in zip(wire_names, fields(event_class), strict=True)}


# ----------------------------------------------------------------- layers

def test_the_sdk_imports_neither_the_engine_nor_the_server() -> None:
    code = ("import sys, arena.client, arena.client.counting\n"
            "print(' '.join(m for m in sys.modules if m.startswith("
            "('arena.engine', 'arena.server', 'arena.wire'))))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout.split()
    assert loaded == []
