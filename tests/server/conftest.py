"""The server tests' timeout: a hung table fails fast instead of hanging CI."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every server test gets a timeout, so a hung table fails fast instead of hanging CI."""
    for item in items:
        if "tests/server/" in str(item.fspath).replace("\\", "/") \
                and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(30))
