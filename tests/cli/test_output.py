"""What `--format json|csv` prints for values a table shows as words: NaN, lists, null."""

from __future__ import annotations

import json

import click
from click.testing import CliRunner

from arena.cli.output import emit


def _printed(rows: list[dict[str, object]], fmt: str) -> str:
    @click.command()
    def show() -> None:
        emit(rows, fmt)

    return CliRunner().invoke(show, catch_exceptions=False).stdout


def test_json_writes_a_number_that_is_not_one_as_null() -> None:
    text = _printed([{"p_value": float("nan"), "scores": [1, float("nan")]}], "json")
    assert json.loads(text) == [{"p_value": None, "scores": [1, None]}]
    assert "NaN" not in text


def test_csv_writes_a_list_as_its_items_and_null_as_an_empty_cell() -> None:
    text = _printed([{"seats": ["a", "b"], "teams": None, "p_value": float("nan")}], "csv")
    assert text == "seats,teams,p_value\na b,,\n"
