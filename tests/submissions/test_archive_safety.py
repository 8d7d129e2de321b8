"""A bot's archive is checked whole before anything is written: paths, links, sizes and
compression ratios; what passes is hashed the same however it was packed."""

from __future__ import annotations

import gzip
import io
import os
import stat
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.store import Store
from arena.submissions import ArchiveError, Limits, Submissions, pack, read_archive

MANIFEST = b'name = "tiny"\nrun = "./bot"\n'
MIB = 1024 * 1024


def zip_of(entries: dict[str, bytes], links: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return buffer.getvalue()


def tar_of(entries: dict[str, bytes], links: dict[str, str] | None = None, *,
           hard: bool = False, compress: bool = True) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, data in entries.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type = tarfile.LNKTYPE if hard else tarfile.SYMTYPE
            info.linkname = target
            archive.addfile(info)
    return gzip.compress(buffer.getvalue()) if compress else buffer.getvalue()


def bot_folder(root: Path) -> Path:
    folder = root / "tiny"
    (folder / "lib").mkdir(parents=True)
    (folder / "arena-bot.toml").write_bytes(MANIFEST)
    (folder / "bot").write_bytes(b"#!/bin/sh\n")
    (folder / "bot").chmod(0o755)
    (folder / "lib" / "util.txt").write_bytes(b"util")
    return folder


def test_a_folder_its_zip_and_its_tar_gz_hold_the_same_files_and_hash(tmp_path: Path) -> None:
    from_folder = read_archive(pack(bot_folder(tmp_path)))
    entries = {"arena-bot.toml": MANIFEST, "bot": b"#!/bin/sh\n", "lib/util.txt": b"util"}
    from_zip = read_archive(zip_of({f"tiny/{k}": v for k, v in entries.items()}))
    from_tar = read_archive(tar_of(entries))
    assert [f.path for f in from_folder.files] == ["arena-bot.toml", "bot", "lib/util.txt"]
    assert from_folder.files[1].executable
    assert from_zip.canonical_tar() != from_folder.canonical_tar()  # the zip lost the x bit
    assert from_tar.sha256() == read_archive(tar_of(entries)).sha256()
    assert [f.data for f in from_zip.files] == [f.data for f in from_folder.files]


def test_caches_and_version_control_are_left_out_of_a_folder(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    before = read_archive(pack(folder)).sha256()
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"cache")
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_bytes(b"ref")
    assert read_archive(pack(folder)).sha256() == before


def test_a_symlink_inside_the_folder_is_kept_as_a_link(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    (folder / "current").symlink_to("lib/util.txt")
    files = read_archive(pack(folder))
    assert [(f.path, f.link) for f in files.files if f.link] == [("current", "lib/util.txt")]


def test_a_symlink_out_of_the_folder_is_refused_when_packing(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    (tmp_path / "secret").write_text("x")
    (folder / "escape").symlink_to(tmp_path / "secret")
    with pytest.raises(ArchiveError, match="escape: a symlink out of the bot's folder"):
        pack(folder)


def test_a_folder_over_the_size_limit_is_refused_when_packing(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    (folder / "big").write_bytes(os.urandom(2 * MIB))
    with pytest.raises(ArchiveError, match="over the limit of 1.0 MiB"):
        pack(folder, Limits(max_unpacked_bytes=MIB))


REFUSED: dict[str, tuple[Callable[[], bytes], str]] = {
    "zip bomb by ratio": (lambda: zip_of({"arena-bot.toml": MANIFEST,
                                          "zeros": bytes(3 * MIB // 2)}),
                          "times larger than it is .* refused as a zip bomb"),
    "tar.gz bomb by ratio": (lambda: tar_of({"arena-bot.toml": MANIFEST,
                                             "zeros": bytes(3 * MIB // 2)}),
                             "times larger than it is .* refused as a zip bomb"),
    "zip over the unpacked size": (lambda: zip_of({"arena-bot.toml": MANIFEST,
                                                   "zeros": bytes(3 * MIB)}),
                                   "the files add up to 3.0 MiB, over the limit of 2.0 MiB"),
    "tar over the unpacked size": (lambda: tar_of({"arena-bot.toml": MANIFEST,
                                                   "zeros": bytes(3 * MIB)}),
                                   "unpacks to more than 2 MiB"),
    "upload over the size limit": (lambda: zip_of({"arena-bot.toml": MANIFEST,
                                                   "noise": os.urandom(MIB + 100)}),
                                   "over the limit of 1.0 MiB"),
    "absolute path in a zip": (lambda: zip_of({"arena-bot.toml": MANIFEST, "/etc/cron": b"x"}),
                               "/etc/cron: an absolute path"),
    "absolute path in a tar": (lambda: tar_of({"arena-bot.toml": MANIFEST, "/tmp/x": b"x"}),
                               "/tmp/x: an absolute path"),
    "'..' in a zip": (lambda: zip_of({"arena-bot.toml": MANIFEST, "../evil": b"x"}),
                      r"\.\./evil: a path with '\.\.'"),
    "'..' in a tar": (lambda: tar_of({"arena-bot.toml": MANIFEST, "a/../../evil": b"x"}),
                      r"a/\.\./\.\./evil: a path with '\.\.'"),
    "symlink out of a tar": (lambda: tar_of({"arena-bot.toml": MANIFEST},
                                            {"lib/etc": "../../etc"}),
                             "lib/etc: a symlink out of the bot's folder"),
    "absolute symlink in a zip": (lambda: zip_of({"arena-bot.toml": MANIFEST},
                                                 {"passwd": "/etc/passwd"}),
                                  "passwd: a symlink out of the bot's folder"),
    "file written through a symlink": (lambda: tar_of({"arena-bot.toml": MANIFEST,
                                                       "out/x": b"x"}, {"out": "."}),
                                       "out/x: written through a symlink"),
    "hard link in a tar": (lambda: tar_of({"arena-bot.toml": MANIFEST},
                                          {"copy": "arena-bot.toml"}, hard=True),
                           "copy: a hard link"),
}


@pytest.fixture(scope="module")
def refusing(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Submissions]:
    """Submissions to one store, shared by the refused archives: none may write a thing."""
    root = tmp_path_factory.mktemp("refusing")
    with Store.open(root / "arena.db") as store:
        yield Submissions(store, root / "bots",
                          Limits(max_upload_bytes=MIB, max_unpacked_bytes=2 * MIB))


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_an_unsafe_archive_is_refused_with_nothing_written(refusing: Submissions,
                                                           case: str) -> None:
    make, message = REFUSED[case]
    with pytest.raises(ArchiveError, match=message):
        refusing.submit(make())
    assert refusing.store.list_bots(include_removed=True) == []
    assert refusing.store.bot_versions("tiny") == []
    assert not refusing.root.exists()


def test_a_safe_archive_is_stored_by_hash_behind_owner_only_folders_and_unpacked_read_only(
        tmp_path: Path) -> None:
    with Store.open(tmp_path / "arena.db") as store:
        submitted = Submissions(store, tmp_path / "bots").submit(pack(bot_folder(tmp_path)))
    version = submitted.version
    blob = tmp_path / "bots" / "blobs" / version.sha256
    assert (version.name, version.build_status.value, blob.is_file()) == ("tiny@1", "ok", True)
    folder = Path(version.folder)
    assert (folder / "lib" / "util.txt").read_bytes() == b"util"
    modes = {path.name: stat.S_IMODE(path.stat().st_mode)
             for path in [tmp_path / "bots", blob, folder.parent, folder, folder / "bot",
                          folder / "lib", folder / "lib" / "util.txt"]}
    assert modes == {"bots": 0o700, version.sha256: 0o600, "versions": 0o700,
                     folder.name: 0o755, "bot": 0o755, "lib": 0o755, "util.txt": 0o644}


def test_a_versions_folder_is_absolute_beside_a_relative_database(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = bot_folder(tmp_path)
    monkeypatch.chdir(tmp_path)
    with Store.open(Path("arena.db")) as store:
        version = Submissions(store, Path("arena-bots")).submit(pack(folder)).version
    assert Path(version.folder).is_absolute()
    assert Path(version.folder).parent == tmp_path / "arena-bots" / "versions"
