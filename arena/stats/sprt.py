"""A sequential probability ratio test between two bots, one deal block at a time.

The unit of evidence is the *deal block*: every seat rotation of one deal (with
duplicate deals), or a single game without them. Bot A's *block score* is its
mean score against bot B over the block's games (1 placed higher, 0.5 tie, 0
lower), so it lies in [0, 1] and B's is one minus it. Rotations of one deal
share the cards, so much of the luck of the deal cancels inside a block: block
scores are far less noisy than single games, and blocks (unlike the games in
one) are independent.

Hypotheses are about A's expected block score `s` (which equals its expected
game score, since a block only averages games): H0 `s = score0` against H1
`s = score1`, `score0 < score1`. The defaults, H0 0.5 (no edge) against H1
0.51 (an edge of one point in a hundred, about 7 Elo), suit UNO, whose edges
are small: a bot that counts cards beats a greedy one 51.3 % of the time heads
up. `elo_to_score` converts logistic Elo for callers who think in Elo.

It is a generalized SPRT, as chess engine testers run them: the log-likelihood
ratio of H1 to H0 is computed from the blocks seen so far with the nuisance
parameters (the shape of the distribution of block scores) fitted to the data,
and compared with Wald's bounds `log(β / (1 − α))` and `log((1 − β) / α)`.
The models:

- `Model.PENTANOMIAL` and `Model.TRINOMIAL`, the GSPRT on result categories
  as fishtest and fastchess count them. A heads-up duplicate deal is a *pair*
  of games (the two seatings of one deal), whose block score takes one of five
  values, 0, 1/4, 1/2, 3/4, 1 (two losses, a loss and a tie, a win and a loss
  or two ties, ...): the pentanomial. A single game takes three, 0, 1/2, 1:
  the trinomial. The LLR is the GSPRT in its Brownian approximation (Van den
  Bergh, "GSPRT approximation"; fishtest's `LLR_alt2`, the formula cutechess
  and fastchess use), `n (s1 − s0)(2 x̄ − s0 − s1) / (2 σ²)`, with x̄ and σ² the
  mean and variance of the category counts, each category counting
  `CATEGORY_PRIOR` of a block more than it was seen (so that two pairs of wins
  cannot show a variance near zero and stop the test; with fishtest's 0.001
  for an empty category instead, α and β were 0.10 and 0.11 in simulation).
  Near the hypotheses it decides as fishtest's exact GSPRT does (the
  maximum-likelihood fit of the counts under each hypothesis, as
  `Model.MULTINOMIAL` computes it); far from them it is much faster, because
  it keeps the variance seen, where the exact fit may move mass to a category
  never seen, so that an exact GLR between 0.50 and 0.51 gains at most
  log(0.51/0.50) ≈ 0.02 a block however lopsided the games: about 149 pairs
  for a bot that wins every game, against 11 here.
- `Model.AUTO` (the default): the pentanomial when the blocks are pairs of
  games, the trinomial when they are single games, the multinomial otherwise;
  fixed at the first block, whose game count `add` is told.
- `Model.NORMAL`: block scores are taken as normal with an unknown variance,
  fitted under each hypothesis (its mean fixed), so
  `LLR = (n/2) log((σ² + (x̄ − s0)²) / (σ² + (x̄ − s1)²))` with `σ²` the spread
  about the observed mean `x̄`. That spread is regularized with one pseudo-block
  of the largest variance a score can have, `σ² = (Σ (x − x̄)² + 1/4) / (n + 1)`,
  which keeps the first few blocks from looking more certain than they are —
  and makes a one-sided run slow: at H0 0.50 / H1 0.51 the LLR gains at most
  about 0.02 a block, so even a bot that wins every game needs about 146 blocks.
  (The simpler `n (s1 − s0)(2 x̄ − s0 − s1) / (2 σ²)`, which fixes the variance
  at the observed one with no pseudo-block, overran both error rates by about
  5 % in simulation; the pentanomial's prior on its categories is what keeps
  that form within its rates.)
- `Model.MULTINOMIAL`: like the pentanomial, over whatever distinct block
  scores are seen (blocks of any size; the extremes 0 and 1 carry the tiny
  weight).

With those bounds the error rates are about α (accepting H1 when `s = score0`)
and β (accepting H0 when `s = score1`); between the hypotheses the test still
stops, and beyond them it stops sooner. `python -m benchmarks sprt` (H0 0.50,
H1 0.51, α = β = 0.05, duplicate deals whose seat luck is ±0.3, 1,000 runs per
truth on pairs and 300 on single games, every test fed the same deals)
measured:

    truth                0.50    0.51    0.55    0.75    0.95
    pentanomial deals    5830    5595     702    96.8    18.6
    fishtest's deals     5832    5600     718     173     149
    normal model deals   5834    5600     718     172     147
    accept H1 / H0      0.060   0.051       0       0       0   (pentanomial;
                                                                  SE 0.0069)
    trinomial games     12804   13539    1581     200    20.1
    fishtest's games    12804   13601    1608     295     163
    accept H1 / H0      0.027   0.057       0       0       0   (SE 0.0126)

(the error rates are α at 0.50 and β at 0.51, both within two standard errors
of 0.05; fishtest's rule decided the same at both). Earlier, for the normal
model alone (`python -m tests.stats.test_sprt`, 2000 runs per truth) the rates
were 0.047–0.057 for every design from 0.51 to 0.55, and at either hypothesis
the test needed about half the blocks of a fixed-size test with the same α and
β; midway between the hypotheses, 0.8–0.9 of them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from arena.stats.elo import Interval, elo_interval, normalized_elo_interval
from arena.stats.sequential import DEFAULT_PLAN_BLOCKS, mixture_radius

DEFAULT_SCORE0 = 0.5
"""H0's expected block score: no edge."""
DEFAULT_SCORE1 = 0.51
"""H1's expected block score: a one-point edge (about 7 Elo), the size of UNO's real edges."""
DEFAULT_ALPHA = 0.05
"""The default chance of accepting H1 when H0 holds."""
DEFAULT_BETA = 0.05
"""The default chance of accepting H0 when H1 holds."""
MAX_SCORE_VARIANCE = 0.25
"""The largest variance a score in [0, 1] can have; one pseudo-block of it regularizes σ²."""
_PSEUDO_COUNT = 1e-3
"""The multinomial model's weight on the extreme scores 0 and 1, so every mean in (0, 1) fits."""
_VALUE_DIGITS = 9
_ROOT_STEPS = 100
_ROOT_TOLERANCE = 1e-12


class Decision(StrEnum):
    """What the test says after the blocks seen so far."""

    CONTINUE = "continue"
    ACCEPT_H0 = "H0"
    ACCEPT_H1 = "H1"


class Model(StrEnum):
    """How the likelihood of block scores is modelled; see the module docstring."""

    AUTO = "auto"
    PENTANOMIAL = "pentanomial"
    TRINOMIAL = "trinomial"
    NORMAL = "normal"
    MULTINOMIAL = "multinomial"


CATEGORY_STEPS = {Model.PENTANOMIAL: 4, Model.TRINOMIAL: 2}
"""The categorical models' block scores are the multiples of 1/steps from 0 to 1."""
CATEGORY_PRIOR = 0.1
"""What every category of the pentanomial and trinomial counts before any block falls in it,
so that the first few blocks cannot show a variance near zero."""
_GRID_TOLERANCE = 1e-9


def model_for_block(games: int | None) -> Model:
    """The model `Model.AUTO` becomes for blocks of `games` games (None: not known)."""
    if games == 2:
        return Model.PENTANOMIAL
    if games == 1:
        return Model.TRINOMIAL
    return Model.MULTINOMIAL


@dataclass(frozen=True, slots=True)
class SprtEstimates:
    """What an SPRT's blocks say about A's strength, each with its level and method.

    `score` is A's mean block score with a confidence sequence for it: valid
    however the run stopped, where a fixed-sample interval is not once the test
    chose the moment to stop (stopping when the LLR crosses a bound favours runs
    that happened to go well, so the plain mean of a stopped run is biased away
    from the bound it did not reach). `elo` and `normalized_elo` are the
    fixed-sample figures chess testers print, `stopped_early` says whether the
    stop biases them.
    """

    score: Interval
    elo: Interval
    normalized_elo: Interval | None
    stopped_early: bool


class SprtError(ValueError):
    """The test's settings or a block score are invalid; the message says which."""


def elo_to_score(elo: float) -> float:
    """The expected score of a logistic Elo difference: `1 / (1 + 10^(−elo/400))`."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def score_to_elo(score: float) -> float:
    """The logistic Elo difference of an expected score in (0, 1), the inverse of `elo_to_score`."""
    if not 0.0 < score < 1.0:
        raise SprtError(f"a score must lie strictly between 0 and 1 for Elo, got {score}")
    return -400.0 * math.log10(1.0 / score - 1.0)


def wald_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's LLR bounds: accept H0 at or below the first, H1 at or above the second."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


class Sprt:
    """The state of one SPRT: feed it A's block scores with `add`; read `llr`, the
    bounds and `decision`.

    The decision is taken at the first block whose LLR reaches a bound and stays
    taken; adding a block after that raises `SprtError`, since further games
    would change what the error rates promise.
    """

    def __init__(self, score0: float = DEFAULT_SCORE0, score1: float = DEFAULT_SCORE1,
                 alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA,
                 model: Model = Model.AUTO) -> None:
        _check_settings(score0, score1, alpha, beta)
        self.score0 = score0
        self.score1 = score1
        self.alpha = alpha
        self.beta = beta
        self.model = Model(model)
        self.lower_bound, self.upper_bound = wald_bounds(alpha, beta)
        self.blocks = 0
        self._mean = 0.0
        self._squares = 0.0  # the sum of squared deviations from the running mean
        self._values: Counter[float] = Counter()
        self._counts: list[int] = []
        self._llr = 0.0
        self._decision = Decision.CONTINUE
        self.history: list[float] = []
        """The LLR after each block, in order."""
        self.games = 0
        """Games counted so far, when `add` was told each block's (else 0)."""
        self.bot = ""
        """The bot whose block scores are tested, when the caller names it."""

    @classmethod
    def from_elo(cls, elo0: float, elo1: float, alpha: float = DEFAULT_ALPHA,
                 beta: float = DEFAULT_BETA, model: Model = Model.AUTO) -> Sprt:
        """The test of H0 `elo0` against H1 `elo1`, logistic Elo converted to expected scores."""
        return cls(elo_to_score(elo0), elo_to_score(elo1), alpha, beta, model)

    @property
    def llr(self) -> float:
        """The log-likelihood ratio of H1 to H0 after the blocks seen (0 before any)."""
        return self._llr

    @property
    def decision(self) -> Decision:
        """`ACCEPT_H1` or `ACCEPT_H0` once the LLR has reached a bound, else `CONTINUE`."""
        return self._decision

    @property
    def mean(self) -> float:
        """A's mean block score so far (0 before any block)."""
        return self._mean

    @property
    def variance(self) -> float:
        """The regularized variance of A's block scores that the normal model uses."""
        return (self._squares + MAX_SCORE_VARIANCE) / (self.blocks + 1)

    @property
    def sample_variance(self) -> float:
        """The plain variance of A's block scores about their mean (0 before two blocks)."""
        return self._squares / self.blocks if self.blocks > 1 else 0.0

    @property
    def counts(self) -> tuple[int, ...]:
        """A categorical model's blocks per category, lowest score first (else empty)."""
        return tuple(self._counts)

    def estimates(self, level: float = 0.95) -> SprtEstimates:
        """A's score with its sequential interval, and its Elo and normalized Elo with their
        fixed-sample intervals, all at `level`."""
        if self.blocks == 0:
            nothing = Interval(math.nan, math.nan, math.nan, level, "no blocks yet")
            return SprtEstimates(nothing, nothing, None, False)
        radius = mixture_radius(self.blocks, self.variance, 1.0 - level, DEFAULT_PLAN_BLOCKS)
        score = Interval(self._mean, max(0.0, self._mean - radius),
                         min(1.0, self._mean + radius), level,
                         "normal-mixture confidence sequence, valid at any stop")
        elo = elo_interval(self._mean, math.sqrt(self.variance / self.blocks), level,
                           "logistic Elo of the score's normal interval, its variance with one "
                           "pseudo-block of 1/4")
        games_per_block = round(self.games / self.blocks) if self.games else 1
        normalized = normalized_elo_interval(self._mean, self.sample_variance, self.blocks,
                                             games_per_block, level)
        return SprtEstimates(score, elo, normalized,
                             stopped_early=self._decision is not Decision.CONTINUE)

    def add(self, block_score: float, games: int | None = None) -> Decision:
        """Count one block in which A scored `block_score` over `games` games (which
        `Model.AUTO` needs at the first block); the decision after it."""
        if self._decision is not Decision.CONTINUE:
            raise SprtError(f"the test has already accepted {self._decision.value}")
        if not 0.0 <= block_score <= 1.0:
            raise SprtError(f"a block score lies between 0 and 1, got {block_score}")
        if self.model is Model.AUTO:
            self.model = model_for_block(games)
        category = self._category(block_score)
        self.blocks += 1
        self.games += games or 0
        delta = block_score - self._mean
        self._mean += delta / self.blocks
        self._squares += delta * (block_score - self._mean)
        if self.model is Model.MULTINOMIAL:
            self._values[round(block_score, _VALUE_DIGITS)] += 1
        elif category is not None:
            self._counts[category] += 1
        self._llr = self._compute_llr()
        self.history.append(self._llr)
        if self._llr >= self.upper_bound:
            self._decision = Decision.ACCEPT_H1
        elif self._llr <= self.lower_bound:
            self._decision = Decision.ACCEPT_H0
        return self._decision

    def extend(self, block_scores: Iterable[float], games: int | None = None) -> Decision:
        """Add blocks (each of `games` games) in order until the test decides or they run
        out; the decision then."""
        for score in block_scores:
            if self.add(score, games) is not Decision.CONTINUE:
                break
        return self._decision

    def _category(self, block_score: float) -> int | None:
        """The categorical models' category of a block score (`SprtError` off the grid)."""
        steps = CATEGORY_STEPS.get(self.model)
        if steps is None:
            return None
        if not self._counts:
            self._counts = [0] * (steps + 1)
        category = round(block_score * steps)
        if abs(category / steps - block_score) > _GRID_TOLERANCE:
            unit = "pairs of games" if steps == 4 else "single games"
            raise SprtError(f"the {self.model.value} test takes blocks of {unit}, whose "
                            f"scores are multiples of 1/{steps}; got {block_score}")
        return category

    def _compute_llr(self) -> float:
        if self.model is Model.NORMAL:
            return normal_llr(self.blocks, self._mean, self.variance, self.score0, self.score1)
        if self.model is Model.MULTINOMIAL:
            return multinomial_llr(self._values, self.score0, self.score1)
        return categorical_llr(self._counts, self.score0, self.score1)


def categorical_llr(counts: Sequence[float], score0: float, score1: float) -> float:
    """The pentanomial (or trinomial) GSPRT's LLR of mean `score1` to mean `score0` for
    blocks counted by category (the i-th of k + 1 categories scores i/k).

    It is the GSPRT in its Brownian approximation, `n (s1 − s0)(2 x̄ − s0 − s1) / (2 σ²)`,
    with the mean and variance of the categorical distribution in which every category
    counts `CATEGORY_PRIOR` of a block more than it was seen (see the module docstring).
    """
    blocks = sum(counts)
    if blocks == 0:
        return 0.0
    steps = len(counts) - 1
    weights = [count + CATEGORY_PRIOR for count in counts]
    total = sum(weights)
    mean = sum(weight * index / steps for index, weight in enumerate(weights)) / total
    variance = sum(weight * (index / steps - mean) ** 2
                   for index, weight in enumerate(weights)) / total
    return blocks * (score1 - score0) * (2.0 * mean - score0 - score1) / (2.0 * variance)


def normal_llr(blocks: int, mean: float, variance: float, score0: float, score1: float) -> float:
    """The generalized LLR of a normal of mean `score1` to one of mean `score0`, each with the
    variance that fits best, for `blocks` scores of mean `mean` and spread `variance` about it."""
    spread0 = variance + (mean - score0) ** 2
    spread1 = variance + (mean - score1) ** 2
    return blocks / 2.0 * math.log(spread0 / spread1)


def multinomial_llr(counts: Counter[float], score0: float, score1: float) -> float:
    """The generalized LLR of mean `score1` to mean `score0` for block scores counted by value.

    Each hypothesis' distribution is the one over the observed values (and the
    extremes 0 and 1, with a tiny weight) of that mean with the highest
    likelihood; the LLR is the difference of their log-likelihoods.
    """
    total = sum(counts.values())
    if total == 0:
        return 0.0
    weights = Counter({0.0: _PSEUDO_COUNT, 1.0: _PSEUDO_COUNT})
    weights.update(counts)
    mass = sum(weights.values())
    observed = [(value, weight / mass) for value, weight in weights.items()]
    theta0 = _tilt(observed, score0)
    theta1 = _tilt(observed, score1)
    # p_s(value) = p̂(value) / (1 + θ_s (value − s)), so log(p1/p0) needs only the tilts.
    return total * sum(
        share * (math.log1p(theta0 * (value - score0)) - math.log1p(theta1 * (value - score1)))
        for value, share in observed
    )


def _tilt(observed: list[tuple[float, float]], mean: float) -> float:
    """θ with g(θ) = Σ p̂ (a − mean) / (1 + θ (a − mean)) = 0: the empirical-likelihood tilt.

    g falls as θ grows, and θ must keep every 1 + θ (a − mean) positive, so the
    root lies between −1/(max a − mean) and −1/(min a − mean). Newton's method from
    θ = 0 (the fit when the observed mean is `mean`) finds it, bisecting instead
    whenever a step would leave that bracket.
    """
    low = -1.0 / (max(a for a, _ in observed) - mean)
    high = -1.0 / (min(a for a, _ in observed) - mean)
    theta = 0.0
    for _ in range(_ROOT_STEPS):
        terms = [(p, (a - mean) / (1.0 + theta * (a - mean))) for a, p in observed]
        value = sum(p * term for p, term in terms)
        if value > 0.0:
            low = theta
        else:
            high = theta
        slope = -sum(p * term * term for p, term in terms)
        step = theta - value / slope if slope < 0.0 else (low + high) / 2.0
        if not low < step < high:
            step = (low + high) / 2.0
        if abs(step - theta) <= _ROOT_TOLERANCE * (1.0 + abs(theta)):
            return step
        theta = step
    return theta


def _check_settings(score0: float, score1: float, alpha: float, beta: float) -> None:
    if not 0.0 < score0 < score1 < 1.0:
        raise SprtError(f"the hypotheses need 0 < score0 < score1 < 1, got {score0} and {score1}")
    for name, rate in (("alpha", alpha), ("beta", beta)):
        if not 0.0 < rate < 0.5:
            raise SprtError(f"{name} must lie strictly between 0 and 0.5, got {rate}")
