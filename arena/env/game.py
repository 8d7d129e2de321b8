"""One engine game played in this process by SDK bots, each seat told what the SDK tells it."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from arena import wire
from arena.engine.game import Game
from arena.engine.rules import RuleSet
from arena.env.seat import EventLog, SdkSeat, publish

NORMAL = "normal"
"""How every seat's game ends in this process: a bot here cannot time out, crash or
answer illegally (a bad answer gets the SDK's own fallback, as over gRPC)."""


def play_game(seats: Sequence[SdkSeat], players: Sequence[str], rules: RuleSet, seed: int,
              game_id: str, decision_timeout_ms: int = 1000, time_bank_ms: int = 0) -> Game:
    """Play the game dealt from `seed` to its end, `seats[i]` (bot `players[i]`) in seat i,
    and return it (its `actions`, `events` and `outcome` are the record).

    Each seat gets the GameStart (with its `wire.bot_seed`), events, decision requests
    and GameEnd the match server would send; the request's time fields say the policy's
    full deadline and bank, which in this process nothing spends.
    """
    game = Game.new(rules, len(seats), seed)
    log = EventLog()
    for number, seat in enumerate(seats):
        seat.start(game_id, number, players, rules, decision_timeout_ms, time_bank_ms,
                   wire.bot_seed(seed, number, players), log)
    publish(log, seats, game.events)
    while not game.is_over:
        decider = game.decider
        assert decider is not None
        legal = game.legal_actions()
        index = seats[decider].decide(partial(game.view, decider), legal)
        publish(log, seats, game.apply(legal[index]))
    outcome = game.outcome
    assert outcome is not None
    terminations = [NORMAL] * len(seats)
    for seat in seats:
        seat.end(outcome, terminations, outcome.termination.value)
    return game
