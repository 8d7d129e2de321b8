"""Record the golden games: seeded games played by simple in-process bots.

Run from the repository root:

    python -m tests.golden.make_golden            # rewrite every golden file
    python -m tests.golden.make_golden NAME ...   # rewrite only these cases

Each case below is a rule set, a line-up of bots and a list of features the game
must show (a Wild Draw Four challenge that succeeds, a jump-in, ...). The first
seed from the case's `first_seed` whose game shows every feature is recorded in
`tests/golden/<name>.json`: the `GameRecord` and the public event stream the
engine produced. `tests/test_golden.py` replays every file and compares them
event by event, so after a deliberate change to the rules engine, re-record the
games with this command and review the diff.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena import wire
from arena.engine import PARTNER_TEAMS, Action, ActionKind, Color, Game, Phase, RuleSet, Scoring
from arena.engine import events as ev
from arena.record import GameRecord, SeatTermination

GOLDEN_DIR = Path(__file__).resolve().parent
REGENERATE = "python -m tests.golden.make_golden"
"""The command that re-records the golden games (run from the repository root)."""

SEED_TRIES = 500
"""How many seeds from a case's first seed are tried for one that shows its features."""

Policy = Callable[[Game], Action]

# ------------------------------------------------------------------------ bots


def first_legal(game: Game) -> Action:
    """The first legal action, whatever it is."""
    return game.legal_actions()[0]


def _hand(game: Game) -> list[Any]:
    assert game.decider is not None
    return list(game.hands[game.decider])


def _best_color(game: Game) -> Color:
    held = Counter(card.color for card in _hand(game) if card.color is not None)
    return max(Color, key=lambda color: (held[color], -list(Color).index(color)))


def _fewest_cards(game: Game, seat: int) -> int:
    others = [s for s in game.active_seats if s != seat]
    return min(others, key=lambda s: (len(game.hands[s]), s))


def _best_play(game: Game, plays: Sequence[Action], call_uno: bool) -> Action:
    """The play of the highest-scoring card, in the colour held most, at the seat
    with fewest cards, calling UNO when `call_uno` and it matters."""
    assert game.decider is not None
    color = _best_color(game)
    target = _fewest_cards(game, game.decider)

    def preference(action: Action) -> tuple[int, int, int, int]:
        assert action.card is not None
        return (action.card.points,
                action.color in (None, color),
                action.target in (None, target),
                action.uno == call_uno)

    return max(plays, key=preference)


def _plays(game: Game) -> list[Action]:
    return [a for a in game.legal_actions() if a.kind is ActionKind.PLAY]


def _answer(game: Game, call_uno: bool, challenge: bool, catch: bool) -> Action:
    legal = game.legal_actions()
    kinds = {a.kind: a for a in legal}
    plays = _plays(game)
    phase = game.phase
    if phase is Phase.CHOOSE_COLOR:
        return next(a for a in legal if a.color is _best_color(game))
    if phase is Phase.CHALLENGE:
        if plays:
            return _best_play(game, plays, call_uno)
        return kinds[ActionKind.CHALLENGE if challenge else ActionKind.ACCEPT]
    if phase is Phase.CATCH_WINDOW:
        offender = game.view(game.decider).uno_offender if game.decider is not None else None
        wanted = ActionKind.CALL_UNO if game.decider == offender else ActionKind.CATCH
        return kinds.get(wanted, kinds[ActionKind.PASS]) if catch else kinds[ActionKind.PASS]
    if phase is Phase.PLAY_DRAWN and not challenge and ActionKind.KEEP in kinds:
        return kinds[ActionKind.KEEP]
    if plays:
        return _best_play(game, plays, call_uno)
    return legal[-1]


def greedy(game: Game) -> Action:
    """Plays its highest-scoring card, stacks and jumps in when it can, calls UNO,
    catches others and challenges every Wild Draw Four."""
    return _answer(game, call_uno=True, challenge=True, catch=True)


def careless(game: Game) -> Action:
    """Plays like `greedy` but never calls UNO, never catches, never challenges and
    keeps a card it has drawn."""
    return _answer(game, call_uno=False, challenge=False, catch=False)


def alternating(game: Game) -> Action:
    """`greedy` on even turns of the game and `careless` on odd ones."""
    return greedy(game) if len(game.actions) % 2 == 0 else careless(game)


POLICIES: dict[str, Policy] = {
    "first": first_legal, "greedy": greedy, "careless": careless, "alternating": alternating,
}

# -------------------------------------------------------------------- features


def _has(event_class: type[ev.Event], test: Callable[[Any], bool] = lambda e: True,
         ) -> Callable[[Sequence[ev.Event]], bool]:
    return lambda events: any(isinstance(e, event_class) and test(e) for e in events)


FEATURES: dict[str, Callable[[Sequence[ev.Event]], bool]] = {
    "several_hands": lambda events: sum(isinstance(e, ev.HandStarted) for e in events) > 1,
    "went_out": _has(ev.HandEnded, lambda e: e.reason is ev.HandEndReason.WENT_OUT),
    "skip": _has(ev.TurnSkipped),
    "reverse": _has(ev.DirectionChanged),
    "wild": _has(ev.CardPlayed, lambda e: e.card.is_wild),
    "challenge_guilty": _has(ev.ChallengeResolved, lambda e: e.guilty),
    "challenge_innocent": _has(ev.ChallengeResolved, lambda e: not e.guilty),
    "challenge_declined": _has(ev.ChallengeDeclined),
    "uno_called": _has(ev.CardPlayed, lambda e: e.uno),
    "uno_late": _has(ev.UnoCalled),
    "uno_caught": _has(ev.UnoCaught),
    "stacked": _has(ev.CardsDrawn, lambda e: e.count >= 4 and e.reason in (
        ev.DrawReason.DRAW_TWO, ev.DrawReason.STACK)),
    "seven_swap": _has(ev.HandsSwapped),
    "zero_rotate": _has(ev.HandsRotated),
    "jump_in": _has(ev.CardPlayed, lambda e: e.jump_in),
    "shuffle_hands": _has(ev.HandsShuffled),
    "kept": _has(ev.CardKept),
    "eliminated": _has(ev.PlayerEliminated),
    "reshuffled": _has(ev.DeckReshuffled),
}

# ----------------------------------------------------------------------- cases


@dataclass(frozen=True)
class Case:
    """One golden game to record: rules, bots by seat, and what its game must show."""

    name: str
    description: str
    rules: RuleSet
    bots: tuple[str, ...]
    features: tuple[str, ...] = ()
    first_seed: int = 1
    forfeit_after: int | None = None
    """Forfeit the seat whose decision is due after this many actions."""
    teams: tuple[tuple[int, ...], ...] | None = field(default=None)


ONE_HAND = RuleSet(target_score=None)

CASES: tuple[Case, ...] = (
    Case("official_2p", "Official rules, two players, one hand.", ONE_HAND,
         ("greedy", "greedy"), ("went_out", "skip", "wild")),
    Case("official_2p_first_legal", "Official rules, two players, each plays its first "
         "legal action.", ONE_HAND, ("first", "first"), ("went_out",)),
    Case("official_3p", "Official rules, three players, one hand.", ONE_HAND,
         ("greedy", "careless", "alternating"), ("went_out", "reverse", "uno_caught")),
    Case("official_4p", "Official rules, four players, one hand.", ONE_HAND,
         ("greedy", "alternating", "careless", "first"), ("went_out", "reverse", "wild")),
    Case("official_target_score", "Official scoring to a target of 150 points over "
         "several hands.", RuleSet(target_score=150), ("greedy", "alternating", "careless"),
         ("several_hands",)),
    Case("challenge_guilty", "A challenged Wild Draw Four that was a bluff.", ONE_HAND,
         ("careless", "greedy", "greedy"), ("challenge_guilty",)),
    Case("challenge_innocent", "A challenged Wild Draw Four that was legal, under the "
         "no-colour-or-number decision.",
         ONE_HAND.with_changes(wild_draw_four_rule="no_color_or_number"),
         ("greedy", "greedy", "careless"), ("challenge_innocent", "challenge_declined")),
    Case("uno_calls", "UNO called with the play, called late, and caught.", ONE_HAND,
         ("greedy", "careless", "first", "alternating"),
         ("uno_called", "uno_late", "uno_caught")),
    Case("stacking", "Progressive: Draw Twos and Wild Draw Fours stack.",
         ONE_HAND.with_changes(progressive=True), ("greedy", "greedy", "greedy", "careless"),
         ("stacked",)),
    Case("seven_o", "Seven-O: a 7 swaps hands, a 0 rotates them.",
         ONE_HAND.with_changes(seven_o=True), ("greedy", "alternating", "careless"),
         ("seven_swap", "zero_rotate")),
    Case("jump_in", "Jump-In: an identical card is played out of turn.",
         ONE_HAND.with_changes(jump_in=True), ("greedy", "greedy", "greedy", "greedy"),
         ("jump_in",)),
    Case("draw_to_match", "Draw to match and force play, with the 'last card' rule.",
         ONE_HAND.with_changes(draw_to_match=True, force_play=True, last_card_no_action=True),
         ("greedy", "careless", "first"), ("went_out",)),
    Case("keep_drawn", "A drawn playable card kept instead of played.",
         ONE_HAND, ("careless", "first", "careless"), ("kept", "went_out")),
    Case("partners", "Partner scoring to 200: seats 0 and 2 against 1 and 3.",
         RuleSet(scoring=Scoring.PARTNERS, target_score=200),
         ("greedy", "careless", "alternating", "greedy"), ("several_hands",),
         teams=PARTNER_TEAMS),
    Case("individual", "Four players, individual scoring over three hands.",
         RuleSet(scoring=Scoring.INDIVIDUAL, individual_hands=3),
         ("greedy", "careless", "alternating", "first"), ("several_hands",)),
    Case("low_score", "Low score to 100 points.",
         RuleSet(scoring=Scoring.LOW_SCORE, target_score=100),
         ("greedy", "careless", "alternating"), ("several_hands",)),
    Case("elimination", "Challenge UNO: seats reaching 60 points are eliminated.",
         RuleSet(scoring=Scoring.ELIMINATION, target_score=60),
         ("greedy", "careless", "alternating"), ("eliminated",)),
    Case("deck_2018", "The 2018 deck with its Shuffle Hands card.",
         ONE_HAND.with_changes(deck="2018"), ("greedy", "careless", "alternating"),
         ("shuffle_hands",)),
    Case("forfeit", "A seat forfeits mid-hand (the server's bot policy ends the game).",
         ONE_HAND, ("greedy", "careless", "greedy"), ("wild",), forfeit_after=30),
)


# ------------------------------------------------------------------- recording


def play(case: Case, seed: int) -> GameRecord:
    """The game `case` gives with `seed`, played to its end (or its forfeit)."""
    policies = [POLICIES[name] for name in case.bots]
    game = Game.new(case.rules, len(case.bots), seed)
    forfeited: int | None = None
    while not game.is_over:
        if case.forfeit_after is not None and len(game.actions) == case.forfeit_after:
            forfeited = game.decider
            assert forfeited is not None
            game.forfeit(forfeited)
            break
        assert game.decider is not None
        game.apply(policies[game.decider](game))
    assert game.outcome is not None
    terminations = tuple(SeatTermination.TIMEOUT if seat == forfeited else SeatTermination.NORMAL
                         for seat in range(len(case.bots)))
    return GameRecord(
        rules=case.rules, seed=seed,
        seats=tuple(f"{name}-{seat}" for seat, name in enumerate(case.bots)),
        actions=tuple(game.actions), outcome=game.outcome, seat_terminations=terminations,
        forfeited_seat=forfeited, teams=case.teams,
    )


def record_case(case: Case) -> dict[str, Any]:
    """The golden document of `case`: its first seed whose game shows every feature."""
    for seed in range(case.first_seed, case.first_seed + SEED_TRIES):
        record = play(case, seed)
        events = record.replay_events()
        if all(FEATURES[name](events) for name in case.features):
            return golden_document(case, record)
    raise RuntimeError(f"{case.name}: no seed in {SEED_TRIES} tries shows {case.features}")


def golden_document(case: Case, record: GameRecord) -> dict[str, Any]:
    """What a golden file holds: the record and the public events of its replay."""
    return {
        "name": case.name,
        "description": case.description,
        "features": list(case.features),
        "regenerate": REGENERATE,
        "record": record.to_dict(),
        "public_events": [wire.event_to_dict(e) for e in record.replay_events(public=True)],
    }


def layout(document: dict[str, Any]) -> str:
    """A golden document as JSON with one action and one event per line, for short diffs."""
    lines = ["{"]
    items = list(document.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if key == "record":
            lines.append(f'  "record": {_layout_record(value)}{comma}')
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            lines.append(f'  "{key}": {_one_per_line(value, "  ")}{comma}')
        else:
            lines.append(f'  "{key}": {_compact(value)}{comma}')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _layout_record(record: dict[str, Any]) -> str:
    lines = ["{"]
    items = list(record.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        body = _one_per_line(value, "    ") if key == "actions" and value else _compact(value)
        lines.append(f'    "{key}": {body}{comma}')
    lines.append("  }")
    return "\n".join(lines)


def _one_per_line(items: list[Any], indent: str) -> str:
    inner = ",\n".join(f"{indent}  {_compact(item)}" for item in items)
    return f"[\n{inner}\n{indent}]"


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(", ", ": "))


def golden_path(name: str) -> Path:
    """Where the golden file of case `name` lives."""
    return GOLDEN_DIR / f"{name}.json"


def main(argv: Sequence[str]) -> int:
    """Re-record the named cases (every case when none is named)."""
    by_name = {case.name: case for case in CASES}
    unknown = [name for name in argv if name not in by_name]
    if unknown:
        print(f"unknown case(s): {', '.join(unknown)}; known: {', '.join(by_name)}",
              file=sys.stderr)
        return 2
    for case in [by_name[name] for name in argv] or CASES:
        document = record_case(case)
        path = golden_path(case.name)
        path.write_text(layout(document), encoding="utf-8")
        record = document["record"]
        print(f"{path.name}: seed {record['seed']}, {len(record['actions'])} actions, "
              f"{len(document['public_events'])} public events")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
