"""`arena new bot NAME --lang python|node|cpp`: a project that `arena bot submit NAME` takes.

The Python project goes the whole way: its own test passes, it is submitted as it was
written, and it plays a match. The Node.js project is submitted too (its build only
copies the .proto files); the C++ one, whose build compiles gRPC's generated code for
minutes, is checked as a submission is before its build: manifest and files.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.submissions.archive import folder_files
from arena.submissions.manifest import MANIFEST, Runtime, parse_manifest
from tests.cli.cli_support import arena, ok


def _new(tmp_path: Path, name: str, lang: str) -> Path:
    result = arena(tmp_path / "arena.db", "new", "bot", name, "--lang", lang)
    assert result.exit_code == 0, result.output
    return tmp_path / name


def test_a_python_bot_is_tested_submitted_and_played_as_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    folder = _new(tmp_path, "my-bot", "python")
    assert sorted(p.name for p in folder.iterdir()) == [
        "README.md", "arena-bot.toml", "bot.py", "test_bot.py"]
    tested = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "-p", "no:randomly", str(folder)], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    db = tmp_path / "arena.db"
    submitted = ok(db, "bot", "submit", "my-bot")
    assert "my-bot@1" in submitted.output and "build ok" in submitted.output
    ok(db, "bot", "add", "rnd", "--command",
       f"{sys.executable} {Path(__file__).resolve().parents[2]}/sample_bots/python/random_bot.py")
    rules = tmp_path / "one-hand.json"
    rules.write_text('{"target_score": null}')  # single hands, the quickest games
    played = ok(db, "match", "my-bot", "rnd", "--games", "2", "--seed", "1",
                "--rules", str(rules))
    assert "my-bot@1" in played.output


def test_a_node_bot_is_submitted_as_written(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    folder = _new(tmp_path, "node-one", "node")
    manifest = parse_manifest((folder / MANIFEST).read_text())
    assert (manifest.name, manifest.runtime) == ("node-one", Runtime.NODE)
    assert (folder / "test" / "bot.test.js").is_file()
    submitted = ok(tmp_path / "arena.db", "bot", "submit", "node-one")
    assert "node-one@1" in submitted.output and "build ok" in submitted.output


def test_a_cpp_bot_passes_the_checks_a_submission_makes_before_its_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    folder = _new(tmp_path, "cpp-one", "cpp")
    manifest = parse_manifest((folder / MANIFEST).read_text())
    assert (manifest.name, manifest.run, manifest.runtime) == (
        "cpp-one", "build/arena_bot", Runtime.NATIVE)
    assert manifest.build is not None and "ARENA_PROTOS" in manifest.build
    names = {file.path for file in folder_files(folder)}
    assert {"arena-bot.toml", "bot.cc", "Makefile", "README.md"} <= names
    makefile = (folder / "Makefile").read_text()
    assert "PROTOS ?= " in makefile and "check:" in makefile


def test_an_existing_folder_or_a_bad_name_is_refused_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "taken").mkdir()
    for name, says in (("taken", "already exists"), ("no/slash", "must start with")):
        result = arena(tmp_path / "arena.db", "new", "bot", name)
        assert result.exit_code == 1
        assert says in result.output and "Traceback" not in result.output
        assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "arena.db").exists()
