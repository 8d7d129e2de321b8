"""The chi-square and Student-t functions against published tables."""

from __future__ import annotations

import math

import pytest

from arena.stats.distributions import (
    chi_square_sf,
    incomplete_beta,
    t_critical,
    t_two_sided_p,
    upper_incomplete_gamma,
)


@pytest.mark.parametrize(("statistic", "df"), [(3.841459, 1), (5.991465, 2), (7.814728, 3),
                                               (11.070498, 5), (18.307038, 10),
                                               (43.772972, 30)])
def test_chi_square_tail_is_five_percent_at_the_tabled_critical_value(statistic: float,
                                                                      df: int) -> None:
    assert chi_square_sf(statistic, df) == pytest.approx(0.05, abs=1e-6)


@pytest.mark.parametrize("x", [0.1, 1.0, 4.0, 25.0])
def test_chi_square_with_two_degrees_of_freedom_is_exp_of_minus_half_x(x: float) -> None:
    assert chi_square_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-10)


def test_chi_square_tail_of_zero_is_one() -> None:
    assert chi_square_sf(0.0, 3) == 1.0


def test_upper_incomplete_gamma_of_one_is_exp_of_minus_x() -> None:
    assert upper_incomplete_gamma(1.0, 2.5) == pytest.approx(math.exp(-2.5), rel=1e-12)


@pytest.mark.parametrize(("df", "critical"), [(1, 12.7062), (2, 4.3027), (5, 2.5706),
                                              (10, 2.2281), (30, 2.0423), (10_000, 1.9602)])
def test_t_critical_matches_the_table_at_95_percent(df: int, critical: float) -> None:
    assert t_critical(0.95, df) == pytest.approx(critical, abs=1e-4)


def test_t_critical_at_99_percent_with_four_degrees_of_freedom() -> None:
    assert t_critical(0.99, 4) == pytest.approx(4.6041, abs=1e-4)


def test_t_two_sided_p_inverts_t_critical() -> None:
    assert t_two_sided_p(t_critical(0.9, 7), 7) == pytest.approx(0.1, abs=1e-10)
    assert t_two_sided_p(2.0, 10) == pytest.approx(0.0733880348, abs=1e-9)  # a table value


def test_incomplete_beta_of_one_and_one_is_the_identity() -> None:
    assert incomplete_beta(1.0, 1.0, 0.3) == pytest.approx(0.3, rel=1e-12)


def test_incomplete_beta_is_symmetric_under_swapping() -> None:
    assert incomplete_beta(2.5, 0.5, 0.8) == pytest.approx(1 - incomplete_beta(0.5, 2.5, 0.2),
                                                           rel=1e-10)
    assert incomplete_beta(2.5, 0.5, 0.8) == pytest.approx(0.3143726376, rel=1e-9)
    assert incomplete_beta(2.0, 3.0, 0.3) == pytest.approx(0.3483, rel=1e-12)  # binomial sum


def test_a_confidence_outside_zero_and_one_is_refused() -> None:
    with pytest.raises(ValueError, match="confidence"):
        t_critical(1.0, 3)
