"""An operator's bot (added with a command) is shown extra paths only when it was added
with `--read-only`, read-only, and no other bot is shown them (the real sandbox, a real
store)."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
from pathlib import Path

import pytest

from arena.services.bots import BotService
from arena.store import InvalidInput, Store
from arena.submissions import Submissions
from arena.supervisor import BotIsolation, BotSupervisor, ManagedBot
from tests.sandbox.sandbox_support import require_sandbox

PROBE = """
import json
seen = {{}}
for name, path in (("given", {data!r}), ("elsewhere", {other!r})):
    try:
        seen[name] = open(path).read()
    except OSError as exc:
        seen[name] = type(exc).__name__
try:
    open({written!r}, "w").write("x")
    seen["write"] = "written"
except OSError as exc:
    seen["write"] = type(exc).__name__
print("SEEN " + json.dumps(seen), flush=True)
"""


def _what_it_sees(tmp_path: Path, service: BotService, name: str) -> dict[str, str]:
    launch = service.launch_of(name)
    sock = tmp_path / f"{name}.sock"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(sock))

        async def scenario() -> None:
            supervisor = BotSupervisor(f"unix:{sock}", tmp_path / "logs", max_restarts=0,
                                       isolation=BotIsolation("required"))
            await supervisor.start(ManagedBot(
                name, launch.command, "t",
                files=tuple(Path(path) for path in launch.read_only_paths)))
            assert await supervisor.exit_code(name, 30) is not None
            await supervisor.stop()

        asyncio.run(scenario())
    log = (tmp_path / "logs" / f"{name}.log").read_text()
    line = next(line for line in log.splitlines() if line.startswith("SEEN "))
    seen: dict[str, str] = json.loads(line.removeprefix("SEEN "))
    return seen


def test_an_operators_extra_read_only_path_is_shown_to_its_bot_only_and_read_only(
        tmp_path: Path) -> None:
    require_sandbox()
    tmp_path.chmod(0o755)  # a root arena's sandbox runs as another user: it must read
    folders = {name: tmp_path / name for name in ("data", "other", "bots")}
    for folder in folders.values():
        folder.mkdir(mode=0o777)
        folder.chmod(0o777)
    (folders["data"] / "weights.txt").write_text("weights")
    (folders["other"] / "secret.txt").write_text("secret")
    script = folders["bots"] / "probe.py"
    script.write_text(PROBE.format(data=str(folders["data"] / "weights.txt"),
                                   other=str(folders["other"] / "secret.txt"),
                                   written=str(folders["data"] / "new.txt")))
    with Store.open(tmp_path / "arena.db") as store:
        service = BotService(store, Submissions(store, tmp_path / "versions"), list,
                             lambda name: None)
        command = f"{sys.executable} {script}"
        service.add("given", "managed", command, [str(folders["data"])])
        service.add("plain", "managed", command)
        assert store.bot("given").read_only_paths == (str(folders["data"]),)
        given = _what_it_sees(tmp_path, service, "given")
        plain = _what_it_sees(tmp_path, service, "plain")
    assert given == {"given": "weights", "elsewhere": "FileNotFoundError",
                     "write": given["write"]}
    assert given["write"] in ("OSError", "PermissionError"), "shown read-only"
    assert not (folders["data"] / "new.txt").exists()
    assert plain["given"] == "FileNotFoundError", "only the bot added with it is shown it"


def test_a_read_only_path_must_be_absolute_and_is_for_managed_bots_only(
        tmp_path: Path) -> None:
    with Store.open(tmp_path / "arena.db") as store:
        with pytest.raises(InvalidInput, match="must be absolute, got 'data'"):
            store.add_bot("a", "managed", "python a.py", ["data"])
        with pytest.raises(InvalidInput, match="takes no read-only paths"):
            store.add_bot("b", "remote", None, ["/srv/data"])
        assert store.list_bots() == []


def test_bot_add_read_only_is_shown_by_bot_list_and_doctor(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from arena.cli import main

    db = str(tmp_path / "arena.db")
    runner = CliRunner()
    data = tmp_path / "data"
    data.mkdir()
    refused = runner.invoke(main, ["--db", db, "bot", "add", "far", "--read-only", str(data)])
    assert refused.exit_code == 2 and "--read-only goes with --command" in refused.output
    command = f"{sys.executable} {Path(__file__).parent / 'sandbox_support.py'}"
    added = runner.invoke(main, ["--db", db, "bot", "add", "tuned", "--command", command,
                                 "--read-only", str(data)])
    assert added.exit_code == 0, added.output
    listed = json.loads(runner.invoke(main, ["--db", db, "bot", "list", "--format",
                                             "json"]).stdout)
    assert [(b["name"], b["read_only"]) for b in listed] == [("tuned", [str(data)])]
    table = runner.invoke(main, ["--db", db, "bot", "list"]).stdout
    assert "read-only" in table.splitlines()[0] and str(data) in table
    doctor = runner.invoke(main, ["--db", db, "doctor"]).stdout.splitlines()
    assert doctor[-1] == ("extra read-only paths, given with `bot add --read-only`: "
                          f"tuned: {data}")


def test_serve_build_disk_sets_the_quota_of_its_builds() -> None:
    from arena.cli.serve import build_limits
    from arena.submissions.build import BuildLimits

    assert build_limits(None) == BuildLimits()
    assert build_limits(64).disk_bytes == 64 * 1024 * 1024
    assert build_limits(64) == BuildLimits(disk_bytes=64 * 1024 * 1024)


def test_the_services_build_within_the_limits_they_are_given(tmp_path: Path) -> None:
    from arena.server.assembly import build_server
    from arena.services import Services
    from arena.submissions.build import BuildLimits

    limits = BuildLimits(disk_bytes=3 * 1024 * 1024)
    with Store.open(tmp_path / "arena.db") as store:
        holder: list[Services] = []
        build_server(store, tmp_path / "arena-logs", holder.append, build_limits=limits)
        assert holder[0].bots.submissions.build_limits == limits
