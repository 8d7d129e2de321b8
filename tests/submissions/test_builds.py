"""`run_build`: a build command in the version's folder, with a clean environment, a time
limit and a memory limit, its output kept as the log — each unsandboxed and in the
sandbox; and what only the sandbox keeps a build from: the network, other files, writing
outside its folder."""

from __future__ import annotations

import os
import socket
import stat
import time
from pathlib import Path

import pytest

from arena.submissions import BuildLimits, run_build
from arena.submissions.build import BuildSandbox
from tests.sandbox.sandbox_support import processes_with, require_sandbox


@pytest.fixture(params=["off", "required"])
def sandbox(request: pytest.FixtureRequest) -> BuildSandbox:
    """Each build test unsandboxed and in the sandbox."""
    if request.param == "required":
        require_sandbox()
    mode: BuildSandbox = request.param
    return mode


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A version's folder, with a database and a token file beside it."""
    (tmp_path / "arena.db").write_text("the database")
    (tmp_path / "arena.admin-token").write_text("the admin token")
    version = tmp_path / "version"
    version.mkdir()
    return version


def test_a_build_runs_in_the_versions_folder_and_keeps_its_output(
        folder: Path, sandbox: BuildSandbox) -> None:
    result = run_build("echo compiling; pwd; touch built", folder, sandbox=sandbox)
    assert (result.ok, result.exit_code, result.timed_out) == (True, 0, False), result.log
    assert result.log.startswith(f"compiling\n{folder}\n")
    assert "build `echo compiling; pwd; touch built` succeeded" in result.log
    assert (folder / "built").exists()


def test_a_failing_build_says_its_exit_code_after_its_output(
        folder: Path, sandbox: BuildSandbox) -> None:
    result = run_build("echo 'error: no such file' >&2; exit 3", folder, sandbox=sandbox)
    assert (result.ok, result.exit_code) == (False, 3)
    assert result.log.splitlines()[0] == "error: no such file"
    assert "failed with exit code 3" in result.log


def test_a_build_sees_none_of_arenas_environment(folder: Path, sandbox: BuildSandbox,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", "secret")
    monkeypatch.setenv("ARENA_TOKEN", "bot-secret")
    result = run_build("env", folder, env={"ARENA_PROTOS": "/p"}, sandbox=sandbox)
    names = {line.split("=", 1)[0] for line in result.log.splitlines() if "=" in line}
    assert {"ARENA_ADMIN_TOKEN", "ARENA_TOKEN"}.isdisjoint(names)
    assert {"PATH", "HOME", "ARENA_PROTOS"} <= names
    assert f"HOME={folder}" in result.log.splitlines()


def test_a_build_past_its_time_limit_is_killed_with_what_it_started(
        folder: Path, sandbox: BuildSandbox) -> None:
    marker = f"3{os.getpid() % 1000}.{time.monotonic_ns() % 997}"
    started = time.monotonic()
    result = run_build(f"sleep {marker} & sleep {marker}", folder, BuildLimits(seconds=0.5),
                       sandbox=sandbox)
    assert time.monotonic() - started < 5
    assert (result.ok, result.timed_out, result.exit_code) == (False, True, None)
    assert "killed after the time limit of 0.5 s" in result.log
    deadline = time.monotonic() + 5
    while _alive(processes_with(f"sleep {marker}")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(processes_with(f"sleep {marker}"))


def test_a_build_past_its_memory_limit_fails(folder: Path, sandbox: BuildSandbox) -> None:
    result = run_build("python -c 'x = bytearray(512 * 1024 * 1024)'", folder,
                       BuildLimits(memory_bytes=256 * 1024 * 1024), sandbox=sandbox)
    assert not result.ok
    assert "MemoryError" in result.log


def test_a_sandboxed_build_reaches_no_network_not_even_loopback(folder: Path) -> None:
    require_sandbox()
    with socket.create_server(("127.0.0.1", 0)) as listening:
        port = listening.getsockname()[1]
        result = run_build(f"python -c 'import socket; socket.create_connection("
                           f"(\"127.0.0.1\", {port}), timeout=2)'", folder,
                           sandbox="required")
    assert not result.ok
    assert "Network is unreachable" in result.log or "refused" in result.log, result.log


def test_a_sandboxed_build_reads_nothing_beside_its_folder(folder: Path) -> None:
    require_sandbox()
    result = run_build("cat ../arena.db ../arena.admin-token", folder, sandbox="required")
    assert not result.ok
    assert "the database" not in result.log and "the admin token" not in result.log
    assert "No such file" in result.log


def test_a_sandboxed_build_writes_only_its_own_folder(folder: Path) -> None:
    require_sandbox()
    result = run_build("touch inside && touch ../outside", folder, sandbox="required")
    assert not result.ok
    assert (folder / "inside").exists() and not (folder.parent / "outside").exists()


def test_after_a_sandboxed_build_its_folder_is_arenas_again_and_read_only_to_others(
        folder: Path) -> None:
    require_sandbox()
    result = run_build("mkdir out && touch out/program && chmod 777 out/program", folder,
                       sandbox="required")
    assert result.ok, result.log
    for path in (folder, folder / "out", folder / "out" / "program"):
        info = path.stat()
        assert (info.st_uid, stat.S_IMODE(info.st_mode)) == (os.geteuid(), 0o755)


def _alive(pids: list[int]) -> bool:
    """Whether any of `pids` still runs (a zombie does not)."""
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            continue
        if status != "Z":
            return True
    return False
