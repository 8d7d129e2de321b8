"""RULES.md section 2: choosing the dealer, the deal, and the first face-up card."""

from __future__ import annotations

import random
from collections.abc import Iterator, MutableSequence
from typing import Any

import pytest

from arena.engine import (
    COLORS,
    DRAW,
    Card,
    Game,
    Phase,
    RuleSet,
    RuleSetError,
    cards,
    choose_color,
    classic_deck,
    events,
)
from arena.engine.rules import ReverseFirstCard
from tests.engine.helpers import BLUE, GREEN, card, hand, of_type, rules, table


def dealer_draws(seeds: range, players: int = 4) -> Iterator[events.DealerChosen]:
    for seed in seeds:
        game = Game.new(rules(), players, seed)
        yield of_type(game.events, events.DealerChosen)[0]


def value(c: Card) -> int:
    return c.number if c.number is not None else 0


def test_first_dealer_is_the_player_who_draws_the_highest_number() -> None:
    for chosen in dealer_draws(range(40)):
        first = chosen.draws[0]
        assert [seat for seat, _ in first] == [0, 1, 2, 3]  # every player draws
        last = chosen.draws[-1]
        best = max(value(c) for _, c in last)
        assert [seat for seat, c in last if value(c) == best] == [chosen.dealer]


def test_first_dealer_draw_counts_action_and_wild_cards_as_zero() -> None:
    # Find a deal where a zero ties with action or wild cards for the highest draw.
    for chosen in dealer_draws(range(400)):
        first = chosen.draws[0]
        if max(value(c) for _, c in first) == 0 and len(chosen.draws) > 1:
            assert any(not c.is_number for _, c in first)
            assert [s for s, _ in chosen.draws[1]] == [s for s, _ in first]
            return
    raise AssertionError("no all-zero first draw in 400 seeds")


def test_players_tied_for_highest_draw_again() -> None:
    ties = 0
    for chosen in dealer_draws(range(200)):
        for earlier, later in zip(chosen.draws, chosen.draws[1:], strict=False):
            best = max(value(c) for _, c in earlier)
            assert [s for s, _ in later] == [s for s, c in earlier if value(c) == best]
            ties += 1
    assert ties > 5


class TiedDealerDraw(random.Random):
    """Stacks the deck of the dealer draw in pairs of equal value (every number has an
    even count, and the 36 action and wild cards count 0), so that two players tie on
    every draw until the deck is used up; every later shuffle is a fair one."""

    stacked = False

    def shuffle(self, x: MutableSequence[Any]) -> None:
        if self.stacked:
            super().shuffle(x)
        else:
            x[:] = sorted(x, key=value)
            self.stacked = True


class TiedDealerDrawGame(Game):
    def __init__(self, rule_set: RuleSet, num_players: int, seed: int) -> None:
        super().__init__(rule_set, num_players, seed)
        self.rng = TiedDealerDraw(seed)


def test_tied_players_draw_again_as_long_as_the_deck_has_a_card_for_each() -> None:
    game = TiedDealerDrawGame.new(rules(), 2, seed=0)
    chosen = of_type(game.events, events.DealerChosen)[0]
    assert len(chosen.draws) == 108 // 2  # the last two cards are drawn too
    assert all(value(a) == value(b) for (_, a), (_, b) in chosen.draws)
    assert game.dealer == chosen.dealer and game.card_count() == 108


def test_players_still_tied_when_the_deck_runs_out_leave_the_deal_to_the_first_in_seat_order(
        ) -> None:
    game = TiedDealerDrawGame.new(rules(), 2, seed=0)
    chosen = of_type(game.events, events.DealerChosen)[0]
    (_, first), (_, second) = chosen.draws[-1]
    assert value(first) == value(second)
    assert chosen.dealer == game.dealer == 0


def test_dealer_draw_cards_go_back_and_the_whole_deck_is_shuffled() -> None:
    game = Game.new(rules(), 4, seed=13)
    assert game.card_count() == 108
    assert game.dealer == of_type(game.events, events.DealerChosen)[0].dealer


def test_without_the_dealer_draw_seat_zero_deals() -> None:
    game = Game.new(rules(choose_first_dealer=False), 4, seed=13)
    assert game.dealer == 0 and not of_type(game.events, events.DealerChosen)


def test_deal_is_seven_cards_one_at_a_time_starting_left_of_the_dealer() -> None:
    deck = classic_deck()  # a fixed order, top card first
    game = Game.from_deck(rules(), 3, deck, dealer=1)
    # Seat 2 (left of the dealer) gets cards 0, 3, 6, ...; seat 0 gets 1, 4, ...
    assert game.hands[2] == deck[0:21:3]
    assert game.hands[0] == deck[1:21:3]
    assert game.hands[1] == deck[2:21:3]
    received = of_type(game.events, events.CardsReceived)
    assert [e.seat for e in received] == [2, 0, 1]
    assert all(e.audience == frozenset({e.seat}) for e in received)


def test_rest_of_the_deck_is_the_draw_pile_and_its_top_card_starts_the_discard_pile() -> None:
    deck = classic_deck()
    game = Game.from_deck(rules(), 2, deck, dealer=0)
    cards_after_deal = deck[14:]
    assert game.discard_pile == [cards_after_deal[0]]
    assert list(reversed(game.draw_pile)) == cards_after_deal[1:]
    first = of_type(game.events, events.FirstCard)
    assert first == [events.FirstCard(cards_after_deal[0], 1, 1)]


def test_hand_size_is_a_rule_setting() -> None:
    game = Game.new(rules(hand_size=5), 3, seed=4)
    assert [len(h) for h in game.hands] == [5, 5, 5]


def test_first_card_wild_draw_four_goes_back_into_the_deck_and_another_is_turned() -> None:
    game = table("R1 R2", "G1 G2", "B1 B2", starter="W+4", draw="Y5")
    assert of_type(game.events, events.StarterReturned) == [events.StarterReturned(card("W+4"))]
    assert game.discard_pile == cards("Y5") and game.draw_pile == cards("W+4")


def test_a_returned_wild_draw_four_goes_below_the_top_so_another_card_is_turned() -> None:
    for seed in range(30):
        game = table("R1", "G1", starter="W+4", draw="B5 G6 Y7", seed=seed)
        assert len(of_type(game.events, events.StarterReturned)) == 1
        assert game.top_card == card("B5") and card("W+4") in game.draw_pile


def test_a_wild_draw_four_starter_with_only_wild_draw_fours_below_is_refused() -> None:
    with pytest.raises(ValueError):
        table("R1", "G1", starter="W+4", draw="W+4")


def test_first_card_wild_left_of_the_dealer_declares_the_colour_and_plays_first() -> None:
    game = table("R1 R2", "G1 G2", "B1 B2", "Y1 Y2", starter="W", dealer=1)
    assert game.phase is Phase.CHOOSE_COLOR and game.decider == 2
    assert game.active_color is None
    evs = game.apply(choose_color(GREEN))
    assert of_type(evs, events.ColorChosen) == [events.ColorChosen(2, GREEN)]
    assert (game.phase, game.decider) == (Phase.PLAY, 2)
    assert game.active_color is GREEN


def test_declaring_the_first_wilds_colour_is_the_only_decision_and_any_colour_will_do() -> None:
    game = table("R1 R2", "G1 G2", starter="W", dealer=1)
    assert game.legal_actions() == [choose_color(c) for c in COLORS]


def test_first_card_shuffle_hands_or_customizable_stays_and_only_asks_for_a_colour() -> None:
    for starter in ("WSH", "WC"):
        game = table("R1 R2", "G1 G2", "B1 B2", starter=starter, dealer=0,
                     rule_set=rules(deck="2018"))
        assert game.top_card == card(starter)
        assert game.phase is Phase.CHOOSE_COLOR and game.decider == 1
        game.apply(choose_color(BLUE))
        assert hand(game, 1) == "G1 G2" and game.decider == 1  # no hands moved


def test_first_card_skip_skips_the_player_left_of_the_dealer() -> None:
    game = table("R1", "G1", "B1", "Y1", starter="RS", dealer=0)
    assert game.decider == 2 and game.direction == 1
    assert of_type(game.events, events.TurnSkipped) == [events.TurnSkipped(1)]
    assert of_type(game.events, events.FirstCard) == [events.FirstCard(card("RS"), 2, 1)]


def test_first_card_reverse_dealer_starts_and_play_goes_right() -> None:
    game = table("R1 R2", "G1 G2", "B1 B2", "Y1 Y2", starter="RR", draw="Y9", dealer=1)
    assert game.decider == 1 and game.direction == -1
    assert of_type(game.events, events.FirstCard) == [events.FirstCard(card("RR"), 1, -1)]
    game.apply(DRAW)  # the dealer draws Y9 and cannot play it
    assert game.decider == 0  # the dealer's right


def test_first_card_reverse_right_of_dealer_starts_when_configured() -> None:
    rule_set = rules(reverse_first_card=ReverseFirstCard.RIGHT_OF_DEALER)
    game = table("R1", "G1", "B1", "Y1", starter="RR", dealer=1, rule_set=rule_set)
    assert game.decider == 0 and game.direction == -1
    game = table("R1", "G1", "B1", "Y1", starter="RR", dealer=0, rule_set=rule_set)
    assert game.decider == 3 and game.direction == -1


def test_first_card_reverse_with_two_players_lets_the_dealer_start() -> None:
    game = table("R1", "G1", starter="RR", dealer=0)
    assert game.decider == 0
    # even where the setting would have the dealer's right start: the two-player rule wins
    rule_set = rules(reverse_first_card=ReverseFirstCard.RIGHT_OF_DEALER)
    for dealer in (0, 1):
        game = table("R1", "G1", starter="RR", dealer=dealer, rule_set=rule_set)
        assert game.decider == dealer
        assert of_type(game.events, events.FirstCard) == [
            events.FirstCard(card("RR"), dealer, -1)]


def test_first_card_draw_two_left_of_the_dealer_draws_two_and_loses_the_turn() -> None:
    game = table("R1", "G1", "B1", starter="R+2", draw="Y5 Y6 Y7", dealer=0)
    assert hand(game, 1) == "G1 Y5 Y6"
    assert game.decider == 2
    assert of_type(game.events, events.TurnSkipped) == [events.TurnSkipped(1)]
    assert of_type(game.events, events.FirstCard) == [events.FirstCard(card("R+2"), 2, 1)]


def test_first_card_number_left_of_the_dealer_starts_and_play_goes_left() -> None:
    game = table("R1 R2", "G1 G2", "B1 B2", starter="B7", draw="Y9", dealer=2)
    assert game.decider == 0 and game.direction == 1
    game.apply(DRAW)  # Y9 cannot be played
    assert game.decider == 1


def test_a_stacked_deck_too_short_to_turn_up_a_first_card_is_refused() -> None:
    with pytest.raises(ValueError, match="discard pile"):
        Game.from_deck(rules(), 2, cards("R1 R2 R3"))


@pytest.mark.parametrize("players", [1, 11])
def test_uno_needs_2_to_10_players(players: int) -> None:
    with pytest.raises(RuleSetError, match="players"):
        Game.new(rules(), players, seed=0)


@pytest.mark.parametrize("players", [2, 10])
def test_two_and_ten_players_can_play(players: int) -> None:
    game = Game.new(rules(), players, seed=0)
    assert all(len(h) == 7 for h in game.hands) and game.card_count() == 108


def test_a_laid_out_hand_is_dealt_by_seat_0_unless_another_dealer_is_named() -> None:
    game = Game.stacked(rules(), hands=[cards("R1 R2"), cards("B9 R3")], starter=card("R7"))
    assert game.dealer == 0 and game.view(1).dealer == 0


def test_a_stacked_deck_is_dealt_by_seat_0_unless_another_dealer_is_named() -> None:
    deck = classic_deck()
    game = Game.from_deck(rules(), 3, deck)
    assert game.dealer == 0 and game.hands[1] == deck[0:21:3]  # seat 1 is dealt first


def test_a_game_from_a_stacked_deck_or_a_laid_out_hand_is_seeded_0_unless_named() -> None:
    dealt = Game.from_deck(rules(), 2, classic_deck())
    laid_out = Game.stacked(rules(), hands=[cards("R1 R2"), cards("B9 R3")], starter=card("R7"))
    assert dealt.seed == laid_out.seed == 0
