"""RULES.md section 4: what Skip, Reverse, Draw Two, Wild and Wild Draw Four do,
with three or more players and with exactly two."""

from __future__ import annotations

from arena.engine import ACCEPT, CHALLENGE, DRAW, Phase, Rank, events, play
from tests.engine.helpers import BLUE, FILL, GREEN, card, hand, of_type, rules, table


def test_skip_makes_the_next_player_lose_their_turn() -> None:
    game = table("RS R1 R2", FILL, FILL, FILL, starter="R7")
    evs = game.apply(play(card("RS")))
    assert of_type(evs, events.TurnSkipped) == [events.TurnSkipped(1)]
    assert game.decider == 2


def test_reverse_changes_the_direction_of_play() -> None:
    game = table("RR R1 R2", FILL, FILL, FILL, starter="R7")
    evs = game.apply(play(card("RR")))
    assert of_type(evs, events.DirectionChanged) == [events.DirectionChanged(-1)]
    assert game.direction == -1 and game.decider == 3


def test_a_second_reverse_turns_play_back_again() -> None:
    game = table("RR R1 R2", FILL, FILL, "GR G1 G2", starter="R7")
    game.apply(play(card("RR")))
    game.apply(play(card("GR")))
    assert game.direction == 1 and game.decider == 0


def test_draw_two_next_player_draws_two_and_loses_their_turn() -> None:
    game = table("R+2 R1 R2", FILL, FILL, starter="R7", draw="B8 B9")
    evs = game.apply(play(card("R+2")))
    drawn = of_type(evs, events.CardsDrawn)
    assert drawn == [events.CardsDrawn(1, 2, events.DrawReason.DRAW_TWO)]
    assert hand(game, 1) == "Y1 Y2 Y3 B8 B9"
    assert of_type(evs, events.TurnSkipped) == [events.TurnSkipped(1)]
    assert game.decider == 2


def test_draw_two_cannot_be_answered_with_a_draw_two_in_the_official_game() -> None:
    game = table("R+2 R1 R2", "B+2 G+2 Y1", FILL, starter="R7", draw="B8 B9")
    game.apply(play(card("R+2")))
    assert hand(game, 1) == "B+2 G+2 Y1 B8 B9"  # drew at once, no chance to answer
    assert game.decider == 2


def test_a_later_player_may_play_a_draw_two_on_a_draw_two_in_their_normal_turn() -> None:
    game = table("R+2 R1 R2", FILL, "B+2 G1 G2", FILL, starter="R7", draw="B8 B9 B6 B7")
    game.apply(play(card("R+2")))
    assert game.decider == 2
    game.apply(play(card("B+2")))
    assert hand(game, 3) == "Y1 Y2 Y3 B6 B7" and game.decider == 0


def test_wild_declares_the_colour_and_play_moves_on() -> None:
    game = table("W R1 R2", FILL, FILL, starter="R7")
    game.apply(play(card("W"), GREEN))
    assert game.active_color is GREEN and game.decider == 1


def test_wild_draw_four_next_player_draws_four_and_loses_their_turn() -> None:
    game = table("W+4 G1 G2", FILL, FILL, starter="R7", draw="B1 B2 B3 B4")
    game.apply(play(card("W+4"), BLUE))
    assert game.phase is Phase.CHALLENGE and game.decider == 1
    assert game.legal_actions() == [CHALLENGE, ACCEPT]
    evs = game.apply(ACCEPT)
    assert of_type(evs, events.ChallengeDeclined) == [events.ChallengeDeclined(1)]
    assert of_type(evs, events.CardsDrawn) == [
        events.CardsDrawn(1, 4, events.DrawReason.DRAW_FOUR)
    ]
    assert hand(game, 1) == "Y1 Y2 Y3 B1 B2 B3 B4"
    assert game.decider == 2 and game.active_color is BLUE


def test_two_player_reverse_lets_the_player_play_again() -> None:
    game = table("RR R1 R2", FILL, starter="R7")
    evs = game.apply(play(card("RR")))
    assert of_type(evs, events.TurnSkipped) == [events.TurnSkipped(1)]
    assert game.decider == 0 and game.phase is Phase.PLAY


def test_two_player_skip_lets_the_player_play_again() -> None:
    game = table("RS R1 R2", FILL, starter="R7")
    game.apply(play(card("RS")))
    assert game.decider == 0


def test_two_player_draw_two_opponent_draws_and_the_player_plays_again() -> None:
    game = table("R+2 R1 R2", FILL, starter="R7", draw="B8 B9")
    game.apply(play(card("R+2")))
    assert hand(game, 1) == "Y1 Y2 Y3 B8 B9"
    assert game.decider == 0 and game.phase is Phase.PLAY


def test_two_player_wild_draw_four_opponent_draws_and_the_player_plays_again() -> None:
    game = table("W+4 G1 G2", FILL, starter="R7", draw="B1 B2 B3 B4")
    game.apply(play(card("W+4"), GREEN))
    game.apply(ACCEPT)
    assert len(game.hands[1]) == 7
    assert game.decider == 0 and game.phase is Phase.PLAY


def test_two_player_rules_apply_once_elimination_leaves_two_players() -> None:
    # Seat 2 is eliminated after hand 1; in hand 2 a Reverse acts as a Skip.
    rule_set = rules(scoring="elimination", target_score=10, choose_first_dealer=False)
    game = table("R1", "Y1 Y2", "WSH W", starter="R7", rule_set=rule_set.with_changes(
        deck="2018"))
    game.apply(play(card("R1")))
    assert game.active_seats == [0, 1] and game.hand_number == 2
    two = game.view(0)
    assert two.hand_sizes[2] == 0
    # The hand is dealt to seats 0 and 1 only; play it until a Reverse shows the
    # two-player rule (a Skip would look the same either way), using the first legal
    # action otherwise.
    while not game.is_over and game.hand_number == 2:
        legal = game.legal_actions()
        special = [a for a in legal if a.card is not None and a.card.rank is Rank.REVERSE
                   and len(game.hands[game.decider or 0]) > 2]
        if special:
            seat = game.decider
            evs = game.apply(special[0])
            while game.phase is Phase.JUMP_IN or game.phase is Phase.CATCH_WINDOW:
                evs += game.apply(game.legal_actions()[-1])
            assert of_type(evs, events.DirectionChanged) == []
            assert of_type(evs, events.TurnSkipped) == [events.TurnSkipped(1 - (seat or 0))]
            assert game.decider == seat
            return
        game.apply(legal[0] if legal[0] is not DRAW else legal[-1])
    raise AssertionError("no Reverse came up")
