"""The mutation-testing driver (`python -m mutation`): what it reads, how it picks modules
for the quick mode, and how it reads Cosmic Ray's results."""

from __future__ import annotations

from pathlib import Path

import pytest

from mutation.__main__ import (
    ConfigError,
    Equivalent,
    Module,
    Mutant,
    Score,
    annotation_spans,
    changed_lines,
    in_annotation,
    killer,
    load_equivalents,
    load_settings,
    quick_selection,
    stale_equivalents,
)

DIFF = """--- mutation diff ---
--- aarena/stats/estimate.py
+++ barena/stats/estimate.py
@@ -105,4 +105,4 @@
-    return sum(y for y, _ in totals.values()) / count if count else 0.5
+    return sum(y for y, _ in totals.values()) / count if count else 1.5
"""


def test_a_mutants_lines_are_read_from_its_diff() -> None:
    assert changed_lines(DIFF) == (
        "return sum(y for y, _ in totals.values()) / count if count else 0.5",
        "return sum(y for y, _ in totals.values()) / count if count else 1.5")


def test_the_killer_is_the_first_failed_or_erroring_test_file() -> None:
    output = ("F\n=== short test summary info ===\n"
              "FAILED tests/stats/test_estimate_reference.py::test_x - assert 1 == 2\n"
              "ERROR tests/stats/test_leaderboard.py\n")
    assert killer(output) == "tests/stats/test_estimate_reference.py"
    assert killer("ERROR tests/a.py - ImportError") == "tests/a.py"
    assert killer("timeout") == "timeout"
    assert killer("1 passed") == "?"


def test_the_quick_mode_takes_modules_whose_file_or_tests_changed() -> None:
    modules = [Module("arena/a.py", ("tests/test_a.py",)),
               Module("arena/b.py", ("tests/test_b.py::test_one", "-k", "fast")),
               Module("arena/c.py", ("tests/test_c.py",))]
    assert quick_selection(modules, {"arena/a.py", "tests/test_b.py", "README.md"}) == \
        modules[:2]
    assert quick_selection(modules, {"docs/index.md"}) == []


def test_an_equivalent_mutant_without_a_reason_is_refused(tmp_path: Path) -> None:
    (tmp_path / "equivalent.toml").write_text(
        '[[equivalent]]\nmodule = "arena/a.py"\noperator = "core/AddNot"\n'
        'before = "x"\nafter = "not x"\nreason = "  "\n')
    with pytest.raises(ConfigError, match="'x' → 'not x' gives no reason"):
        load_equivalents(tmp_path / "equivalent.toml")


def test_a_missing_test_file_in_the_modules_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "modules.toml").write_text(
        'operators = ["core/AddNot"]\n[[module]]\npath = "arena/stats/estimate.py"\n'
        'tests = ["tests/stats/test_nothing_here.py"]\n')
    with pytest.raises(ConfigError, match="modules.toml: tests/stats/test_nothing_here.py "
                                          "does not exist"):
        load_settings(tmp_path / "modules.toml")


def test_an_equivalent_entry_that_no_longer_survives_is_stale() -> None:
    live = Equivalent("arena/a.py", "core/AddNot", "x", "not x", "because")
    gone = Equivalent("arena/a.py", "core/AddNot", "y", "not y", "because")
    elsewhere = Equivalent("arena/b.py", "core/AddNot", "z", "not z", "not run")
    score = Score("arena/a.py", 1.0, killed=3,
                  equivalent=[Mutant("core/AddNot", 4, "x", "not x", "survived")])
    assert stale_equivalents([live, gone, elsewhere], [score]) == [gone]


def test_a_score_leaves_equivalent_mutants_out() -> None:
    score = Score("arena/a.py", 1.0, killed=9,
                  survived=[Mutant("core/AddNot", 4, "x", "not x", "survived")],
                  equivalent=[Mutant("core/AddNot", 5, "y", "not y", "survived")])
    assert score.percent == 90.0
    low, high = score.interval()
    assert 55.0 < low < 60.0 and 98.0 < high < 99.0  # Wilson's, for 9 of 10


def test_the_listed_modules_are_the_core_ones_and_every_equivalent_names_one() -> None:
    listed = {module.path for module in load_settings().modules}
    assert {"arena/engine/game.py", "arena/stats/estimate.py", "arena/stats/leaderboard.py",
            "arena/store/games.py", "arena/server/auth.py", "arena/server/permissions.py",
            "arena/submissions/archive.py", "arena/sandbox/plan.py"} <= listed
    assert {entry.module for entry in load_equivalents()} <= listed


def test_mutants_in_postponed_annotations_are_found() -> None:
    source = ("from __future__ import annotations\n"
              "def f(x: int | None, y: int = 1 | 2) -> str | None:\n"
              "    z: int | str = x or y\n"
              "    return str(z)\n")
    spans = annotation_spans(source)
    assert in_annotation((2, 14), spans)  # the | of x's annotation
    assert not in_annotation((2, 34), spans)  # the | of y's default, which runs
    assert in_annotation((2, 44), spans) and in_annotation((3, 11), spans)
    assert annotation_spans(source.replace("from __future__ import annotations\n", "")) == []
