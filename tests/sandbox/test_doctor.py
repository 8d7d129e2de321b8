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
    assert rest[-1].startswith("  builds of submitted bots: the same sandbox, with no network")


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
        hidden = {path.name for path in holder[0].isolation.hidden_paths}
    finally:
        store.close()
    assert {"arena.db", "arena.db-wal", "arena.db-shm", "arena.admin-token"} <= hidden
