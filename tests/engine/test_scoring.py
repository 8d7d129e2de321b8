"""RULES.md section 7: ending a hand, and the three official scorings
(standard, low score, Challenge UNO elimination)."""

from __future__ import annotations

import random
from collections.abc import MutableSequence
from typing import Any

from arena.engine import DRAW, Termination, cards, events, play
from tests.engine.helpers import BLUE, RED, SEAT1, SEAT2, card, of_type, rules, table


def hand_ended(game_events: list[events.Event]) -> events.HandEnded:
    return of_type(game_events, events.HandEnded)[0]


def test_a_hand_ends_the_moment_a_player_plays_their_last_card() -> None:
    game = table("R1", SEAT1, SEAT2, starter="R7", rule_set=rules(target_score=None))
    evs = game.apply(play(card("R1")))
    ended = hand_ended(evs)
    assert ended.winner == 0 and ended.reason is events.HandEndReason.WENT_OUT
    assert ended.cards_left == ((), tuple(card(c) for c in SEAT1.split()),
                                tuple(card(c) for c in SEAT2.split()))
    assert game.is_over and game.outcome is not None
    assert game.outcome.termination is Termination.SINGLE_HAND
    assert game.outcome.winners == (0,)


def test_going_out_on_draw_two_next_player_still_draws_and_it_counts() -> None:
    game = table("R+2", SEAT1, SEAT2, starter="R7", draw="B5 B6",
                 rule_set=rules(target_score=None))
    evs = game.apply(play(card("R+2")))
    assert of_type(evs, events.CardsDrawn) == [
        events.CardsDrawn(1, 2, events.DrawReason.DRAW_TWO)
    ]
    assert hand_ended(evs).points == (71 + 11 + 79, 0, 0)


def test_once_a_going_out_draw_two_is_drawn_nothing_is_left_pending() -> None:
    game = table("R+2", SEAT1, SEAT2, starter="R7", draw="B5 B6",
                 rule_set=rules(target_score=None))
    game.apply(play(card("R+2")))
    assert game.is_over
    assert game.pending_draw == 0 and game.view(1).pending_draw == 0


def test_going_out_on_wild_draw_four_next_player_draws_four_and_it_counts() -> None:
    game = table("W+4", SEAT1, SEAT2, starter="R7", draw="B1 B2 B3 B4",
                 rule_set=rules(target_score=None))
    evs = game.apply(play(card("W+4"), BLUE))
    assert of_type(evs, events.CardsDrawn) == [
        events.CardsDrawn(1, 4, events.DrawReason.DRAW_FOUR)
    ]
    assert hand_ended(evs).points == (71 + 10 + 79, 0, 0)


def test_standard_scoring_the_winner_scores_every_card_left_in_the_other_hands() -> None:
    game = table("R1", SEAT1, SEAT2, starter="R7", rule_set=rules(target_score=None))
    evs = game.apply(play(card("R1")))
    assert hand_ended(evs).points == (150, 0, 0)
    assert hand_ended(evs).totals == (150, 0, 0)


def test_below_the_target_another_hand_is_dealt_and_totals_carry_over() -> None:
    game = table("R1", SEAT1, SEAT2, starter="R7")
    game.apply(play(card("R1")))
    assert not game.is_over and game.hand_number == 2
    assert game.totals == [150, 0, 0]
    assert game.card_count() == 108 and all(len(h) == 7 for h in game.hands)


def test_the_first_player_to_reach_the_target_wins_and_the_target_is_configurable() -> None:
    game = table("R1", SEAT1, SEAT2, starter="R7", rule_set=rules(target_score=150))
    game.apply(play(card("R1")))
    assert game.outcome is not None
    assert game.outcome.termination is Termination.TARGET_REACHED
    assert game.outcome.winners == (0,) and game.outcome.scores == (150, 0, 0)
    assert game.outcome.ranks == (0, 1, 2)


def test_a_single_hand_won_with_zero_points_still_ranks_its_winner_first() -> None:
    game = table("R5", "B0", starter="R3", rule_set=rules(target_score=None))
    game.apply(play(card("R5")))
    assert game.outcome is not None and game.outcome.scores == (0, 0)
    assert game.outcome.ranks == (0, 1) and game.outcome.winners == (0,)


def test_players_below_the_top_score_rank_by_fewer_points_left_in_hand() -> None:
    game = table("R1", "B9 W+4 G+2", "Y1 YS W", starter="R7",
                 rule_set=rules(target_score=None))
    game.apply(play(card("R1")))
    assert game.outcome is not None and game.outcome.scores == (150, 0, 0)
    assert game.outcome.ranks == (0, 2, 1)


def test_the_default_target_is_500() -> None:
    assert rules().target_score == 500


def test_low_score_each_player_scores_the_points_left_in_their_own_hand() -> None:
    game = table("R1", SEAT1, SEAT2, starter="R7", rule_set=rules(scoring="low_score"))
    evs = game.apply(play(card("R1")))
    assert hand_ended(evs).points == (0, 71, 79)
    assert not game.is_over


def test_low_score_when_anyone_reaches_the_target_the_lowest_total_wins() -> None:
    game = table("R1", SEAT1, SEAT2, starter="R7",
                 rule_set=rules(scoring="low_score", target_score=75))
    game.apply(play(card("R1")))
    assert game.outcome is not None
    assert game.outcome.termination is Termination.TARGET_REACHED
    assert game.outcome.scores == (0, 71, 79) and game.outcome.ranks == (0, 1, 2)


def test_elimination_each_player_accumulates_their_own_points() -> None:
    game = table("R1", SEAT1, SEAT2, starter="R7", rule_set=rules(scoring="elimination"))
    evs = game.apply(play(card("R1")))
    assert hand_ended(evs).totals == (0, 71, 79) and not game.is_over


def test_elimination_a_player_reaching_the_target_is_eliminated() -> None:
    game = table("R1", SEAT1, SEAT2, starter="R7",
                 rule_set=rules(scoring="elimination", target_score=75))
    evs = game.apply(play(card("R1")))
    assert of_type(evs, events.PlayerEliminated) == [events.PlayerEliminated(2)]
    assert game.active_seats == [0, 1] and not game.is_over
    started = of_type(evs, events.HandStarted)[-1]
    assert started.active_seats == (0, 1) and started.hand_sizes == (7, 7, 0)
    assert game.hands[2] == [] and game.dealer in (0, 1)


def test_elimination_hands_go_on_until_one_player_remains() -> None:
    game = table("R1", SEAT1, SEAT2, starter="R7",
                 rule_set=rules(scoring="elimination", target_score=60))
    game.apply(play(card("R1")))
    assert game.outcome is not None
    assert game.outcome.termination is Termination.LAST_STANDING
    assert game.outcome.winners == (0,)
    assert game.outcome.ranks[0] < game.outcome.ranks[1] < game.outcome.ranks[2]


def test_a_dead_hand_scores_nothing_for_anyone() -> None:
    # Nobody can play and nothing can be drawn: a full round of passes ends it.
    game = table("G1 G2", "G3 G4", starter="R7", rule_set=rules(target_score=None))
    game.apply(DRAW)
    evs = game.apply(DRAW)
    ended = hand_ended(evs)
    assert ended.winner is None and ended.reason is events.HandEndReason.DEAD
    assert ended.points == (0, 0) and ended.totals == (0, 0)


def test_elimination_the_deal_passes_left_over_eliminated_seats() -> None:
    # Seat 0 (the dealer's left) is eliminated in hand 1; seat 3 dealt it, so hand 2
    # would go to seat 0 and goes to seat 1 instead.
    game = table("W W W+4", "R1", "Y1 Y2", "Y3 Y4", starter="R7", dealer=3,
                 rule_set=rules(scoring="elimination", target_score=100))
    assert game.decider == 0
    game.apply(play(card("W"), RED))
    game.apply(play(card("R1")))
    assert game.active_seats == [1, 2, 3] and game.dealer == 1


def test_in_every_later_hand_the_deal_passes_to_the_left() -> None:
    game = table("R1", "G1 G2", "B1 B2", starter="R7", dealer=2,
                 rule_set=rules(target_score=1000))
    game.apply(play(card("R1")))
    started = of_type(game.events, events.HandStarted)
    assert [e.dealer for e in started] == [2, 0]
    assert game.dealer == 0 and game.hand_number == 2


class LaidOutShuffle(random.Random):
    """Shuffles each later hand's deck so that its top cards are `tops` (top card
    first: dealt one at a time from the dealer's left, then the first face-up card)."""

    def __init__(self, *tops: str) -> None:
        super().__init__(0)
        self.tops = [cards(top) for top in tops]

    def shuffle(self, x: MutableSequence[Any]) -> None:
        top = self.tops.pop(0)
        rest = list(x)
        for c in top:
            rest.remove(c)
        x[:] = rest + list(reversed(top))


def test_at_the_hand_limit_more_points_rank_first_even_over_the_last_hands_winner() -> None:
    game = table("R1", "G9", starter="R7", dealer=1,
                 rule_set=rules(target_score=500, max_hands=2, hand_size=1))
    game.rng = LaidOutShuffle("Y5 B8 Y3")
    game.apply(play(card("R1")))  # seat 0 goes out: 9 points
    assert game.hand_number == 2 and game.hands == [[card("B8")], [card("Y5")]]
    game.apply(play(card("Y5")))  # seat 1 goes out: 8 points
    assert game.outcome is not None
    assert game.outcome.termination is Termination.HAND_LIMIT
    assert game.totals == [9, 8]
    assert game.outcome.ranks == (0, 1)
