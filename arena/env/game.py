"""One engine game played in this process by SDK bots, each seat told what the SDK tells it."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from arena import wire
from arena.engine import events as ev
from arena.engine.game import Game
from arena.engine.rules import RuleSet
from arena.env.seat import SDK_EVENTS, SdkSeat, sdk_event

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
    for number, seat in enumerate(seats):
        seat.start(game_id, number, players, rules, decision_timeout_ms, time_bank_ms,
                   wire.bot_seed(seed, number, players))
    _publish(seats, game.events)
    while not game.is_over:
        decider = game.decider
        assert decider is not None
        legal = game.legal_actions()
        index = seats[decider].decide(partial(game.view, decider), legal)
        _publish(seats, game.apply(legal[index]))
    outcome = game.outcome
    assert outcome is not None
    terminations = [NORMAL] * len(seats)
    for seat in seats:
        seat.end(outcome, terminations, outcome.termination.value)
    return game


def _publish(seats: Sequence[SdkSeat], events: Sequence[ev.Event]) -> None:
    if not events:
        return
    known = SDK_EVENTS.get
    converted = [known(event) or sdk_event(event) for event in events]
    audiences = [event.audience for event in events]
    if audiences.count(None) == len(audiences):  # all public, as most are
        for seat in seats:
            seat.receive(events, converted)
        return
    for number, seat in enumerate(seats):
        mine = [i for i, audience in enumerate(audiences)
                if audience is None or number in audience]
        seat.receive([events[i] for i in mine], [converted[i] for i in mine])
