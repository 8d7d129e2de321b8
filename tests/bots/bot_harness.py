"""Run the sample bots as real processes against a real `ArenaServer` on loopback.

`LiveArena` serves in a background thread's event loop so that synchronous
tests can start bot processes, play games and look at the `GameResult`s.
`require_toolchain` skips a test whose toolchain is missing, except under
CI=true, where it fails it instead.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest

from arena.engine import RuleSet
from arena.server import ArenaServer, BotPolicy, GameResult, TokenTable
from arena.server.tls import ServerTls
from tests.support import in_ci

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "sample_bots"
NODE_BOT = BOTS / "node"
CPP_BOT = BOTS / "cpp" / "build" / "arena_bot"

T = TypeVar("T")


def require_toolchain(present: bool, reason: str) -> None:
    """Skip the test with `reason` when `present` is false — or fail it under CI=true."""
    if present:
        return
    if in_ci():
        pytest.fail(f"{reason} (CI=true: the toolchain must be installed and built)")
    pytest.skip(reason)


def python_command(script: str) -> list[str]:
    """How to start a Python sample bot: ``python sample_bots/python/<script>.py``."""
    return [sys.executable, str(BOTS / "python" / f"{script}.py")]


def node_command() -> list[str]:
    """How to start the Node bot, after checking node and its npm packages are there."""
    node = shutil.which("node")
    require_toolchain(node is not None, "node is not installed")
    installed = (NODE_BOT / "node_modules" / "@grpc" / "grpc-js").is_dir() and \
        (NODE_BOT / "node_modules" / "@grpc" / "proto-loader").is_dir()
    require_toolchain(installed, "the Node bot's packages are not installed (make node-bot)")
    assert node is not None
    return [node, str(NODE_BOT / "bot.js")]


def cpp_command() -> list[str]:
    """How to start the C++ bot, after checking it was built."""
    require_toolchain(CPP_BOT.is_file() and os.access(CPP_BOT, os.X_OK),
                      f"the C++ bot is not built ({CPP_BOT.relative_to(ROOT)}; make cpp-bot)")
    return [str(CPP_BOT)]


class LiveArena:
    """An `ArenaServer` on 127.0.0.1 (a free port), run in a background event loop."""

    def __init__(self, tokens: dict[str, str], port: int = 0,
                 tls: ServerTls | None = None) -> None:
        self.tokens = tokens
        self.requested_port = port
        self.port = 0
        self.server = ArenaServer(TokenTable(tokens), tls=tls)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    @property
    def address(self) -> str:
        """host:port for ARENA_SERVER."""
        return f"127.0.0.1:{self.port}"

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float = 120.0) -> T:
        """Run `coroutine` on the server's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    def start(self) -> LiveArena:
        """Start serving."""
        self._thread.start()
        self.port = self.run(self.server.start("127.0.0.1", self.requested_port))
        return self

    def stop(self) -> None:
        """Stop serving and end the loop."""
        try:
            self.run(self.server.stop(grace=0.5), timeout=30)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)

    def __enter__(self) -> LiveArena:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def wait_for_bots(self, names: Sequence[str], timeout: float = 30.0) -> None:
        """Wait until every named bot is connected."""
        self.run(self.server.wait_for_bots(names, timeout=timeout), timeout=timeout + 5)

    def play(self, players: Sequence[str], rules: RuleSet, seed: int,
             policy: BotPolicy | None = None, timeout: float = 120.0) -> GameResult:
        """Play one game and return its result."""
        return self.run(self.server.play_game(list(players), rules, seed, policy), timeout)

    def play_many(self, games: Sequence[tuple[Sequence[str], int]], rules: RuleSet,
                  policy: BotPolicy | None = None, timeout: float = 300.0) -> list[GameResult]:
        """Play several games at once (each: players, seed) and return their results."""
        async def all_games() -> list[GameResult]:
            return list(await asyncio.gather(*(
                self.server.play_game(list(players), rules, seed, policy)
                for players, seed in games)))
        return self.run(all_games(), timeout)


class BotProcess:
    """A sample bot started as its own process with ARENA_SERVER and ARENA_TOKEN set."""

    def __init__(self, name: str, command: list[str], address: str, token: str,
                 extra_env: dict[str, str] | None = None) -> None:
        self.name = name
        self.command = command
        env = {**os.environ, "ARENA_SERVER": address, "ARENA_TOKEN": token,
               "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                           os.environ.get("PYTHONPATH")])),
               **(extra_env or {})}
        self.process = subprocess.Popen(command, env=env, cwd=ROOT, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True)
        self._output: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._output.append(line)

    @property
    def output(self) -> str:
        """Everything the bot printed so far (stdout and stderr)."""
        return "".join(self._output)

    def wait(self, timeout: float = 20.0) -> int:
        """Wait for the process to exit on its own; return its exit code."""
        code = self.process.wait(timeout)
        self._reader.join(5)
        return code

    def stop(self, timeout: float = 10.0) -> int:
        """SIGTERM the bot (SIGKILL if it lingers) and return its exit code."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout)
        self._reader.join(5)
        return self.process.returncode

    def alive(self) -> bool:
        """True while the process runs."""
        return self.process.poll() is None
