"""The edges of the archive checks: each limit at exactly its value and one past it, the
entries a path check must refuse (drive letters, backslashes, NUL), an archive of a
single file, what packing a folder leaves out, and what a checked archive holds."""

from __future__ import annotations

import gzip
import io
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from arena.submissions.archive import (
    MAX_LINK_HOPS,
    MAX_NAME_BYTES,
    MAX_PATH_BYTES,
    MIB,
    ArchiveError,
    BotFile,
    BotFiles,
    Limits,
    _check_ratio,
    _gunzip,
    folder_files,
    pack,
    read_archive,
    unpack,
)


def zip_of(entries: dict[str, bytes], *, mode: int = 0o644,
           compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip of `entries`, every file with `mode`."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.compress_type = compression
            archive.writestr(info, data)
    return buffer.getvalue()


def tar_of(entries: dict[str, bytes], links: dict[str, str] | None = None, *,
           mode: int = 0o644) -> bytes:
    """An uncompressed tar of `entries` (every file with `mode`) and symlinks `links`."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, data in entries.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), mode
            archive.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            archive.addfile(info)
    return buffer.getvalue()


def paths(files: BotFiles) -> list[str]:
    """The paths of `files`, in order."""
    return [file.path for file in files.files]


def test_a_tar_whose_later_header_is_broken_is_refused_as_no_valid_tar() -> None:
    """A header broken after the first member is no end of the archive when it follows a
    long name's header: tar cannot go on, and the archive is refused, not half read."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as archive:
        for name in ("bot.py", "lib/" + "x" * 120 + ".py"):
            info = tarfile.TarInfo(name)
            info.size = 9
            archive.addfile(info, io.BytesIO(b"print(1)\n"))
    data = bytearray(buffer.getvalue())
    # Blocks: bot.py's header and data, the long name's header and name, then the header
    # that name belongs to, whose checksum is made wrong.
    data[4 * 512 + 148:4 * 512 + 156] = b"0000000\x00"
    with pytest.raises(ArchiveError, match="the archive is not a valid tar: bad checksum"):
        read_archive(bytes(data))


# ------------------------------------------------------------------ entry paths

@pytest.mark.parametrize("name", ["C:", "C:bot", "c:/windows/bot"])
def test_an_entry_with_a_drive_letter_is_an_absolute_path(name: str) -> None:
    with pytest.raises(ArchiveError, match="an absolute path"):
        read_archive(tar_of({"bot": b"x", name: b"x"}))


def test_an_entry_of_one_character_is_a_usable_path() -> None:
    assert paths(read_archive(tar_of({"a": b"x", "b": b"y"}))) == ["a", "b"]


def test_an_entry_with_a_backslash_is_not_a_usable_path() -> None:
    with pytest.raises(ArchiveError, match=r"'lib\\\\bot': not a usable path"):
        read_archive(zip_of({"bot": b"x", "lib\\bot": b"x"}))


def test_an_entry_of_nothing_but_dots_and_slashes_is_not_a_usable_path() -> None:
    with pytest.raises(ArchiveError, match="'./.': not a usable path"):
        read_archive(tar_of({"bot": b"x", "./.": b"x"}))


def test_empty_and_dot_parts_of_an_entry_are_dropped() -> None:
    assert paths(read_archive(tar_of({"bot": b"x", "./lib//./util": b"y"}))) == [
        "bot", "lib/util"]


def test_an_entry_that_appears_twice_is_refused() -> None:
    with pytest.raises(ArchiveError, match="lib/x: appears twice"):
        read_archive(tar_of({"bot": b"", "lib/x": b"1", "lib//x": b"2"}))


# -------------------------------------------------------------- single file, top folder

def test_an_archive_of_a_single_file_holds_that_file() -> None:
    files = read_archive(zip_of({"bot": b"#!/bin/sh\n"}))
    assert [(f.path, f.data) for f in files.files] == [("bot", b"#!/bin/sh\n")]


def test_an_archive_of_a_single_file_in_a_folder_is_read_as_the_folders_contents() -> None:
    assert paths(read_archive(zip_of({"tiny/bot": b"x"}))) == ["bot"]


def test_a_top_level_file_beside_a_folder_keeps_the_folder() -> None:
    assert paths(read_archive(tar_of({"bot": b"x", "lib/util": b"y"}))) == ["bot", "lib/util"]


def test_two_top_folders_are_both_kept() -> None:
    assert paths(read_archive(tar_of({"a/bot": b"x", "b/util": b"y"}))) == ["a/bot", "b/util"]


# -------------------------------------------------------------------- limits

def test_exactly_the_largest_upload_is_taken() -> None:
    data = tar_of({"bot": b"x"})
    assert paths(read_archive(data, Limits(max_upload_bytes=len(data)))) == ["bot"]


def test_one_byte_over_the_largest_upload_is_refused_with_its_size() -> None:
    data = tar_of({"bot": b"x"})
    with pytest.raises(ArchiveError, match=r"the bot's archive is 0\.0 MiB, over the limit "
                                           r"of 0\.0 MiB"):
        read_archive(data, Limits(max_upload_bytes=len(data) - 1))


def test_exactly_the_most_files_are_taken() -> None:
    entries = {f"f{i}": b"x" for i in range(5)}
    assert len(read_archive(tar_of(entries), Limits(max_files=5)).files) == 5
    assert len(read_archive(zip_of(entries), Limits(max_files=5)).files) == 5


@pytest.mark.parametrize("make", [tar_of, zip_of])
def test_one_file_over_the_most_files_is_refused(make: object) -> None:
    entries = {f"f{i}": b"x" for i in range(6)}
    with pytest.raises(ArchiveError, match="more than 5 files: refused"):
        read_archive(make(entries), Limits(max_files=5))  # type: ignore[operator]


def test_exactly_the_largest_unpacked_total_is_taken() -> None:
    entries = {"a": b"x" * 600, "b": b"y" * 424}
    assert read_archive(tar_of(entries), Limits(max_unpacked_bytes=1024)).size == 1024
    assert read_archive(zip_of(entries), Limits(max_unpacked_bytes=1024)).size == 1024


@pytest.mark.parametrize("make", [tar_of, zip_of])
def test_one_byte_over_the_largest_unpacked_total_is_refused(make: object) -> None:
    entries = {"a": b"x" * 600, "b": b"y" * 425}
    with pytest.raises(ArchiveError, match="the files add up to 0.0 MiB, over the limit"):
        read_archive(make(entries), Limits(max_unpacked_bytes=1024))  # type: ignore[operator]


def test_a_ratio_of_exactly_the_largest_is_taken() -> None:
    _check_ratio(100 * 2 * MIB, 2 * MIB, Limits(max_ratio=100))


def test_a_ratio_one_byte_over_the_largest_is_a_zip_bomb() -> None:
    with pytest.raises(ArchiveError, match="unpacks 100 times larger than it is "
                                           r"\(more than 100\): refused as a zip bomb"):
        _check_ratio(100 * 2 * MIB + 1, 2 * MIB, Limits(max_ratio=100))


def test_a_high_ratio_of_at_most_one_mib_unpacked_is_no_bomb() -> None:
    _check_ratio(MIB, 1, Limits(max_ratio=100))
    with pytest.raises(ArchiveError, match="zip bomb"):
        _check_ratio(MIB + 1, 1, Limits(max_ratio=100))


def test_a_ratio_over_an_empty_packing_counts_one_byte_packed() -> None:
    with pytest.raises(ArchiveError, match=f"unpacks {2 * MIB} times larger"):
        _check_ratio(2 * MIB, 0, Limits(max_ratio=100))


def test_a_tar_gz_that_unpacks_to_exactly_its_cap_is_taken() -> None:
    # The cap: the unpacked limit plus 1.5 KiB of tar headers per file, at most a quarter.
    limits = Limits(max_unpacked_bytes=4096, max_files=1)
    assert len(_gunzip(gzip.compress(bytes(4096 + 1024)), limits)) == 5120
    limits = Limits(max_unpacked_bytes=8192, max_files=1)
    assert len(_gunzip(gzip.compress(bytes(8192 + 1536)), limits)) == 9728


def test_a_tar_gz_one_byte_over_its_cap_is_refused() -> None:
    with pytest.raises(ArchiveError, match="the archive unpacks to more than 0 MiB: refused"):
        _gunzip(gzip.compress(bytes(4096 + 1024 + 1)), Limits(max_unpacked_bytes=4096,
                                                                max_files=1))
    with pytest.raises(ArchiveError, match="unpacks to more than"):
        _gunzip(gzip.compress(bytes(8192 + 1536 + 1)), Limits(max_unpacked_bytes=8192,
                                                                max_files=1))


def test_a_tar_gz_of_a_bomb_is_refused_by_its_ratio() -> None:
    with pytest.raises(ArchiveError, match="zip bomb"):
        read_archive(gzip.compress(tar_of({"zeros": bytes(2 * MIB)})))


def test_the_limits_are_linuxs_own() -> None:
    # NAME_MAX 255, a quarter of PATH_MAX 4096 for the path inside the folder, 40 links
    # (the kernel's ELOOP limit).
    assert (MAX_NAME_BYTES, MAX_PATH_BYTES, MAX_LINK_HOPS) == (255, 1024, 40)


def test_the_default_limits_of_a_submission() -> None:
    assert MIB == 1_048_576
    assert Limits() == Limits(max_upload_bytes=64 * 1_048_576,
                              max_unpacked_bytes=256 * 1_048_576, max_files=20_000,
                              max_ratio=100)


def test_a_name_of_exactly_the_longest_is_taken() -> None:
    name = "n" * 255
    assert paths(read_archive(tar_of({name: b"x"}))) == [name]


def test_a_name_one_byte_over_the_longest_is_refused() -> None:
    with pytest.raises(ArchiveError, match="a name of 256 bytes, over the limit of 255"):
        read_archive(tar_of({"bot": b"", "n" * 256: b"x"}))


def test_a_path_of_exactly_the_longest_is_taken() -> None:
    path = "/".join(["d" * 100] * 10) + "/" + "f" * (MAX_PATH_BYTES - 1010)
    assert len(path) == MAX_PATH_BYTES
    assert paths(read_archive(tar_of({"bot": b"", path: b"x"}))) == ["bot", path]


def test_a_path_one_byte_over_the_longest_is_refused() -> None:
    path = "/".join(["d" * 100] * 10) + "/" + "f" * (MAX_PATH_BYTES - 1010 + 1)
    with pytest.raises(ArchiveError, match=f"a path of {MAX_PATH_BYTES + 1} bytes"):
        read_archive(tar_of({"bot": b"", path: b"x"}))


def test_a_symlink_target_one_byte_over_the_longest_is_refused() -> None:
    target = "/".join(["."] * ((MAX_PATH_BYTES + 1) // 2)) + "/bot"
    target = target[len(target) - MAX_PATH_BYTES - 1:]
    assert len(target) == MAX_PATH_BYTES + 1
    with pytest.raises(ArchiveError, match=f"a symlink target of {MAX_PATH_BYTES + 1} bytes"):
        read_archive(tar_of({"bot": b""}, {"link": target}))


def chain(links: int) -> dict[str, str]:
    """`links` symlinks l0 → l1 → … → the file `bot`."""
    return {f"l{i}": f"l{i + 1}" if i + 1 < links else "bot" for i in range(links)}


def test_a_symlink_chain_of_exactly_the_most_hops_is_taken() -> None:
    files = read_archive(tar_of({"bot": b"x"}, chain(MAX_LINK_HOPS)))
    assert len(files.files) == MAX_LINK_HOPS + 1


def test_a_symlink_chain_one_hop_over_the_most_is_refused() -> None:
    with pytest.raises(ArchiveError, match="l0: a symlink chain that does not stay"):
        read_archive(tar_of({"bot": b"x"}, chain(MAX_LINK_HOPS + 1)))


def test_a_symlink_loop_is_refused() -> None:
    with pytest.raises(ArchiveError, match="a symlink chain that does not stay"):
        read_archive(tar_of({"bot": b"x"}, {"a": "b", "b": "a"}))


def test_a_symlink_through_a_link_to_an_absolute_path_is_refused() -> None:
    # Links are checked in archive order: passwd's chain is followed before lib is seen.
    with pytest.raises(ArchiveError, match=r"passwd: a symlink chain .*\(through /etc\)"):
        read_archive(tar_of({"bot": b"x"}, {"passwd": "lib/passwd", "lib": "/etc"}))


def test_a_symlink_that_climbs_out_through_another_link_is_refused() -> None:
    with pytest.raises(ArchiveError, match=r"up: a symlink out of the bot's folder \(through"):
        read_archive(tar_of({"bot": b"x", "lib/util": b"y"}, {"lib/here": ".", "up":
                                                                "lib/here/../.."}))


def test_a_symlink_that_climbs_out_is_refused_naming_its_target() -> None:
    with pytest.raises(ArchiveError, match=r"lib/etc: a symlink out of the bot's folder "
                                           r"\(to \.\./\.\./etc\)"):
        read_archive(tar_of({"bot": b"x"}, {"lib/etc": "../../etc"}))


def test_a_symlink_to_the_parent_of_the_folder_is_refused() -> None:
    with pytest.raises(ArchiveError, match=r"out: a symlink out of the bot's folder \(to ..\)"):
        read_archive(tar_of({"bot": b"x"}, {"out": ".."}))


def test_a_symlink_that_goes_up_and_back_inside_is_taken() -> None:
    files = read_archive(tar_of({"bot": b"x", "lib/util": b"y"}, {"lib/start": "../bot"}))
    assert [(f.path, f.link) for f in files.files if f.link] == [("lib/start", "../bot")]


def test_an_empty_symlink_target_is_refused() -> None:
    with pytest.raises(ArchiveError, match=r"link: a symlink out of the bot's folder \(to \)"):
        read_archive(tar_of({"bot": b"x"}, {"link": ""}))


# --------------------------------------------------------------- not archives

@pytest.mark.parametrize(("data", "message"), [
    (b"PK\x03\x04 not really", "the archive is not a valid .zip"),
    (b"\x1f\x8b not really", "the archive is not a valid .tar.gz"),
    (b"plain text, no archive at all" * 30, "the archive is not a valid .zip, .tar.gz or .tar"),
])
def test_bytes_that_are_no_archive_are_refused_by_what_they_look_like(data: bytes,
                                                                      message: str) -> None:
    with pytest.raises(ArchiveError, match=message):
        read_archive(data)


def test_a_fifo_in_a_tar_is_refused() -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        info = tarfile.TarInfo("pipe")
        info.type = tarfile.FIFOTYPE
        archive.addfile(info)
    with pytest.raises(ArchiveError, match="pipe: not a regular file, folder or symlink"):
        read_archive(buffer.getvalue())


# ------------------------------------------------------------ what is kept

def test_the_executable_bit_of_a_zip_entry_is_kept() -> None:
    assert read_archive(zip_of({"bot": b"x"}, mode=0o755)).files[0].executable
    assert not read_archive(zip_of({"bot": b"x"}, mode=0o644)).files[0].executable


def test_the_executable_bit_of_a_tar_entry_is_kept() -> None:
    assert read_archive(tar_of({"bot": b"x"}, mode=0o700)).files[0].executable
    assert not read_archive(tar_of({"bot": b"x"}, mode=0o655)).files[0].executable


def test_a_stored_zip_is_read_like_a_deflated_one() -> None:
    stored = read_archive(zip_of({"bot": b"x" * 100}, compression=zipfile.ZIP_STORED))
    assert stored.sha256() == read_archive(zip_of({"bot": b"x" * 100})).sha256()


def test_a_symlink_in_a_zip_is_kept_as_a_link() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot", b"x")
        info = zipfile.ZipInfo("start")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(info, "bot")
    files = read_archive(buffer.getvalue())
    assert [(f.path, f.link, f.data) for f in files.files] == [
        ("bot", None, b"x"), ("start", "bot", b"")]


def test_reading_a_path_gives_a_regular_files_contents_only() -> None:
    files = read_archive(tar_of({"bot": b"x"}, {"start": "bot"}))
    assert (files.read("bot"), files.read("start"), files.read("nothing")) == (b"x", None, None)


def test_the_size_counts_the_regular_files() -> None:
    assert read_archive(tar_of({"a": b"xyz", "b": b"12"}, {"c": "a"})).size == 5


def test_the_canonical_tar_holds_paths_contents_modes_and_link_targets_only() -> None:
    files = BotFiles((BotFile("bot", b"#!", executable=True), BotFile("data", b"d"),
                      BotFile("start", link="bot")))
    with tarfile.open(fileobj=io.BytesIO(files.canonical_tar())) as tar:
        members = [(m.name, m.mode, m.mtime, m.size, m.linkname, m.type)
                   for m in tar.getmembers()]
    assert members == [("bot", 0o755, 0, 2, "", tarfile.REGTYPE),
                       ("data", 0o644, 0, 1, "", tarfile.REGTYPE),
                       ("start", 0o777, 0, 0, "bot", tarfile.SYMTYPE)]


# --------------------------------------------------------------- packing a folder

@pytest.mark.parametrize("left_out", ["__pycache__/x.pyc", ".git/HEAD", ".hg/store",
                                      ".svn/entries", ".DS_Store", "lib/.DS_Store",
                                      "lib/util.pyc", "lib/__pycache__/util.pyc"])
def test_packing_a_folder_leaves_out_caches_and_version_control(tmp_path: Path,
                                                                left_out: str) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "bot").write_bytes(b"x")
    (tmp_path / left_out).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / left_out).write_bytes(b"cache")
    assert [f.path for f in folder_files(tmp_path)] == ["bot"]


def test_packing_a_folder_keeps_a_symlinked_folder_as_a_link(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "util").write_bytes(b"u")
    (tmp_path / "current").symlink_to("lib")
    assert [(f.path, f.link) for f in folder_files(tmp_path)] == [
        ("current", "lib"), ("lib/util", None)]


def test_packing_a_folder_keeps_the_executable_bit(tmp_path: Path) -> None:
    (tmp_path / "bot").write_bytes(b"x")
    (tmp_path / "bot").chmod(0o744)
    (tmp_path / "data").write_bytes(b"x")
    (tmp_path / "data").chmod(0o655)
    assert [f.executable for f in folder_files(tmp_path)] == [True, False]


def test_packing_a_folder_with_a_fifo_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(ArchiveError, match="pipe: not a regular file, folder or symlink"):
        folder_files(tmp_path)


def test_packing_a_folder_of_exactly_the_most_files_is_taken(tmp_path: Path) -> None:
    for i in range(3):
        (tmp_path / f"f{i}").write_bytes(b"x")
    assert len(folder_files(tmp_path, Limits(max_files=3))) == 3
    (tmp_path / "f3").write_bytes(b"x")
    with pytest.raises(ArchiveError, match="more than 3 files"):
        folder_files(tmp_path, Limits(max_files=3))


def test_packing_a_folder_gives_a_reproducible_tar_gz(tmp_path: Path) -> None:
    (tmp_path / "bot").write_bytes(b"x")
    data = pack(tmp_path)
    assert data == pack(tmp_path)
    assert gzip.decompress(data) == read_archive(data).canonical_tar()


def test_packing_an_archive_file_sends_its_bytes(tmp_path: Path) -> None:
    archive = tmp_path / "bot.zip"
    archive.write_bytes(zip_of({"bot": b"x"}))
    assert pack(archive) == archive.read_bytes()


def test_packing_an_archive_file_of_exactly_the_largest_upload_is_taken(tmp_path: Path) -> None:
    archive = tmp_path / "bot.zip"
    archive.write_bytes(zip_of({"bot": b"x"}))
    size = archive.stat().st_size
    assert len(pack(archive, Limits(max_upload_bytes=size))) == size
    with pytest.raises(ArchiveError, match="over the limit"):
        pack(archive, Limits(max_upload_bytes=size - 1))


def test_packing_a_folder_over_the_largest_upload_is_refused(tmp_path: Path) -> None:
    (tmp_path / "noise").write_bytes(os.urandom(4096))
    with pytest.raises(ArchiveError, match="over the limit"):
        pack(tmp_path, Limits(max_upload_bytes=4096))


def test_packing_nothing_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ArchiveError, match="missing: no such folder or file"):
        pack(tmp_path / "missing")


# ------------------------------------------------------------------ unpacking

def test_unpacking_writes_files_with_their_modes_and_links(tmp_path: Path) -> None:
    files = read_archive(tar_of({"bot": b"x", "lib/util": b"u"}, {"start": "bot"}, mode=0o755))
    unpack(files, tmp_path / "v1")
    out = tmp_path / "v1"
    assert stat.S_IMODE(out.stat().st_mode) == 0o755
    assert stat.S_IMODE((out / "lib").stat().st_mode) == 0o755
    assert stat.S_IMODE((out / "bot").stat().st_mode) == 0o755
    assert os.readlink(out / "start") == "bot"
    assert (out / "lib" / "util").read_bytes() == b"u"


def test_unpacking_makes_the_folders_leading_to_the_destination(tmp_path: Path) -> None:
    unpack(read_archive(tar_of({"bot": b"x"})), tmp_path / "bots" / "7" / "v1")
    assert (tmp_path / "bots" / "7" / "v1" / "bot").read_bytes() == b"x"


def test_unpacking_into_an_existing_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileExistsError):
        unpack(read_archive(tar_of({"bot": b"x"})), tmp_path)


def test_folder_entries_of_a_zip_or_tar_are_not_files() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("lib/", b"")
        archive.writestr("lib/util", b"u")
        archive.writestr("bot", b"x")
    assert paths(read_archive(buffer.getvalue())) == ["bot", "lib/util"]
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        folder = tarfile.TarInfo("lib")
        folder.type = tarfile.DIRTYPE
        tar.addfile(folder)
        for name, data in (("lib/util", b"u"), ("bot", b"x")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    assert paths(read_archive(buffer.getvalue())) == ["bot", "lib/util"]


def test_unpacking_a_plain_file_makes_it_readable_not_executable(tmp_path: Path) -> None:
    unpack(read_archive(tar_of({"data": b"d"})), tmp_path / "v1")
    assert stat.S_IMODE((tmp_path / "v1" / "data").stat().st_mode) == 0o644


# ------------------------------------------------------------- further edges

def test_a_top_folder_is_taken_off_every_entry_of_a_nested_archive() -> None:
    files = read_archive(zip_of({"tiny/bot": b"x", "tiny/lib/util": b"u", "tiny/lib/x/y": b""}))
    assert paths(files) == ["bot", "lib/util", "lib/x/y"]


def test_a_ratio_over_no_packed_bytes_counts_one() -> None:
    _check_ratio(MIB + 1, 0, Limits(max_ratio=2 * MIB))
    _check_ratio(MIB + 1, 1, Limits(max_ratio=2 * MIB))
    with pytest.raises(ArchiveError, match="zip bomb"):
        _check_ratio(MIB + 1, 1, Limits(max_ratio=MIB))


def test_a_tar_gz_with_matches_far_back_in_its_window_is_read() -> None:
    # Deflate may refer 32 KiB back: this data refers 20 000 bytes back.
    block = os.urandom(20_000)
    files = read_archive(gzip.compress(tar_of({"bot": block + block})))
    assert files.read("bot") == block + block


def test_a_packed_folder_carries_no_timestamp(tmp_path: Path) -> None:
    # RFC 1952: bytes 4 to 7 are MTIME, and 0 means no time stamp is available.
    (tmp_path / "bot").write_bytes(b"x")
    assert pack(tmp_path)[4:8] == bytes(4)


def test_a_long_name_is_cut_to_80_characters_in_the_refusal() -> None:
    name = "".join(chr(ord("a") + i % 26) for i in range(300))
    with pytest.raises(ArchiveError) as refused:
        read_archive(tar_of({"bot": b"", name: b"x"}))
    assert str(refused.value).startswith(name[:80] + "...: a name of 300 bytes")


def test_a_long_path_is_cut_to_80_characters_in_the_refusal() -> None:
    path = "/".join(f"{i:03d}" + "d" * 96 for i in range(11))
    with pytest.raises(ArchiveError) as refused:
        read_archive(tar_of({"bot": b"", path: b"x"}))
    assert str(refused.value).startswith(path[:80] + "...: a path of 1099 bytes")


def test_checked_files_cannot_be_changed() -> None:
    files = read_archive(tar_of({"bot": b"x"}))
    with pytest.raises(AttributeError):
        files.files = ()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        files.files[0].path = "other"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        Limits().max_files = 1  # type: ignore[misc]


def test_a_link_sorted_before_files_leaves_them_in_the_canonical_tar_and_the_folder(
        tmp_path: Path) -> None:
    files = read_archive(tar_of({"bot": b"x", "lib/util": b"u"}, {"a-start": "bot"}))
    with tarfile.open(fileobj=io.BytesIO(files.canonical_tar())) as tar:
        assert tar.getnames() == ["a-start", "bot", "lib/util"]
    unpack(files, tmp_path / "v1")
    assert (tmp_path / "v1" / "a-start").read_bytes() == b"x"
    assert (tmp_path / "v1" / "lib" / "util").read_bytes() == b"u"


def test_packing_a_folder_of_exactly_the_largest_total_is_taken(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"x" * 600)
    (tmp_path / "b").write_bytes(b"y" * 424)
    assert len(folder_files(tmp_path, Limits(max_unpacked_bytes=1024))) == 2


def test_packing_a_folder_one_byte_over_the_largest_total_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"x" * 600)
    (tmp_path / "b").write_bytes(b"y" * 425)
    with pytest.raises(ArchiveError, match="over the limit"):
        folder_files(tmp_path, Limits(max_unpacked_bytes=1024))


def patched_zip(flag: int = 0, method: int | None = None) -> bytes:
    """A stored zip of one file with general-purpose `flag` bits set and, if given, its
    compression `method` replaced, in both its local and its central header."""
    data = bytearray(zip_of({"bot": b"#!/bin/sh\n"}, compression=zipfile.ZIP_STORED))
    local, central = data.index(b"PK\x03\x04"), data.index(b"PK\x01\x02")
    for flag_at, method_at in ((local + 6, local + 8), (central + 8, central + 10)):
        data[flag_at] |= flag
        if method is not None:
            data[method_at:method_at + 2] = method.to_bytes(2, "little")
    return bytes(data)


def test_an_encrypted_zip_entry_cannot_be_read() -> None:
    with pytest.raises(ArchiveError, match="bot: cannot be read: .*encrypted"):
        read_archive(patched_zip(flag=0x1))


def test_a_zip_entry_of_an_unknown_compression_cannot_be_read() -> None:
    with pytest.raises(ArchiveError, match="bot: cannot be read: .*compression"):
        read_archive(patched_zip(method=99))
