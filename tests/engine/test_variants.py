"""RULES.md section 9: the official variants — two players, partners, and four
players scoring individually head to head (the eight-player partner schedule is
the tournament layer's, not the engine's) — and the 2018 deck's hand-swapping
cards of section 1 (Swap Hands edition, Customizable)."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from arena.engine import Game, RuleSetError, Termination, events, play
from tests.engine.helpers import BLUE, RED, YELLOW, card, hand, of_type, rules, table

PARTNERS = rules(scoring="partners")


def test_two_players_need_no_setting_for_the_two_player_rules() -> None:
    game = table("RS R1 R2", "Y1 Y2 Y3", starter="R7", rule_set=rules())
    game.apply(play(card("RS")))
    assert game.decider == 0
    # a Reverse is where two players differ from more: it acts as a Skip
    game = table("RR R1 R2", "Y1 Y2 Y3", starter="R7", rule_set=rules())
    evs = game.apply(play(card("RR")))
    assert game.decider == 0
    assert of_type(evs, events.TurnSkipped) == [events.TurnSkipped(1)]


def test_partners_are_the_players_opposite_each_other() -> None:
    game = Game.new(PARTNERS, 4, seed=1)
    assert game.teams == (0, 1, 0, 1)
    assert game.view(3).teams == (0, 1, 0, 1)
    assert Game.new(rules(), 4, seed=1).teams is None


@pytest.mark.parametrize("players", [2, 3, 5, 8])
def test_partners_need_exactly_four_players(players: int) -> None:
    with pytest.raises(RuleSetError, match="scoring"):
        Game.new(PARTNERS, players, seed=0)


def test_when_either_partner_goes_out_the_team_scores_both_opponents_hands() -> None:
    # Seat 2 goes out; opponents 1 and 3 hold 12 + 24 points; partner 0's 53 do not count.
    game = table("W Y1 Y2", "B9 Y3", "R1", "GS Y4", starter="R7", dealer=1,
                 rule_set=PARTNERS.with_changes(target_score=None))
    assert game.decider == 2
    evs = game.apply(play(card("R1")))
    ended = of_type(evs, events.HandEnded)[0]
    assert ended.winner == 2
    assert ended.points == (36, 0, 36, 0)
    assert game.outcome is not None and game.outcome.winners == (0, 2)


def test_partners_reaching_the_target_win_together() -> None:
    game = table("W Y1 Y2", "B9 Y3", "R1", "GS Y4", starter="R7", dealer=1,
                 rule_set=PARTNERS.with_changes(target_score=30))
    game.apply(play(card("R1")))
    assert game.outcome is not None
    assert game.outcome.termination is Termination.TARGET_REACHED
    assert game.outcome.scores == (36, 0, 36, 0) and game.outcome.ranks == (0, 2, 0, 2)


def test_partners_do_not_see_each_others_cards() -> None:
    game = Game.new(PARTNERS, 4, seed=5)
    partner_cards = of_type(game.events, events.CardsReceived)
    assert {e.seat: e.audience for e in partner_cards}[2] == frozenset({2})
    view = game.view(0)
    assert view.hand == tuple(game.hands[0]) and view.revealed == ()
    assert view.hand_sizes[2] == 7


def test_individual_scoring_needs_four_players_and_plays_12_hands_by_default() -> None:
    assert rules(scoring="individual").individual_hands == 12
    with pytest.raises(RuleSetError, match="scoring"):
        Game.new(rules(scoring="individual"), 3, seed=0)


def test_individual_the_winner_of_a_hand_scores_against_each_other_player() -> None:
    game = table("R1", "B9 Y3", "W", "GS Y4", starter="R7",
                 rule_set=rules(scoring="individual", individual_hands=1))
    game.apply(play(card("R1")))
    assert game.pair_points[0] == [0, 12, 50, 24]
    assert game.outcome is not None
    assert game.outcome.termination is Termination.HANDS_COMPLETED
    assert game.outcome.scores == (3, 0, 0, 0)   # head-to-head contests won
    assert game.outcome.winners == (0,)


def test_individual_the_player_who_wins_the_most_head_to_head_contests_wins() -> None:
    game = Game.new(rules(scoring="individual", individual_hands=6), 4, seed=3)
    rng = random.Random(3)
    while not game.is_over:
        legal = game.legal_actions()
        plays = [a for a in legal if a.card is not None]
        game.apply(rng.choice(plays or legal))
    against = [[0] * 4 for _ in range(4)]
    for ended in of_type(game.events, events.HandEnded):
        if ended.winner is not None:
            for seat, left in enumerate(ended.cards_left):
                against[ended.winner][seat] += sum(c.points for c in left)
    contests = [0] * 4
    for a, b in combinations(range(4), 2):
        if against[a][b] > against[b][a]:
            contests[a] += 1
        elif against[b][a] > against[a][b]:
            contests[b] += 1
    assert game.outcome is not None and game.outcome.hands_played == 6
    assert game.outcome.scores == tuple(contests)
    best = max(contests)
    assert set(game.outcome.winners) <= {s for s in range(4) if contests[s] == best}


def test_swap_hands_edition_of_shuffle_hands_swaps_with_a_chosen_player() -> None:
    game = table("WSH R1 R2", "G1 G2 G3", "B1", starter="R9",
                 rule_set=rules(deck="2018", shuffle_hands_card="swap"))
    assert play(card("WSH"), RED) not in game.legal_actions()  # a target is required
    evs = game.apply(play(card("WSH"), YELLOW, target=2))
    assert of_type(evs, events.HandsSwapped) == [events.HandsSwapped(0, 2)]
    assert hand(game, 0) == "B1" and hand(game, 2) == "R1 R2"
    assert game.active_color is YELLOW and game.decider == 1


def test_customizable_card_swaps_hands_with_a_chosen_player_and_declares_the_colour() -> None:
    game = table("WC R1 R2", "G1 G2 G3", "B1", starter="R9", rule_set=rules(deck="2018"))
    targets = {a.target for a in game.legal_actions() if a.card == card("WC")}
    assert targets == {1, 2}
    evs = game.apply(play(card("WC"), BLUE, target=1))
    assert of_type(evs, events.HandsSwapped) == [events.HandsSwapped(0, 1)]
    assert hand(game, 0) == "G1 G2 G3" and hand(game, 1) == "R1 R2"
    assert game.active_color is BLUE and game.decider == 1
    assert [e.audience for e in of_type(evs, events.HandReplaced)] == [
        frozenset({0}), frozenset({1})
    ]


def test_individual_players_with_as_many_contests_won_are_ranked_by_points_scored() -> None:
    tied_pairs = 0
    for seed in range(30):
        game = Game.new(rules(scoring="individual", individual_hands=4), 4, seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            legal = game.legal_actions()
            plays = [a for a in legal if a.card is not None]
            game.apply(rng.choice(plays or legal))
        assert game.outcome is not None
        contests, ranks = game.outcome.scores, game.outcome.ranks
        for a, b in combinations(range(4), 2):
            if contests[a] == contests[b] and game.totals[a] != game.totals[b]:
                tied_pairs += 1
                more, fewer = (a, b) if game.totals[a] > game.totals[b] else (b, a)
                assert ranks[more] < ranks[fewer], (seed, contests, game.totals, ranks)
    assert tied_pairs >= 10
