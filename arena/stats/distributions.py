"""The few distribution functions the statistics need, from the standard library.

Student's t comes from the regularized incomplete beta function and the
chi-square from the regularized incomplete gamma function, both evaluated by
their series and continued fractions (Numerical Recipes, sections 6.2 and 6.4);
they agree with SciPy to about 1e-10 over the ranges used here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from statistics import NormalDist

_EPSILON = 1e-14
_TINY = 1e-300
_MAX_ITERATIONS = 500
_STANDARD_NORMAL = NormalDist()


def normal_cdf(x: float) -> float:
    """P(Z ≤ x) for a standard normal Z."""
    return _STANDARD_NORMAL.cdf(x)


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _MAX_ITERATIONS):
        for numerator in (m * (b - m) * x / ((qam + 2 * m) * (a + 2 * m)),
                          -(a + m) * (qab + m) * x / ((a + 2 * m) * (qap + 2 * m))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            h *= d * c
        if abs(d * c - 1.0) < _EPSILON:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), for a, b > 0 and 0 ≤ x ≤ 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_continued_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_continued_fraction(b, a, 1.0 - x) / b


def f_sf(statistic: float, df1: float, df2: float) -> float:
    """P(F ≥ statistic) for Snedecor's F with `df1` and `df2` degrees of freedom."""
    if statistic <= 0.0:
        return 1.0
    return incomplete_beta(df2 / 2.0, df1 / 2.0, df2 / (df2 + df1 * statistic))


def t_two_sided_p(t: float, df: float) -> float:
    """P(|T| ≥ |t|) for Student's T with `df` degrees of freedom."""
    return incomplete_beta(df / 2.0, 0.5, df / (df + t * t))


@lru_cache(maxsize=4096)
def t_critical(confidence: float, df: int) -> float:
    """The c with P(|T| ≤ c) = `confidence` for Student's T with `df` ≥ 1 degrees of freedom."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    alpha = 1.0 - confidence
    low, high = 0.0, 1.0
    while t_two_sided_p(high, df) > alpha:
        low, high = high, high * 2.0
    for _ in range(100):
        middle = (low + high) / 2.0
        if t_two_sided_p(middle, df) > alpha:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


def _gamma_series(a: float, x: float) -> float:
    term = total = 1.0 / a
    denominator = a
    for _ in range(_MAX_ITERATIONS):
        denominator += 1.0
        term *= x / denominator
        total += term
        if abs(term) < abs(total) * _EPSILON:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _gamma_continued_fraction(a: float, x: float) -> float:
    b = x + 1.0 - a
    c, d = 1.0 / _TINY, 1.0 / b
    h = d
    for i in range(1, _MAX_ITERATIONS):
        numerator = -i * (i - a)
        b += 2.0
        d = numerator * d + b
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = b + numerator / c
        c = c if abs(c) > _TINY else _TINY
        h *= d * c
        if abs(d * c - 1.0) < _EPSILON:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def upper_incomplete_gamma(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x), for a > 0 and x ≥ 0."""
    if x <= 0.0:
        return 1.0
    if x < a + 1.0:
        return 1.0 - _gamma_series(a, x)
    return _gamma_continued_fraction(a, x)


def chi_square_sf(statistic: float, df: int) -> float:
    """P(X ≥ `statistic`) for a chi-square X with `df` ≥ 1 degrees of freedom."""
    return upper_incomplete_gamma(df / 2.0, statistic / 2.0)



EXACT_BLOCKS = 40
"""Up to this many blocks `sign_flip_p` is computed exactly; beyond it, None."""
_GRID = 5040
"""Block differences are multiples of 1/denominators up to 10 seats and rotations; on this
grid (lcm 1..10 times 2) they are integers."""


def sign_flip_p(differences: Sequence[float]) -> float | None:
    """The exact two-sided p-value of "each difference is as likely positive as negative"
    (a randomization test over the 2^n sign flips of the differences): the chance that
    |Σ ±d| reaches |Σ d|. None for more than `EXACT_BLOCKS` differences."""
    values = [round(abs(d) * 2 * _GRID) for d in differences if abs(d) > 1e-12]
    if len(values) > EXACT_BLOCKS:
        return None
    if not values:
        return 1.0
    observed = abs(sum(round(d * 2 * _GRID) for d in differences if abs(d) > 1e-12))
    counts: dict[int, int] = {0: 1}
    for value in values:
        grown: dict[int, int] = {}
        for total, count in counts.items():
            grown[total + value] = grown.get(total + value, 0) + count
            grown[total - value] = grown.get(total - value, 0) + count
        counts = grown
    extreme = sum(count for total, count in counts.items() if abs(total) >= observed)
    return extreme / 2.0 ** len(values)
