"""No seat ever receives a card hidden from it: a spy bot checks every message it gets."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from arena import wire
from arena.engine import RuleSet
from arena.engine.rules import DeckKind, ShuffleHandsCard
from arena.server import SeatTermination
from arena.v1 import bot_pb2, uno_pb2
from tests.server.bots import TestBot, random_legal
from tests.server.server_support import TOKENS, running_server

PLAYERS = ["spy", "alice", "bob", "carol"]

RULE_SETS = {
    "official": RuleSet(target_score=None),
    "2018 deck, swap hands": RuleSet(deck=DeckKind.EDITION_2018,
                                     shuffle_hands_card=ShuffleHandsCard.SWAP, target_score=None),
    "2018 deck, shuffle hands": RuleSet(deck=DeckKind.EDITION_2018, target_score=None),
    "seven-o, jump-in, progressive": RuleSet(seven_o=True, jump_in=True, progressive=True,
                                             target_score=None),
    "challengeable going out": RuleSet(going_out_draw_four_challengeable=True,
                                       target_score=None),
}


def card_key(card: uno_pb2.Card) -> tuple[int, int]:
    return (card.rank, card.color)


class Spy:
    """What a seat may know, rebuilt from its own messages, and checks on everything else."""

    def __init__(self) -> None:
        self.seat: int | None = None
        self.hand: Counter[tuple[int, int]] = Counter()
        self.revealed: dict[int, list[tuple[int, int]]] = {}
        self.events = 0
        self.requests = 0

    def on_message(self, bot: TestBot, message: bot_pb2.ServerMessage) -> None:
        kind = message.WhichOneof("kind")
        if kind == "game_start":
            self.seat = message.game_start.seat
        elif kind == "events":
            for event in message.events.events:
                self.on_event(event)
        elif kind == "decision_request":
            for event in message.decision_request.events:
                self.on_event(event)
            self.on_view(message.decision_request.view)

    def on_event(self, event: uno_pb2.Event) -> None:
        self.events += 1
        kind = event.WhichOneof("kind")
        body = getattr(event, kind)
        if kind in ("cards_received", "hand_replaced"):
            assert body.seat == self.seat, f"the spy saw seat {body.seat}'s cards: {event}"
            if kind == "hand_replaced":
                self.hand = Counter()
            self.hand.update(card_key(c) for c in body.cards)
        elif kind == "hand_revealed":
            assert body.to_seat == self.seat, f"a reveal to seat {body.to_seat} leaked: {event}"
            self.revealed[body.seat] = sorted(card_key(c) for c in body.cards)
        elif kind == "hand_started":
            self.hand = Counter()
            self.revealed = {}
        elif kind == "card_played" and body.seat == self.seat:
            self.hand[card_key(body.card)] -= 1
            assert self.hand[card_key(body.card)] >= 0

    def on_view(self, view: uno_pb2.SeatView) -> None:
        self.requests += 1
        assert view.seat == self.seat
        assert Counter(card_key(c) for c in view.hand) == +self.hand, \
            "the view's hand is not the hand the spy's own events built"
        for revealed in view.revealed:
            assert sorted(card_key(c) for c in revealed.cards) == \
                self.revealed.get(revealed.seat), "the view reveals a hand never shown"
        assert len(view.hand) == view.hand_sizes[view.seat]


@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
def test_a_spy_bot_never_receives_a_card_hidden_from_it(rules_name: str) -> None:
    rules = RULE_SETS[rules_name]

    async def scenario() -> None:
        async with running_server() as server:
            port = server.port or 0
            spy = Spy()
            spy_bot = TestBot(port, TOKENS["spy"], random_legal(99))
            spy_bot.on_message = spy.on_message
            others = [await TestBot(port, TOKENS[name], random_legal(i)).start()
                      for i, name in enumerate(PLAYERS[1:])]
            await spy_bot.start()
            for seed in range(4):
                spy.seat = None
                seats = PLAYERS[seed % 4:] + PLAYERS[:seed % 4]
                result = await server.play_game(seats, rules, seed, game_id=f"g{seed}")
                assert result.seat_terminations == (SeatTermination.NORMAL,) * 4
                await asyncio.sleep(0.02)
                spy_seat = seats.index("spy")
                expected = [wire.event_to_proto(e)
                            for e in wire.events_for_seat(result.events, spy_seat)]
                assert spy_bot.games[f"g{seed}"].events == expected
            for bot in [spy_bot, *others]:
                await bot.close()
        assert spy.requests > 0 and spy.events > 0

    asyncio.run(scenario())
