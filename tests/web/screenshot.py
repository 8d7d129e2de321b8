"""Take the README's screenshot of the web front's leaderboard:
``python -m tests.web.screenshot docs/web-leaderboard.png``.

The same seeded server as the web tests (without the hostile name), a few more games,
uvicorn, and Debian's chromium through Playwright.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from arena.v1 import admin_pb2
from arena.web import WebSettings
from tests.support import chromium
from tests.web.test_browser import Uvicorn
from tests.web.web_support import ONE_HAND, served_for_the_web


def main(target: str) -> None:
    """Write the leaderboard's screenshot to `target`."""
    with tempfile.TemporaryDirectory() as folder, \
            served_for_the_web(Path(folder), hostile=False) as served:
        for seed in range(3):
            served.call("PlayMatch", admin_pb2.PlayMatchRequest(
                bots=["greedy@1", "rnd", "counter"], games=3, seed=seed, rules_json=ONE_HAND))
        pool = max(served.call("ListPools", admin_pb2.ListPoolsRequest()).pools,
                   key=lambda p: (p.key.startswith("rules:"), p.games))
        with Uvicorn(WebSettings(served.address, served.token("vera"))) as front, \
                chromium() as browser:
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            page.goto(f"{front.url}/pool?key={pool.key}")
            page.screenshot(path=target)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/web-leaderboard.png")
