"""The attack campaign's submissions, replayed: archives, manifests and names that once
passed the checks or left files behind are refused, and a refused submit leaves no blob
and no folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import arena.submissions.service as service
from arena.store import BuildStatus, Store
from arena.submissions import (
    ArchiveError,
    BuildLimits,
    ManifestError,
    Submissions,
    parse_manifest,
    read_archive,
)
from arena.submissions.build import BuildSandbox
from tests.sandbox.sandbox_support import require_sandbox
from tests.submissions.test_archive_safety import tar_of

MANIFEST = b'name = "tiny"\nrun = "./bot"\n'
MIB = 1024 * 1024


@pytest.fixture
def submissions(tmp_path: Path) -> Iterator[Submissions]:
    """Submissions into a fresh SQLite store, their files under tmp_path/bots."""
    with Store.open(tmp_path / "arena.db") as store:
        yield Submissions(store, tmp_path / "bots")


def _left_behind(root: Path) -> list[str]:
    """The blobs and version folders (and partial files) under a submissions root."""
    return sorted(str(p.relative_to(root)) for sub in ("blobs", "versions")
                  for p in (root / sub).glob("*"))


def test_a_symlink_chain_whose_final_target_is_outside_is_refused() -> None:
    # sub/up is the bot's folder, so sub/out, lexically sub/, is the folder's parent.
    archive = tar_of({"arena-bot.toml": MANIFEST, "sub/bot": b"x"},
                     {"sub/up": "..", "sub/out": "up/..", "root": "sub/out/../../../../.."})
    with pytest.raises(ArchiveError, match="sub/out: a symlink out of the bot's folder"):
        read_archive(archive)
    looping = tar_of({"arena-bot.toml": MANIFEST}, {"a": "b", "b": "a"})
    with pytest.raises(ArchiveError, match="a symlink chain that does not stay"):
        read_archive(looping)


def test_links_that_stay_inside_through_other_links_are_kept() -> None:
    archive = tar_of({"arena-bot.toml": MANIFEST, "deep/er/bot": b"x"},
                     {"d": "deep/er", "up": "d/..", "bot": "up/er/bot"})
    assert read_archive(archive).read("deep/er/bot") == b"x"


def test_a_name_over_the_file_systems_limit_is_refused_before_anything_is_written(
        submissions: Submissions) -> None:
    archive = tar_of({"arena-bot.toml": MANIFEST, "big.bin": b"x" * 1_000_000,
                      "n" * 300: b"y"})
    with pytest.raises(ArchiveError, match="a name of 300 bytes, over the limit of 255"):
        submissions.submit(archive)
    assert not submissions.root.exists()


def test_deeply_nested_toml_is_one_clear_error() -> None:
    deep = b'name = "tiny"\nrun = "./bot"\nx = ' + b"[" * 100_000 + b"]" * 100_000 + b"\n"
    with pytest.raises(ManifestError, match="nested too deeply"):
        parse_manifest(deep.decode())


@pytest.mark.parametrize("name", ["victim.", "vic..tim", "v1ctim", "Victim", "vic-tim",
                                  "victirn"])
def test_a_name_that_passes_for_an_existing_bots_is_refused(submissions: Submissions,
                                                           name: str) -> None:
    submissions.submit(tar_of({"arena-bot.toml": b'name = "victim"\nrun = "./bot"\n'}))
    lookalike = f'name = "{name}"\nrun = "./bot"\n'.encode()
    with pytest.raises(ManifestError, match=f"name '{name}'"):
        submissions.submit(tar_of({"arena-bot.toml": lookalike, "bot": b"other"}))


@pytest.mark.parametrize("run", ["/bin/sh -c 'cat /etc/passwd'", "sh bot.sh",
                                 "../other/bot", "python bot.py"])
def test_a_run_line_not_starting_from_the_folder_or_the_runtime_is_refused(run: str) -> None:
    with pytest.raises(ManifestError, match="a bot starts .*from its own folder"):
        parse_manifest(f'name = "b"\nrun = "{run}"\n')


@pytest.mark.parametrize("failing", ["blob", "unpack", "record"])
def test_no_failed_submit_leaves_a_blob_or_a_folder(submissions: Submissions,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    failing: str) -> None:
    def unpack_then_fail(files: object, folder: Path) -> None:
        folder.mkdir(parents=True)
        (folder / "half.bin").write_bytes(b"x" * 1000)
        raise OSError(28, "No space left on device")

    def replace_fails(source: object, target: object) -> None:
        raise OSError(28, "No space left on device")

    def record_fails(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the database went away")

    if failing == "blob":
        monkeypatch.setattr("arena.submissions.service.os.replace", replace_fails)
    elif failing == "unpack":
        monkeypatch.setattr(service, "unpack", unpack_then_fail)
    else:
        monkeypatch.setattr(submissions.store, "add_version", record_fails)
    with pytest.raises((OSError, RuntimeError)):
        submissions.submit(tar_of({"arena-bot.toml": MANIFEST, "bot": b"x"}))
    assert _left_behind(submissions.root) == []


@pytest.mark.parametrize("sandbox", ["off", "required"])
def test_a_build_writing_past_its_disk_quota_fails_and_leaves_nothing(
        tmp_path: Path, sandbox: BuildSandbox) -> None:
    if sandbox == "required":
        require_sandbox()
    fill = "i=0; while [ $i -lt 40 ]; do head -c 4194304 /dev/zero > f$i; i=$((i+1)); done"
    manifest = f'name = "filler"\nrun = "./bot"\nbuild = "{fill}"\n'.encode()
    with Store.open(tmp_path / "arena.db") as store:
        submissions = Submissions(store, tmp_path / "bots", sandbox=sandbox,
                                  build_limits=BuildLimits(disk_bytes=16 * MIB))
        version = submissions.submit(tar_of({"arena-bot.toml": manifest, "bot": b"x"})).version
    assert version.build_status is BuildStatus.FAILED
    assert "grew past its disk quota of 16 MiB; its files are removed" in (version.build_log
                                                                          or "")
    assert list(Path(version.folder).iterdir()) == []


def test_a_huge_manifest_is_refused_before_it_is_parsed(submissions: Submissions) -> None:
    huge = MANIFEST + b"# " + os.urandom(300 * 1024).hex().encode() + b"\n"
    with pytest.raises(ManifestError, match="over the limit of 65,536"):
        submissions.submit(tar_of({"arena-bot.toml": huge}))
    assert not submissions.root.exists()


def test_a_bot_whose_name_was_taken_before_the_check_still_gets_new_versions() -> None:
    # v1ctim's versions were submitted before names were compared with victim's.
    service.check_distinct_name("v1ctim", ["victim", "v1ctim@1", "v1ctim@2"])
    with pytest.raises(ManifestError, match="looks like the existing bot"):
        service.check_distinct_name("vlctim", ["victim", "v1ctim@1"])
