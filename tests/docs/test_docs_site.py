"""The documentation site builds with `mkdocs build --strict`, and every link in it, and in
the README, leads somewhere: an existing page or file, and an existing anchor on it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]


class _Page(HTMLParser):
    """The ids a page defines and the links it holds."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(str(values["id"]))
        if values.get("name") and tag == "a":
            self.ids.add(str(values["name"]))
        if tag == "a" and values.get("href"):
            self.links.append(str(values["href"]))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once for the module with --strict (a warning fails the build)."""
    pytest.importorskip("mkdocs", reason="the docs extra is not installed "
                                         "(pip install -e '.[docs]')")
    out = tmp_path_factory.mktemp("site")
    started = time.monotonic()
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert built.returncode == 0, f"mkdocs build --strict failed:\n{built.stderr[-4000:]}"
    print(f"mkdocs build --strict: {time.monotonic() - started:.1f} s")
    return out


def _pages(site: Path) -> dict[Path, _Page]:
    pages = {}
    for path in sorted(site.rglob("*.html")):
        page = _Page()
        page.feed(path.read_text(encoding="utf-8"))
        pages[path.resolve()] = page
    return pages


def _target(site: Path, page: Path, href: str) -> tuple[Path, str] | None:
    """The file and fragment an internal link leads to; None for an external link."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:")):
        return None
    path = unquote(parts.path)
    target = page if not path else (page.parent / path).resolve()
    if target.is_dir() or path.endswith("/"):
        target = target / "index.html"
    return target, unquote(parts.fragment)


def test_the_site_builds_strict_with_every_page_of_the_nav(site: Path) -> None:
    for page in ("tutorial/first-bot-python", "tutorial/node", "tutorial/cpp",
                 "how-to/host-a-competition", "how-to/postgresql", "reference/cli",
                 "reference/protocol", "reference/configuration", "explanation/statistics"):
        assert (site / page / "index.html").is_file(), page


def test_every_internal_link_and_anchor_of_the_site_resolves(site: Path) -> None:
    pages = _pages(site)
    broken = []
    for page, parsed in pages.items():
        if page.parent.name == "search" or page.name == "404.html":
            continue
        for href in parsed.links:
            found = _target(site, page, href)
            if found is None:
                continue
            target, fragment = found
            where = f"{page.relative_to(site.resolve())}: {href}"
            if not target.exists():
                broken.append(f"{where} (no such file)")
            elif fragment and target.suffix == ".html" and fragment not in pages[target].ids:
                broken.append(f"{where} (no anchor #{fragment})")
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_the_generated_references_hold_the_code_s_own_words(site: Path) -> None:
    cli = (site / "reference" / "cli" / "index.html").read_text()
    assert 'id="arena-tournament-run"' in cli and "--until-separated" in cli
    protocol = (site / "reference" / "protocol" / "index.html").read_text()
    assert 'id="decisionrequest"' in protocol
    assert "answer with an index into this list" in protocol  # a field's comment in bot.proto
    configuration = (site / "reference" / "configuration" / "index.html").read_text()
    assert "decision_timeout" in configuration and "draw_four_bluffing" in configuration


def test_every_relative_link_of_the_readme_names_an_existing_file() -> None:
    text = (ROOT / "README.md").read_text()
    missing = []
    for link in re.findall(r"\]\(([^)\s]+)\)", text):
        parts = urlsplit(link)
        if parts.scheme or not parts.path:
            continue
        if not (ROOT / unquote(parts.path)).exists():
            missing.append(link)
    assert not missing, f"README links to missing files: {missing}"

