"""`arena doctor` and `serve --check-sandbox` say what isolation is in force; `serve` on an
address others reach refuses bots it cannot sandbox, before it binds anything."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import arena.sandbox
from arena.cli import main
from arena.cli.serve import bot_isolation, is_loopback
from arena.sandbox import SandboxStatus, describe
from tests.sandbox.sandbox_support import require_sandbox

NONE = SandboxStatus(False, "none", "bubblewrap (bwrap) is not installed")


@pytest.fixture
def no_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    """This machine, as if it had no bubblewrap."""
    monkeypatch.setattr(arena.sandbox, "status", lambda: NONE)


def test_doctor_says_the_sandbox_is_in_force_and_how(tmp_path: Path) -> None:
    require_sandbox()
    result = CliRunner().invoke(main, ["--db", str(tmp_path / "a.db"), "doctor"])
    assert result.exit_code == 0, result.output
    first, how, *rest = result.output.splitlines()
    assert first.startswith("sandbox: bubblewrap") and "in force" in first
    assert how.startswith("  how: ") and "no network" in rest[0]
    assert "  builds of submitted bots: the same sandbox, with no network" in "\n".join(rest)


BACKED_BY = {
    "sandbox:": (
        "test_every_attack_of_a_hostile_bot_fails_while_its_games_are_recorded",
    ),
    "how:": (
        "test_every_attack_of_a_hostile_bot_fails_while_its_games_are_recorded",
    ),
    "each bot:": (
        "test_every_attack_of_a_hostile_bot_fails_while_its_games_are_recorded",
        "test_a_sandboxed_bot_and_what_it_left_running_end_when_arena_is_killed",
        "test_a_hidden_file_in_a_shown_folder_cannot_be_read",
    ),
    "mounts:": (
        "test_a_run_line_naming_host_paths_shows_the_version_none_of_them",
        "test_a_version_started_by_a_program_elsewhere_is_refused_not_shown_it",
        "test_a_run_line_naming_no_file_of_the_version_still_shows_it_its_folder",
    ),
    "keyring:": (
        "test_no_sandbox_reaches_arenas_session_keyring_nor_passes_a_key_to_another",
    ),
    "seccomp:": (
        "test_the_kernel_calls_a_bot_never_needs_are_refused_and_pid1_shows_no_mounts",
        "test_a_system_call_of_another_abi_kills_the_bot_instead_of_passing_the_filter",
    ),
    "privileges:": (
        "test_the_kernel_calls_a_bot_never_needs_are_refused_and_pid1_shows_no_mounts",
    ),
    "totals": (
        "test_a_bots_processes_together_hold_no_more_memory_than_its_total",
        "test_a_bots_processes_and_threads_together_stop_at_its_total",
        "test_a_bot_spinning_in_many_processes_gets_only_its_share_of_the_cpu",
        "test_a_builds_processes_together_stay_within_its_memory_and_cpu",
    ),
    "limits:": (
        "test_a_command_burning_cpu_past_its_budget_is_killed",
        "test_open_files_are_limited",
        "test_every_attack_of_a_hostile_bot_fails_while_its_games_are_recorded",
    ),
    "logs:": (
        "test_a_bot_flooding_its_log_across_restarts_keeps_a_few_capped_files",
        "test_output_past_its_limit_stops_the_command",
    ),
    "builds of submitted bots:": (
        "test_a_builds_processes_together_stay_within_its_memory_and_cpu",
    ),
    "submissions:": (
        "test_a_symlink_chain_whose_final_target_is_outside_is_refused",
        "test_a_name_over_the_file_systems_limit_is_refused_before_anything_is_written",
        "test_deeply_nested_toml_is_one_clear_error",
        "test_a_name_that_passes_for_an_existing_bots_is_refused",
        "test_no_failed_submit_leaves_a_blob_or_a_folder",
        "test_a_run_line_not_starting_from_the_folder_or_the_runtime_is_refused",
        "test_a_huge_manifest_is_refused_before_it_is_parsed",
    ),
    "extra read-only paths": (
        "test_an_operators_extra_read_only_path_is_shown_to_its_bot_only_and_read_only",
    ),
    "builds:": (
        "test_a_build_writing_past_its_disk_quota_fails_and_leaves_nothing",
        "test_a_builds_processes_together_stay_within_its_memory_and_cpu",
    ),
}
"""What each of `arena doctor`'s lines claims, and the hostile tests (in tests/sandbox/)
that try to break it."""


def test_each_line_of_doctor_is_backed_by_a_hostile_test(tmp_path: Path) -> None:
    require_sandbox()
    result = CliRunner().invoke(main, ["--db", str(tmp_path / "a.db"), "doctor"])
    here = Path(__file__).parent
    sources = "\n".join(path.read_text() for path in here.glob("test_*.py"))
    for line in result.output.splitlines():
        claim = line.strip()
        if claim.startswith("why:"):
            continue  # says why something is not in force: nothing is claimed
        keys = [key for key in BACKED_BY if claim.startswith(key)]
        assert keys, f"no hostile test backs the line {line!r}"
        for name in BACKED_BY[keys[0]]:
            assert f"def {name}(" in sources, name


def test_doctor_says_why_a_total_or_the_filter_is_not_in_force(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_sandbox()
    from arena.sandbox import cgroups, seccomp

    partial = cgroups.Support("v1", {"pids": "/sys/fs/cgroup/pids/arena"},
                              {"memory": "arena cannot make groups in /x: Permission denied",
                               "cpu": "no cgroup hierarchy with the cpu controller is mounted"})
    monkeypatch.setattr(cgroups, "support", lambda: partial)
    monkeypatch.setattr(seccomp, "unavailable", lambda: "libseccomp is not installed")
    lines = CliRunner().invoke(main, ["--db", str(tmp_path / "a.db"), "doctor"]).output
    assert "  seccomp: not in force\n    why: libseccomp is not installed\n" in lines
    assert ("  totals (cgroup v1), in force for each bot and each build: 256 processes and "
            "threads in all\n") in lines
    assert ("  totals: no memory total\n    why: arena cannot make groups in /x: Permission "
            "denied\n") in lines
    assert "  totals: no cpu total\n    why: no cgroup hierarchy" in lines


def test_doctor_says_why_there_is_no_sandbox(tmp_path: Path, no_sandbox: None) -> None:
    result = CliRunner().invoke(main, ["--db", str(tmp_path / "a.db"), "doctor"])
    assert result.exit_code == 0
    assert result.output.splitlines()[:2] == [
        "sandbox: none — managed bots run as plain processes, as arena's own user",
        "  why: bubblewrap (bwrap) is not installed"]
    assert "--unsafe-bots" in result.output


def test_serve_check_sandbox_says_what_doctor_says(tmp_path: Path, no_sandbox: None) -> None:
    result = CliRunner().invoke(main, ["--db", str(tmp_path / "a.db"), "serve",
                                       "--check-sandbox"])
    assert result.exit_code == 0 and result.output.splitlines() == describe(NONE)
    assert not (tmp_path / "a.db").exists()


def test_serve_for_others_refuses_unsandboxed_bots_before_binding(tmp_path: Path,
                                                                 no_sandbox: None) -> None:
    result = CliRunner().invoke(main, ["--db", str(tmp_path / "a.db"), "serve", "--host",
                                       "0.0.0.0", "--port", "0"])
    assert result.exit_code == 1
    assert "refusing to serve on 0.0.0.0" in result.output and "--unsafe-bots" in result.output
    assert not (tmp_path / "a.db").exists()


def test_unsafe_bots_lets_a_server_for_others_run_unsandboxable_bots(no_sandbox: None) -> None:
    assert bot_isolation("0.0.0.0", unsafe_bots=True).sandbox == "auto"


def test_a_loopback_server_runs_bots_sandboxed_when_it_can(no_sandbox: None) -> None:
    assert bot_isolation("127.0.0.1", unsafe_bots=False).sandbox == "auto"
    assert bot_isolation("::1", unsafe_bots=False).sandbox == "auto"


def test_a_server_for_others_requires_the_sandbox_it_has() -> None:
    require_sandbox()
    assert bot_isolation("0.0.0.0", unsafe_bots=False).sandbox == "required"


def test_which_addresses_are_loopback() -> None:
    assert is_loopback("localhost") and is_loopback("127.0.0.5") and is_loopback("[::1]")
    assert not is_loopback("0.0.0.0") and not is_loopback("::")
    assert not is_loopback("192.168.1.4") and not is_loopback("arena.example.org")


def test_a_refusal_is_a_click_error(no_sandbox: None) -> None:
    with pytest.raises(click.ClickException, match="cannot be sandboxed here"):
        bot_isolation("10.0.0.1", unsafe_bots=False)


def test_a_database_and_its_token_beside_a_bots_files_are_hidden_from_it(tmp_path: Path
                                                                         ) -> None:
    from arena.server.assembly import build_server
    from arena.services import Services
    from arena.store import Store

    store = Store.open(tmp_path / "arena.db")
    try:
        (tmp_path / "arena.admin-token").write_text("secret")
        holder: list[Services] = []
        build_server(store, tmp_path / "arena-logs", holder.append)
        hidden = {path.name for path in holder[0].fleet.isolation.hidden_paths}
    finally:
        store.close()
    assert {"arena.db", "arena.db-wal", "arena.db-shm", "arena.admin-token"} <= hidden
