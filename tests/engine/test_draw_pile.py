"""RULES.md section 8: the draw pile running out, dead hands and limits."""

from __future__ import annotations

import pytest

from arena.engine import ACCEPT, DRAW, KEEP, Game, Termination, events, play
from tests.engine.helpers import BLUE, card, hand, of_type, rules, table


def test_reshuffle_keeps_top_card() -> None:
    game = table("R1 R2 R3", "R4 R5 R6", "G1 G2 G3", starter="R7", draw="B1")
    game.apply(play(card("R1")))
    game.apply(play(card("R4")))
    game.apply(DRAW)                       # seat 2 takes the last card, B1
    assert game.draw_pile == []
    evs = game.apply(DRAW)                 # seat 0 must draw: the discard pile is reused
    assert of_type(evs, events.DeckReshuffled) == [events.DeckReshuffled(2)]
    assert game.discard_pile == [card("R4")]
    assert sorted(map(str, game.draw_pile + game.hands[0][-1:])) == ["R1", "R7"]
    assert game.card_count() == 11


def test_the_discard_pile_is_reshuffled_only_when_a_card_must_be_drawn() -> None:
    game = table("R1 R2 R3", "G4 G5 G6", "G1 G2 G3", starter="R7", draw="B1")
    game.apply(play(card("R1")))
    game.apply(DRAW)                       # seat 1 takes B1; the pile is now empty
    assert not of_type(game.events, events.DeckReshuffled)
    assert game.draw_pile == [] and len(game.discard_pile) == 2


def test_after_a_reshuffle_the_hand_goes_on_and_no_one_is_dealt_again() -> None:
    game = table("R1 R2 R3", "R4 R5 R6", starter="R7")
    game.apply(play(card("R1")))
    evs = game.apply(DRAW)                 # R7 comes back from the discard pile
    assert not of_type(evs, events.HandStarted)
    assert hand(game, 1) == "R4 R5 R6 R7" and game.hand_number == 1


def test_draw_that_cannot_be_met_yields_fewer_cards() -> None:
    # Only one card is left anywhere outside the hands and the top card.
    game = table("R1 R+2 R3", "G4 G5", "B4 B5 B6", starter="R7")
    game.apply(play(card("R1")))
    game.apply(DRAW)                       # seat 1 draws R7 back and keeps it
    game.apply(KEEP)
    game.apply(DRAW)                       # seat 2: nothing to draw, a pass
    evs = game.apply(play(card("R+2"), uno=True))
    assert of_type(evs, events.CardsDrawn) == [
        events.CardsDrawn(1, 1, events.DrawReason.DRAW_TWO)
    ]
    assert hand(game, 1) == "G4 G5 R7 R1" and game.decider == 2


def test_with_nothing_to_draw_a_player_who_can_play_must_play() -> None:
    game = table("R1 G2 G3", "G4 G5", starter="R7")
    assert DRAW not in game.legal_actions()
    assert game.legal_actions() == [play(card("R1"))]


def test_with_nothing_to_draw_a_player_who_cannot_play_passes_with_draw() -> None:
    game = table("G1 G2", "R4 G5", starter="R7")
    assert game.legal_actions() == [DRAW]
    evs = game.apply(DRAW)
    assert of_type(evs, events.CardsDrawn) == [events.CardsDrawn(0, 0, events.DrawReason.CHOICE)]
    assert game.decider == 1


def test_dead_hand_ends_with_no_winner() -> None:
    game = table("G1 G2", "B1 B2", "Y1 Y2", starter="R7",
                 rule_set=rules(target_score=None))
    game.apply(DRAW)
    game.apply(DRAW)
    assert not game.is_over              # a full round has not passed yet
    evs = game.apply(DRAW)
    ended = of_type(evs, events.HandEnded)[0]
    assert ended.winner is None and ended.reason is events.HandEndReason.DEAD
    assert ended.points == (0, 0, 0)
    assert game.outcome is not None and game.outcome.winners == (0, 1, 2)


def test_a_play_in_the_round_keeps_the_hand_alive() -> None:
    game = table("G1 G2", "B3 B4 R5", "Y3 Y4", starter="R7",
                 rule_set=rules(target_score=None))
    game.apply(DRAW)                # seat 0 passes: nothing to draw
    game.apply(play(card("R5")))    # seat 1 plays
    game.apply(DRAW)                # seat 2 draws R7 back from the discard pile
    game.apply(KEEP)
    game.apply(DRAW)                # seat 0 passes
    game.apply(DRAW)                # seat 1 passes
    assert not game.is_over
    assert game.legal_actions() == [play(card("R7"))]


def test_a_hand_passing_the_turn_limit_ends_with_no_winner() -> None:
    game = table("R1 R2 R3 R4", "R5 R6 R7 R8", starter="R9",
                 rule_set=rules(target_score=None, max_turns_per_hand=3))
    game.apply(play(card("R1")))
    game.apply(play(card("R5")))
    evs = game.apply(play(card("R2")))
    ended = of_type(evs, events.HandEnded)[0]
    assert ended.winner is None and ended.reason is events.HandEndReason.TURN_LIMIT
    assert ended.points == (0, 0)


def test_a_game_passing_the_hand_limit_ends() -> None:
    game = table("R1", "G1 G2", starter="R7", rule_set=rules(max_hands=1))
    game.apply(play(card("R1")))
    assert game.outcome is not None and game.outcome.termination is Termination.HAND_LIMIT
    assert game.outcome.winners == (0,)


@pytest.mark.parametrize("players", [2, 5])
def test_nothing_loops_forever_even_when_everyone_keeps_every_card(players: int) -> None:
    game = Game.new(rules(max_hands=3), players, seed=11)
    for _ in range(100_000):
        if game.is_over:
            break
        legal = game.legal_actions()
        game.apply(KEEP if KEEP in legal else DRAW if DRAW in legal else legal[0])
    assert game.is_over


def test_a_discard_pile_of_only_its_top_card_is_not_reshuffled() -> None:
    game = table("G1 G2", "R4 G5", starter="R7")
    evs = game.apply(DRAW)                 # nothing to draw, and nothing to reshuffle
    assert not of_type(evs, events.DeckReshuffled)
    assert game.discard_pile == [card("R7")] and game.draw_pile == []


def test_a_full_round_of_passes_after_the_last_card_played_ends_the_hand() -> None:
    game = table("W+4 G1 G2", "G3 G4", starter="R7", rule_set=rules(target_score=None))
    game.apply(play(card("W+4"), BLUE))
    evs = game.apply(ACCEPT)               # seat 1 can only draw R7 back, and is skipped
    assert of_type(evs, events.CardsDrawn) == [
        events.CardsDrawn(1, 1, events.DrawReason.DRAW_FOUR)
    ]
    game.apply(DRAW)                       # seat 0 passes: nothing to draw
    assert not game.is_over                # seat 1 has not had its turn since the play
    evs = game.apply(DRAW)                 # seat 1 passes too: a full round
    assert of_type(evs, events.HandEnded)[0].reason is events.HandEndReason.DEAD


def test_a_full_round_of_passes_after_the_last_card_drawn_ends_the_hand() -> None:
    game = table("G1 G2", "G3 G4", starter="R7", draw="B9", rule_set=rules(target_score=None))
    game.apply(DRAW)                       # seat 0 draws B9, the last card, and cannot play
    game.apply(DRAW)                       # seat 1 passes: nothing to draw
    assert not game.is_over                # seat 0 has not had its turn since its draw
    evs = game.apply(DRAW)                 # seat 0 passes too: a full round
    assert of_type(evs, events.HandEnded)[0].reason is events.HandEndReason.DEAD
