"""The systemd units in examples/systemd/ are valid: `systemd-analyze verify` accepts them
(with their programs pointed at this environment's), each binds loopback, and every
option their commands give is one the command has."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

UNITS = Path(__file__).resolve().parents[2] / "examples" / "systemd"
INSTALLED = "/opt/arena/.venv/bin/"
"""Where the units expect arena's virtual environment."""

SYSTEMD_ANALYZE = shutil.which("systemd-analyze")


def _units() -> list[Path]:
    return sorted(UNITS.glob("*.service"))


def _command(unit: Path) -> list[str]:
    [line] = [line for line in unit.read_text().splitlines() if line.startswith("ExecStart=")]
    return shlex.split(line.removeprefix("ExecStart="))


def test_there_are_units_for_the_server_the_scheduler_and_the_workers() -> None:
    commands = {unit.name: _command(unit)[1:3] for unit in _units()}
    assert commands == {"arena-serve.service": ["serve", "--host"],
                        "arena-dask-scheduler.service": ["scheduler", "--host"],
                        "arena-dask-worker.service": ["worker", "tcp://127.0.0.1:8786"]}


@pytest.mark.skipif(SYSTEMD_ANALYZE is None and os.environ.get("CI") != "true",
                    reason="systemd-analyze is not installed on this machine")
def test_systemd_analyze_verifies_every_unit(tmp_path: Path) -> None:
    assert SYSTEMD_ANALYZE is not None, "CI has systemd-analyze (the systemd package)"
    here = str(Path(sys.executable).parent) + "/"
    for unit in _units():
        text = unit.read_text().replace(INSTALLED, here)
        (tmp_path / unit.name).write_text(re.sub(r"^(User|Group)=arena$", r"\1=root", text,
                                                 flags=re.MULTILINE))
    checked = subprocess.run([SYSTEMD_ANALYZE, "verify", *map(str, tmp_path.glob("*"))],
                             capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stderr
    assert checked.stderr == "", checked.stderr
    broken = tmp_path / "broken.service"
    broken.write_text((tmp_path / "arena-serve.service").read_text()
                      .replace("ExecStart=", "ExecStrat="))
    refused = subprocess.run([SYSTEMD_ANALYZE, "verify", str(broken)], capture_output=True,
                             text=True, timeout=60)
    assert refused.returncode != 0, "verify refuses a unit that is wrong"


def test_every_unit_binds_loopback_and_gives_only_options_its_command_has() -> None:
    for unit in _units():
        command = _command(unit)
        assert command[0].startswith(INSTALLED)
        hosts = [command[i + 1] for i, word in enumerate(command) if word in
                 ("--host", "--dashboard-address")]
        assert hosts and all(h.startswith("127.0.0.1") for h in hosts), (unit.name, hosts)
        program = Path(sys.executable).parent / Path(command[0]).name
        usage = subprocess.run([str(program), command[1], "--help"], capture_output=True,
                               text=True, timeout=60).stdout
        for option in (word for word in command[2:] if word.startswith("--")):
            assert re.search(rf"{re.escape(option)}\b", usage), (unit.name, option)
