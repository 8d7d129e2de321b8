"""The Python SDK against the real server: events and views agree, options take effect."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.client import (
    Action,
    Bot,
    Card,
    CardPlayed,
    CardsReceived,
    Client,
    Event,
    ExitReason,
    HandReplaced,
    HandStarted,
    Outcome,
    Table,
    View,
)
from arena.engine import RuleSet
from arena.server import SeatTermination
from tests.bots.bot_harness import LiveArena
from tests.support import wait_until

pytestmark = pytest.mark.timeout(120)

TOKENS = {"left": "token-left", "right": "token-right"}
SWAPPING = RuleSet.from_dict(dict(deck="2018", shuffle_hands_card="swap", seven_o=True,
                                  jump_in=True, target_score=None))


class HandChecker(Bot):
    """Plays at random, keeps its hand from the events alone, and checks it against each view."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.hands: dict[str, Counter[Card]] = {}
        self.mismatches: list[str] = []
        self.single_choice = 0
        self.decisions = 0
        self.outcomes: dict[str, Outcome] = {}

    def on_game_start(self, table: Table) -> None:
        self.hands[table.game_id] = Counter()

    def on_events(self, table: Table, events: list[Event]) -> None:
        hand = self.hands[table.game_id]
        for event in events:
            if isinstance(event, HandStarted):
                hand.clear()
            elif isinstance(event, CardsReceived) and event.seat == table.seat:
                hand.update(event.cards)
            elif isinstance(event, HandReplaced) and event.seat == table.seat:
                hand.clear()
                hand.update(event.cards)
            elif isinstance(event, CardPlayed) and event.seat == table.seat:
                hand[event.card] -= 1

    def decide(self, view: View, legal: list[Action]) -> int:
        self.decisions += 1
        self.single_choice += len(legal) == 1
        tracked = +self.hands[view.game_id]
        if tracked != Counter(view.hand):
            self.mismatches.append(f"{view.game_id}: events say {sorted(map(str, tracked))}, "
                                   f"view says {sorted(map(str, view.hand))}")
        return self.rng.randrange(len(legal))

    def on_game_end(self, table: Table, outcome: Outcome) -> None:
        self.outcomes[table.game_id] = outcome


@pytest.mark.parametrize("rules", [RuleSet(target_score=100), SWAPPING], ids=["to-100", "swaps"])
def test_the_hand_built_from_events_always_matches_the_view(rules: RuleSet) -> None:
    import threading

    with LiveArena(TOKENS) as arena:
        bots = {name: HandChecker(seed) for seed, name in enumerate(TOKENS)}
        clients = [Client(bots[name], server=arena.address, token=TOKENS[name], max_tables=4,
                          auto_single_action=(name == "left"),
                          events_in_requests=(name == "left"))
                   for name in TOKENS]
        reasons: list[ExitReason] = []
        threads = [threading.Thread(target=lambda c=c: reasons.append(c.run()), daemon=True)
                   for c in clients]
        for thread in threads:
            thread.start()
        try:
            arena.wait_for_bots(list(TOKENS))
            results = arena.play_many([(["left", "right"], 1), (["right", "left"], 2),
                                       (["left", "right"], 3)], rules)
            wait_until(lambda: all(len(bot.outcomes) == 3 for bot in bots.values()),
                       what="every GameEnd")
        finally:
            for client in clients:
                client.stop()
            for thread in threads:
                thread.join(10)
    assert reasons == [ExitReason.STOPPED] * 2
    for result in results:
        assert result.seat_terminations == (SeatTermination.NORMAL,) * 2
        for name in result.players:
            outcome = bots[name].outcomes[result.game_id]
            assert outcome.scores == result.outcome.scores
            assert outcome.seat_terminations == ("normal", "normal")
    for bot in bots.values():
        assert bot.mismatches == []
        assert bot.decisions > 0
    assert bots["left"].single_choice == 0  # auto_single_action: the server took those
    assert bots["right"].single_choice > 0
    assert all(client.tables == {} for client in clients)
