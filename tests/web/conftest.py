"""One seeded match server for every web test (see `web_support`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.web.web_support import Served, served_for_the_web


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with served_for_the_web(tmp_path_factory.mktemp("web")) as server:
        yield server
