"""Submitting a bot: checking its files and manifest, storing them content-addressed,
unpacking them for a new version, and building it once.

Files live in one folder beside the database (`bots_dir_for`), readable by
its owner only: `blobs/SHA256` holds each distinct set of files as its
canonical tar, and `versions/` one folder per version, where its build and
its bot run.
"""

from __future__ import annotations

import os
import secrets
import shlex
import shutil
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from arena.sandbox import SandboxError
from arena.store import BotVersion, BuildStatus, Quota, Store
from arena.submissions.archive import BotFiles, Limits, read_archive, unpack
from arena.submissions.build import BuildLimits, BuildSandbox, run_build
from arena.submissions.manifest import MANIFEST, Manifest, ManifestError, Runtime, parse_manifest

PYTHON_WORDS = frozenset({"python", "python3"})
"""The leading words a `runtime = "python"` command's interpreter is named by."""


def bots_dir_for(db_path: Path) -> Path:
    """Where submitted bots' files go for a database: a folder beside it."""
    return db_path.parent / f"{db_path.stem}-bots"


def protos_dir() -> Path | None:
    """arena's .proto files, which a build may compile (`ARENA_PROTOS`), if installed."""
    candidate = Path(__file__).resolve().parents[2] / "protos"
    return candidate if (candidate / "arena" / "v1").is_dir() else None


@dataclass(frozen=True, slots=True)
class Submitted:
    """The outcome of a submission: the version, and whether it is new (False: the same
    files and manifest as the bot's latest version, which is returned instead)."""

    version: BotVersion
    created: bool


class Submissions:
    """Creates versions of submitted bots in `store`, with their files under `root`."""

    def __init__(self, store: Store, root: Path, limits: Limits | None = None,
                 build_limits: BuildLimits | None = None,
                 sandbox: BuildSandbox = "off") -> None:
        self.store = store
        self.root = root.absolute()  # a version's folder is where its commands run
        self.limits = limits or Limits()
        self.build_limits = build_limits or BuildLimits()
        self.sandbox: BuildSandbox = sandbox
        """Whether builds run sandboxed (`arena.submissions.build.run_build`)."""
        self._live_logs: dict[str, str] = {}
        """The output so far of each build running here, by version name."""
        self.build_listeners: list[Callable[[str], None]] = []
        """Told how each build run here ended: ok, failed, timed_out or not_run."""

    def submit(self, archive: bytes, *, manifest: str = MANIFEST, name: str | None = None,
               inherit_rating: bool = False, wait: bool = True,
               author_id: int | None = None, quota: Quota | None = None) -> Submitted:
        """Check `archive` and its `manifest` (a path inside it), and unless nothing
        changed since the bot's latest version, store it as the next version and build
        it: before returning, or (not `wait`) in a thread of its own, the version then
        returned as building (`live_log` follows its build). Raises `ArchiveError` or
        `ManifestError` before anything is written.

        A submission by an author (`author_id`) is theirs, refused under a bot name
        someone else's versions hold (`NotOwner`), and kept within their `quota`
        (`QuotaExceeded`; its build time too, within the server's own limit)."""
        files = read_archive(archive, self.limits)
        checked = _manifest(files, manifest, name)
        self.store.check_version_name(checked.name)
        self.store.check_version_owner(checked.name, author_id)
        check_distinct_name(checked.name, (bot.name for bot in self.store.list_bots()))
        sha256 = files.sha256()
        latest = self.store.latest_version(checked.name)
        if (latest is not None and latest.sha256 == sha256
                and latest.manifest == checked.to_dict()
                and latest.build_status is not BuildStatus.BUILDING):
            return Submitted(latest, created=False)
        blob = self._keep_blob(files, sha256)
        folder: Path | None = None
        try:
            folder = self._unpack(files, checked.name, sha256)
            version = self.store.add_version(
                checked.name, sha256, checked.to_dict(), checked.run, checked.runtime.value,
                str(folder), inherit_rating=inherit_rating, author_id=author_id, quota=quota)
        except BaseException:
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
            if blob is not None:
                blob.unlink(missing_ok=True)
            raise
        limits = self.build_limits
        if quota is not None and quota.build_seconds < limits.seconds:
            limits = replace(limits, seconds=float(quota.build_seconds))
        if checked.build is not None:
            if not wait:
                threading.Thread(target=self.build, args=(version, limits), daemon=True,
                                 name=f"arena-build-{version.name}").start()
                return Submitted(version, created=True)
            version = self.build(version, limits)
        return Submitted(version, created=True)

    def live_log(self, version: str) -> str | None:
        """The tail of the output of version `version`'s build while it runs here ("" when
        it has said nothing yet); None when no build of it runs here."""
        return self._live_logs.get(version)

    def build(self, version: BotVersion, limits: BuildLimits | None = None) -> BotVersion:
        """Run `version`'s build command in its folder, within `limits` (the server's by
        default), and record how it ended."""
        assert version.build_command is not None
        extra = {"ARENA_BOT_NAME": version.name}
        protos = protos_dir()
        if protos is not None:
            extra["ARENA_PROTOS"] = str(protos)
        self._live_logs[version.name] = ""

        def follow(tail: str) -> None:
            self._live_logs[version.name] = tail

        try:
            try:
                result = run_build(version.build_command, Path(version.folder),
                                   limits or self.build_limits, extra, sandbox=self.sandbox,
                                   on_output=follow)
            except SandboxError as exc:
                self._tell_build("not_run")
                return self.store.finish_build(version.name, False,
                                               f"the build did not run: {exc}\n")
            self._tell_build("ok" if result.ok else
                             "timed_out" if result.timed_out else "failed")
            return self.store.finish_build(version.name, result.ok, result.log)
        finally:
            self._live_logs.pop(version.name, None)

    def _tell_build(self, outcome: str) -> None:
        for listener in list(self.build_listeners):
            listener(outcome)

    def _keep_blob(self, files: BotFiles, sha256: str) -> Path | None:
        """Store `files`' canonical tar as blob `sha256`; the blob's path if this call
        wrote it (None: it was there already)."""
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        blobs = self.root / "blobs"
        blobs.mkdir(mode=0o700, exist_ok=True)
        target = blobs / sha256
        if target.exists():
            return None
        partial = blobs / f".{sha256}.{secrets.token_hex(4)}"
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(descriptor, "wb") as out:
                out.write(files.canonical_tar())
            os.replace(partial, target)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        return target

    def _unpack(self, files: BotFiles, base_name: str, sha256: str) -> Path:
        """A new version folder holding `files`; nothing left of it if unpacking fails."""
        versions = self.root / "versions"
        versions.mkdir(mode=0o700, exist_ok=True)
        folder = versions / f"{base_name}-{sha256[:12]}-{secrets.token_hex(4)}"
        try:
            unpack(files, folder)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        return folder


CONFUSABLE = str.maketrans({"0": "o", "1": "l", "i": "l", "|": "l", "5": "s", "8": "b"})
"""Characters a reader takes for one another in a name (after lower-casing)."""


def name_skeleton(name: str) -> str:
    """What `name` looks like to a reader: lower case, without '.', '-' or '_', with
    look-alike characters (`CONFUSABLE`, ``rn`` for ``m``, ``vv`` for ``w``) made one."""
    plain = "".join(c for c in name.lower() if c not in ".-_").translate(CONFUSABLE)
    return plain.replace("rn", "m").replace("vv", "w")


def check_distinct_name(name: str, existing: Iterable[str]) -> None:
    """`ManifestError` when bot name `name` differs from an existing bot's (`existing`,
    versions as ``base@N``) only by dots, dashes, underscores, case or look-alike
    characters, or ends with a dot: one author's bot must not pass for another's. A name
    already in `existing` (a new version of its bot) passes."""
    bases = {bot.split("@", 1)[0] for bot in existing}
    if name in bases:
        return  # a new version of a bot that has the name already
    if name.endswith(".") or ".." in name:
        raise ManifestError(f"name {name!r}: no name ends with a dot or has two in a row")
    skeleton = name_skeleton(name)
    for other in bases:
        if name_skeleton(other) == skeleton:
            raise ManifestError(f"name {name!r} looks like the existing bot {other!r}: "
                                "choose a name that differs in more than dots, dashes, "
                                "case or look-alike characters")


MAX_MANIFEST_BYTES = 64 * 1024
"""The largest manifest read: a few fields, each one line."""


def _manifest(files: BotFiles, path: str, name: str | None) -> Manifest:
    text = files.read(path)
    if text is None:
        raise ManifestError(f"no {path} at the top of the bot's folder (a manifest names "
                            "the bot and the command that runs it; see `arena bot submit "
                            "--help`)")
    if len(text) > MAX_MANIFEST_BYTES:
        raise ManifestError(f"{path}: {len(text):,} bytes, over the limit of "
                            f"{MAX_MANIFEST_BYTES:,} (a manifest is a few one-line fields)")
    try:
        decoded = text.decode("utf-8")
    except UnicodeDecodeError:
        raise ManifestError(f"{path}: not UTF-8 text") from None
    return parse_manifest(decoded, path, name=name)


def launch_command(version: BotVersion) -> str:
    """The command line a version is started with: its manifest's run command, where a
    Python bot's leading `python` is arena's own interpreter (which has the SDK), and a
    program named by a relative path (`build/bot`) is the one in the version's folder."""
    words = shlex.split(version.bot.command or "")
    if not words:
        return ""
    if version.runtime == Runtime.PYTHON.value and words[0] in PYTHON_WORDS:
        words[0] = sys.executable
    elif "/" in words[0] and not words[0].startswith("/"):
        words[0] = str(Path(version.folder) / words[0])
    return shlex.join(words)


