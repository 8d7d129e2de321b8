"""The game board: public events folded into what a spectator knows, and drawn as lines."""

from __future__ import annotations

import io
import random

import pytest

from arena.cli.board import Board, Decision, board_lines, frame, replay_steps, show_replay
from arena.cli.screen import (
    CLEAR_SCREEN,
    HIDE_CURSOR,
    HOME,
    SHOW_CURSOR,
    Screen,
    clip,
    strip_escapes,
    visible_width,
)
from arena.engine import OFFICIAL, Card, Color, Game, Phase, Rank, RuleSet, cards
from arena.engine import events as ev
from arena.engine.rules import DeckKind

NAMES = ("ann", "bob", "cat")


def started(sizes: tuple[int, ...] = (7, 7, 7), dealer: int = 2) -> Board:
    """A board of three seats whose first hand was dealt, R5 turned up, ann to play."""
    board = Board.for_players(NAMES)
    board.fold([ev.HandStarted(1, dealer, sizes, tuple(range(len(sizes)))),
                ev.FirstCard(card("R5"), 0, 1)])
    return board


def hand(text: str) -> tuple[Card, ...]:
    return tuple(cards(text))


def card(text: str) -> Card:
    [one] = cards(text)
    return one


# ------------------------------------------------------------------- the model

def test_a_dealt_hand_gives_each_seat_its_card_count_and_the_first_card_tops_the_pile() -> None:
    board = started((7, 6, 5))
    assert [s.cards for s in board.seats] == [7, 6, 5]
    assert (board.top, board.color, board.hand_number, board.dealer) == \
        (card("R5"), Color.RED, 1, 2)
    assert board.pending == Decision(0, Phase.PLAY)


def test_a_played_card_leaves_its_seat_tops_the_pile_and_passes_the_turn_on() -> None:
    board = started()
    board.apply(ev.CardPlayed(0, card("G5"), Color.GREEN, uno=False))
    assert board.seats[0].cards == 6
    assert (board.top, board.color, board.turn) == (card("G5"), Color.GREEN, 1)


def test_a_wild_sets_the_colour_its_player_names() -> None:
    board = started()
    board.apply(ev.CardPlayed(0, Card(Rank.WILD), Color.BLUE, uno=False))
    assert (board.top, board.color) == (Card(Rank.WILD), Color.BLUE)


def test_drawn_cards_join_the_drawing_seats_count() -> None:
    board = started()
    board.apply(ev.CardsDrawn(0, 3, ev.DrawReason.CHOICE))
    assert board.seats[0].cards == 10
    assert board.pending == Decision(0, Phase.PLAY_DRAWN)


def test_a_reverse_turns_play_around_to_the_seat_before() -> None:
    board = started()
    board.fold([ev.CardPlayed(1, card("RR"), Color.RED, uno=False), ev.DirectionChanged(-1)])
    assert (board.direction, board.turn) == (-1, 0)


def test_a_skipped_seat_passes_the_turn_to_the_one_after_it() -> None:
    board = started()
    board.fold([ev.CardPlayed(0, card("RS"), Color.RED, uno=False), ev.TurnSkipped(1)])
    assert board.turn == 2


def test_a_wild_draw_four_asks_the_next_seat_to_challenge() -> None:
    board = started()
    board.apply(ev.CardPlayed(0, Card(Rank.WILD_DRAW_FOUR), Color.GREEN, uno=False))
    assert board.pending == Decision(1, Phase.CHALLENGE)
    assert board.draw_owed == 4


def test_one_card_left_without_uno_opens_the_catch_window() -> None:
    board = started((2, 7, 7))
    board.apply(ev.CardPlayed(0, card("R7"), Color.RED, uno=False))
    assert board.pending == Decision(0, Phase.CATCH_WINDOW)
    assert not board.seats[0].uno


def test_swapped_hands_swap_their_counts() -> None:
    board = started((3, 7, 5))
    board.apply(ev.HandsSwapped(0, 2))
    assert [s.cards for s in board.seats] == [5, 7, 3]


def test_rotated_hands_pass_their_counts_in_the_direction_given() -> None:
    board = started((3, 7, 5))
    board.apply(ev.HandsRotated(-1))
    assert [s.cards for s in board.seats] == [7, 5, 3]


def test_an_ended_hand_sets_the_totals_as_scores_and_leaves_no_turn() -> None:
    board = started()
    board.apply(ev.HandEnded(1, 0, ev.HandEndReason.WENT_OUT, (40, 0, 0), (40, 0, 0),
                             ((), hand("R1 G2"), hand("B9"))))
    assert [(s.score, s.cards) for s in board.seats] == [(40, 0), (0, 2), (0, 1)]
    assert board.turn is None and board.pending is None


def test_private_events_change_nothing_on_the_board() -> None:
    board = started()
    before = [(s.cards, s.hand) for s in board.seats]
    board.fold([ev.CardsReceived(0, hand("R1 R2")), ev.HandReplaced(1, hand("G1"))])
    assert [(s.cards, s.hand) for s in board.seats] == before
    assert board.events_seen == 2


def test_an_exact_decision_overrides_the_one_the_events_suggest() -> None:
    board = started()
    board.apply(ev.CardsDrawn(0, 1, ev.DrawReason.CHOICE))
    board.await_decision(1, Phase.PLAY)
    assert (board.turn, board.pending) == (1, Decision(1, Phase.PLAY))


ONE_HAND = OFFICIAL.with_changes(target_score=None)

RULE_SETS = {
    "official": OFFICIAL.with_changes(target_score=200),
    "house rules": ONE_HAND.with_changes(seven_o=True, jump_in=True, progressive=True,
                                         deck=DeckKind.EDITION_2018),
}


@pytest.mark.parametrize("rules", RULE_SETS.values(), ids=RULE_SETS.keys())
def test_the_board_agrees_with_the_engine_after_every_action_of_random_games(
        rules: RuleSet) -> None:
    for seed in range(20):
        rng = random.Random(seed)
        seats = 2 + seed % 3
        game = Game.new(rules, seats, seed)
        board = Board.for_players([f"p{i}" for i in range(seats)])
        board.fold(game.events)
        while not game.is_over:
            board.fold(game.apply(rng.choice(game.legal_actions())))
            assert [s.cards for s in board.seats] == [len(h) for h in game.hands], seed
            assert (board.top, board.direction) == (game.top_card, game.direction), seed
            assert board.hand_number == game.hand_number
            if game.phase is not Phase.CHOOSE_COLOR:
                assert board.color == game.active_color, seed
            if not game.is_over:
                assert [s.score for s in board.seats] == game.totals
        assert game.outcome is not None and board.ended is not None
        assert [s.score for s in board.seats] == list(game.outcome.scores)


def test_the_turn_the_events_give_is_the_engines_when_a_card_was_played_last() -> None:
    agreed = compared = 0
    for seed in range(30):
        rng = random.Random(seed)
        game = Game.new(ONE_HAND, 3, seed)
        board = Board.for_players(NAMES)
        board.fold(game.events)
        while not game.is_over:
            public = [e for e in game.apply(rng.choice(game.legal_actions()))
                      if e.audience is None]
            board.fold(public)
            if game.phase is Phase.PLAY and public and isinstance(
                    public[-1], ev.CardPlayed | ev.TurnSkipped | ev.CardKept):
                compared += 1
                agreed += board.turn == game.decider
    assert compared > 5000
    assert agreed == compared


# ---------------------------------------------------------------- rendering

def test_the_board_shows_seats_counts_scores_turn_top_card_and_decision() -> None:
    board = started((7, 6, 5))
    text = "\n".join(board_lines(board, "game 9", color=False))
    assert "game 9 · hand 1 · dealer cat · play goes clockwise →" in text
    assert "  ▶ ann       7      0" in text
    assert "    bob       6      0" in text
    assert "top card  R5   colour to match  red" in text
    assert "waiting for ann to play a card or draw" in text
    assert "first card R5; ann starts" in text


def test_the_board_colours_the_cards_unless_told_not_to() -> None:
    board = started()
    coloured = "\n".join(board_lines(board, "game 9", color=True))
    plain = "\n".join(board_lines(board, "game 9", color=False))
    assert "\x1b[31m\x1b[1mR5\x1b[0m" in coloured
    assert "\x1b[" not in plain
    assert strip_escapes(coloured) == plain


def test_a_finished_game_shows_its_winner_and_final_scores() -> None:
    board = started()
    board.fold([ev.HandEnded(1, 1, ev.HandEndReason.WENT_OUT, (0, 90, 0), (0, 90, 0),
                             (hand("R1"), (), hand("B9"))),
                ev.GameEnded((1,), (0, 90, 0), (1, 0, 1), "target_reached")])
    lines = board_lines(board, "game 9", color=False)
    assert "    bob       0     90  wins" in lines
    assert "  game over (target reached): bob wins" in lines


def test_a_frame_keeps_only_the_events_a_short_terminal_has_room_for() -> None:
    board = started()
    for _ in range(10):
        board.apply(ev.CardsDrawn(0, 1, ev.DrawReason.CHOICE))
    screen = Screen(io.StringIO())
    screen.size = lambda: (80, 16)  # type: ignore[method-assign]
    lines = frame(board, "game 9", screen, color=False)
    assert len(lines) <= 15
    assert lines[-1] == "  ann draws 1 card"


def test_a_replay_on_the_board_ends_with_the_stored_result() -> None:
    game = Game.new(ONE_HAND, 2, 5)
    rng = random.Random(5)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    stream = io.StringIO()
    with Screen(stream) as screen:
        show_replay(replay_steps(ONE_HAND, 2, 5, game.actions), ["ann", "bob"], "game 1",
                    screen, color=False, delay=0)
    assert screen.frames == len(game.actions) + 1
    last = stream.getvalue().rsplit(HOME, 1)[1]
    assert game.outcome is not None
    assert f"{max(game.outcome.scores):>5}  wins" in last


# ------------------------------------------------------------------ the screen

def test_clip_cuts_visible_columns_and_keeps_escapes_whole() -> None:
    text = "ab\x1b[31mcdef\x1b[0m"
    cut = clip(text, 4)
    assert strip_escapes(cut) == "abcd"
    assert cut.endswith("\x1b[0m") and visible_width(cut) == 4
    assert clip("short", 10) == "short"


def test_a_screen_draws_each_frame_from_the_top_and_never_scrolls() -> None:
    stream = io.StringIO()
    with Screen(stream) as screen:
        screen.size = lambda: (20, 5)  # type: ignore[method-assign]
        screen.draw(["one", "two"])
        screen.draw([f"line {i}" for i in range(10)])
    written = stream.getvalue()
    assert written.startswith(HIDE_CURSOR + CLEAR_SCREEN + HOME)
    assert written.count(HOME) == 2 and written.count(CLEAR_SCREEN) == 1
    assert written.rsplit(HOME, 1)[1].count("\n") == 4, "one line left for the cursor"
    assert written.endswith(SHOW_CURSOR)


def test_a_screen_that_drew_nothing_leaves_the_terminal_alone() -> None:
    stream = io.StringIO()
    with Screen(stream):
        pass
    assert stream.getvalue() == ""


def test_a_board_without_names_names_the_seats_a_deal_shows() -> None:
    board = Board.for_players([])
    board.fold([ev.HandStarted(1, 0, (7, 7), (0, 1)), ev.FirstCard(card("G2"), 1, 1)])
    assert [s.name for s in board.seats] == ["seat 0", "seat 1"]
    assert board.turn == 1
