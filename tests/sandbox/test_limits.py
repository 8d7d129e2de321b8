"""The sandbox's resource limits: each lower bound at exactly its value and one below it,
and what a limit may be at all."""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from typing import Any

import pytest

from arena.sandbox.limits import LOG_FILES, MIB, Limits

FLOORS = {"processes": 1, "open_files": 16, "memory_bytes": 16 * MIB,
          "total_memory_bytes": 16 * MIB, "cpu_percent": 1}
"""The smallest value each bounded limit takes."""
FLOOR_REFUSAL = "sandbox limits: at least 1 process, 16 open files, 16 MiB, 1% of a core"


@pytest.mark.parametrize("name", sorted(FLOORS))
def test_a_limit_at_exactly_its_floor_is_taken(name: str) -> None:
    assert getattr(Limits(**{name: FLOORS[name]}), name) == FLOORS[name]


@pytest.mark.parametrize("name", sorted(FLOORS))
def test_a_limit_one_below_its_floor_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match=FLOOR_REFUSAL):
        Limits(**{name: FLOORS[name] - 1})


@pytest.mark.parametrize("name", ["output_bytes", "tmp_bytes", "cpu_seconds", "nice"])
def test_an_unbounded_limit_may_be_zero(name: str) -> None:
    assert getattr(Limits(**{name: 0}), name) == 0


@pytest.mark.parametrize(("name", "value"), [("nice", -1), ("tmp_bytes", 1.5),
                                             ("cpu_seconds", True), ("processes", "8")])
def test_a_limit_that_is_no_whole_number_of_at_least_zero_is_refused(name: str,
                                                                     value: Any) -> None:
    with pytest.raises(ValueError, match=f"sandbox limit {name}: a whole number >= 0, got "
                                          f"{value!r}"):
        Limits(**{name: value})


def test_the_defaults_are_the_documented_ones() -> None:
    assert Limits().to_dict() == {
        "memory_bytes": 2048 * MIB, "processes": 256, "open_files": 256,
        "output_bytes": 16 * MIB, "tmp_bytes": 64 * MIB, "cpu_seconds": 3600, "nice": 0,
        "total_memory_bytes": 1024 * MIB, "cpu_percent": 100}


def test_a_mebibyte_is_two_to_the_twentieth_bytes() -> None:
    assert MIB == 1_048_576
    assert Limits().memory_bytes == 2_147_483_648  # 2 GiB, as the sandbox guide says


def test_limits_survive_their_plain_form_and_missing_keys_take_defaults() -> None:
    limits = Limits(processes=9, nice=5)
    assert Limits.from_dict(limits.to_dict()) == limits
    assert Limits.from_dict({"processes": "9", "nice": 5.0}) == limits


def test_limits_cannot_be_changed_once_made() -> None:
    with pytest.raises(FrozenInstanceError):
        Limits().processes = 2  # type: ignore[misc]


def test_a_managed_bot_keeps_three_log_files() -> None:
    assert LOG_FILES == 3
