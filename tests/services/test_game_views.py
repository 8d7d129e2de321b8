"""What each view of a stored game shows: the full view everything; the public view only
the events every seat sees (no seed, no actions, no decisions); a seats view the public
events with those seats' own private events and decisions, and nothing of any other
seat's cards. The game is a real one played by the engine and stored as the store keeps
it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from arena import wire
from arena.engine import RuleSet
from arena.engine import events as ev
from arena.engine.game import Game
from arena.engine.outcome import Outcome, Termination
from arena.engine.rules import DeckKind
from arena.record import Decision, DecisionOutcome, SeatTermination
from arena.services.game_views import (
    FULL,
    PUBLIC,
    GameView,
    NotInGame,
    ViewKind,
    bot_view,
    event_audience,
    show,
)
from arena.services.results import ResultsService
from arena.store import BotKind, GameSummary, Store, StoredGame

SEATS = ("alpha", "beta@2", "gamma")
SEED = 31


def played(seed: int = SEED) -> StoredGame:
    """A three-seat single hand played by the engine, each decision logged as answered."""
    game = Game.new(RuleSet(target_score=None), len(SEATS), seed)
    actions: list[dict[str, Any]] = []
    decisions = []
    while game.outcome is None:
        assert game.decider is not None
        decisions.append(Decision(game.decider, len(actions), len(game.events), 5,
                                  DecisionOutcome.ANSWERED, 0))
        action = game.legal_actions()[0]
        actions.append(wire.action_to_dict(action))
        game.apply(action)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    return StoredGame(
        id=1, tournament_id=None, scheduled_game_id=None, rules={"target_score": None},
        seed=seed, seats=SEATS, teams=None, outcome=game.outcome,
        seat_terminations=(SeatTermination.NORMAL,) * 3, rated=False, started_at=now,
        finished_at=now, forfeited_seat=None,
        events=tuple(wire.event_to_dict(e) for e in game.events), actions=tuple(actions),
        decisions=tuple(decisions))


def _decoded(events: tuple[object, ...]) -> list[ev.Event]:
    from arena.v1 import uno_pb2

    return [wire.event_from_proto(wire.dict_into(e, uno_pb2.Event()))  # type: ignore[arg-type]
            for e in events]


def test_the_full_view_is_the_whole_stored_game() -> None:
    game = played()
    shown = show(game, FULL)
    assert shown.full and shown.seed == SEED and shown.summary.seed == SEED
    assert (shown.events, shown.actions, shown.decisions) == (
        game.events, game.actions, game.decisions)
    assert shown.visible_seats == (0, 1, 2)


def test_the_public_view_has_no_private_event_of_any_seat_no_seed_and_no_decisions() -> None:
    game = played()
    shown = show(game, PUBLIC)
    assert not shown.full and shown.seed is None and shown.summary.seed == 0
    assert shown.actions == () and shown.decisions is None and shown.visible_seats == ()
    assert all(event_audience(e) is None for e in shown.events)
    assert len(shown.events) == sum(1 for e in game.events if event_audience(e) is None)
    assert not any(isinstance(e, ev.CardsReceived) for e in _decoded(shown.events))


@pytest.mark.parametrize("seats", [{0}, {1}, {0, 2}])
def test_a_seats_view_shows_exactly_those_seats_private_events_and_decisions(
        seats: set[int]) -> None:
    game = played()
    shown = show(game, GameView.of_seats(seats))
    assert not shown.full and shown.seed is None and shown.actions == ()
    assert shown.visible_seats == tuple(sorted(seats))
    expected = [e for e in game.events
                if (audience := event_audience(e)) is None or audience & seats]
    assert list(shown.events) == expected
    private = [e for e in _decoded(shown.events) if e.audience is not None]
    assert private and all(e.audience is not None and e.audience & seats for e in private)
    received = {e.seat for e in _decoded(shown.events) if isinstance(e, ev.CardsReceived)}
    assert received == seats, "every shown seat's cards, no other seat's"
    assert game.decisions is not None and shown.decisions is not None
    assert [d.number for d in shown.decisions] == [
        d.number for d in game.decisions if d.seat in seats]


def test_a_seats_view_places_each_decision_among_the_events_it_shows() -> None:
    game = played()
    shown = show(game, GameView.of_seats({1}))
    assert game.decisions is not None and shown.decisions is not None
    by_index = {d.number: d for d in game.decisions}
    for decision in shown.decisions:
        before_in_full = game.events[:by_index[decision.number].events_before]
        assert list(shown.events[:decision.events_before]) == [
            e for e in before_in_full
            if (audience := event_audience(e)) is None or 1 in audience]


def test_a_bot_s_view_is_its_seats_by_name_or_base_name_and_a_stranger_is_refused() -> None:
    game = played()
    assert bot_view(game, "alpha") == GameView(ViewKind.SEATS, frozenset({0}))
    assert bot_view(game, "beta") == GameView(ViewKind.SEATS, frozenset({1}))
    assert bot_view(game, "beta@2").seats == {1}
    with pytest.raises(NotInGame, match="delta did not play game 1"):
        bot_view(game, "delta")
    with pytest.raises(NotInGame):
        bot_view(game, "beta@1")


def test_a_game_stored_without_decisions_shows_none_in_any_view() -> None:
    from dataclasses import replace

    game = replace(played(), decisions=None)
    assert show(game, FULL).decisions is None
    assert show(game, GameView.of_seats({0})).decisions is None


def test_a_duplicate_deal_is_in_play_until_its_every_seating_is_recorded(
        tmp_path: Path) -> None:
    outcome = Outcome(Termination.SINGLE_HAND, (50, 0), (0, 1), hands_played=1)
    now = datetime(2026, 1, 1, tzinfo=UTC)

    def record(seats: tuple[str, ...], seed: int, scheduled: int | None = None
               ) -> GameSummary:
        return store.record_game(
            seats=seats, seed=seed, rules={"target_score": None}, outcome=outcome,
            seat_terminations=["normal", "normal"], events=[], actions=[], started_at=now,
            finished_at=now, scheduled_game_id=scheduled)

    with Store.open(tmp_path / "arena.db") as store:
        for name in ("alpha", "beta"):
            store.add_bot(name, BotKind.REMOTE)
        store.create_tournament(
            "dup", "round_robin", {"seed": 1}, {"target_score": None},
            games=[Slot(0, ("alpha", "beta"), seed=11), Slot(1, ("beta", "alpha"), seed=11),
                   Slot(2, ("alpha", "beta"), seed=12)])
        first, second, third = store.pending_games("dup")
        results = ResultsService(store)
        recorded = record(first.seats, 11, first.id)
        alone = record(third.seats, 12, third.id)
        outside = record(("alpha", "beta"), 11)
        assert results.deal_in_play(recorded), "its other seating is still to be played"
        assert not results.deal_in_play(alone)
        assert not results.deal_in_play(outside), "a game outside any tournament"
        record(second.seats, 11, second.id)
        assert not results.deal_in_play(recorded)


@dataclass(frozen=True)
class Slot:
    """A game of a schedule, as `Store.create_tournament` takes it."""

    game_index: int
    seats: tuple[str, ...]
    seed: int
    round: int = 1
    table: int = 1
    teams: tuple[tuple[int, ...], ...] | None = None


@pytest.mark.parametrize("rules", [
    RuleSet(target_score=None, seven_o=True, jump_in=True),
    RuleSet(target_score=None, deck=DeckKind.EDITION_2018, progressive=True),
], ids=["seven-o", "2018-deck"])
def test_a_seat_s_view_is_exactly_what_the_seat_was_sent_in_random_games(
        rules: RuleSet) -> None:
    import random

    private: set[type[ev.Event]] = set()
    for seed in range(3):
        players = 2 + seed % 3
        chooser = random.Random(seed)
        game = Game.new(rules, players, seed)
        while game.outcome is None:
            game.apply(chooser.choice(game.legal_actions()))
        now = datetime(2026, 1, 1, tzinfo=UTC)
        stored = StoredGame(
            id=seed, tournament_id=None, scheduled_game_id=None, rules=rules.to_dict(),
            seed=seed, seats=tuple(f"bot{n}" for n in range(players)), teams=None,
            outcome=game.outcome, seat_terminations=(SeatTermination.NORMAL,) * players,
            rated=False, started_at=now, finished_at=now, forfeited_seat=None,
            events=tuple(wire.event_to_dict(e) for e in game.events), actions=())
        for seat in range(players):
            shown = show(stored, GameView.of_seats({seat}))
            assert list(shown.events) == [
                wire.event_to_dict(e) for e in wire.events_for_seat(game.events, seat)]
        assert list(show(stored, PUBLIC).events) == [
            wire.event_to_dict(e) for e in wire.public_events(game.events)]
        private |= {type(e) for e in game.events if e.audience is not None}
    assert private == {ev.CardsReceived, ev.HandReplaced, ev.HandRevealed}, \
        "the games move and reveal hands"


def test_a_live_seating_of_a_duplicate_deal_is_shared_until_one_seating_is_left(
        tmp_path: Path) -> None:
    outcome = Outcome(Termination.SINGLE_HAND, (50, 0), (0, 1), hands_played=1)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    with Store.open(tmp_path / "arena.db") as store:
        for name in ("alpha", "beta"):
            store.add_bot(name, BotKind.REMOTE)
        store.create_tournament(
            "dup", "round_robin", {"seed": 1}, {"target_score": None},
            games=[Slot(0, ("alpha", "beta"), seed=11), Slot(1, ("beta", "alpha"), seed=11),
                   Slot(2, ("alpha", "beta"), seed=12)])
        first = store.pending_games("dup")[0]
        results = ResultsService(store)
        assert results.live_deal_shared("dup:0") and results.live_deal_shared("dup:1")
        assert not results.live_deal_shared("dup:2"), "a deal of one seating"
        assert not results.live_deal_shared("0123abcd"), "a game outside any schedule"
        assert not results.live_deal_shared("nope:3")
        store.record_game(
            seats=first.seats, seed=11, rules={"target_score": None}, outcome=outcome,
            seat_terminations=["normal", "normal"], events=[], actions=[], started_at=now,
            finished_at=now, scheduled_game_id=first.id)
        assert not results.live_deal_shared("dup:1"), "the last seating of its deal"
