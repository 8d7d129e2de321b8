"""A tournament played once for every report test: a round robin of the three Python
sample bots at tables of 3, two deals of single hands (6 games), through the CLI."""

from __future__ import annotations

import json

import pytest

from tests.cli.cli_support import BOTS, ONE_HAND, add_bots, ok, write_json
from tests.report.report_support import TOURNAMENT, Played


@pytest.fixture(scope="session")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    tmp = tmp_path_factory.mktemp("report")
    db = tmp / "arena.db"
    add_bots(db, BOTS)
    settings = write_json(tmp / "settings.json", {"rules": ONE_HAND})
    ok(db, "tournament", "create", TOURNAMENT, *BOTS, "--table-size", "3", "--deals", "2",
       "--seed", "5", "--settings", str(settings))
    ok(db, "tournament", "run", TOURNAMENT)
    page = tmp / "report.html"
    ok(db, "report", TOURNAMENT, "-o", str(page))
    order = [row["bot"] for row in json.loads(
        ok(db, "rankings", "--tournament", TOURNAMENT, "--format", "json").stdout)]
    return Played(db, page, order)
