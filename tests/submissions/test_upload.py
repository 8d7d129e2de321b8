"""Submitting over the admin API: the archive goes in chunks, a server refuses one over
its size limit with a clear error before anything is written, and `arena --server`
submits to a running `arena serve`."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import grpc
import pytest

from arena.cli.session import admin_session
from arena.server.auth import ADMIN_TOKEN_VARIABLE
from arena.submissions import Limits, pack
from arena.v1 import admin_pb2
from arena.wire_admin import UPLOAD_CHUNK_BYTES, upload_chunks
from tests.cli.cli_support import PYTHON_BOTS, invoke, marked_env, serving, wait_for_line
from tests.support import free_port, managed_server, wait_until


def bot_with_data(folder: Path, size: int) -> Path:
    folder.mkdir()
    (folder / "arena-bot.toml").write_text('name = "heavy"\nrun = "./bot"\n')
    (folder / "weights.bin").write_bytes(os.urandom(size))
    return folder


def test_an_archive_is_sent_in_chunks_with_the_header_first(tmp_path: Path) -> None:
    archive = pack(bot_with_data(tmp_path / "heavy", 3 * UPLOAD_CHUNK_BYTES))
    chunks = list(upload_chunks(archive, admin_pb2.SubmitBotHeader(name="x")))
    assert len(chunks) == 4
    assert [c.HasField("header") for c in chunks] == [True, False, False, False]
    assert chunks[0].header.size == len(archive)
    assert b"".join(c.data for c in chunks) == archive


def test_a_server_takes_a_chunked_upload_and_refuses_one_over_its_limit(tmp_path: Path) -> None:
    small = pack(bot_with_data(tmp_path / "small", UPLOAD_CHUNK_BYTES + 1000))
    large = pack(bot_with_data(tmp_path / "large", 3 * UPLOAD_CHUNK_BYTES))
    limit = 2 * UPLOAD_CHUNK_BYTES

    async def scenario() -> tuple[admin_pb2.SubmitBotResponse, grpc.aio.AioRpcError,
                                  list[str]]:
        async with managed_server(tmp_path / "served") as served:
            served.services.bots.submissions.limits = Limits(max_upload_bytes=limit)
            address = f"127.0.0.1:{served.port}"
            async with admin_session(address, tmp_path / "unused.db") as session:
                taken = await session.admin.SubmitBot(
                    upload_chunks(small, admin_pb2.SubmitBotHeader(name="small")))
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await session.admin.SubmitBot(
                        upload_chunks(large, admin_pb2.SubmitBotHeader(name="large")))
            return taken, refused.value, [b.name for b in served.store.list_bots()]

    (tmp_path / "served").mkdir()
    taken, refused, bots = asyncio.run(scenario())
    assert (taken.created, taken.version.name) == (True, "small@1")
    assert refused.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert refused.details() == (
        "the bot's archive is over this server's limit of 0.5 MiB (0.8 MiB sent or "
        "announced): leave out what the bot does not need")
    assert bots == ["small@1"]
    versions = tmp_path / "served" / "logs-bots" / "versions"
    assert [p.name.split("-")[0] for p in versions.iterdir()] == ["small"]


def test_arena_server_submits_to_a_running_arena_serve(tmp_path: Path) -> None:
    port = free_port()
    db = tmp_path / "served.db"
    token = {ADMIN_TOKEN_VARIABLE: "upload-token"}
    with (marked_env(f"upload-{os.getpid()}-{port}") as env,
          serving(db, port, {**env, **token}) as server):
        wait_for_line(server, "Ctrl-C stops", timeout=20)
        address = f"127.0.0.1:{port}"
        submitted = invoke("--server", address, "bot", "submit", str(PYTHON_BOTS),
                           "--manifest", "random.arena-bot.toml", env=token)
        assert (submitted.exit_code, submitted.stdout) == (0, "random@1\n"), submitted.output
        listed = invoke("--server", address, "bot", "versions", "random", env=token)
        assert listed.stdout.splitlines()[2].split()[:2] == ["random@1",
                                                             submitted.stderr.split()[3][:12]]
    assert (tmp_path / "served-bots" / "blobs").is_dir()


SLOW_BUILD = ('name = "slow"\nbuild = "echo step one; sleep 1.5; echo step two; sleep 1.5; '
              'echo done"\nrun = "python bot.py"\nruntime = "python"\n')


def _slow_bot(folder: Path) -> Path:
    folder.mkdir()
    (folder / "arena-bot.toml").write_text(SLOW_BUILD)
    (folder / "bot.py").write_text("print('bot')\n")
    return folder


def test_bot_submit_shows_the_builds_output_as_it_comes(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    submitted = invoke("--db", str(db), "bot", "submit", str(_slow_bot(tmp_path / "slow")))
    assert (submitted.exit_code, submitted.stdout) == (0, "slow@1\n"), submitted.output
    lines = submitted.stderr.splitlines()
    assert lines[0] == "building slow@1 ..."
    assert lines.index("step one") < lines.index("step two") < len(lines) - 1
    assert lines[-1].startswith("submitted slow@1 (sha256 ") and lines[-1].endswith("build ok)")


def test_bot_submit_no_wait_returns_while_the_server_builds_and_the_log_follows_it(
        tmp_path: Path) -> None:
    port = free_port()
    db = tmp_path / "served.db"
    token = {ADMIN_TOKEN_VARIABLE: "upload-token"}
    folder = _slow_bot(tmp_path / "slow")
    refused = invoke("--db", str(db), "bot", "submit", str(folder), "--no-wait")
    assert refused.exit_code == 2 and "--no-wait goes with --server" in refused.stderr
    with (marked_env(f"no-wait-{os.getpid()}-{port}") as env,
          serving(db, port, {**env, **token}) as server):
        wait_for_line(server, "Ctrl-C stops", timeout=20)
        address = f"127.0.0.1:{port}"
        started = time.monotonic()
        submitted = invoke("--server", address, "bot", "submit", str(folder), "--no-wait",
                           env=token)
        assert time.monotonic() - started < 3, "it did not wait for the 3 s build"
        assert (submitted.exit_code, submitted.stdout) == (0, "slow@1\n"), submitted.output
        assert "building: `arena bot versions slow --log 1` follows its build" in \
            submitted.stderr
        wait_until(lambda: "step one" in invoke("--server", address, "bot", "versions", "slow",
                                                "--log", "1", env=token).stdout,
                   timeout=10, what="the build's first line")
        wait_until(lambda: '"build_status": "ok"' in invoke(
            "--server", address, "bot", "versions", "slow", "--format", "json",
            env=token).stdout, timeout=20, what="the build to end")
        log = invoke("--server", address, "bot", "versions", "slow", "--log", "1",
                     env=token).stdout
        assert log.startswith("step one\nstep two\ndone\n")
