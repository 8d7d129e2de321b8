"""Engine benchmark: random-legal-action play, arena's engine against RLCard's UnoGame.

Both engines are driven the same way: start a game, ask for the legal actions,
apply one chosen uniformly at random, until the game is over. A "game" is one
hand for both (RLCard plays single hands), under arena's official rules.

Two policies are measured:
- `uniform`: a uniformly random legal action, as specified. Under the official
  rules drawing is always legal (reneging) and UNO must be called, so a random
  arena hand lasts far longer than an RLCard one, where drawing is only legal
  with nothing to play and UNO calls do not exist.
- `forced-draw`: a random play, drawing only when no play is legal, always
  calling UNO and never challenging — the closest arena gets to RLCard's
  rules, so the games compare like for like.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from functools import partial

from arena.engine import Action, ActionKind, Game, RuleSet
from benchmarks.stats import Rate, median_rate, timed

RULES = RuleSet(target_score=None)
Policy = Callable[[random.Random, Sequence[Action]], Action]


def uniform(rng: random.Random, legal: Sequence[Action]) -> Action:
    """A uniformly random legal action."""
    return legal[rng.randrange(len(legal))]


def forced_draw(rng: random.Random, legal: Sequence[Action]) -> Action:
    """A random play (calling UNO); draw, keep, accept or pass only when nothing else is legal."""
    plays = [a for a in legal if a.kind is ActionKind.PLAY]
    if plays:
        if plays[-1].uno:
            plays = [a for a in plays if a.uno]
        return plays[rng.randrange(len(plays))]
    for action in legal:
        if action.kind in _PREFERRED:
            return action
    return legal[-1]


_PREFERRED = frozenset({ActionKind.CALL_UNO, ActionKind.ACCEPT, ActionKind.CHOOSE_COLOR})


def arena_games(num_players: int, games: int, policy: Policy, seed: int = 0) -> Rate:
    """Play `games` single hands with arena's engine."""
    def body() -> tuple[int, int]:
        rng = random.Random(seed)
        decisions = 0
        for game_seed in range(games):
            game = Game.new(RULES, num_players, seed * 100_003 + game_seed)
            while game.outcome is None:
                game.apply(policy(rng, game.legal_actions()))
                decisions += 1
        return games, decisions
    return timed(body)


def rlcard_games(num_players: int, games: int, seed: int = 0) -> Rate:
    """Play `games` with RLCard 1.2.0's raw UnoGame, uniformly random legal actions."""
    import numpy as np
    from rlcard.games.uno.game import UnoGame

    def body() -> tuple[int, int]:
        game = UnoGame(num_players=num_players)
        game.np_random = np.random.RandomState(seed)
        rng = random.Random(seed)
        decisions = 0
        for _ in range(games):
            game.init_game()
            while not game.is_over():
                legal = game.get_legal_actions()
                game.step(legal[rng.randrange(len(legal))])
                decisions += 1
        return games, decisions
    return timed(body)


def run(repeats: int = 3, scale: float = 1.0) -> list[dict[str, object]]:
    """Measure every configuration; return one row per (engine, policy, players)."""
    rows: list[dict[str, object]] = []
    sizes = {2: 200, 4: 150, 10: 40}
    rl: dict[int, Rate] = {}
    for players in (2, 4):
        n = max(1, int(sizes[players] * 4 * scale))
        rl[players] = median_rate(partial(rlcard_games, players, n), repeats)
        rows.append(_row("rlcard", "uniform", players, rl[players], None))
    for name, policy in (("uniform", uniform), ("forced-draw", forced_draw)):
        for players, count in sizes.items():
            n = max(1, int(count * scale * (8 if name == "forced-draw" else 1)))
            rate = median_rate(partial(arena_games, players, n, policy), repeats)
            rows.append(_row("arena", name, players, rate, rl.get(players)))
    return rows


def _row(
    engine: str, policy: str, players: int, rate: Rate, anchor: Rate | None
) -> dict[str, object]:
    return {
        "engine": engine,
        "policy": policy,
        "players": players,
        "games/s": round(rate.games_per_s, 1),
        "decisions/s": round(rate.decisions_per_s),
        "decisions/game": round(rate.decisions / rate.games, 1),
        "games/s vs rlcard": round(rate.games_per_s / anchor.games_per_s, 2) if anchor else "",
        "decisions/s vs rlcard": (
            round(rate.decisions_per_s / anchor.decisions_per_s, 2) if anchor else ""
        ),
    }
