"""Bot logs of a run on a Dask cluster, brought back to the driver's log folder.

A Dask worker's bots write their logs in the worker's own scratch folder, which
goes with the worker. So a worker sends what its bots wrote since it last sent
(`LogShipper.new_text`) with every chunk it finishes, and again when the driver
asks at the end of the run or after a failure; the driver appends it to
``LOG_DIR/worker-NAME/BOT.log`` (`keep_logs`), where `arena bot log` and the
run's error lines look. What a worker's bots wrote after its last chunk is lost
only if the worker dies before the driver asks.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

SHIP_BYTES = 1024 * 1024
"""The most of one bot's new log a worker sends at once: past it, the newest bytes."""

KEEP_BYTES = 16 * 1024 * 1024
"""The most one bot's log holds on the driver before it is rotated to ``.1``."""


@dataclass(frozen=True, slots=True)
class LogText:
    """What one bot wrote to its log (`name`, e.g. ``greedy.log``) since it was last sent;
    `left_out` bytes before `data` were too many to send."""

    name: str
    data: bytes
    left_out: int = 0


class LogShipper:
    """Reads, from a folder of bot logs, what was written since the last read (across
    rotations: ``bot.log.1`` is read to its end before the new ``bot.log``)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._read: dict[tuple[int, int], int] = {}
        """How far each file, by (device, inode), has been read."""
        self._lock = threading.Lock()

    def new_text(self) -> tuple[LogText, ...]:
        """What every bot wrote since the last call, oldest file first (from any thread:
        a chunk's task, or the driver asking)."""
        with self._lock:
            return self._new_text()

    def _new_text(self) -> tuple[LogText, ...]:
        by_bot: dict[str, list[Path]] = {}
        with contextlib.suppress(OSError):
            for path in self.folder.iterdir():
                match = _LOG_NAME.fullmatch(path.name)
                if match:
                    by_bot.setdefault(match.group(1), []).append(path)
        found = []
        for name, paths in sorted(by_bot.items()):
            data, left_out = self._read_new(sorted(paths, key=_age, reverse=True))
            if data or left_out:
                found.append(LogText(name, data, left_out))
        return tuple(found)

    def _read_new(self, paths: Iterable[Path]) -> tuple[bytes, int]:
        parts: list[bytes] = []
        total = 0
        for path in paths:
            try:
                with path.open("rb") as file:
                    status = path.stat()
                    key = (status.st_dev, status.st_ino)
                    start = self._read.get(key, 0)
                    if status.st_size <= start:
                        continue
                    total += status.st_size - start
                    file.seek(max(start, status.st_size - SHIP_BYTES))
                    parts.append(file.read(SHIP_BYTES))
                    self._read[key] = status.st_size
            except OSError:
                continue
        data = b"".join(parts)[-SHIP_BYTES:]
        return data, total - len(data)


_LOG_NAME = re.compile(r"(.+\.log)(?:\.(\d+))?")


def _age(path: Path) -> int:
    """0 for a current log, N for its Nth rotation (older)."""
    match = _LOG_NAME.fullmatch(path.name)
    return int(match.group(2)) if match and match.group(2) else 0


def worker_folder(name: object) -> str:
    """The folder of the driver's log folder for the Dask worker named `name` (its name,
    or its address by default): ``worker-NAME``, fit for a file name."""
    text = re.sub(r"^[a-z]+://", "", str(name))
    return "worker-" + (re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "unnamed")


def keep_logs(log_dir: Path, worker: str, texts: Iterable[LogText],
              keep_bytes: int = KEEP_BYTES) -> None:
    """Append each of `texts` to its bot's log in ``log_dir/worker`` (`worker_folder`),
    rotating a log past `keep_bytes` to ``.1`` first."""
    folder = log_dir / worker
    for text in texts:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = folder / text.name
        with contextlib.suppress(FileNotFoundError):
            if path.stat().st_size + len(text.data) > keep_bytes:
                path.replace(path.with_name(path.name + ".1"))
        with path.open("ab") as file:
            if text.left_out:
                file.write(f"\n[... {text.left_out} bytes of this log were left out "
                           "...]\n".encode())
            file.write(text.data)
