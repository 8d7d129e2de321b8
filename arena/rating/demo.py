"""TrueSkill's parameters fitted to UNO: single hands played in-process by tiny bots.

Run ``python -m arena.rating.demo`` (``--help`` for the sizes). A pool of six
bots plays single hands under the official rules at three kinds of table — two
seats, four seats each for itself, and four seats as two partner teams — and
`arena.rating.fit.fit` is run on each kind's games in the order they were
played. The report gives the fitted β and draw probability and the held-out
log-likelihood per game under the fitted parameters, under the arena's
defaults, and under the defaults with τ = 0 alone.

Measured with the defaults (seed 0): two seats, 2000 games: β 9.53, draw
probability at its 0.001 floor (no game tied), held-out −0.473 per game
against −0.539 for the defaults; four seats, 600 games: β 14.4, draw
probability 0.005, −3.64 against −4.13 (pairwise composite); partners, 2000
games: β 15.1, draw probability at the floor, −0.605 against −0.696. At the
two-team tables almost all of the gain is the draw probability's: the defaults
with τ = 0 score as the defaults do, and the defaults with τ = 0 and the draw
probability lowered to 0.001 score within 0.005 of the fit, so this pool pins
β down only loosely.

The bots differ in one knob, how often they play a card when they can
(`eagerness`): 0 is a uniformly random legal action (it often draws or passes
holding a playable card), 1 always plays when it can (calling UNO when it may);
in between they mix the two. Six graded eagernesses give the pool a spread of
skills, without which β is barely identified (two bots only ever show one win
rate, which any β can fit once their means have moved apart).

This is a measurement script: no arena module imports it (its tests do), and it
is the only module of `arena.rating` that touches the engine.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from dataclasses import dataclass

from arena.engine import PARTNER_TEAMS, Action, ActionKind, Game, RuleSet, Scoring
from arena.rating.fit import POOL_TAU, FitResult, RatedGame, fit, held_out_log_likelihood

EAGERNESS = {
    "random": 0.0,
    "eager-30": 0.3,
    "eager-60": 0.6,
    "eager-80": 0.8,
    "eager-95": 0.95,
    "eager": 1.0,
}
"""The pool: each bot's name and the chance it plays a card when one is legal."""


@dataclass(frozen=True, slots=True)
class TableKind:
    """One kind of table the pool plays: a name, the rule set, the seats and the teams."""

    name: str
    rules: RuleSet
    seats: int
    teams: tuple[tuple[int, ...], ...] | None = None


SINGLE_HAND = RuleSet(target_score=None)
"""The official rules, one hand per game."""

TABLE_KINDS = (
    TableKind("2 seats", SINGLE_HAND, 2),
    TableKind("4 seats", SINGLE_HAND, 4),
    TableKind("4 seats, partners", SINGLE_HAND.with_changes(scoring=Scoring.PARTNERS), 4,
              PARTNER_TEAMS),
)
"""The tables the demo plays, in the order it reports them."""


def choose(game: Game, eagerness: float, rng: random.Random) -> Action:
    """With chance `eagerness` a legal play (calling UNO if it may), else any legal action."""
    legal = game.legal_actions()
    plays = [action for action in legal if action.kind is ActionKind.PLAY]
    if plays and rng.random() < eagerness:
        calling = [action for action in plays if action.uno]
        return rng.choice(calling or plays)
    return rng.choice(legal)


def play_game(kind: TableKind, bots: Sequence[str], seed: int) -> RatedGame:
    """One single hand at a table of `kind` with `bots` in seat order, as rating sees it."""
    game = Game.new(kind.rules, kind.seats, seed)
    rng = random.Random(f"decisions {seed}")
    while not game.is_over:
        seat = game.decider
        assert seat is not None
        game.apply(choose(game, EAGERNESS[bots[seat]], rng))
    assert game.outcome is not None
    return RatedGame(tuple(bots), game.outcome.ranks, kind.teams)


def play_pool(kind: TableKind, games: int, seed: int) -> list[RatedGame]:
    """`games` games at tables of `kind`, each seating distinct bots of the pool drawn at random."""
    rng = random.Random(f"tables {kind.name} {seed}")
    names = sorted(EAGERNESS)
    return [
        play_game(kind, rng.sample(names, kind.seats), rng.getrandbits(32)) for _ in range(games)
    ]


def report_line(kind: TableKind, games: Sequence[RatedGame], result: FitResult) -> str:
    """One line of the report for one kind of table (`result` being the fit of `games`).

    Besides the fitted and the default parameters it scores the defaults with
    τ = 0 alone, which says how much of the gain is τ's and how much β's and
    the draw probability's.
    """
    bound = f"  (at search bound: {', '.join(result.at_bound)})" if result.at_bound else ""
    pool_tau_only = held_out_log_likelihood(games, result.baseline.with_changes(tau=POOL_TAU))
    return (
        f"{kind.name:<18} games {result.games:>5} (held out {result.held_out_games:>4})  "
        f"beta {result.beta:6.2f}  draw probability {result.draw_probability:.3f}  "
        f"held-out log-likelihood/game: fitted {result.held_out_log_likelihood:+.4f}, "
        f"defaults {result.baseline_held_out_log_likelihood:+.4f} "
        f"(with tau=0 {pool_tau_only:+.4f}), "
        f"gain {result.held_out_gain:+.4f}{bound}"
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Play the pool at every kind of table, fit each, and print one line per kind."""
    parser = argparse.ArgumentParser(prog="python -m arena.rating.demo", description=__doc__)
    parser.add_argument("--two-team-games", type=int, default=2000,
                        help="games at each two-team table (2 seats; partners)")
    parser.add_argument("--four-seat-games", type=int, default=600,
                        help="games at the four-seat free-for-all table (slower to rate)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for kind in TABLE_KINDS:
        two_teams = kind.seats == 2 or kind.teams is not None
        count = args.two_team_games if two_teams else args.four_seat_games
        games = play_pool(kind, count, args.seed)
        print(report_line(kind, games, fit(games)), flush=True)


if __name__ == "__main__":
    main()
