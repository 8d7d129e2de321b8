"""The toolchain helper, and the Node bot's own unit tests run through node --test."""

from __future__ import annotations

import subprocess

import pytest

from tests.bots.bot_harness import NODE_BOT, node_command, require_toolchain


def test_a_missing_toolchain_skips_locally(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no frobnicator"):
        require_toolchain(False, "no frobnicator")
    require_toolchain(True, "present: nothing happens")


def test_a_missing_toolchain_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="no frobnicator.*CI=true"):
        require_toolchain(False, "no frobnicator")


def test_the_node_bots_unit_tests_pass() -> None:
    node = node_command()[0]
    result = subprocess.run([node, "--test", "test/"], cwd=NODE_BOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
