"""Documentation that runs: every shell block of the README and of the tutorials, in order.

Each document runs in a fresh folder, laid out like the repository's root (its
folders and files linked in, the virtual environment included) but with no
database, no bot logs and no bots of a previous run, and with arena's variables
and `.venv/bin` taken out of the environment: a reader's shell after `make demo`.
Its shell blocks (fenced ``sh``, ``bash`` or ``shell``) run one after the other in
one bash, under ``set -e`` (as a reader's shell would, without ``pipefail``: a
block may cut a long listing with ``| head``), so that a block may use what an
earlier one made (the activated environment, a bot). A block that cannot run
here is preceded by ``<!-- norun: REASON -->``, and the reason must be given.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import IN_CI

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = ("README.md", "docs/tutorial/first-bot-python.md", "docs/tutorial/node.md",
             "docs/tutorial/cpp.md")
"""The documents whose every shell block must run, each on its own fresh folder."""

LINKED = ("arena", "sample_bots", "examples", "protos", "docs", "Makefile", "pyproject.toml",
          "mkdocs.yml", "README.md", ".venv")
"""What of the repository a fresh folder holds (linked, not copied)."""

SHELLS = ("sh", "bash", "shell")
_FENCE = re.compile(r"^(?P<indent> {0,3})```(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```\s*$",
                    re.MULTILINE | re.DOTALL)
_NORUN = re.compile(r"<!--\s*norun:\s*(?P<reason>.*?)\s*-->\s*$", re.DOTALL)
_BLOCK_SECONDS = 60


@dataclass(frozen=True)
class Block:
    """One fenced shell block of a document."""

    line: int
    text: str
    norun: str | None
    """Why it does not run (None: it runs)."""


def shell_blocks(text: str) -> list[Block]:
    """The shell blocks of a Markdown `text`, in order, each with its norun reason."""
    blocks = []
    for match in _FENCE.finditer(text):
        if match.group("info").strip().split(" ")[0] not in SHELLS:
            continue
        before = text[:match.start()].rstrip()
        last_line = before.rsplit("\n", 1)[-1]
        norun = _NORUN.search(last_line)
        blocks.append(Block(line=text.count("\n", 0, match.start()) + 1,
                            text=match.group("body"),
                            norun=norun.group("reason") if norun else None))
    return blocks


def test_a_norun_mark_names_its_reason_and_holds_back_only_its_block() -> None:
    text = ("<!-- norun: it serves until stopped -->\n```sh\narena serve\n```\n\n"
            "```sh\narena --version\n```\n\n```text\nnot a shell block\n```\n")
    blocks = shell_blocks(text)
    assert [(b.norun, b.text) for b in blocks] == [
        ("it serves until stopped", "arena serve\n"), (None, "arena --version\n")]


@pytest.mark.parametrize("document", DOCUMENTS)
def test_every_norun_block_says_why(document: str) -> None:
    text = (ROOT / document).read_text()
    assert all(b.norun for b in shell_blocks(text) if b.norun is not None)
    marks = len(re.findall(r"^<!-- norun:", text, re.MULTILINE))
    assert marks == sum(b.norun is not None for b in shell_blocks(text)), (
        "a norun mark stands above something other than a shell block")


def _fresh_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "checkout"
    folder.mkdir()
    for name in LINKED:
        if (ROOT / name).exists():
            (folder / name).symlink_to(ROOT / name)
    return folder


def _reader_environment(home: Path) -> dict[str, str]:
    venv_bin = str(ROOT / ".venv" / "bin")
    path = [entry for entry in os.environ.get("PATH", "").split(os.pathsep)
            if entry and Path(entry).resolve() != Path(venv_bin).resolve()]
    environment = {key: value for key, value in os.environ.items()
                   if not key.startswith(("ARENA_", "PYTEST", "VIRTUAL_ENV"))}
    environment.update(PATH=os.pathsep.join(path), NO_COLOR="1", TERM="dumb",
                       ARENA_CREDENTIALS=str(home / "credentials.json"))
    return environment


def _script(blocks: list[Block]) -> str:
    lines = ["set -e"]
    for number, block in enumerate(blocks):
        if block.norun is None:
            lines += [f"echo \">>> block {number} (line {block.line}) $SECONDS s\" >&2",
                      block.text.rstrip(), f"echo '<<< block {number}' >&2"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("document", DOCUMENTS)
def test_every_shell_block_runs_as_written(document: str, tmp_path: Path) -> None:
    if not (ROOT / ".venv" / "bin" / "activate").is_file():
        pytest.skip("no .venv here: the documents start from `make demo`'s environment")
    blocks = shell_blocks((ROOT / document).read_text())
    if "npm " in _script(blocks) and shutil.which("npm") is None and not IN_CI:
        pytest.skip(f"{document} needs npm")
    runnable = [b for b in blocks if b.norun is None]
    assert runnable, f"{document} has no shell block that runs"
    folder = _fresh_folder(tmp_path)
    started = time.monotonic()
    ran = subprocess.run(["bash", "-c", _script(blocks)], cwd=folder, capture_output=True,
                         text=True, env=_reader_environment(tmp_path),
                         timeout=_BLOCK_SECONDS * len(runnable), stdin=subprocess.DEVNULL)
    seconds = time.monotonic() - started
    done = re.findall(r"^<<< block (\d+)", ran.stderr, re.MULTILINE)
    if ran.returncode != 0:
        failed = re.findall(r"^>>> block (\d+) \(line (\d+)\)", ran.stderr, re.MULTILINE)[-1]
        pytest.fail(f"{document}, the shell block at line {failed[1]} failed "
                    f"(status {ran.returncode}):\n--- stdout\n{ran.stdout[-3000:]}\n"
                    f"--- stderr\n{ran.stderr[-3000:]}")
    assert len(done) == len(runnable)
    print(f"{document}: {len(runnable)} blocks in {seconds:.1f} s")
