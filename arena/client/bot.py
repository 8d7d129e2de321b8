"""What a bot is to the SDK: a `decide` function plus optional hooks.

Write either a plain function and pass it to `arena.client.run`, or subclass
`Bot` and call its `run` method. The SDK calls a bot from one thread only, one
message at a time, in the order the server sent them, so a bot needs no locks;
calls for different tables interleave, so keep per-table state per `game_id`
(or in `table.memo`).
"""

from __future__ import annotations

import logging
import os
from typing import Any

from arena.client.choice import Choice as Choice
from arena.client.choice import DecideFn as DecideFn
from arena.client.choice import EventsHook as EventsHook
from arena.client.choice import GameEndHook as GameEndHook
from arena.client.choice import GameStartHook as GameStartHook
from arena.client.choice import resolve_choice as resolve_choice
from arena.client.connection import Client, ClientConfigError, ExitReason, stop_on_signals
from arena.client.events import Event
from arena.client.model import Action, Outcome, ServerError
from arena.client.table import Table
from arena.client.view import View

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


def run(bot: Bot | DecideFn, *, name: str | None = None, server: str | None = None,
        token: str | None = None, max_tables: int | None = None,
        auto_single_action: bool = False, events_in_requests: bool = True,
        bot_version: str | None = None, give_up_after: float | None = 60.0,
        tls: bool | str | os.PathLike[str] | None = None,
        on_game_start: GameStartHook | None = None,
        on_events: EventsHook | None = None, on_game_end: GameEndHook | None = None,
        configure_logging: bool = True) -> ExitReason:
    """Play as `bot` (a Bot or a ``decide(view, legal)`` function) until stopped.

    `server`/`token` default to ARENA_SERVER/ARENA_TOKEN; `max_tables` (games
    played at once) to ARENA_MAX_TABLES or 1; `auto_single_action` lets the
    server answer decisions with one legal action by itself; with
    `events_in_requests` events ride inside the next request (the bot sees no
    difference: `on_events` still runs before `decide`); `tls` (TLS to the
    server) defaults to ARENA_TLS_CA or ARENA_TLS. The hooks apply to a
    function bot. Logging goes to stderr at ARENA_LOG_LEVEL (INFO) unless the
    program configured logging itself. SIGINT and SIGTERM stop the bot cleanly.
    Returns why it stopped (REJECTED, after logging why, for a setting that
    cannot be used); it never raises for a connection problem.
    """
    if configure_logging and not logging.getLogger().handlers:
        logging.basicConfig(
            level=os.environ.get("ARENA_LOG_LEVEL", "INFO").upper(),
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        )
    try:
        client = Client(
            as_bot(bot, name=name, on_game_start=on_game_start, on_events=on_events,
                   on_game_end=on_game_end),
            server=server, token=token, max_tables=max_tables,
            auto_single_action=auto_single_action, events_in_requests=events_in_requests,
            bot_version=bot_version, give_up_after=give_up_after, tls=tls,
        )
    except ClientConfigError as exc:
        _log.error("%s", exc)
        return ExitReason.REJECTED
    with stop_on_signals(client):
        return client.run()
