"""A tournament's report: one self-contained HTML page to look at and to share.

`gather` (in `data`) reads what the page shows from the store; `render` (in
`html`) writes the page, with its chart (`chart`) and its replays (`replay`);
`write_report` does both.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from arena.report.data import Report, gather
from arena.report.html import render
from arena.store import Store

__all__ = ["Report", "gather", "render", "write_report"]


def write_report(store: Store, tournament: str, path: Path) -> Report:
    """Write the report of `tournament` to `path` as HTML and return what it shows."""
    report = gather(store, tournament, datetime.now(UTC))
    path.write_text(render(report), encoding="utf-8")
    return report
