"""A report's replay frames: the board a spectator sees after each public event.

Seeded random games under several rule sets are replayed into frames, and each
step's last frame is checked against the engine's own state after that step.
"""

from __future__ import annotations

import functools
import random
from typing import Any, NamedTuple

import pytest

from arena import wire
from arena.engine import Game, RuleSet
from arena.engine import events as ev
from arena.record import GameRecord, ReplayMismatchError, SeatTermination
from arena.report.replay import Frame, frames

RULE_SETS: dict[str, dict[str, Any]] = {
    "official single hands": {"target_score": None},
    "seven-o and jump-in": {"target_score": None, "seven_o": True, "jump_in": True},
    "progressive, 2018 deck": {"target_score": None, "progressive": True, "deck": "2018"},
    "2018 deck, swap hands": {"target_score": None, "deck": "2018",
                              "shuffle_hands_card": "swap"},
    "elimination": {"target_score": 60, "scoring": "elimination"},
    "partners": {"target_score": 150, "scoring": "partners"},
}
SEEDS = range(5)


def random_game(rules: RuleSet, players: int, seed: int,
                forfeit_after: int | None = None) -> tuple[GameRecord, list[State]]:
    """A game of random legal actions, its record, and a copy of the engine after every
    step (the deal, each action, the forfeit if any)."""
    chooser = random.Random(seed)
    game = Game.new(rules, players, seed)
    states = [_snapshot(game)]
    while not game.is_over and (forfeit_after is None or len(game.actions) < forfeit_after):
        game.apply(chooser.choice(game.legal_actions()))
        states.append(_snapshot(game))
    forfeited = None
    if not game.is_over:
        forfeited = chooser.randrange(players)
        game.forfeit(forfeited)
        states.append(_snapshot(game))
    assert game.outcome is not None
    record = GameRecord(rules=rules, seed=seed, seats=tuple(f"bot{s}" for s in range(players)),
                        actions=tuple(game.actions), outcome=game.outcome,
                        seat_terminations=(SeatTermination.NORMAL,) * players,
                        forfeited_seat=forfeited)
    return record, states


class State(NamedTuple):
    """What the engine held after one step, as far as the board shows it."""

    hand_sizes: tuple[int, ...]
    top: str | None
    color: str | None
    direction: int
    decider: int | None


def _snapshot(game: Game) -> State:
    top, colour = game.top_card, game.active_color
    return State(tuple(len(hand) for hand in game.hands), None if top is None else top.short(),
                 None if colour is None else colour.value, game.direction, game.decider)


@functools.cache
def played(name: str, seed: int) -> tuple[GameRecord, list[State], list[Frame]]:
    """A random game under the rule set `name`, the engine after each step, and its
    frames (made once for all the tests that look at them)."""
    record, states = random_game(RuleSet.from_dict(RULE_SETS[name]), _players(name), seed)
    return record, states, frames(record)


def _last_frame_of_each_step(shown: list[Frame]) -> dict[int, Frame]:
    return {frame.step: frame for frame in shown}


def _players(name: str) -> int:
    return 4 if name == "partners" else 3


@pytest.mark.parametrize("name", RULE_SETS)
def test_each_steps_board_shows_the_engines_hand_sizes_top_card_colour_and_direction(
        name: str) -> None:
    checked = 0
    for seed in SEEDS:
        _, states, shown = played(name, seed)
        for step, frame in _last_frame_of_each_step(shown).items():
            state = states[step]
            assert (frame.hand_counts, frame.top, frame.color, frame.direction) == \
                (state.hand_sizes, state.top, state.color, state.direction), (seed, step)
            checked += 1
    assert checked > 100 * len(SEEDS)


@pytest.mark.parametrize("name", RULE_SETS)
def test_the_seat_to_act_is_the_engines_decider_after_the_step(name: str) -> None:
    for seed in SEEDS:
        _, states, shown = played(name, seed)
        for frame in shown:
            assert frame.to_act == states[frame.step].decider


def test_there_is_one_frame_for_each_public_event_and_none_for_a_private_one() -> None:
    record, _ = random_game(RuleSet.from_dict(RULE_SETS["seven-o and jump-in"]), 3, 7)
    every = record.replay_events()
    shown = frames(record)
    assert len(shown) == len(wire.public_events(every))
    assert len(shown) < len(every), "the deal's private events are left out"


def test_cards_in_a_hand_are_shown_only_when_a_hand_ends_and_then_as_it_ended() -> None:
    record, _ = random_game(RuleSet.from_dict({"target_score": 200}), 3, 3)
    public = wire.public_events(record.replay_events())
    endings = [e for e in public if isinstance(e, ev.HandEnded)]
    assert len(endings) > 1
    for event, frame in zip(public, frames(record), strict=True):
        if isinstance(event, ev.HandEnded):
            assert frame.revealed == tuple(tuple(c.short() for c in cards)
                                           for cards in event.cards_left)
        else:
            assert frame.revealed == ()


def test_the_scores_on_the_board_are_the_totals_after_each_hand() -> None:
    record, _ = random_game(RuleSet.from_dict({"target_score": 200}), 3, 3)
    public = wire.public_events(record.replay_events())
    totals: tuple[int, ...] = (0, 0, 0)
    for event, frame in zip(public, frames(record), strict=True):
        if isinstance(event, ev.HandEnded):
            totals = event.totals
        if isinstance(event, ev.GameEnded):
            totals = event.scores
        assert frame.totals == totals


def test_a_forfeited_game_ends_with_the_forfeit_and_nobody_to_act() -> None:
    record, _ = random_game(RuleSet.from_dict({"target_score": None}), 3, 5, forfeit_after=10)
    assert record.forfeited_seat is not None
    shown = frames(record)
    assert shown[-1].step == len(record.actions) + 1
    assert shown[-1].text.startswith("game over (forfeit)")
    assert shown[-1].to_act is None


def test_a_record_whose_actions_are_not_legal_does_not_replay() -> None:
    record, _ = random_game(RuleSet.from_dict({"target_score": None}), 3, 5)
    broken = GameRecord(rules=record.rules, seed=record.seed + 1, seats=record.seats,
                        actions=record.actions, outcome=record.outcome,
                        seat_terminations=record.seat_terminations)
    with pytest.raises(ReplayMismatchError):
        frames(broken)


def test_a_record_whose_outcome_is_not_the_replays_does_not_replay() -> None:
    record, _ = random_game(RuleSet.from_dict({"target_score": None}), 3, 5)
    other = record.outcome
    wrong = type(other)(other.termination, tuple(reversed(other.scores)),
                        tuple(reversed(other.ranks)), other.hands_played)
    assert wrong != other
    broken = GameRecord(rules=record.rules, seed=record.seed, seats=record.seats,
                        actions=record.actions, outcome=wrong,
                        seat_terminations=record.seat_terminations)
    with pytest.raises(ReplayMismatchError, match="the replay ends with"):
        frames(broken)
