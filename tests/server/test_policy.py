"""The bot policy is data: every bad setting is refused naming it, before any game."""

from __future__ import annotations

import math

import pytest

from arena.policy import MAX_DECISION_TIMEOUT, MAX_TIME_BANK, BotPolicy


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("decision_timeout", 0), ("decision_timeout", -1.0), ("decision_timeout", math.nan),
        ("decision_timeout", math.inf), ("decision_timeout", MAX_DECISION_TIMEOUT + 1),
        ("decision_timeout", "2"), ("time_bank", -0.5), ("time_bank", math.nan),
        ("time_bank", 1e308), ("time_bank", MAX_TIME_BANK + 1), ("time_bank", True),
        ("on_violation", "ignore"), ("max_strikes", 0), ("max_strikes", 2.5),
    ],
)
def test_a_bad_policy_setting_is_refused_naming_it(key: str, value: object) -> None:
    with pytest.raises(ValueError, match=f"^{key}: "):
        BotPolicy.from_dict({key: value})


def test_the_largest_settings_fit_the_wire() -> None:
    policy = BotPolicy(decision_timeout=MAX_DECISION_TIMEOUT, time_bank=MAX_TIME_BANK)
    assert policy.decision_timeout_ms < 2**32 and policy.time_bank_ms < 2**32
    assert BotPolicy.from_dict(policy.to_dict()) == policy
