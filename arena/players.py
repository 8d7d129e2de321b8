"""In-process players that choose from the engine's legal actions.

They exist for demonstrations and tests that need a game played quickly
without a server. Real bots connect over gRPC (see `arena.client`).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence

from arena.engine import Action, ActionKind, Color, SeatView

Player = Callable[[SeatView, Sequence[Action]], Action]


def random_player(seed: int) -> Player:
    """A player choosing uniformly among the legal actions."""
    rng = random.Random(seed)

    def decide(view: SeatView, legal: Sequence[Action]) -> Action:
        return legal[rng.randrange(len(legal))]

    return decide


def greedy_player(view: SeatView, legal: Sequence[Action]) -> Action:
    """Sheds the highest-scoring card it can, keeps wilds for need, always calls UNO,
    catches missed calls, names the colour it holds most, and never challenges."""
    by_kind: dict[ActionKind, list[Action]] = {}
    for action in legal:
        by_kind.setdefault(action.kind, []).append(action)
    for kind in (ActionKind.CATCH, ActionKind.CALL_UNO):
        if kind in by_kind:
            return by_kind[kind][0]
    plays = by_kind.get(ActionKind.PLAY, [])
    if plays:
        best_color = _most_held_color(view)
        return max(plays, key=lambda a: _play_score(a, best_color))
    if ActionKind.CHOOSE_COLOR in by_kind:
        best_color = _most_held_color(view)
        return next(a for a in by_kind[ActionKind.CHOOSE_COLOR] if a.color is best_color)
    for kind in (ActionKind.ACCEPT, ActionKind.DRAW, ActionKind.PASS, ActionKind.KEEP):
        if kind in by_kind:
            return by_kind[kind][0]
    return legal[0]


def _most_held_color(view: SeatView) -> Color:
    counts = Counter(card.color for card in view.hand if card.color is not None)
    if not counts:
        return view.active_color or Color.RED
    return counts.most_common(1)[0][0]


def _play_score(action: Action, best_color: Color) -> tuple[int, int, int]:
    card = action.card
    assert card is not None
    keeps_wild = 0 if card.is_wild else 1
    named_well = 1 if action.color in (None, best_color) else 0
    return (keeps_wild, card.points + (100 if action.uno else 0), named_well)
