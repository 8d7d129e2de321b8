"""A bot's files: packed from a folder or read from a .zip or .tar.gz, checked, and
written out again.

Every archive is checked whole, in memory, before anything is written: no
absolute path, no `..`, no symlink that leads out of the bot's folder (or
that another entry is written through), no device or hard link, and no more
than `Limits` allow — the archive's size, the files' total size and count,
and the compression ratio that gives a zip bomb away. What passes becomes
`BotFiles`, whose canonical tar (sorted, timestamps and owners cleared) is
what a version's sha256 is taken over, so the same files always give the
same hash however they were packed.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import posixpath
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

MIB = 1024 * 1024

SKIPPED = frozenset({"__pycache__", ".git", ".hg", ".svn", ".DS_Store"})
"""Names left out when a folder is packed: caches and version-control data, which change
without the bot changing."""


class ArchiveError(ValueError):
    """Bot files that are refused; the message says which entry and why."""


@dataclass(frozen=True, slots=True)
class Limits:
    """How much a submission may hold."""

    max_upload_bytes: int = 64 * MIB
    """The largest archive accepted (as packed, compressed)."""
    max_unpacked_bytes: int = 256 * MIB
    """The largest total of the files' sizes once unpacked."""
    max_files: int = 20_000
    max_ratio: int = 100
    """The largest size unpacked over size packed, for an archive of more than 1 MiB
    unpacked: beyond it the archive is taken for a zip bomb."""


@dataclass(frozen=True, slots=True)
class BotFile:
    """One entry of a bot's folder: a regular file, or a symlink within the folder."""

    path: str
    """Relative, with '/' between parts, never '..'."""
    data: bytes = b""
    executable: bool = False
    link: str | None = None
    """For a symlink: its target, relative, inside the folder."""


@dataclass(frozen=True, slots=True)
class BotFiles:
    """A bot's checked files, sorted by path."""

    files: tuple[BotFile, ...]

    def read(self, path: str) -> bytes | None:
        """The contents of the regular file at `path`, or None if there is none."""
        for file in self.files:
            if file.path == path and file.link is None:
                return file.data
        return None

    def canonical_tar(self) -> bytes:
        """The files as an uncompressed tar with nothing but paths, contents, the
        executable bit and link targets in it: equal files, equal bytes."""
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for file in self.files:
                info = tarfile.TarInfo(file.path)
                info.mtime = 0
                if file.link is not None:
                    info.type = tarfile.SYMTYPE
                    info.linkname = file.link
                    info.mode = 0o777
                    tar.addfile(info)
                    continue
                info.mode = 0o755 if file.executable else 0o644
                info.size = len(file.data)
                tar.addfile(info, io.BytesIO(file.data))
        return buffer.getvalue()

    def sha256(self) -> str:
        """The hex sha256 of `canonical_tar`."""
        return hashlib.sha256(self.canonical_tar()).hexdigest()

    @property
    def size(self) -> int:
        """The total size of the regular files."""
        return sum(len(file.data) for file in self.files)


# ------------------------------------------------------------------ packing

def pack(path: Path, limits: Limits = Limits()) -> bytes:
    """What to upload for `path`: a folder packed as a .tar.gz, or the bytes of a .zip
    or .tar.gz file. Raises `ArchiveError` for what would be refused anyway (a symlink
    out of the folder, too many or too large files, an archive over the limit)."""
    if path.is_dir():
        data = gzip.compress(_checked(folder_files(path, limits), limits).canonical_tar(),
                             mtime=0)
    elif path.is_file():
        size = path.stat().st_size
        if size > limits.max_upload_bytes:
            raise ArchiveError(_too_large(size, limits))
        data = path.read_bytes()
    else:
        raise ArchiveError(f"{path}: no such folder or file")
    if len(data) > limits.max_upload_bytes:
        raise ArchiveError(_too_large(len(data), limits))
    return data


def _too_large(size: int, limits: Limits) -> str:
    return (f"the bot's archive is {size / MIB:.1f} MiB, over the limit of "
            f"{limits.max_upload_bytes / MIB:.1f} MiB")


def folder_files(folder: Path, limits: Limits = Limits()) -> list[BotFile]:
    """The files under `folder` (caches and version control left out, see `SKIPPED`);
    a symlink must stay inside the folder and is kept as a link."""
    root = folder.resolve()
    files: list[BotFile] = []
    total = 0
    for directory, subdirs, names in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if d not in SKIPPED)
        here = Path(directory)
        for name in sorted([*names, *(d for d in subdirs if (here / d).is_symlink())]):
            if name in SKIPPED or name.endswith(".pyc"):
                continue
            file = here / name
            relative = file.relative_to(root).as_posix()
            info = file.lstat()
            if stat.S_ISLNK(info.st_mode):
                files.append(BotFile(relative, link=_folder_link(root, file, relative)))
            elif stat.S_ISREG(info.st_mode):
                total += info.st_size
                _check_totals(len(files) + 1, total, limits)
                files.append(BotFile(relative, file.read_bytes(),
                                     executable=bool(info.st_mode & stat.S_IXUSR)))
            else:
                raise ArchiveError(f"{relative}: not a regular file, folder or symlink")
    return files


def _folder_link(root: Path, file: Path, relative: str) -> str:
    target = os.readlink(file)
    resolved = (file.parent / target).resolve()
    if not resolved.is_relative_to(root):
        raise ArchiveError(f"{relative}: a symlink out of the bot's folder (to {target})")
    return os.path.relpath(resolved, file.parent.resolve()).replace(os.sep, "/")


# ------------------------------------------------------------------ reading

def read_archive(data: bytes, limits: Limits = Limits()) -> BotFiles:
    """The files of a .zip, .tar.gz or .tar archive, checked whole (see the module);
    `ArchiveError` for anything refused."""
    if len(data) > limits.max_upload_bytes:
        raise ArchiveError(_too_large(len(data), limits))
    if data.startswith(b"PK"):
        files = list(_zip_files(data, limits))
    elif data.startswith(b"\x1f\x8b"):
        files = list(_tar_files(_gunzip(data, limits), limits))
    else:
        files = list(_tar_files(data, limits))
    return _checked(files, limits)


def _gunzip(data: bytes, limits: Limits) -> bytes:
    # The tar's own headers add up to 1.5 KiB per file to what the files hold.
    cap = limits.max_unpacked_bytes + min(1536 * limits.max_files,
                                          limits.max_unpacked_bytes // 4)
    inflater = zlib.decompressobj(wbits=31)
    try:
        out = inflater.decompress(data, cap + 1)
    except zlib.error as exc:
        raise ArchiveError(f"the archive is not a valid .tar.gz: {exc}") from None
    if len(out) > cap:
        raise ArchiveError(f"the archive unpacks to more than "
                           f"{limits.max_unpacked_bytes / MIB:.0f} MiB: refused")
    _check_ratio(len(out), len(data), limits)
    return out


def _check_ratio(unpacked: int, packed: int, limits: Limits) -> None:
    if unpacked > MIB and unpacked > limits.max_ratio * max(packed, 1):
        raise ArchiveError(
            f"the archive unpacks {unpacked / max(packed, 1):.0f} times larger than it is "
            f"(more than {limits.max_ratio}): refused as a zip bomb")


def _zip_files(data: bytes, limits: Limits) -> Iterator[BotFile]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise ArchiveError(f"the archive is not a valid .zip: {exc}") from None
    with archive:
        infos = [info for info in archive.infolist() if not info.is_dir()]
        declared = sum(info.file_size for info in infos)
        _check_totals(len(infos), declared, limits)
        _check_ratio(declared, sum(info.compress_size for info in infos), limits)
        for info in infos:
            mode = info.external_attr >> 16
            path = _entry_path(info.filename)
            try:
                with archive.open(info) as member:
                    content = member.read(info.file_size + 1)
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, zlib.error) as exc:
                raise ArchiveError(f"{info.filename}: cannot be read: {exc}") from None
            if len(content) != info.file_size:
                raise ArchiveError(f"{info.filename}: holds more than its declared size")
            if stat.S_ISLNK(mode):
                yield BotFile(path, link=content.decode("utf-8", "replace"))
            else:
                yield BotFile(path, content, executable=bool(mode & stat.S_IXUSR))


def _tar_files(data: bytes, limits: Limits) -> Iterator[BotFile]:
    with _open_tar(data) as archive:
        try:
            members = archive.getmembers()
        except tarfile.TarError as exc:
            raise ArchiveError(f"the archive is not a valid tar: {exc}") from None
        files = [m for m in members if not m.isdir()]
        _check_totals(len(files), sum(m.size for m in files if m.isreg()), limits)
        for member in files:
            path = _entry_path(member.name)
            if member.issym():
                yield BotFile(path, link=member.linkname)
            elif member.isreg():
                extracted = archive.extractfile(member)
                assert extracted is not None
                yield BotFile(path, extracted.read(), executable=bool(member.mode & 0o100))
            elif member.islnk():
                raise ArchiveError(f"{member.name}: a hard link (only files, folders and "
                                   "symlinks are taken)")
            else:
                raise ArchiveError(f"{member.name}: not a regular file, folder or symlink")


def _open_tar(data: bytes) -> tarfile.TarFile:
    try:
        return tarfile.open(fileobj=io.BytesIO(data), mode="r:")
    except tarfile.TarError as exc:
        raise ArchiveError(f"the archive is not a valid .zip, .tar.gz or .tar: {exc}") from None


# ----------------------------------------------------------------- checking

def _entry_path(name: str) -> str:
    """`name` as a safe relative path; `ArchiveError` for an absolute one or one with
    '..' (or a backslash, NUL or drive letter, which mean the same elsewhere)."""
    if not name or "\x00" in name or "\\" in name:
        raise ArchiveError(f"{name!r}: not a usable path")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise ArchiveError(f"{name}: an absolute path")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise ArchiveError(f"{name}: a path with '..'")
    if not parts:
        raise ArchiveError(f"{name!r}: not a usable path")
    return "/".join(parts)


def _check_totals(count: int, size: int, limits: Limits) -> None:
    if count > limits.max_files:
        raise ArchiveError(f"more than {limits.max_files:,} files: refused")
    if size > limits.max_unpacked_bytes:
        raise ArchiveError(f"the files add up to {size / MIB:.1f} MiB, over the limit of "
                           f"{limits.max_unpacked_bytes / MIB:.1f} MiB")


def _checked(files: Iterable[BotFile], limits: Limits) -> BotFiles:
    """The files sorted, with a single top folder taken off, after the checks that need
    them all: no path twice, links inside the folder, nothing written through a link."""
    entries = _without_top_folder(list(files))
    _check_totals(len(entries), sum(len(f.data) for f in entries), limits)
    paths: dict[str, BotFile] = {}
    for entry in entries:
        if entry.path in paths:
            raise ArchiveError(f"{entry.path}: appears twice")
        paths[entry.path] = entry
    for entry in entries:
        _check_name_lengths(entry)
    targets = {entry.path: entry.link for entry in entries if entry.link is not None}
    links = set(targets)
    for entry in entries:
        if entry.link is not None:
            _check_link(entry)
            _resolve_inside(entry.path, targets)
        parents = entry.path.split("/")[:-1]
        for depth in range(1, len(parents) + 1):
            if "/".join(parents[:depth]) in links:
                raise ArchiveError(f"{entry.path}: written through a symlink")
    return BotFiles(tuple(sorted(entries, key=lambda f: f.path)))


MAX_NAME_BYTES = 255
"""The longest name of one file or folder (Linux's NAME_MAX)."""

MAX_PATH_BYTES = 1024
"""The longest path inside a bot's folder, or symlink target, taken: a version's folder
adds its own path to it, and the whole must stay below Linux's PATH_MAX."""

MAX_LINK_HOPS = 40
"""The most symlinks one path may go through (Linux's own limit)."""


def _check_name_lengths(entry: BotFile) -> None:
    """`ArchiveError` for a path, name or link target longer than the file system takes:
    found here, before anything is written, not halfway through unpacking."""
    for part in entry.path.split("/"):
        if len(part.encode()) > MAX_NAME_BYTES:
            raise ArchiveError(f"{entry.path[:80]}...: a name of {len(part.encode())} bytes, "
                               f"over the limit of {MAX_NAME_BYTES}")
    for what, text in (("path", entry.path), ("symlink target", entry.link or "")):
        if len(text.encode()) > MAX_PATH_BYTES:
            raise ArchiveError(f"{entry.path[:80]}...: a {what} of {len(text.encode())} bytes, "
                               f"over the limit of {MAX_PATH_BYTES}")


def _resolve_inside(path: str, targets: dict[str, str]) -> None:
    """Follow `path` as the kernel would, through every symlink of the folder
    (`targets`: a link's path → its target), and raise `ArchiveError` if it leads out
    of the folder at any step or goes through more than `MAX_LINK_HOPS` links."""
    pending = list(reversed(path.split("/")))
    current: list[str] = []
    hops = 0
    while pending:
        part = pending.pop()
        if part in ("", "."):
            continue
        if part == "..":
            if not current:
                raise ArchiveError(f"{path}: a symlink out of the bot's folder (through "
                                   f"{targets[path]})")
            current.pop()
            continue
        target = targets.get("/".join([*current, part]))
        if target is None:
            current.append(part)
            continue
        hops += 1
        if hops > MAX_LINK_HOPS or target.startswith("/"):
            raise ArchiveError(f"{path}: a symlink chain that does not stay in the bot's "
                               f"folder (through {target})")
        pending.extend(reversed(target.split("/")))


def _check_link(entry: BotFile) -> None:
    target = entry.link or ""
    if not target or target.startswith("/") or "\x00" in target:
        raise ArchiveError(f"{entry.path}: a symlink out of the bot's folder (to {target})")
    inside = posixpath.normpath(posixpath.join(posixpath.dirname(entry.path), target))
    if inside == ".." or inside.startswith("../") or inside.startswith("/"):
        raise ArchiveError(f"{entry.path}: a symlink out of the bot's folder (to {target})")


def _without_top_folder(files: list[BotFile]) -> list[BotFile]:
    """An archive of a folder (every entry under one top folder) read as that folder's
    contents."""
    tops = {file.path.split("/", 1)[0] for file in files}
    if len(tops) != 1 or any("/" not in file.path for file in files):
        return files
    return [BotFile(file.path.split("/", 1)[1], file.data, file.executable, file.link)
            for file in files]


# ------------------------------------------------------------------ writing

def unpack(files: BotFiles, destination: Path) -> None:
    """Write `files` into the new folder `destination`, readable (not writable) by other
    users: a root arena's sandboxed bot runs as a uid of its own and is shown only its
    own folder. The folders above it keep everyone else out."""
    destination.mkdir(parents=True)
    os.chmod(destination, 0o755)
    for file in files.files:
        target = destination / file.path
        for folder in reversed(target.parents):
            if folder.is_relative_to(destination) and not folder.exists():
                folder.mkdir()
                os.chmod(folder, 0o755)
        if file.link is not None:
            continue
        mode = 0o755 if file.executable else 0o644
        descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        with os.fdopen(descriptor, "wb") as out:
            out.write(file.data)
    for file in files.files:
        if file.link is not None:
            os.symlink(file.link, destination / file.path)
