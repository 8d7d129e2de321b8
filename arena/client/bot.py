"""What a bot is to the SDK: a `decide` function plus optional hooks.

Write either a plain function and pass it to `arena.client.run`, or subclass
`Bot` and call its `run` method. The SDK calls a bot from one thread only, one
message at a time, in the order the server sent them, so a bot needs no locks;
calls for different tables interleave, so keep per-table state per `game_id`
(or in `table.memo`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from arena.client.events import Event
from arena.client.model import Action, Outcome, ServerError
from arena.client.table import Table
from arena.client.view import View
from arena.v1 import uno_pb2

if TYPE_CHECKING:
    from arena.client.connection import ExitReason

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

_log = logging.getLogger("arena.client")


class Bot:
    """Base class for bots: override `decide`, and any hook you need.

    Class attribute `name` labels the bot in logs and in its Hello's
    bot_version (the server knows the bot by its token, not by this name).
    """

    name: str = "bot"

    def decide(self, view: View, legal: list[Action]) -> Choice:
        """Choose one of `legal` (or return its index) for the decision in `view`."""
        raise NotImplementedError(f"{type(self).__name__} must implement decide(view, legal)")

    def on_game_start(self, table: Table) -> None:
        """A game starts at `table` (seat, players and rules are set).

        After a reconnect the server sends a game's GameStart again, then every
        event so far: the SDK starts a fresh `table`, and so should the bot.
        """

    def on_events(self, table: Table, events: list[Event]) -> None:
        """New `events` happened at `table`; they are already in `table.events`."""

    def on_game_end(self, table: Table, outcome: Outcome) -> None:
        """The game at `table` ended with `outcome`; the SDK forgets the table after this."""

    def on_error(self, error: ServerError, table: Table | None) -> None:
        """The server reported an in-band error (the stream goes on). Logs it by default."""
        _log.warning("server error %s%s: %s", error.code,
                    f" in game {error.game_id}" if error.game_id else "", error.message)

    def run(self, **options: Any) -> ExitReason:
        """Connect and play until stopped; `options` are those of `arena.client.run`."""
        from arena.client.connection import run

        return run(self, **options)


class FunctionBot(Bot):
    """A Bot made of a decide function and optional hook functions."""

    def __init__(self, decide: DecideFn, *, name: str | None = None,
                 on_game_start: GameStartHook | None = None,
                 on_events: EventsHook | None = None,
                 on_game_end: GameEndHook | None = None) -> None:
        self.name = name or getattr(decide, "__module__", None) or "bot"
        self._decide = decide
        self._on_game_start = on_game_start
        self._on_events = on_events
        self._on_game_end = on_game_end

    def decide(self, view: View, legal: list[Action]) -> Choice:
        """Ask the wrapped function."""
        return self._decide(view, legal)

    def on_game_start(self, table: Table) -> None:
        """Call the wrapped hook, if any."""
        if self._on_game_start is not None:
            self._on_game_start(table)

    def on_events(self, table: Table, events: list[Event]) -> None:
        """Call the wrapped hook, if any."""
        if self._on_events is not None:
            self._on_events(table, events)

    def on_game_end(self, table: Table, outcome: Outcome) -> None:
        """Call the wrapped hook, if any."""
        if self._on_game_end is not None:
            self._on_game_end(table, outcome)


def as_bot(bot: Bot | DecideFn, *, name: str | None = None,
           on_game_start: GameStartHook | None = None,
           on_events: EventsHook | None = None,
           on_game_end: GameEndHook | None = None) -> Bot:
    """`bot` itself if it is a Bot (renamed if `name` is given), else a FunctionBot."""
    if isinstance(bot, Bot):
        if any(h is not None for h in (on_game_start, on_events, on_game_end)):
            raise TypeError("hooks are methods of a Bot subclass; pass hooks only with a function")
        if name:
            bot.name = name
        return bot
    return FunctionBot(bot, name=name, on_game_start=on_game_start, on_events=on_events,
                       on_game_end=on_game_end)


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
