"""One game the bot is playing: its seat, players, rules and the events seen so far."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from arena.client.events import Event, HandStarted
from arena.client.model import Outcome, Player, Rules
from arena.v1 import bot_pb2


@dataclass(eq=False)
class Table:
    """The SDK's record of one game, kept separately for every table played at once.

    It is created at `GameStart` (again, fresh, when a reconnect brings the
    GameStart and every event so far once more; or, should a request for an
    unknown game arrive, with what little is known), grows with every batch of
    events, and gets its `outcome` at `GameEnd`. The SDK owns it: read it,
    do not change it. `memo` is yours, for anything a bot wants to keep per table.
    `rng` is a random number generator for this game, seeded with the server's
    `bot_seed`: a bot that takes its random choices from it plays the same game
    the same way whenever the tournament is run again with the same seed.
    """

    game_id: str
    seat: int
    players: tuple[Player, ...] = ()
    rules: Rules = field(default_factory=Rules)
    decision_timeout_ms: int = 0
    time_bank_ms: int = 0
    events: list[Event] = field(default_factory=list)
    decisions: int = 0
    outcome: Outcome | None = None
    bot_seed: int | None = None
    """The GameStart's seed for this seat's own randomness (None if the server sent none)."""
    raw: bot_pb2.GameStart | None = field(default=None, repr=False)
    memo: dict[str, object] = field(default_factory=dict, repr=False)
    _rng: random.Random | None = field(default=None, init=False, repr=False)

    @property
    def rng(self) -> random.Random:
        """This game's own `random.Random`, seeded with `bot_seed` (from the system's
        entropy when the server sent none), created the first time it is asked for.

        A reconnect starts a fresh table, and with it a fresh generator from the same seed.
        """
        if self._rng is None:
            self._rng = random.Random(self.bot_seed)
        return self._rng

    @property
    def num_players(self) -> int:
        """How many seats the table has (0 if the GameStart was never seen)."""
        return len(self.players)

    def name_of(self, seat: int) -> str:
        """The name of the bot in `seat` ("seat N" when unknown)."""
        for player in self.players:
            if player.seat == seat:
                return player.name
        return f"seat {seat}"

    def hand_events(self) -> list[Event]:
        """The events of the current hand, from its `HandStarted` on."""
        for index in range(len(self.events) - 1, -1, -1):
            if isinstance(self.events[index], HandStarted):
                return self.events[index:]
        return list(self.events)
