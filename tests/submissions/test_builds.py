"""`run_build`: a build command in the version's folder, with a clean environment, a time
limit and a memory limit, its output kept as the log."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from arena.submissions import BuildLimits, run_build


def test_a_build_runs_in_the_versions_folder_and_keeps_its_output(tmp_path: Path) -> None:
    result = run_build("echo compiling; pwd; touch built", tmp_path)
    assert (result.ok, result.exit_code, result.timed_out) == (True, 0, False)
    assert result.log.startswith(f"compiling\n{tmp_path}\n")
    assert "build `echo compiling; pwd; touch built` succeeded" in result.log
    assert (tmp_path / "built").exists()


def test_a_failing_build_says_its_exit_code_after_its_output(tmp_path: Path) -> None:
    result = run_build("echo 'error: no such file' >&2; exit 3", tmp_path)
    assert (result.ok, result.exit_code) == (False, 3)
    assert result.log.splitlines()[0] == "error: no such file"
    assert "failed with exit code 3" in result.log


def test_a_build_sees_none_of_arenas_environment(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", "secret")
    monkeypatch.setenv("ARENA_TOKEN", "bot-secret")
    result = run_build("env", tmp_path, env={"ARENA_PROTOS": "/p"})
    names = {line.split("=", 1)[0] for line in result.log.splitlines() if "=" in line}
    assert {"ARENA_ADMIN_TOKEN", "ARENA_TOKEN"}.isdisjoint(names)
    assert {"PATH", "HOME", "ARENA_PROTOS"} <= names
    assert f"HOME={tmp_path}" in result.log.splitlines()


def test_a_build_past_its_time_limit_is_killed_with_what_it_started(tmp_path: Path) -> None:
    started = time.monotonic()
    result = run_build("sleep 30 & echo $! > child; sleep 30", tmp_path,
                       BuildLimits(seconds=0.5))
    assert time.monotonic() - started < 5
    assert (result.ok, result.timed_out, result.exit_code) == (False, True, None)
    assert "killed after the time limit of 0.5 s" in result.log
    child = int((tmp_path / "child").read_text())
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)


def test_a_build_past_its_memory_limit_fails(tmp_path: Path) -> None:
    result = run_build("python -c 'x = bytearray(512 * 1024 * 1024)'", tmp_path,
                       BuildLimits(memory_bytes=256 * 1024 * 1024))
    assert not result.ok
    assert "MemoryError" in result.log


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    return status != "Z"
