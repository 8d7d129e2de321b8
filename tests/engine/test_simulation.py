"""Seeded random games under every rule set, checking invariants at every step.

Each game is played by seeded random policies. After every action the checks
are: the deck is conserved; every seat's view holds exactly its own hand and
nothing hidden from it; every event has the right audience; the legal actions
are exactly what the rules allow; a few actions that are not legal raise
`IllegalActionError` and change nothing; and every game ends in bounded steps.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from arena.engine import (
    ACCEPT,
    CALL_UNO,
    CHALLENGE,
    COLORS,
    DRAW,
    KEEP,
    PASS,
    Action,
    ActionKind,
    Card,
    Game,
    IllegalActionError,
    Phase,
    Rank,
    RuleSet,
    catch,
    choose_color,
    deck_2018,
    events,
    play,
)
from tests.engine.helpers import rules, snapshot

Policy = Callable[[Game, random.Random], Action]

PRIVATE = (events.CardsReceived, events.HandReplaced, events.HandRevealed)
ALL_CARDS = sorted(set(deck_2018()), key=lambda c: (c.rank.value, str(c.color)))
MAX_STEPS = 60_000


def random_policy(game: Game, rng: random.Random) -> Action:
    """Any legal action, uniformly."""
    return rng.choice(game.legal_actions())


def hoarding_policy(game: Game, rng: random.Random) -> Action:
    """Draws and keeps whenever it may, so the piles run dry and hands die."""
    legal = game.legal_actions()
    for wanted in (DRAW, KEEP):
        if wanted in legal and rng.random() < 0.97:
            return wanted
    return rng.choice(legal)


def sensible_policy(game: Game, rng: random.Random) -> Action:
    """Plays when it can, calls UNO, catches: games that finish hands quickly."""
    legal = game.legal_actions()
    plays = [a for a in legal if a.kind is ActionKind.PLAY]
    if plays and rng.random() < 0.9:
        unos = [a for a in plays if a.uno]
        return rng.choice(unos or plays) if rng.random() < 0.8 else rng.choice(plays)
    for wanted in (ActionKind.CATCH, ActionKind.CALL_UNO):
        chosen = [a for a in legal if a.kind is wanted]
        if chosen and rng.random() < 0.5:
            return chosen[0]
    return rng.choice(legal)


# ------------------------------------------------------------------ oracles


def expected_playable(game: Game, seat: int, card: Card) -> bool:
    """RULES.md section 3 and the house rules, written independently of the engine."""
    r = game.rules
    hand = game.hands[seat]
    top = game.top_card
    assert top is not None
    if r.last_card_no_action and len(hand) == 1 and card.rank in (
        Rank.SKIP, Rank.REVERSE, Rank.DRAW_TWO, Rank.WILD_DRAW_FOUR
    ):
        return False
    if card.rank is Rank.WILD_DRAW_FOUR:
        if any(c.color == game.active_color for c in hand):
            return False
        if r.wild_draw_four_rule.value == "no_color_or_number" and top.is_number:
            return not any(c.rank is top.rank for c in hand)
        return True
    if card.is_wild:
        return True
    return card.color == game.active_color or (not top.is_wild and card.rank is top.rank)


def expected_variants(game: Game, seat: int, card: Card) -> set[Action]:
    """Every way to play `card`: colours for wilds, targets, UNO when leaving one card."""
    r = game.rules
    colors = list(COLORS) if card.is_wild else [None]
    needs_target = (
        card.rank is Rank.WILD_CUSTOMIZABLE
        or (card.rank is Rank.WILD_SHUFFLE_HANDS and r.shuffle_hands_card.value == "swap")
        or (card.rank is Rank.SEVEN and r.seven_o)
    )
    targets: list[int | None] = (
        [s for s in game.active_seats if s != seat] if needs_target else [None]
    )
    unos = [False, True] if len(game.hands[seat]) == 2 else [False]
    return {play(card, c, target=t, uno=u) for c in colors for t in targets for u in unos}


def expected_legal(game: Game) -> set[Action] | None:
    """The legal actions RULES.md allows in the phases we model (None: not modelled)."""
    seat = game.decider
    assert seat is not None
    hand = game.hands[seat]
    if game.phase is Phase.PLAY:
        out: set[Action] = set()
        for c in set(hand):
            if expected_playable(game, seat, c):
                out |= expected_variants(game, seat, c)
        can_draw = bool(game.draw_pile) or len(game.discard_pile) > 1
        if can_draw or not out:
            out.add(DRAW)
        return out
    if game.phase is Phase.PLAY_DRAWN:
        drawn = game.view(seat).drawn_card
        assert drawn is not None and drawn in hand
        assert expected_playable(game, seat, drawn)
        out = expected_variants(game, seat, drawn)
        if not game.rules.force_play:
            out.add(KEEP)
        return out
    if game.phase is Phase.CHOOSE_COLOR:
        return {choose_color(c) for c in COLORS}
    if game.phase is Phase.CATCH_WINDOW:
        offender = game.view(seat).uno_offender
        assert offender is not None and len(game.hands[offender]) == 1
        if seat == offender:
            return {CALL_UNO, PASS}
        return {catch(offender), PASS}
    if game.phase is Phase.JUMP_IN:
        top = game.top_card
        assert top is not None and not top.is_wild and top in hand
        out = {PASS}
        if not (game.rules.last_card_no_action and len(hand) == 1 and top.is_action):
            out |= expected_variants(game, seat, top)
        return out
    return None


# ------------------------------------------------------------------ checks


class Checker:
    """Checks one game after every step."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.deck_size = 112 if game.rules.deck.value == "2018" else 108
        self.seen_events = 0
        self.challenges: dict[int, set[int]] = {}
        # Each seat's hand as that seat can follow it from the events it may see.
        self.tracked: list[list[Card]] = [[] for _ in range(game.num_players)]
        self.totals = [0] * game.num_players

    def check(self, rng: random.Random) -> None:
        game = self.game
        assert game.card_count() == self.deck_size
        self.check_events()
        self.check_views()
        if game.is_over:
            assert game.phase is Phase.GAME_OVER and game.legal_actions() == []
            return
        self.check_legal()
        self.check_illegal(rng)

    def check_events(self) -> None:
        new = self.game.events[self.seen_events:]
        self.seen_events = len(self.game.events)
        for i, e in enumerate(new):
            if isinstance(e, events.CardsReceived | events.HandReplaced):
                assert e.audience == frozenset({e.seat})
            elif isinstance(e, events.HandRevealed):
                assert e.audience == frozenset({e.to_seat})
                assert e.to_seat != e.seat
            else:
                assert e.audience is None, e
            self.track(e)
            if isinstance(e, events.HandEnded):
                self.check_scoring(e)
            if isinstance(e, events.HandStarted):
                self.challenges = {}
            if isinstance(e, events.ChallengeResolved):
                self.challenges.setdefault(e.challenger, set()).add(e.accused)
                assert isinstance(new[i - 1], events.HandRevealed)
            if isinstance(e, events.CardsDrawn) and e.count:
                follow = new[i + 1]
                assert isinstance(follow, events.CardsReceived)
                assert follow.seat == e.seat and len(follow.cards) == e.count
        assert self.tracked == self.game.hands

    def check_scoring(self, e: events.HandEnded) -> None:
        """RULES.md sections 7 and 9, recomputed from the cards left."""
        game = self.game
        assert list(map(list, e.cards_left)) == self.tracked
        left = [sum(c.points for c in hand) for hand in e.cards_left]
        n = game.num_players
        expected = [0] * n
        mode = game.rules.scoring.value
        if e.winner is not None:
            assert not e.cards_left[e.winner]
            active = [s for s in range(n) if e.cards_left[s] or s == e.winner]
            if mode in ("standard", "individual"):
                expected[e.winner] = sum(left)
            elif mode in ("low_score", "elimination"):
                expected = left
            else:  # partners
                for s in range(n):
                    if s % 2 == e.winner % 2:
                        expected[s] = sum(left[o] for o in range(n) if o % 2 != e.winner % 2)
            assert all(left[s] == 0 for s in range(n) if s not in active)
        assert list(e.points) == expected
        self.totals = [t + p for t, p in zip(self.totals, e.points, strict=True)]
        assert list(e.totals) == self.totals

    def track(self, e: events.Event) -> None:
        """Follow every hand through the events its own seat is shown."""
        if isinstance(e, events.HandStarted):
            self.tracked = [[] for _ in self.tracked]
        elif isinstance(e, events.CardsReceived):
            self.tracked[e.seat].extend(e.cards)
        elif isinstance(e, events.HandReplaced):
            self.tracked[e.seat] = list(e.cards)
        elif isinstance(e, events.CardPlayed):
            self.tracked[e.seat].remove(e.card)

    def check_views(self) -> None:
        game = self.game
        for seat in range(game.num_players):
            v = game.view(seat)
            assert v.seat == seat
            assert v.hand == tuple(game.hands[seat])
            assert v.hand_sizes == tuple(len(h) for h in game.hands)
            assert v.discard_pile == tuple(game.discard_pile)
            assert v.draw_pile_size == len(game.draw_pile)
            if v.drawn_card is not None:
                assert v.decider == seat and v.drawn_card in game.hands[seat]
            for accused, _ in v.revealed:
                assert accused in self.challenges.get(seat, set())
            if seat not in self.challenges:
                assert v.revealed == ()
            assert not any(isinstance(x, list) for x in (v.hand, v.discard_pile))

    def check_legal(self) -> None:
        game = self.game
        legal = game.legal_actions()
        assert legal, "a game in progress always has a legal action"
        assert len(set(legal)) == len(legal), "no action listed twice"
        assert game.decider in game.active_seats
        expected = expected_legal(game)
        if expected is not None:
            assert set(legal) == expected, (game.phase, sorted(map(str, legal)),
                                            sorted(map(str, expected)))

    def check_illegal(self, rng: random.Random) -> None:
        game = self.game
        candidates = [DRAW, KEEP, CHALLENGE, ACCEPT, CALL_UNO, PASS,
                      catch(rng.randrange(game.num_players)), choose_color(rng.choice(COLORS))]
        for _ in range(4):
            c = rng.choice(ALL_CARDS)
            candidates.append(play(
                c, rng.choice(COLORS) if c.is_wild or rng.random() < 0.1 else None,
                target=rng.randrange(game.num_players) if rng.random() < 0.3 else None,
                uno=rng.random() < 0.5,
            ))
        illegal = [a for a in candidates if not game.is_legal(a)]
        for action in rng.sample(illegal, min(3, len(illegal))):
            before = snapshot(game)
            with pytest.raises(IllegalActionError):
                game.apply(action)
            assert snapshot(game) == before


def simulate(rule_set: RuleSet, players: int, seed: int, policy: Policy = random_policy) -> Game:
    """Play one seeded game to the end, checking every step."""
    game = Game.new(rule_set, players, seed)
    rng = random.Random(seed * 7919 + players)
    checker = Checker(game)
    checker.check(rng)
    for _ in range(MAX_STEPS):
        if game.is_over:
            break
        action = policy(game, rng)
        before = len(game.events)
        returned = game.apply(action)
        assert game.events[before:] == returned
        checker.check(rng)
    assert game.is_over, "every game ends"
    assert isinstance(game.events[-1], events.GameEnded)
    check_outcome(game)
    return game


def check_outcome(game: Game) -> None:
    """The winners are who RULES.md sections 7 and 9 say they are."""
    outcome = game.outcome
    assert outcome is not None
    totals, mode, target = game.totals, game.rules.scoring.value, game.rules.target_score
    term = outcome.termination.value
    if term == "target_reached":
        assert target is not None and max(totals) >= target
    if mode in ("standard", "partners"):
        assert set(outcome.winners) == {s for s in range(game.num_players)
                                         if totals[s] == max(totals)}
    elif mode == "low_score":
        assert set(outcome.winners) == {s for s in range(game.num_players)
                                         if totals[s] == min(totals)}
    elif mode == "elimination" and term == "last_standing":
        assert len(game.active_seats) <= 1
        if game.active_seats:
            assert outcome.winners == tuple(game.active_seats)
    elif mode == "individual":
        assert term in ("hands_completed", "hand_limit")


# ------------------------------------------------------------------ rule sets

SHORT = {"target_score": 150, "max_hands": 6}
CONFIGS: dict[str, RuleSet] = {
    "official": rules(**SHORT),
    "deck_2018_shuffle": rules(deck="2018", **SHORT),
    "deck_2018_swap": rules(deck="2018", shuffle_hands_card="swap", **SHORT),
    "uno_penalty_4": rules(uno_penalty=4, **SHORT),
    "challenge_extra_0": rules(challenge_extra_penalty=0, **SHORT),
    "wd4_color_or_number": rules(wild_draw_four_rule="no_color_or_number", **SHORT),
    "reverse_right_of_dealer": rules(reverse_first_card="right_of_dealer", **SHORT),
    "going_out_wd4_challengeable": rules(going_out_draw_four_challengeable=True, **SHORT),
    "single_hand": rules(target_score=None),
    "low_score": rules(scoring="low_score", **SHORT),
    "elimination": rules(scoring="elimination", target_score=60, max_hands=12),
    "small_hands_no_dealer_draw": rules(hand_size=3, choose_first_dealer=False, **SHORT),
    "turn_limit": rules(max_turns_per_hand=15, max_hands=6),
    "progressive": rules(progressive=True, **SHORT),
    "seven_o": rules(seven_o=True, **SHORT),
    "jump_in": rules(jump_in=True, **SHORT),
    "draw_to_match": rules(draw_to_match=True, **SHORT),
    "force_play": rules(force_play=True, **SHORT),
    "last_card": rules(last_card_no_action=True, **SHORT),
    "every_house_rule": rules(progressive=True, seven_o=True, jump_in=True,
                              draw_to_match=True, force_play=True,
                              last_card_no_action=True, deck="2018", **SHORT),
}
FOUR_ONLY: dict[str, RuleSet] = {
    "partners": rules(scoring="partners", **SHORT),
    "individual": rules(scoring="individual", individual_hands=4),
    "partners_house_rules": rules(scoring="partners", progressive=True, jump_in=True,
                                  seven_o=True, **SHORT),
}


@pytest.mark.parametrize("players", range(2, 11))
def test_official_rules_hold_at_every_step_for_every_player_count(players: int) -> None:
    for seed in range(2):
        simulate(CONFIGS["official"], players, seed, random_policy)
        simulate(CONFIGS["official"], players, 100 + seed, sensible_policy)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_every_rule_set_holds_at_every_step(name: str) -> None:
    rule_set = CONFIGS[name]
    for players in range(2, 11):
        simulate(rule_set, players, players, sensible_policy)
    simulate(rule_set, 4, 7, random_policy)


@pytest.mark.parametrize("name", sorted(FOUR_ONLY))
def test_four_player_modes_hold_at_every_step(name: str) -> None:
    for seed in range(2):
        simulate(FOUR_ONLY[name], 4, seed, sensible_policy)
    simulate(FOUR_ONLY[name], 4, 9, random_policy)


@pytest.mark.parametrize("players", [2, 4, 10])
def test_hoarding_games_run_the_piles_dry_and_still_end(players: int) -> None:
    game = simulate(rules(target_score=None, max_turns_per_hand=400), players, 3,
                    hoarding_policy)
    kinds = {type(e) for e in game.events}
    assert events.DeckReshuffled in kinds
    ended = [e for e in game.events if isinstance(e, events.HandEnded)]
    assert ended and ended[-1].winner is None or players == 2


def test_simulated_games_reach_the_interesting_situations() -> None:
    """The random games above do reach the rules under test (a guard against a
    simulation that silently stops exercising them)."""
    seen: set[type[events.Event]] = set()
    drawn: set[tuple[str, int]] = set()
    jumped = False
    for seed in range(3):
        for game in (simulate(CONFIGS["every_house_rule"], 4, seed, sensible_policy),
                     simulate(CONFIGS["official"], 3, seed, random_policy)):
            seen |= {type(e) for e in game.events}
            drawn |= {(e.reason.value, e.count) for e in game.events
                      if isinstance(e, events.CardsDrawn)}
            jumped |= any(isinstance(e, events.CardPlayed) and e.jump_in for e in game.events)
    for kind in (events.ChallengeResolved, events.HandRevealed, events.UnoCaught,
                 events.UnoCalled, events.HandsSwapped, events.HandsRotated,
                 events.HandsShuffled, events.DirectionChanged, events.TurnSkipped,
                 events.DeckReshuffled):
        assert kind in seen, kind
    reasons = {reason for reason, _ in drawn}
    assert {"uno_penalty", "challenge_failed", "draw_two", "draw_four"} <= reasons
    assert any(reason == "draw_two" and count >= 4 for reason, count in drawn)  # stacked
    assert jumped
