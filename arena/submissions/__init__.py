"""Submitted bots: a folder (or a .zip or .tar.gz of one) with an `arena-bot.toml`
manifest, checked, stored content-addressed, unpacked and built once per version.

`manifest` reads the manifest, `archive` checks and packs the files, `build` runs a
build command under limits (`run_build`, the one place one is started), and `service`
puts them together into versions in the store.
"""

from __future__ import annotations

from arena.submissions.archive import ArchiveError, BotFiles, Limits, pack, read_archive
from arena.submissions.build import BuildLimits, BuildResult, run_build
from arena.submissions.manifest import MANIFEST, Manifest, ManifestError, Runtime, parse_manifest
from arena.submissions.service import (
    Submissions,
    Submitted,
    bots_dir_for,
    launch_command,
    protos_dir,
)

__all__ = [
    "MANIFEST",
    "ArchiveError",
    "BotFiles",
    "BuildLimits",
    "BuildResult",
    "Limits",
    "Manifest",
    "ManifestError",
    "Runtime",
    "Submissions",
    "Submitted",
    "bots_dir_for",
    "launch_command",
    "pack",
    "parse_manifest",
    "protos_dir",
    "read_archive",
    "run_build",
]
