"""What a finished game hands back to the tournament layer."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from arena import wire
from arena.engine import events as ev
from arena.engine.actions import Action
from arena.engine.game import Game, replay
from arena.engine.outcome import Outcome
from arena.engine.rules import RuleSet
from arena.policy import SeatTermination
from arena.record import Decision
from arena.tournament.runner import PlayedGame


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game: who played, how it ended, and everything needed to replay it.

    `replay()` rebuilds the game from (rules, players, seed, actions) plus the
    forfeit, if there was one; its events and outcome equal `events` and
    `outcome`. `strikes[seat]` counts the seat's violations under a fallback
    policy; `seat_terminations[seat]` says how its game ended. `decisions` are every
    decision a seat owed, in order, with its time and what came of it.
    """

    game_id: str
    players: tuple[str, ...]
    rules: RuleSet
    seed: int
    outcome: Outcome
    seat_terminations: tuple[SeatTermination, ...]
    actions: tuple[Action, ...]
    events: tuple[ev.Event, ...]
    forfeited_seat: int | None
    strikes: tuple[int, ...]
    started: datetime
    finished: datetime
    decisions: tuple[Decision, ...] = ()

    def replay(self) -> Game:
        """The game rebuilt from its seed, actions and forfeit."""
        game = replay(self.rules, len(self.players), self.seed, self.actions)
        if self.forfeited_seat is not None:
            game.forfeit(self.forfeited_seat)
        return game


class GameAbortedError(RuntimeError):
    """The game was stopped before it ended (the server is shutting down); nothing to record."""


def played_game(result: GameResult) -> PlayedGame:
    """A server result as the tournament runner records it: JSON events and actions."""
    actions = wire.actions_to_dicts(result.actions)
    events = wire.events_to_dicts(result.events)
    return PlayedGame(result.outcome, events, actions, result.seat_terminations,
                      result.started, result.finished, result.forfeited_seat,
                      result.decisions)
