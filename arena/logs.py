"""What arena logs, and how: human lines (the default) or one JSON event per line.

Every module logs through the stdlib `logging` under the `arena` logger. An event
about a run, a game or a bot says so in its `extra` fields (`run`, `game`, `bot`,
`bots`, ...), which the JSON format writes as keys of the event beside `time`,
`level`, `logger` and `message`. `configure` sets up the `arena` logger for a
command (`--log-format`, `--log-file`) and passes the choice on to the worker
processes it starts through the environment (`ARENA_LOG_FORMAT`, `ARENA_LOG_FILE`),
which `configure_from_env` reads in a worker.
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
"""Names the log format of a worker process (human or json), as its driver's."""
FILE_VARIABLE = "ARENA_LOG_FILE"
"""Names the file a worker process appends its log to (default: stderr)."""

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


def configure(log_format: LogFormat = "human", log_file: Path | None = None, *,
              level: int = logging.INFO, pass_on: bool = True) -> None:
    """Log arena's events as `log_format` says, to `log_file` (appended) or stderr.

    The human format without a file changes nothing: warnings reach stderr as bare
    lines, as they always have. Otherwise the `arena` logger gets one handler (a
    second call replaces it) at `level`. With `pass_on`, worker processes started
    from now on log the same way (see the module). `OSError` for a file that cannot
    be opened.
    """
    logger = logging.getLogger("arena")
    for old in list(logger.handlers):
        if old.get_name() == _HANDLER_NAME:
            logger.removeHandler(old)
            old.close()
    if pass_on:
        os.environ[FORMAT_VARIABLE] = log_format
        if log_file is not None:
            os.environ[FILE_VARIABLE] = str(Path(log_file).absolute())
        else:
            os.environ.pop(FILE_VARIABLE, None)
    if log_format == "human" and log_file is None:
        return
    handler: logging.Handler = (logging.FileHandler(log_file, encoding="utf-8")
                                if log_file is not None else logging.StreamHandler())
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(JsonFormatter() if log_format == "json"
                         else logging.Formatter(HUMAN_FORMAT))
    logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False


def configure_from_env() -> None:
    """In a worker process: log as the driver that started it does (`ARENA_LOG_FORMAT`,
    `ARENA_LOG_FILE`); nothing changes when neither is set, or the format is unknown."""
    log_format = os.environ.get(FORMAT_VARIABLE, "").strip().lower()
    log_file = os.environ.get(FILE_VARIABLE, "").strip()
    if log_format not in ("human", "json"):
        return
    try:
        configure(log_format, Path(log_file) if log_file else None,  # type: ignore[arg-type]
                  pass_on=False)
    except OSError as exc:
        logging.getLogger("arena.logs").warning("cannot log to %s: %s", log_file, exc)


def is_json() -> bool:
    """Whether this process logs JSON events (`configure` was asked for them)."""
    return os.environ.get(FORMAT_VARIABLE) == "json" and any(
        h.get_name() == _HANDLER_NAME for h in logging.getLogger("arena").handlers)
