"""What arena logs, and how: human lines (the default) or one JSON event per line.

Every module logs through the stdlib `logging` under the `arena` logger. An event
about a run, a game or a bot says so in its `extra` fields (`run`, `game`, `bot`,
`bots`, ...), which the JSON format writes as keys of the event beside `time`,
`level`, `logger` and `message`. `configure` sets up the `arena` logger for a
command (`--log-format`, `--log-file`, or `ARENA_LOG_FORMAT` and `ARENA_LOG_FILE`);
the local worker processes of a run log the same way (`settings`, `follow`), and a
Dask worker as its own environment says (`configure_from_env`).
"""

from __future__ import annotations

import json
import logging
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

LogFormat = Literal["human", "json"]
"""The formats of `configure`."""

FORMAT_VARIABLE = "ARENA_LOG_FORMAT"
"""Names the log format (human or json) of a command, or of a Dask worker."""
FILE_VARIABLE = "ARENA_LOG_FILE"
"""Names the file a command or a Dask worker appends its log to (default: stderr)."""

HUMAN_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
"""The line of the human format (with --log-file, or in a worker)."""

_RECORD_FIELDS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message", "asctime", "taskName"}
"""The attributes every log record has: what is left are an event's `extra` fields."""

_HANDLER_NAME = "arena-configured"


class JsonFormatter(logging.Formatter):
    """One JSON object per record: `time` (UTC, ISO 8601), `level`, `logger`,
    `message`, every `extra` field, and `exception` when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as one line of JSON."""
        event: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(
                timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _RECORD_FIELDS and not key.startswith("_"):
                event[key] = value
        if record.exc_info:
            event["exception"] = self.formatException(record.exc_info)
        return json.dumps(event, default=str, ensure_ascii=False)


LogSettings = tuple[LogFormat, str | None]
"""How a process logs: its format, and the file it appends to (None: stderr)."""

_configured: LogSettings | None = None
"""What `configure` last set up in this process (None: nothing, the default)."""


def configure(log_format: LogFormat = "human", log_file: Path | None = None, *,
              level: int = logging.INFO) -> None:
    """Log arena's events as `log_format` says, to `log_file` (appended) or stderr.

    The human format without a file changes nothing: warnings reach stderr as bare
    lines, as they always have. Otherwise the `arena` logger gets one handler (a
    second call replaces it) at `level`, and `settings` says so, for the worker
    processes to be started. `OSError` for a file that cannot be opened.
    """
    global _configured
    logger = logging.getLogger("arena")
    if log_format == "human" and log_file is None:
        return
    handler: logging.Handler = (logging.FileHandler(log_file, encoding="utf-8")
                                if log_file is not None else logging.StreamHandler())
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(JsonFormatter() if log_format == "json"
                         else logging.Formatter(HUMAN_FORMAT))
    for old in list(logger.handlers):
        if old.get_name() == _HANDLER_NAME:
            logger.removeHandler(old)
            old.close()
    logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False
    _configured = (log_format, None if log_file is None else str(Path(log_file).absolute()))


def settings() -> LogSettings | None:
    """How this process logs, for a worker process to log the same way (`follow`);
    None for the default."""
    return _configured


def follow(given: LogSettings | None) -> None:
    """In a worker process: log as its driver does (`settings` there); for None, as the
    environment says (`configure_from_env`). A file that cannot be opened is warned of."""
    if given is None:
        configure_from_env()
        return
    log_format, log_file = given
    try:
        configure(log_format, Path(log_file) if log_file else None)
    except OSError as exc:
        logging.getLogger("arena.logs").warning("cannot log to %s: %s", log_file, exc)


def configure_from_env() -> None:
    """Log as `ARENA_LOG_FORMAT` and `ARENA_LOG_FILE` say (a Dask worker started with
    them); nothing changes when the format is unset or unknown."""
    log_format = os.environ.get(FORMAT_VARIABLE, "").strip().lower()
    log_file = os.environ.get(FILE_VARIABLE, "").strip()
    if log_format == "json":
        follow(("json", log_file or None))
    elif log_format == "human":
        follow(("human", log_file or None))


def is_json() -> bool:
    """Whether this process logs JSON events (`configure` was asked for them)."""
    return _configured is not None and _configured[0] == "json"
