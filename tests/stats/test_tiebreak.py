"""The tie-break rule for prizes: an order inside shared places, and nothing else."""

from __future__ import annotations

from arena.stats.tiebreak import TIEBREAK_RULE, Contender, prize_order


def test_tiers_keep_their_order_whatever_the_tie_break() -> None:
    contenders = [Contender("low", 2, 0.9, 30.0), Contender("top", 1, 0.1, 0.0)]
    assert prize_order(contenders, {}) == ["top", "low"]


def test_head_to_head_decides_a_shared_place_before_the_overall_score() -> None:
    contenders = [Contender("a", 1, 0.60, 10.0), Contender("b", 1, 0.58, 12.0),
                  Contender("c", 2, 0.30, 0.0)]
    head_to_head = {("a", "b"): (4.0, 10), ("b", "a"): (6.0, 10)}
    assert prize_order(contenders, head_to_head) == ["b", "a", "c"]


def test_then_the_score_then_the_conservative_rating_then_the_name() -> None:
    even = {("a", "b"): (5.0, 10), ("b", "a"): (5.0, 10)}
    assert prize_order([Contender("a", 1, 0.5, 1.0), Contender("b", 1, 0.6, 0.0)],
                       even) == ["b", "a"]
    assert prize_order([Contender("a", 1, 0.5, 1.0), Contender("b", 1, 0.5, 2.0)],
                       even) == ["b", "a"]
    assert prize_order([Contender("b", 1, 0.5, 1.0), Contender("a", 1, 0.5, 1.0)],
                       even) == ["a", "b"]


def test_the_rule_says_it_is_not_evidence() -> None:
    assert "a tie-break rule, not evidence" in TIEBREAK_RULE
