"""What a bot answers, and what the SDK's connection asks of a bot.

`Player` is the bot as the connection sees it (`arena.client.Bot` is one);
`resolve_choice` turns a bot's answer into the index of a legal action.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from arena.client.events import Event
from arena.client.model import Action, Outcome, ServerError
from arena.client.table import Table
from arena.client.view import View
from arena.v1 import uno_pb2

Choice = Action | int | uno_pb2.Action
"""What `decide` returns: one of the legal actions, its index, or an equal protocol Action."""

DecideFn = Callable[[View, list[Action]], Choice]
"""``decide(view, legal) -> choice``, the one function every bot writes."""

GameStartHook = Callable[[Table], None]
"""Called with the new table when a game starts."""

EventsHook = Callable[[Table, list[Event]], None]
"""Called with the table and the new events, already appended to ``table.events``."""

GameEndHook = Callable[[Table, Outcome], None]
"""Called with the table and its outcome when a game ends."""


class Player(Protocol):
    """A bot as the connection plays it: a name, `decide`, and the hooks."""

    name: str

    def decide(self, view: View, legal: list[Action]) -> Choice:
        """Choose one of `legal` (or return its index) for the decision in `view`."""

    def on_game_start(self, table: Table) -> None:
        """A game starts at `table`."""

    def on_events(self, table: Table, events: list[Event]) -> None:
        """New `events` happened at `table`."""

    def on_game_end(self, table: Table, outcome: Outcome) -> None:
        """The game at `table` ended with `outcome`."""

    def on_error(self, error: ServerError, table: Table | None) -> None:
        """The server reported an in-band error."""


def resolve_choice(choice: object, legal: Sequence[Action]) -> int | None:
    """The index in `legal` that `choice` stands for, or None if it is not legal.

    An Action (ours or the protocol's) matches an equal legal action; an UNO
    call on a play that cannot leave one card is ignored, as the server does.
    """
    if isinstance(choice, bool):
        return None
    if isinstance(choice, int):
        return choice if 0 <= choice < len(legal) else None
    if isinstance(choice, uno_pb2.Action):
        from arena.client.convert import action_from_proto

        choice = action_from_proto(choice)
    if not isinstance(choice, Action):
        return None
    for candidate in (choice, _without_uno(choice)):
        for index, action in enumerate(legal):
            if action == candidate:
                return index
    return None


def _without_uno(action: Action) -> Action:
    return Action(action.kind, action.card, action.color, action.target, False)
