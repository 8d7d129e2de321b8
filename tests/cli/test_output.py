"""What `--format json|csv` prints for values a table shows as words: NaN, lists, null."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import click
import grpc
import pytest
from click.testing import CliRunner

from arena.cli.output import emit, follow_progress
from arena.v1 import admin_pb2


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


def test_a_run_whose_connection_drops_midway_says_the_server_stopped_and_how_to_resume() -> None:
    async def updates(code: grpc.StatusCode) -> AsyncIterator[admin_pb2.RunProgress]:
        yield admin_pb2.RunProgress(done=3, total=10, status="running")
        raise grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), "gone",
                                   None)

    with pytest.raises(click.ClickException) as stopped:
        asyncio.run(follow_progress(updates(grpc.StatusCode.UNAVAILABLE), "cup",
                                    resume="run `arena tournament run cup` again to resume"))
    assert stopped.value.message == ("the server stopped: 3 of 10 games done; "
                                     "run `arena tournament run cup` again to resume")
    with pytest.raises(grpc.aio.AioRpcError):  # other errors stay what they are
        asyncio.run(follow_progress(updates(grpc.StatusCode.INTERNAL), "cup",
                                    resume="run it again"))
