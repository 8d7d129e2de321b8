"""Seeded random games under every rule set, checking invariants at every step.

Each game is played by seeded random policies. After every action the checks
are: the deck is conserved; every seat's view holds exactly its own hand and
nothing hidden from it; every event has the right audience; the legal actions
are exactly what the rules allow; every challenge's verdict is the one the
colour condition gives for the hand as it was (recomputed from the events); a
few actions that are not legal raise `IllegalActionError` and change nothing;
and every game ends in bounded steps.

Every rule set is simulated twice: with Wild Draw Four bluffing (the default:
every Wild Draw Four held is offered, and only a challenge enforces the colour
condition) and without it (a Wild Draw Four is offered only under the condition).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass

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
    Color,
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
from tests.engine.helpers import of_type, rules, snapshot

Policy = Callable[[Game, random.Random], Action]

PRIVATE = (events.CardsReceived, events.HandReplaced, events.HandRevealed)
ALL_CARDS = sorted(set(deck_2018()), key=lambda c: (c.rank.value, str(c.color)))
MAX_STEPS = 60_000
WILD_DRAW_FOUR = Card(Rank.WILD_DRAW_FOUR)


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


def breaks_colour_condition(rule_set: RuleSet, hand: Iterable[Card], color: Color | None,
                            top: Card | None) -> bool:
    """RULES.md section 3: a Wild Draw Four may be played only while holding no card
    of the active colour (and, under the colour-or-number decision, none of the top
    card's number either). True when `hand` breaks that condition."""
    hand = list(hand)
    if any(c.color is not None and c.color == color for c in hand):
        return True
    return (rule_set.wild_draw_four_rule.value == "no_color_or_number"
            and top is not None and top.is_number
            and any(c.number == top.number for c in hand if c.is_number))


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
        # With bluffing every Wild Draw Four held is offered (a challenge judges it);
        # without, only one the colour condition allows.
        return r.draw_four_bluffing or not breaks_colour_condition(
            r, hand, game.active_color, top)
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


def expected_legal(game: Game, accused: DrawFourPlay | None) -> set[Action]:
    """The legal actions RULES.md allows in every phase of a game in progress;
    `accused` is the Wild Draw Four a challenge would judge."""
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
        # Force play forces only a card that is really playable, never a bluff.
        bluff = drawn.rank is Rank.WILD_DRAW_FOUR and breaks_colour_condition(
            game.rules, hand, game.active_color, game.top_card)
        if not game.rules.force_play or bluff:
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
    if game.phase is Phase.CHALLENGE:
        # Challenge or draw; under Progressive, or stack a Wild Draw Four (held, and
        # with bluffing off allowed by the colour the previous one declared), except
        # on a going-out Wild Draw Four, which ends the hand whatever is answered.
        assert accused is not None and accused.seat != seat
        out = {CHALLENGE, ACCEPT}
        going_out = not game.hands[accused.seat]
        if game.rules.progressive and not going_out:
            for c in set(hand):
                if c.rank is Rank.WILD_DRAW_FOUR and expected_playable(game, seat, c):
                    out |= expected_variants(game, seat, c)
        return out
    if game.phase is Phase.STACK:
        # Progressive: answer a Draw Two with any Draw Two, or draw the total.
        assert game.rules.progressive
        out = {ACCEPT}
        if not (game.rules.last_card_no_action and len(hand) == 1):
            for c in set(hand):
                if c.rank is Rank.DRAW_TWO:
                    out |= expected_variants(game, seat, c)
        return out
    raise AssertionError(f"phase {game.phase} is not modelled")


# ------------------------------------------------------------------ checks


@dataclass(frozen=True)
class DrawFourPlay:
    """A Wild Draw Four as the events showed it: who played it, the hand they kept,
    the colour and top card it was played on, and the colour it declared."""

    seat: int
    hand: tuple[Card, ...]
    color_before: Color | None
    top_before: Card | None
    declared: Color


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
        # The active colour and top card, followed from the public events.
        self.color: Color | None = None
        self.top: Card | None = None
        self.draw_four: DrawFourPlay | None = None
        # What a challenge now would be about: the pending draw and the cards to draw.
        self.pending = 0
        self.drawable = 0
        # Every challenge judged: the Wild Draw Four, the total at stake, the verdict.
        self.verdicts: list[tuple[DrawFourPlay, int, bool]] = []

    def check(self, rng: random.Random) -> None:
        game = self.game
        assert game.card_count() == self.deck_size
        self.check_events()
        assert (self.color, self.top) == (game.active_color, game.top_card)
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
                self.check_verdict(e, new[i - 1], new[i + 1:])
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
        """Follow every hand through the events its own seat is shown, and the
        active colour and top card through the public ones."""
        if isinstance(e, events.HandStarted):
            self.tracked = [[] for _ in self.tracked]
            self.color = self.top = self.draw_four = None
        elif isinstance(e, events.CardsReceived):
            self.tracked[e.seat].extend(e.cards)
        elif isinstance(e, events.HandReplaced):
            self.tracked[e.seat] = list(e.cards)
        elif isinstance(e, events.FirstCard):
            self.color, self.top = e.card.color, e.card
        elif isinstance(e, events.ColorChosen):
            self.color = e.color
        elif isinstance(e, events.CardPlayed):
            self.tracked[e.seat].remove(e.card)
            if e.card.rank is Rank.WILD_DRAW_FOUR:
                self.draw_four = DrawFourPlay(e.seat, tuple(self.tracked[e.seat]),
                                              self.color, self.top, e.color)
            self.color, self.top = e.color, e.card

    def check_verdict(self, e: events.ChallengeResolved, shown: events.Event,
                      after: list[events.Event]) -> None:
        """RULES.md section 5, recomputed: guilty exactly when the hand the accused
        kept when playing the Wild Draw Four broke the colour condition (under the
        configured decision) for the colour and top card it was played on."""
        rule_set = self.game.rules
        accused = self.draw_four
        assert accused is not None and e.accused == accused.seat
        assert isinstance(shown, events.HandRevealed)
        assert (shown.seat, shown.to_seat, shown.cards) == (accused.seat, e.challenger,
                                                            accused.hand)
        guilty = breaks_colour_condition(rule_set, accused.hand, accused.color_before,
                                         accused.top_before)
        assert e.guilty == guilty, (accused, e)
        if not rule_set.draw_four_bluffing:
            assert not guilty, "without bluffing only a legal Wild Draw Four is played"
        self.verdicts.append((accused, self.pending, guilty))
        # Guilty: the accused draws the pending total and the challenger plays on,
        # under the declared colour. Not guilty: the challenger draws the total
        # plus the extra penalty and loses the turn.
        drawer, total, reason = (
            (e.accused, self.pending, events.DrawReason.CHALLENGE_GUILTY) if guilty else
            (e.challenger, self.pending + rule_set.challenge_extra_penalty,
             events.DrawReason.CHALLENGE_FAILED))
        drawn = of_type(after, events.CardsDrawn)
        assert drawn and drawn[0] == events.CardsDrawn(drawer, min(total, self.drawable),
                                                       reason)
        skipped = of_type(after, events.TurnSkipped)
        if of_type(after, events.HandEnded):
            return
        game = self.game
        if guilty:
            assert not skipped
            assert (game.phase, game.decider) == (Phase.PLAY, e.challenger)
            assert game.active_color is accused.declared
        else:
            assert skipped and skipped[0] == events.TurnSkipped(e.challenger)

    def check_views(self) -> None:
        game = self.game
        hand_sizes = tuple(len(h) for h in game.hands)
        discard_pile = tuple(game.discard_pile)
        draw_pile_size = len(game.draw_pile)
        for seat in range(game.num_players):
            v = game.view(seat)
            assert v.seat == seat
            assert v.hand == tuple(game.hands[seat])
            assert v.hand_sizes == hand_sizes
            assert v.discard_pile == discard_pile
            assert v.draw_pile_size == draw_pile_size
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
        if game.phase is Phase.CHALLENGE:
            # What a challenge would be about, from what the challenger may see.
            view = game.view(game.decider)
            self.pending = view.pending_draw
            self.drawable = view.draw_pile_size + len(view.discard_pile) - 1
        expected = expected_legal(game, self.draw_four)
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
        # A Wild Draw Four the decider holds: illegal without bluffing when the
        # colour condition fails, and outside the decisions that may play it.
        assert game.decider is not None
        if WILD_DRAW_FOUR in game.hands[game.decider]:
            candidates.append(play(WILD_DRAW_FOUR, rng.choice(COLORS)))
        illegal = [a for a in candidates if not game.is_legal(a)]
        before = snapshot(game)
        for action in rng.sample(illegal, min(3, len(illegal))):
            try:
                game.apply(action)
            except IllegalActionError:
                continue
            raise AssertionError(f"{action} was applied but is not legal")
        # The logs only grow, so one comparison after the attempts sees any change.
        assert snapshot(game) == before


def simulate(rule_set: RuleSet, players: int, seed: int, policy: Policy = random_policy) -> Game:
    """Play one seeded game to the end, checking every step."""
    return simulate_checked(rule_set, players, seed, policy).game


def simulate_checked(rule_set: RuleSet, players: int, seed: int,
                     policy: Policy = random_policy) -> Checker:
    """`simulate`, returning the checker and what it saw."""
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
    return checker


def standard_winners(game: Game) -> set[int]:
    """Standard scoring: the highest total; equal totals go to the last hand's winner,
    else to the fewest points left in hand when it ended."""
    totals = game.totals
    leaders = {s for s in range(game.num_players) if totals[s] == max(totals)}
    last = [e for e in game.events if isinstance(e, events.HandEnded)][-1]
    if last.winner in leaders:
        return {last.winner}
    left = {s: sum(c.points for c in last.cards_left[s]) for s in leaders}
    return {s for s in leaders if left[s] == min(left.values())}


def check_outcome(game: Game) -> None:
    """The winners are who RULES.md sections 7 and 9 say they are."""
    outcome = game.outcome
    assert outcome is not None
    totals, mode, target = game.totals, game.rules.scoring.value, game.rules.target_score
    term = outcome.termination.value
    if term == "target_reached":
        assert target is not None and max(totals) >= target
    if mode == "partners":
        assert set(outcome.winners) == {s for s in range(game.num_players)
                                         if totals[s] == max(totals)}
    elif mode == "standard":
        assert set(outcome.winners) == standard_winners(game)
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


def both_bluffing_settings(configs: dict[str, RuleSet]) -> dict[str, RuleSet]:
    """Each rule set as given (Wild Draw Four bluffing on, the default) and with
    bluffing off (`<name>_no_bluff`)."""
    out = dict(configs)
    for name, rule_set in configs.items():
        assert rule_set.draw_four_bluffing
        out[f"{name}_no_bluff"] = rule_set.with_changes(draw_four_bluffing=False)
    return out


CONFIGS: dict[str, RuleSet] = both_bluffing_settings({
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
})
FOUR_ONLY: dict[str, RuleSet] = both_bluffing_settings({
    "partners": rules(scoring="partners", **SHORT),
    "individual": rules(scoring="individual", individual_hands=4),
    "partners_house_rules": rules(scoring="partners", progressive=True, jump_in=True,
                                  seven_o=True, **SHORT),
})


@pytest.mark.parametrize("name", ["official", "official_no_bluff"])
@pytest.mark.parametrize("players", range(2, 11))
def test_official_rules_hold_at_every_step_for_every_player_count(players: int,
                                                                  name: str) -> None:
    for seed in range(2):
        simulate(CONFIGS[name], players, seed, random_policy)
        simulate(CONFIGS[name], players, 100 + seed, sensible_policy)


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
    assert {"uno_penalty", "challenge_failed", "challenge_guilty", "draw_two",
            "draw_four"} <= reasons
    assert any(reason == "draw_two" and count >= 4 for reason, count in drawn)  # stacked
    assert jumped


def test_simulated_challenges_reach_every_kind_of_verdict() -> None:
    """With bluffing, challenges find bluffs guilty and legal plays not guilty, a
    stacked bluff costs the whole total, and under the colour-or-number decision a
    hand with no card of the colour is guilty of holding the number. Without
    bluffing, challenges happen and always fail."""
    def verdicts(name: str, players: int, seed: int,
                 policy: Policy) -> list[tuple[DrawFourPlay, int, bool]]:
        return simulate_checked(CONFIGS[name], players, seed, policy).verdicts

    official = verdicts("official", 3, 2, random_policy)
    assert {guilty for _, _, guilty in official} == {True, False}
    stacked = verdicts("progressive", 4, 0, random_policy)
    assert any(guilty and total >= 8 for _, total, guilty in stacked)
    by_number = verdicts("wd4_color_or_number", 4, 4, sensible_policy)
    assert any(guilty and not any(c.color == d4.color_before for c in d4.hand)
               for d4, _, guilty in by_number)
    no_bluff = verdicts("official_no_bluff", 3, 1, random_policy)
    assert no_bluff and not any(guilty for _, _, guilty in no_bluff)
