"""TrueSkill's parameters fitted to recorded games by predictive likelihood.

A bot version's skill does not drift, so inside a pool τ is held at
`POOL_TAU` (zero) and only the two numbers that describe the game are fitted:
β, the spread of one game's performance around a skill (UNO's luck), and the
draw probability. Both are chosen to maximise the *prequential* (predictive)
log-likelihood of the recorded games: the games are rated in the order they
were played, and before each game's update the observed result is scored under
the ratings as they stood. That is the chance the rating system gave to what
then happened, summed over the games; no game is scored by ratings that have
seen it.

Scoring one game
    Every pair of teams at the table is compared with TrueSkill's own model of
    two teams: team performances differ by d ~ N(Δμ, c²), where Δμ is the
    difference of the teams' summed means and c² = Σ (β² + σ² + τ²) over every
    seat of both teams; the pair ties when |d| ≤ ε, ε being the draw margin
    trueskill derives from the draw probability for that many seats
    (`trueskill.calc_draw_margin`). So P(first ahead) = Φ((Δμ − ε)/c),
    P(tie) = Φ((ε − Δμ)/c) − Φ((−ε − Δμ)/c) and P(second ahead) =
    Φ((−Δμ − ε)/c). A two-team game (two seats, or a partner game of two
    against two) is scored by exactly that probability of its result.

    A game of k > 2 teams is scored by a *pairwise composite likelihood*: the
    sum over all k(k−1)/2 pairs of teams of the log-probability of that pair's
    order (ahead, tie or behind). Each win or loss term is a true marginal of
    TrueSkill's performance model, so maximising the sum is a consistent
    estimating equation for β. Its limits: the pairs of one game share
    performances, so the sum is not the log-probability of the whole ranking
    (it counts one game's evidence more than once, and its figures can be
    compared only between parameter sets on the same games, never with
    two-team figures or across table sizes); and TrueSkill ties only
    neighbouring places, so seats tied in a chain may include a pair whose
    performances differ by more than ε, which the composite reads as a closer
    pair than the model would, leaning the draw probability up a little.
    Scoring only the neighbouring places of the observed order was rejected:
    which pairs get scored would then depend on the result itself, which
    biases the fit.

Fitting
    Every fifth game (`HELD_OUT_EVERY`: games 4, 9, 14, … counting from 0) is
    held out, the others train. The training objective is the prequential
    log-likelihood of the training games, rated alone and in order. A held-out
    game is scored under the ratings the training games before it produced
    and is never rated itself, so no held-out result informs the ratings or
    the parameters chosen. The split is interleaved rather than a final block
    because β matters most while ratings are being learned: once every σ is
    small the means have scaled themselves to almost any β, and the last games
    judge little but τ (measured on 600 synthetic games: a β ten times too
    small predicted the last fifth as well as the fitted β).

    μ and σ of a new bot are kept from the base parameters (only the ratios
    β/σ and ε/β matter to the predictions). The search works on log β and on
    the logit of the draw probability: a coarse grid on log β (factors of two
    from σ/32 to 32σ), then golden-section searches refining β and the draw
    probability in turn, twice. The best point evaluated is returned, so a
    likelihood that is not unimodal cannot make the search return worse than
    its grid. Parameters under which trueskill cannot rate the games (it
    raises `FloatingPointError` on an upset far beyond what they allow) score
    −∞. The draw probability is kept within `DRAW_PROBABILITY_BOUNDS`: a pool
    with no ties at all fits the lower bound rather than zero, so a later tie
    stays possible (and ratable); `FitResult.at_bound` says when that happened.

What a fit says about itself
    `beta_standard_error` is the standard error of β from the curvature of the
    training log-likelihood in log β at the optimum (a finite difference of
    ±0.05 in log β), NaN when β ends at an edge of its range or the curvature
    is not negative; for tables of more than two teams the composite
    likelihood counts each game more than once, so it is too small there.
    `coin_flip_log_likelihood` is the held-out score of a model that gives
    every pair of teams even chances, tying at the training games' rate d
    (at least the lowest draw probability searched): ln((1 − d)/2) per decided
    pair, ln d per tie; ln ½ a game heads up without ties, the floor any fit
    should beat. Below `SMALL_SAMPLE_GAMES` games the fit is too noisy
    to trust over the pool's own parameters (on 152 games one predicted worse
    than they did), and `warning` says so, as it says when a parameter sits at
    its bound or the fit predicts no better than a coin flip.

This module is pure: it imports trueskill and `arena.rating` only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import trueskill

from arena.rating import (
    DEFAULT_PARAMETERS,
    RatingParameters,
    Skill,
    rate_game,
    table_teams,
)

POOL_TAU = 0.0
"""τ inside a pool. A bot version is immutable, so its skill has nothing to drift
towards; any τ > 0 would keep σ from shrinking below the point where τ's noise
balances what a game teaches, and close bots could never be separated."""

HELD_OUT_EVERY = 5
"""One game in this many (the last of each run of five) is held out from the fit to judge it."""

DRAW_PROBABILITY_BOUNDS = (0.001, 0.9)
"""The range the fitted draw probability is searched in."""

BETA_SEARCH_OCTAVES = 5
"""β is searched from σ / 2**5 to σ * 2**5 (σ being a new bot's uncertainty)."""

SMALL_SAMPLE_GAMES = 500
"""Below this many games a fit is reported with a warning (see the module docstring)."""
_CURVATURE_STEP = 0.05

_LOG_FLOOR = 1e-300
_GOLDEN = (math.sqrt(5) - 1) / 2
_LOG_BETA_TOLERANCE = 0.02
_LOGIT_DRAW_TOLERANCE = 0.04
_ROUNDS = 2


class FitError(ValueError):
    """The games cannot be fitted as given (too few to split); the message says why."""


@dataclass(frozen=True, slots=True)
class RatedGame:
    """One recorded game as rating sees it: who sat where, the places, the teams.

    The fields mean what `rate_game`'s arguments mean: `ranks[i]` is the place
    of `seats[i]` (0 best, equal ranks tie) and `teams` lists the seats of each
    team (None: every seat plays for itself).
    """

    seats: tuple[Hashable, ...]
    ranks: tuple[int, ...]
    teams: tuple[tuple[int, ...], ...] | None = None


@dataclass(frozen=True, slots=True)
class PairProbabilities:
    """TrueSkill's chances for one pair of teams: first ahead, a tie, second ahead (sum 1)."""

    ahead: float
    tie: float
    behind: float


@dataclass(frozen=True, slots=True)
class Prequential:
    """Games rated in order: each game's log-likelihood before its update, and the final skills."""

    log_likelihoods: tuple[float, ...]
    skills: dict[Hashable, Skill]

    @property
    def total(self) -> float:
        """The summed log-likelihood of every game."""
        return math.fsum(self.log_likelihoods)


@dataclass(frozen=True, slots=True)
class FitResult:
    """Fitted parameters and how well they predict games they were not fitted on.

    Log-likelihoods are natural-log, per game (higher is better). `baseline` is
    what the fit is compared against (the arena's defaults unless told
    otherwise); `at_bound` names any fitted parameter that ended at the edge of
    its search range (a draw probability at its lower bound means the games
    hardly ever tie; a β at its upper bound means they cannot tell the bots
    apart).
    """

    parameters: RatingParameters
    baseline: RatingParameters
    games: int
    held_out_games: int
    training_log_likelihood: float
    held_out_log_likelihood: float
    baseline_held_out_log_likelihood: float
    at_bound: tuple[str, ...]
    evaluations: int
    beta_standard_error: float = math.nan
    coin_flip_log_likelihood: float = math.nan

    @property
    def warning(self) -> str:
        """What a reader must know before trusting the fit, in words (empty: nothing)."""
        notes = []
        for name in self.at_bound:
            notes.append(f"{name} ended at the edge of its search range, so the best value "
                         "may lie beyond it")
        if self.held_out_log_likelihood <= self.coin_flip_log_likelihood:
            notes.append("the fit predicts the held-out games no better than a coin flip")
        if self.games < SMALL_SAMPLE_GAMES:
            notes.append(f"only {self.games} games (fewer than {SMALL_SAMPLE_GAMES}): the fit "
                         "is noisy and may predict worse than the pool's own parameters")
        return "; ".join(notes)

    @property
    def beta(self) -> float:
        """The fitted β."""
        return self.parameters.beta

    @property
    def draw_probability(self) -> float:
        """The fitted draw probability."""
        return self.parameters.draw_probability

    @property
    def held_out_gain(self) -> float:
        """Held-out log-likelihood per game gained over the baseline (positive: fit is better)."""
        return self.held_out_log_likelihood - self.baseline_held_out_log_likelihood

    def to_dict(self) -> dict[str, object]:
        """The result as plain JSON-friendly values."""
        return {
            "parameters": self.parameters.to_dict(),
            "baseline": self.baseline.to_dict(),
            "games": self.games,
            "held_out_games": self.held_out_games,
            "training_log_likelihood": self.training_log_likelihood,
            "held_out_log_likelihood": self.held_out_log_likelihood,
            "baseline_held_out_log_likelihood": self.baseline_held_out_log_likelihood,
            "at_bound": list(self.at_bound),
            "evaluations": self.evaluations,
            "beta_standard_error": self.beta_standard_error,
            "coin_flip_log_likelihood": self.coin_flip_log_likelihood,
            "warning": self.warning,
        }


def pair_probabilities(
    first: Sequence[Skill], second: Sequence[Skill], parameters: RatingParameters
) -> PairProbabilities:
    """The chances TrueSkill gives two teams (one skill per seat) of each order between them."""
    margin = _draw_margin(parameters, len(first) + len(second))
    return _pair_probabilities(first, second, parameters, margin)


def game_log_likelihood(
    skills: Mapping[Any, Skill], game: RatedGame, parameters: RatingParameters
) -> float:
    """The log-likelihood of a game's result under the skills before it (the module's composite).

    Bots missing from `skills` count at `parameters.initial_skill`. Raises
    `RatingError` for a table `rate_game` would refuse.
    """
    return _Table.of(game).log_likelihood(skills, parameters, _Margins(parameters))


def prequential(games: Sequence[RatedGame], parameters: RatingParameters) -> Prequential:
    """Rate `games` in order under `parameters`, scoring each result before its own update.

    Two-team games are rated by TrueSkill's closed form for two teams (what
    trueskill's factor graph computes for them, with trueskill's own V and W
    functions; it agrees with `rate_game` to rounding), other games by
    `rate_game`. Raises `RatingError` for a table `rate_game` would refuse and
    `FloatingPointError` where trueskill cannot rate a game under these
    parameters (an upset far beyond what they allow).
    """
    return _prequential([_Table.of(game) for game in games], parameters)


def _prequential(
    tables: Sequence[_Table],
    parameters: RatingParameters,
    held_out: Sequence[bool] | None = None,
) -> Prequential:
    """Score every table before its update; tables marked `held_out` are scored, never rated."""
    skills: dict[Hashable, Skill] = {}
    scores: list[float] = []
    margins = _Margins(parameters)
    for index, table in enumerate(tables):
        scores.append(table.log_likelihood(skills, parameters, margins))
        if held_out is None or not held_out[index]:
            table.rate(skills, parameters, margins)
    return Prequential(log_likelihoods=tuple(scores), skills=skills)


@dataclass(frozen=True, slots=True)
class _Table:
    """A game checked once: the bots, the seats of each team and each team's rank."""

    seats: tuple[Hashable, ...]
    ranks: tuple[int, ...]
    teams: tuple[tuple[int, ...], ...] | None
    groups: tuple[tuple[int, ...], ...]
    team_ranks: tuple[int, ...]

    @classmethod
    def of(cls, game: RatedGame) -> _Table:
        groups, team_ranks = table_teams(game.seats, game.ranks, game.teams)
        return cls(
            game.seats,
            game.ranks,
            game.teams,
            tuple(tuple(group) for group in groups),
            tuple(team_ranks),
        )

    def team_skills(
        self, skills: Mapping[Hashable, Skill], parameters: RatingParameters
    ) -> list[list[Skill]]:
        start = parameters.initial_skill
        return [[skills.get(self.seats[seat], start) for seat in group] for group in self.groups]

    def log_likelihood(
        self, skills: Mapping[Hashable, Skill], parameters: RatingParameters, margins: _Margins
    ) -> float:
        team_skills = self.team_skills(skills, parameters)
        total = 0.0
        for i in range(len(team_skills)):
            for j in range(i + 1, len(team_skills)):
                first, second = team_skills[i], team_skills[j]
                margin = margins.get(len(first) + len(second))
                chances = _pair_probabilities(first, second, parameters, margin)
                if self.team_ranks[i] < self.team_ranks[j]:
                    observed = chances.ahead
                elif self.team_ranks[i] == self.team_ranks[j]:
                    observed = chances.tie
                else:
                    observed = chances.behind
                total += math.log(max(observed, _LOG_FLOOR))
        return total

    def rate(
        self, skills: dict[Hashable, Skill], parameters: RatingParameters, margins: _Margins
    ) -> None:
        if len(self.groups) == 2:
            skills.update(self._rate_two_teams(skills, parameters, margins))
        else:
            skills.update(
                rate_game(skills, self.seats, self.ranks, self.teams, parameters=parameters)
            )

    def _rate_two_teams(
        self, skills: Mapping[Hashable, Skill], parameters: RatingParameters, margins: _Margins
    ) -> dict[Hashable, Skill]:
        ahead, behind = (0, 1) if self.team_ranks[0] <= self.team_ranks[1] else (1, 0)
        team_skills = self.team_skills(skills, parameters)
        variances = [[s.sigma**2 + parameters.tau**2 for s in team] for team in team_skills]
        seat_count = len(self.seats)
        spread = math.sqrt(sum(map(sum, variances)) + seat_count * parameters.beta**2)
        gap = sum(s.mu for s in team_skills[ahead]) - sum(s.mu for s in team_skills[behind])
        environment = parameters.environment()
        arguments = (gap / spread, margins.get(seat_count) / spread)
        if self.team_ranks[0] == self.team_ranks[1]:
            v, w = environment.v_draw(*arguments), environment.w_draw(*arguments)
        else:
            v, w = environment.v_win(*arguments), environment.w_win(*arguments)
        after: dict[Hashable, Skill] = {}
        for team, sign in ((ahead, 1.0), (behind, -1.0)):
            for seat, skill, variance in zip(
                self.groups[team], team_skills[team], variances[team], strict=True
            ):
                after.setdefault(
                    self.seats[seat],
                    Skill(
                        skill.mu + sign * variance / spread * v,
                        math.sqrt(variance * (1 - variance / spread**2 * w)),
                    ),
                )
        return after


class _Margins:
    """trueskill's draw margin for each number of seats in a pair of teams, computed once."""

    def __init__(self, parameters: RatingParameters) -> None:
        self._parameters = parameters
        self._by_size: dict[int, float] = {}

    def get(self, size: int) -> float:
        if size not in self._by_size:
            self._by_size[size] = _draw_margin(self._parameters, size)
        return self._by_size[size]


def _draw_margin(parameters: RatingParameters, size: int) -> float:
    margin: float = trueskill.calc_draw_margin(
        parameters.draw_probability, size, parameters.environment()
    )
    return margin


def _pair_probabilities(
    first: Sequence[Skill], second: Sequence[Skill], parameters: RatingParameters, margin: float
) -> PairProbabilities:
    spread = math.sqrt(
        sum(parameters.beta**2 + s.sigma**2 + parameters.tau**2 for s in (*first, *second))
    )
    gap = sum(s.mu for s in first) - sum(s.mu for s in second)
    ahead = _normal_cdf((gap - margin) / spread)
    behind = _normal_cdf((-gap - margin) / spread)
    tie = _normal_interval((-margin - gap) / spread, (margin - gap) / spread)
    return PairProbabilities(ahead=ahead, tie=tie, behind=behind)


def held_out_mask(games: int, every: int = HELD_OUT_EVERY) -> tuple[bool, ...]:
    """Which of `games` games the fit holds out: the last of every run of `every`.

    Raises `FitError` unless at least one game is held out (so `games` ≥ `every` ≥ 2).
    """
    if every < 2:
        raise FitError(f"held-out games must be one in at least 2, got one in {every}")
    if games < every:
        raise FitError(
            f"{games} games are too few to hold one in {every} out; at least {every} are needed"
        )
    return tuple(index % every == every - 1 for index in range(games))


def held_out_log_likelihood(
    games: Sequence[RatedGame], parameters: RatingParameters, every: int = HELD_OUT_EVERY
) -> float:
    """The mean log-likelihood of the held-out games, rating only the training games.

    Each held-out game is scored under the ratings the training games before it
    produced; −∞ when trueskill cannot rate the training games under `parameters`.
    """
    mask = held_out_mask(len(games), every)
    return _held_out_mean([_Table.of(game) for game in games], parameters, mask)


def fit(
    games: Sequence[RatedGame],
    *,
    base: RatingParameters = DEFAULT_PARAMETERS,
    tau: float = POOL_TAU,
    held_out_every: int = HELD_OUT_EVERY,
) -> FitResult:
    """β and the draw probability that best predict `games`, with τ fixed at `tau`.

    `games` must be in the order they were played; one in `held_out_every` is
    held out (see the module's docstring). The fitted parameters keep `base`'s
    μ and σ; the held-out figures compare them with `base` itself (τ included,
    so with the defaults this is the arena's rating as it was). Raises
    `FitError` for too few games and `RatingError` for a table `rate_game`
    would refuse.
    """
    mask = held_out_mask(len(games), held_out_every)
    tables = [_Table.of(game) for game in games]
    training = [table for table, held in zip(tables, mask, strict=True) if not held]
    search = _Search(training, base.with_changes(tau=tau))
    best = search.run()
    fitted = search.parameters(*best)
    at_bound = search.at_bound(*best)
    return FitResult(
        parameters=fitted,
        baseline=base,
        games=len(games),
        held_out_games=sum(mask),
        training_log_likelihood=search.value(*best) / len(training),
        held_out_log_likelihood=_held_out_mean(tables, fitted, mask),
        baseline_held_out_log_likelihood=_held_out_mean(tables, base, mask),
        at_bound=at_bound,
        evaluations=search.evaluations,
        beta_standard_error=(math.nan if "beta" in at_bound
                             else search.beta_standard_error(*best)),
        coin_flip_log_likelihood=_coin_flip(tables, mask),
    )


def _coin_flip(tables: Sequence[_Table], mask: Sequence[bool]) -> float:
    """The held-out games' mean log-likelihood under even chances for every pair of teams,
    tying at the training games' rate (see the module docstring)."""
    pairs = ties = 0
    for table, held in zip(tables, mask, strict=True):
        if not held:
            decided, tied = _pair_counts(table)
            pairs, ties = pairs + decided + tied, ties + tied
    rate = max(ties / pairs if pairs else 0.0, DRAW_PROBABILITY_BOUNDS[0])
    scores = []
    for table, held in zip(tables, mask, strict=True):
        if held:
            decided, tied = _pair_counts(table)
            scores.append(decided * math.log((1 - rate) / 2) + tied * math.log(rate))
    return _mean(scores)


def _pair_counts(table: _Table) -> tuple[int, int]:
    """(decided, tied) pairs of teams in one game."""
    ranks = table.team_ranks
    tied = sum(1 for i, rank in enumerate(ranks) for other in ranks[i + 1:] if rank == other)
    return math.comb(len(ranks), 2) - tied, tied


class _Search:
    """Maximises the training games' prequential log-likelihood over (log β, logit p)."""

    def __init__(self, tables: Sequence[_Table], start: RatingParameters) -> None:
        self._tables = tables
        self._start = start
        centre = math.log(start.sigma)
        span = BETA_SEARCH_OCTAVES * math.log(2)
        self._log_beta_range = (centre - span, centre + span)
        low, high = DRAW_PROBABILITY_BOUNDS
        self._logit_draw_range = (_logit(low), _logit(high))
        self._memo: dict[tuple[float, float], float] = {}

    @property
    def evaluations(self) -> int:
        """How many parameter pairs have been scored so far."""
        return len(self._memo)

    def parameters(self, log_beta: float, logit_draw: float) -> RatingParameters:
        """The parameters at one point of the search space."""
        return self._start.with_changes(
            beta=math.exp(log_beta), draw_probability=_logistic(logit_draw)
        )

    def value(self, log_beta: float, logit_draw: float) -> float:
        """The training games' prequential log-likelihood at one point (memoised).

        Parameters under which trueskill cannot rate every game score −∞.
        """
        key = (log_beta, logit_draw)
        if key not in self._memo:
            self._memo[key] = _total_or_minus_infinity(self._tables, self.parameters(*key))
        return self._memo[key]

    def run(self) -> tuple[float, float]:
        """The best point found: grid on log β, then alternating golden-section refinements."""
        logit_draw = self._initial_logit_draw()
        step = math.log(2)
        grid = [self._log_beta_range[0] + k * step for k in range(2 * BETA_SEARCH_OCTAVES + 1)]
        log_beta = max(grid, key=lambda x: self.value(x, logit_draw))
        beta_half_width, draw_half_width = step, None
        for _ in range(_ROUNDS):
            log_beta = _golden_max(
                partial(self._value_at_draw, logit_draw),
                *_window(log_beta, beta_half_width, self._log_beta_range),
                _LOG_BETA_TOLERANCE,
            )
            draw_window = (
                self._logit_draw_range
                if draw_half_width is None
                else _window(logit_draw, draw_half_width, self._logit_draw_range)
            )
            logit_draw = _golden_max(
                partial(self.value, log_beta), *draw_window, _LOGIT_DRAW_TOLERANCE
            )
            beta_half_width, draw_half_width = math.log(1.5), 0.5
        return max(self._memo, key=self._memo.__getitem__)

    def beta_standard_error(self, log_beta: float, logit_draw: float) -> float:
        """β's standard error from the curvature of the log-likelihood in log β (NaN when
        it does not curve down)."""
        step = _CURVATURE_STEP
        values = [self.value(log_beta + k * step, logit_draw) for k in (-1, 0, 1)]
        curvature = (values[0] - 2 * values[1] + values[2]) / (step * step)
        if not math.isfinite(curvature) or curvature >= 0:
            return math.nan
        return math.exp(log_beta) / math.sqrt(-curvature)

    def _value_at_draw(self, logit_draw: float, log_beta: float) -> float:
        return self.value(log_beta, logit_draw)

    def at_bound(self, log_beta: float, logit_draw: float) -> tuple[str, ...]:
        """The names of the parameters that sit at an edge of their search range."""
        names = []
        if _near_edge(log_beta, self._log_beta_range, _LOG_BETA_TOLERANCE):
            names.append("beta")
        if _near_edge(logit_draw, self._logit_draw_range, _LOGIT_DRAW_TOLERANCE):
            names.append("draw_probability")
        return tuple(names)

    def _initial_logit_draw(self) -> float:
        pairs = ties = 0
        for table in self._tables:
            for i, rank in enumerate(table.team_ranks):
                for other in table.team_ranks[i + 1 :]:
                    pairs += 1
                    ties += rank == other
        low, high = DRAW_PROBABILITY_BOUNDS
        return _logit(min(max(ties / pairs if pairs else low, low), high))


def _total_or_minus_infinity(tables: Sequence[_Table], parameters: RatingParameters) -> float:
    try:
        return _prequential(tables, parameters).total
    except FloatingPointError:
        return -math.inf


def _held_out_mean(
    tables: Sequence[_Table], parameters: RatingParameters, mask: Sequence[bool]
) -> float:
    try:
        scores = _prequential(tables, parameters, mask).log_likelihoods
    except FloatingPointError:
        return -math.inf
    return _mean([score for score, held in zip(scores, mask, strict=True) if held])


def _golden_max(
    function: Callable[[float], float], low: float, high: float, tolerance: float
) -> float:
    """The argument of `function`'s maximum on [low, high], for a unimodal function."""
    left = high - _GOLDEN * (high - low)
    right = low + _GOLDEN * (high - low)
    left_value, right_value = function(left), function(right)
    while high - low > tolerance:
        if left_value >= right_value:
            high, right, right_value = right, left, left_value
            left = high - _GOLDEN * (high - low)
            left_value = function(left)
        else:
            low, left, left_value = left, right, right_value
            right = low + _GOLDEN * (high - low)
            right_value = function(right)
    return left if left_value >= right_value else right


def _window(centre: float, half_width: float, bounds: tuple[float, float]) -> tuple[float, float]:
    return max(bounds[0], centre - half_width), min(bounds[1], centre + half_width)


def _near_edge(value: float, bounds: tuple[float, float], tolerance: float) -> bool:
    return value - bounds[0] <= tolerance or bounds[1] - value <= tolerance


def _normal_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2))


def _normal_interval(low: float, high: float) -> float:
    """Φ(high) − Φ(low), computed in the tail where it is small to keep its digits."""
    if low > 0:
        return 0.5 * (math.erfc(low / math.sqrt(2)) - math.erfc(high / math.sqrt(2)))
    return 0.5 * (math.erfc(-high / math.sqrt(2)) - math.erfc(-low / math.sqrt(2)))


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def _logistic(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)
