"""The sample bots play a tournament from inside the real sandbox, over its Unix socket."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path

from arena.record import SeatTermination
from arena.server.assembly import build_server, private_paths
from arena.services import Services
from arena.store import Store
from arena.supervisor import BotIsolation
from tests.bots.bot_harness import (
    BotProcess,
    LiveArena,
    cpp_command,
    node_command,
    python_command,
)
from tests.sandbox.sandbox_support import require_sandbox

REQUIRED = BotIsolation("required")


def _play_sandboxed(folder: Path, commands: Mapping[str, Sequence[str]]) -> list[str]:
    """Play a one-deal round robin of `commands` (name → argv) in sandboxes; return the
    first line of each bot's log, as proof of how it was started."""
    db = folder / "arena.db"

    async def scenario() -> None:
        store = Store.open(db)
        holder: list[Services] = []
        server = build_server(store, folder / "logs", holder.append, isolation=REQUIRED,
                              hidden_paths=private_paths(db))
        await server.start("127.0.0.1", 0)
        services = holder[0]
        try:
            for name, argv in commands.items():
                services.bots.add(name, "managed", " ".join(argv))
            services.competitions.create_tournament("t", list(commands), {
                "format": "round_robin", "table_size": 2, "deals_per_table": 1, "seed": 5,
                "concurrency": 4, "rules": {"target_score": None},
                "policy": {"decision_timeout": 10.0}})
            await services.runs.run_tournament("t", 4, wait_seconds=60)
            games = store.games(tournament="t")
            pairs = len(commands) * (len(commands) - 1) // 2
            assert len(games) == 2 * pairs
            for game in games:
                assert set(game.seat_terminations) == {SeatTermination.NORMAL}, game
        finally:
            await server.stop(0.5)
            store.close()

    asyncio.run(scenario())
    return [(folder / "logs" / f"{name}.log").read_text().strip().splitlines()[0]
            for name in commands]


def test_the_python_sample_bots_play_a_tournament_in_sandboxes(tmp_path: Path) -> None:
    require_sandbox()
    starts = _play_sandboxed(tmp_path, {"greedy": python_command("greedy_bot"),
                                        "random": python_command("random_bot")})
    assert all("start (sandboxed)" in line for line in starts), starts


def test_the_node_and_cpp_sample_bots_play_a_tournament_in_sandboxes(tmp_path: Path) -> None:
    require_sandbox()
    commands = {"node": node_command(), "cpp": cpp_command(),
                "random": python_command("random_bot")}
    starts = _play_sandboxed(tmp_path, commands)
    assert all("start (sandboxed)" in line for line in starts), starts


def test_a_bot_reaches_the_server_over_its_unix_socket_with_its_token() -> None:
    with LiveArena({"random": "good-token"}) as arena:
        assert arena.server.unix_path is not None and arena.server.unix_path.is_socket()
        assert (arena.server.unix_path.parent.stat().st_mode & 0o077) == 0
        bot = BotProcess("random", python_command("random_bot"),
                         f"unix:{arena.server.unix_path}", "good-token")
        try:
            arena.wait_for_bots(["random"])
        finally:
            bot.stop()


def test_the_unix_socket_refuses_a_wrong_token_as_the_port_does() -> None:
    with LiveArena({"random": "good-token"}) as arena:
        bot = BotProcess("random", python_command("random_bot"),
                         f"unix:{arena.server.unix_path}", "wrong-token")
        assert bot.wait(30) == 2, bot.output
        assert arena.server.connected_bots() == []


def test_the_unix_socket_goes_with_the_server() -> None:
    with LiveArena({}) as arena:
        path = arena.server.unix_path
        assert path is not None and path.exists()
    assert not path.exists() and not path.parent.exists()
