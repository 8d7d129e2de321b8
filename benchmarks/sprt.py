"""How many deals the SPRT needs, and how often it errs, against fishtest's GSPRT.

Simulated duplicate heads-up deals (`duplicate_pair`): a deal favours one seat
by `u`, uniform in ±spread, and the two rotations give that seat to each bot in
turn, so bot A's expected scores in its two games are `s + u` and `s − u` (a
tie with chance `TIE_CHANCE`, else a win or a loss); A's expected score per deal
is `s`. Each run feeds one seeded stream of deals to every test at once
(common random numbers), and each test stops at its own first decision:

- `arena pentanomial`: `arena.stats.sprt` with `Model.PENTANOMIAL`, the default
  of a heads-up `arena match --sprt`;
- `arena normal`: the regularized normal GLR that was the default before;
- `fishtest`: fishtest's GSPRT (`LLR_logistic`) on pentanomial counts,
  transcribed here independently and without its dynamic overshoot
  correction: empty categories count 0.001, each hypothesis' maximum-
  likelihood distribution of that mean is found by its own root search, and
  the LLR is the count times the expected log ratio of the two fits.

The same on single games (the trinomial, no duplicate deals) follows, at fewer
runs. Every test is H0 0.50 against H1 0.51 at α = β = 0.05; a rate's standard
error is the binomial one over the runs.

`python -m benchmarks sprt` prints the table (about a quarter of an hour on one
core); `--quick` runs a twentieth of the runs.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable
from dataclasses import dataclass

from arena.stats.sprt import Decision, Model, Sprt, wald_bounds

MEDIAN = False

TRUTHS = (0.50, 0.51, 0.55, 0.75, 0.95)
SCORE0, SCORE1 = 0.50, 0.51
ALPHA = BETA = 0.05
TIE_CHANCE = 0.02
SEAT_SPREAD = 0.3
PAIR_RUNS = 1000
"""Runs per truth on duplicate pairs: three standard errors of a rate near 0.05 are 0.021."""
GAME_RUNS = 300
"""Runs per truth on single games, which need about twice as many blocks."""
MAX_BLOCKS = 200_000
_EMPTY = 1e-3


def duplicate_pair(rng: random.Random, score: float) -> int:
    """A's points (0 to 4, half-points per game) in one simulated duplicate deal of
    expected score `score`: the pentanomial category."""
    spread = min(SEAT_SPREAD, score - TIE_CHANCE / 2.0, 1.0 - TIE_CHANCE / 2.0 - score)
    advantage = rng.uniform(-spread, spread)
    return sum(single_game(rng, expected) for expected in (score + advantage,
                                                            score - advantage))


def single_game(rng: random.Random, expected: float) -> int:
    """A's half-points (0 loss, 1 tie, 2 win) in one game of expected score `expected`."""
    draw = rng.random()
    if draw < TIE_CHANCE:
        return 1
    return 2 if draw < TIE_CHANCE + expected - TIE_CHANCE / 2.0 else 0


class FishtestGsprt:
    """fishtest's GSPRT on category counts (pentanomial or trinomial), written out from its
    description: regularize, fit each hypothesis by maximum likelihood, take the ratio."""

    def __init__(self, categories: int) -> None:
        self.counts = [0] * categories
        self.lower, self.upper = wald_bounds(ALPHA, BETA)
        self._roots = [0.0, 0.0]
        self.decision = Decision.CONTINUE
        self.blocks = 0

    def add(self, category: int) -> Decision:
        """Count one block in `category`; the decision after it."""
        self.counts[category] += 1
        self.blocks += 1
        llr = self.llr()
        if llr >= self.upper:
            self.decision = Decision.ACCEPT_H1
        elif llr <= self.lower:
            self.decision = Decision.ACCEPT_H0
        return self.decision

    def llr(self) -> float:
        """The regularized counts times Σ p̂ log(p1 / p0)."""
        counts = [c if c > 0 else _EMPTY for c in self.counts]
        total = sum(counts)
        last = len(counts) - 1
        points = [(i / last, c / total) for i, c in enumerate(counts)]
        fits = []
        for which, mean in enumerate((SCORE0, SCORE1)):
            self._roots[which] = _secular_root(points, mean, self._roots[which])
            root = self._roots[which]
            fits.append([p / (1.0 + root * (a - mean)) for a, p in points])
        return total * sum(p * math.log(one / zero)
                           for (_, p), zero, one in zip(points, fits[0], fits[1], strict=True))


def _secular_root(points: list[tuple[float, float]], mean: float, guess: float) -> float:
    """x with Σ p (a − mean) / (1 + x (a − mean)) = 0, the fit's Lagrange multiplier:
    Newton's method from `guess`, kept inside the bracket where every weight is positive
    and falling back to halving it."""
    low, high = -1.0 / (1.0 - mean), 1.0 / mean
    x = guess if low < guess < high else 0.0
    for _ in range(200):
        value = slope = 0.0
        for a, p in points:
            term = (a - mean) / (1.0 + x * (a - mean))
            value += p * term
            slope -= p * term * term
        if value > 0.0:
            low = x
        else:
            high = x
        step = x - value / slope
        if not low < step < high:
            step = (low + high) / 2.0
        if abs(step - x) < 1e-13:
            return step
        x = step
    return x


@dataclass(frozen=True)
class Tally:
    """Decisions and blocks of one test over many runs at one truth."""

    name: str
    decisions: tuple[Decision, ...]
    blocks: tuple[int, ...]

    def rate(self, decision: Decision) -> float:
        """The share of runs ending in `decision`."""
        return sum(d is decision for d in self.decisions) / len(self.decisions)

    @property
    def mean_blocks(self) -> float:
        """The average blocks to a decision."""
        return statistics.fmean(self.blocks)


Tester = Callable[[], "Sprt | FishtestGsprt"]


def simulate(truth: float, runs: int, pairs: bool = True, seed: int = 0) -> list[Tally]:
    """Run arena's default and normal tests and fishtest's on the same `runs` seeded
    streams of duplicate pairs (or single games) of expected score `truth`."""
    categories = 5 if pairs else 3
    model = Model.PENTANOMIAL if pairs else Model.TRINOMIAL
    names = (f"arena {model.value}", "arena normal", "fishtest")
    results: dict[str, tuple[list[Decision], list[int]]] = {n: ([], []) for n in names}
    for run in range(runs):
        rng = random.Random(seed * 1_000_003 + run)
        tests = {names[0]: Sprt(SCORE0, SCORE1, ALPHA, BETA, model),
                 names[1]: Sprt(SCORE0, SCORE1, ALPHA, BETA, Model.NORMAL)}
        reference = FishtestGsprt(categories)
        running = dict(tests)
        going = True
        while (running or going) and reference.blocks < MAX_BLOCKS:
            points = duplicate_pair(rng, truth) if pairs else single_game(rng, truth)
            score = points / (categories - 1)
            for name, test in list(running.items()):
                if test.add(score) is not Decision.CONTINUE:
                    del running[name]
            if going and reference.add(points) is not Decision.CONTINUE:
                going = False
        for name, test in tests.items():
            results[name][0].append(test.decision)
            results[name][1].append(test.blocks)
        results["fishtest"][0].append(reference.decision)
        results["fishtest"][1].append(reference.blocks)
    return [Tally(name, tuple(d), tuple(b)) for name, (d, b) in results.items()]


def rows_for(truth: float, tallies: list[Tally], unit: str) -> list[dict[str, object]]:
    """One table row per test at one truth: error rate with its standard error, mean blocks
    and their ratio to fishtest's."""
    reference = next(t for t in tallies if t.name == "fishtest").mean_blocks
    rows: list[dict[str, object]] = []
    for tally in tallies:
        runs = len(tally.decisions)
        accept_h1 = tally.rate(Decision.ACCEPT_H1)
        accept_h0 = tally.rate(Decision.ACCEPT_H0)
        if truth <= SCORE0:
            error, nominal, label = accept_h1, ALPHA, "α (accept H1)"
        else:
            error, nominal, label = accept_h0, BETA, "accept H0"
        standard_error = math.sqrt(nominal * (1.0 - nominal) / runs)
        rows.append({"blocks": unit, "truth": truth, "test": tally.name, "runs": runs,
                     "error": label, "rate": round(error, 4),
                     "(rate − nominal)/SE": round((error - nominal) / standard_error, 2)
                     if truth in (SCORE0, SCORE1) else "-",
                     f"mean {unit}": round(tally.mean_blocks, 1),
                     "× fishtest": round(tally.mean_blocks / reference, 3)})
    return rows


def run(repeats: int = 1, scale: float = 1.0) -> list[dict[str, object]]:
    """The table: every truth on duplicate pairs, then on single games."""
    del repeats
    rows: list[dict[str, object]] = []
    for pairs, runs, unit in ((True, PAIR_RUNS, "deals"), (False, GAME_RUNS, "games")):
        for truth in TRUTHS:
            count = max(10, round(runs * scale))
            rows.extend(rows_for(truth, simulate(truth, count, pairs), unit))
    return rows
