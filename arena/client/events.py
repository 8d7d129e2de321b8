"""Typed game events, one frozen dataclass per kind of the protocol's `Event`.

A bot receives public events and the private ones addressed to its seat
(`CardsReceived`, `HandReplaced`, `HandRevealed`). Every event keeps the
protobuf message it was read from as ``raw`` (equal events share one). Match
on the class::

    match event:
        case CardPlayed(seat=seat, card=card):
            ...

The event classes and their enums (`DrawReason`, `HandEndReason`) are generated
from uno.proto by `arena.protogen` into `arena.client._generated`; each has the
fields of its message, in order, under the same names.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.client._generated import *  # noqa: F403  # every event class and its enums
from arena.client._generated import Event


@dataclass(frozen=True, slots=True)
class UnknownEvent(Event):
    """An event this SDK cannot read: a kind it does not know, or one holding a card it
    does not know (both from a newer server); see `raw`."""

    kind: str
