"""Results by seat and the chi-square test of "no seat effect" on wins."""

from __future__ import annotations

import random

import pytest

from arena.stats import RankedGame, seat_tables
from arena.stats.simulate import ranks_of, tournament

PARTNERS = ((0, 2), (1, 3))


def won_by(seat: int, block: object, size: int = 4) -> RankedGame:
    """A game `seat` won and the others tied behind."""
    ranks = tuple(0 if s == seat else 1 for s in range(size))
    return RankedGame(block, tuple(f"bot{s}" for s in range(size)), ranks)


def test_each_seat_counts_its_games_wins_win_rate_and_mean_score() -> None:
    games = [won_by(0, 1), won_by(0, 2), won_by(3, 3), won_by(1, 4)]
    (table,) = seat_tables(games)
    seat0 = table.seats[0]
    assert (seat0.games, seat0.wins, seat0.win_rate) == (4, 2, 0.5)
    assert seat0.score == pytest.approx((1 + 1 + 1 / 3 + 1 / 3) / 4)
    assert [s.wins for s in table.seats] == [2, 1, 0, 1]


def test_without_duplicate_blocks_the_statistic_is_pearsons_up_to_n_minus_one_over_n() -> None:
    winners = [0] * 40 + [1] * 25 + [2] * 20 + [3] * 15
    (table,) = seat_tables([won_by(seat, block) for block, seat in enumerate(winners)])
    pearson = sum((wins - 25) ** 2 / 25 for wins in (40, 25, 20, 15))
    assert table.degrees_of_freedom == 3
    assert table.design_effect == pytest.approx(100 / 99)
    assert table.chi_square == pytest.approx(pearson * 99 / 100)


def test_a_seat_that_wins_far_more_than_its_share_is_detected() -> None:
    rng = random.Random(9)
    games = []
    for block in range(400):
        performance = [rng.gauss(0.6 if seat == 0 else 0.0, 1.0) for seat in range(4)]
        games.append(RankedGame(block, ("a", "b", "c", "d"), ranks_of(performance)))
    (table,) = seat_tables(games)
    assert table.p_value < 0.001


def test_seat_symmetric_duplicate_deals_reject_no_seat_effect_about_five_percent() -> None:
    # Duplicate deals repeat each deal's hands in every rotation; Pearson's statistic
    # without the design-effect correction rejects about 30% of these runs.
    rng = random.Random(10)
    strengths = {"a": 0.3, "b": 0.0, "c": 0.0, "d": -0.3}
    runs = 200
    rejected = sum(seat_tables(tournament(strengths, 20, rng, luck=1.5))[0].p_value < 0.05
                   for _ in range(runs))
    print(f"\nno-seat-effect rejected at 5% under duplicate deals: {rejected}/{runs}")
    assert rejected <= 0.085 * runs


def test_partner_games_test_the_teams_not_the_seats() -> None:
    games = [RankedGame(block, ("a", "b", "c", "d"),
                        (0, 1, 0, 1) if block % 3 else (1, 0, 1, 0), PARTNERS)
             for block in range(30)]
    (table,) = seat_tables(games)
    assert table.teams == PARTNERS and table.degrees_of_freedom == 1
    assert [s.wins for s in table.seats] == [20, 10, 20, 10]


def test_each_table_layout_gets_its_own_table() -> None:
    games = [won_by(0, 1, size=2), won_by(1, 2, size=3), won_by(2, 3, size=3)]
    assert [(t.table_size, t.games) for t in seat_tables(games)] == [(2, 1), (3, 2)]


def test_the_seat_test_keeps_its_size_with_few_duplicate_deals() -> None:
    """No seat effect, 6 duplicate deals at four seats: rejected at 5% no more than 5% of the
    time, give or take three standard errors (the χ² alone rejected 7.6%)."""
    from arena.stats.calibration import FIELD

    rng = random.Random(1)
    runs = 800
    rejected = sum(seat_tables(tournament(FIELD, 6, rng))[0].p_value < 0.05
                   for _ in range(runs))
    assert rejected / runs <= 0.05 + 3 * (0.05 * 0.95 / runs) ** 0.5
