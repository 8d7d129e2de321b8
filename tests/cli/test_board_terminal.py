"""The board on a real pseudo-terminal: `replay --board`, `watch` and `rankings --watch`
run as processes, their output read into a screen by pyte, and the screen checked."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.cli.board import STEP_PROMPT
from arena.cli.screen import HOME, SHOW_CURSOR
from arena.v1 import bot_pb2
from tests.cli.cli_support import ARENA, add_bots, ok, write_json
from tests.cli.terminal_support import (
    LINES,
    Terminal,
    read_until,
    run_on_terminal,
    spawned_on_terminal,
)
from tests.server.bots import TestBot, first_legal
from tests.server.server_support import ONE_HAND, TOKENS, running_server

SGR = re.compile(rb"\x1b\[[0-9;]*m")
"""A select-graphic-rendition sequence: colour or bold."""


@dataclass(frozen=True)
class Stored:
    """A database holding the games of a finished match between greedy and rnd, and the
    seats and scores of its game 1."""

    db: Path
    tournament: str
    games: int
    seats: list[str]
    scores: list[int]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Stored:
    db = tmp_path_factory.mktemp("board") / "arena.db"
    add_bots(db, {"greedy": "greedy", "rnd": "random"})
    rules = write_json(db.parent / "rules.json", {"target_score": 200})
    ok(db, "match", "greedy", "rnd", "--games", "1", "--seed", "3", "--rules", str(rules))
    game = min(json.loads(ok(db, "games", "--format", "json").stdout), key=lambda g: g["number"])
    [tournament] = json.loads(ok(db, "tournament", "list", "--format", "json").stdout)
    assert game["number"] == 1
    return Stored(db, tournament["name"], tournament["games_total"], game["seats"],
                  game["scores"])


@pytest.fixture(scope="module")
def coloured(stored: Stored) -> Terminal:
    """`arena replay 1 --board --delay 0` on a colour terminal."""
    return replay_board(stored, "--delay", "0")


def coloured_env() -> dict[str, str]:
    """The environment of a colour terminal."""
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "ARENA_DB")}
    return {**env, "TERM": "xterm-256color"}


def seat_rows(terminal: Terminal) -> dict[str, tuple[int, int]]:
    """Seat name → (cards, score), read off the board's seat rows."""
    rows = {}
    for line in terminal.screen:
        match = re.match(r"^  [▶ ] (\S+)\s+(\d+)\s+(\d+)", line)
        if match:
            rows[match.group(1)] = (int(match.group(2)), int(match.group(3)))
    return rows


def replay_board(stored: Stored, *options: str, env: dict[str, str] | None = None,
                 stop_when: Callable[[bytes], bool] | None = None) -> Terminal:
    return run_on_terminal([*ARENA, "--db", str(stored.db), "replay", "1", "--board", *options],
                           env or coloured_env(), stop_when=stop_when)


@pytest.fixture(scope="module")
def uncoloured(stored: Stored) -> Terminal:
    """`arena replay 1 --board --delay 0` on a terminal, under NO_COLOR."""
    return replay_board(stored, "--delay", "0", env={**coloured_env(), "NO_COLOR": "1"})


@pytest.fixture(scope="module")
def with_hands(stored: Stored) -> Terminal:
    """`arena replay 1 --board --delay 0 --hands` on a colour terminal."""
    return replay_board(stored, "--delay", "0", "--hands")


@pytest.fixture(scope="module")
def plain_lines(stored: Stored) -> bytes:
    """`arena replay 1` printed to a pipe."""
    return subprocess.run([*ARENA, "--db", str(stored.db), "replay", "1"], env=coloured_env(),
                          capture_output=True, check=True).stdout


# ----------------------------------------------------------------- replay --board

def test_replay_board_redraws_in_place_and_ends_with_the_seats_final_scores(
        stored: Stored, coloured: Terminal) -> None:
    terminal = coloured
    assert terminal.exit_code == 0, terminal.text
    assert seat_rows(terminal) == {name: (seat_rows(terminal)[name][0], score)
                                   for name, score in zip(stored.seats, stored.scores,
                                                          strict=True)}
    assert terminal.screen[0].startswith(f"game {stored.tournament}:")
    assert " · hand " in terminal.screen[0]
    assert "top card  " in terminal.text
    winner = stored.seats[stored.scores.index(max(stored.scores))]
    assert f"game over (target reached): {winner} wins" in terminal.text


def test_replay_board_draws_many_frames_on_one_screen_where_lines_would_scroll(
        coloured: Terminal, plain_lines: bytes) -> None:
    plain = plain_lines.splitlines()
    terminal = coloured
    frames = terminal.output.count(HOME.encode())
    assert len(plain) > 3 * LINES, "the game is a firehose of lines"
    assert frames > len(plain) / 2, "a frame after every decision"
    assert sum(1 for line in terminal.screen if line.strip()) < LINES - 1
    assert terminal.output.endswith(SHOW_CURSOR.encode())


def test_replay_board_colours_the_cards_on_a_terminal(coloured: Terminal) -> None:
    assert re.search(rb"\x1b\[3[1-6]m\x1b\[1m(R|Y|G|B)", coloured.output)


def test_replay_board_under_no_color_prints_the_plain_lines_on_a_terminal_too(
        uncoloured: Terminal, plain_lines: bytes) -> None:
    terminal = uncoloured
    assert terminal.exit_code == 0
    assert b"\x1b" not in terminal.output
    assert terminal.output.replace(b"\r\n", b"\n") == plain_lines


def test_replay_board_off_a_terminal_prints_the_plain_lines(stored: Stored,
                                                            plain_lines: bytes) -> None:
    piped = subprocess.run([*ARENA, "--db", str(stored.db), "replay", "1", "--board"],
                           env=coloured_env(), capture_output=True, check=True).stdout
    assert b"\x1b" not in piped
    assert piped == plain_lines


def test_replay_board_with_hands_shows_each_seats_cards_beside_its_count(
        with_hands: Terminal) -> None:
    rows = [re.match(r"^  [▶ ] (\S+)\s+(\d+)\s+(\d+)(.*)$", line.rstrip())
            for line in with_hands.screen]
    held = {row.group(1): (int(row.group(2)), row.group(4).replace("wins", "").split())
            for row in rows if row is not None}
    assert set(held) == {"greedy", "rnd"}
    assert any(count for count, _ in held.values()), "a loser holds cards"
    for count, shown in held.values():
        assert len(shown) == count
        assert all(re.fullmatch(r"[RYGB]([0-9SR]|\+2)|W(\+4)?", text) for text in shown)


def test_ctrl_c_stops_a_replay_board_and_gives_the_cursor_back(stored: Stored) -> None:
    terminal = replay_board(stored, "--delay", "0.3", stop_when=lambda seen: b"top card" in seen)
    assert terminal.exit_code == 130
    assert terminal.output.endswith(SHOW_CURSOR.encode())
    assert terminal.screen[0].startswith(f"game {stored.tournament}:")
    assert " · hand 1 · " in terminal.screen[0]
    assert "Traceback" not in terminal.text


def test_replay_board_step_waits_for_enter_after_each_hand(stored: Stored) -> None:
    argv = [*ARENA, "--db", str(stored.db), "replay", "1", "--board", "--step", "--delay", "0"]
    with spawned_on_terminal(argv, coloured_env()) as (_, terminal):
        assert STEP_PROMPT.encode() in read_until(terminal, STEP_PROMPT.encode(), 20)
        assert HOME.encode() not in read_until(terminal, HOME.encode(), 1.0), \
            "no frame before Enter"
        os.write(terminal, b"\n")
        assert HOME.encode() in read_until(terminal, HOME.encode(), 10)


# -------------------------------------------------------------- rankings --watch

def test_rankings_watch_of_a_finished_tournament_draws_it_and_ends(stored: Stored) -> None:
    terminal = run_on_terminal([*ARENA, "--db", str(stored.db), "rankings", "--tournament",
                                stored.tournament, "--watch"], coloured_env(), timeout=30)
    assert terminal.exit_code == 0, terminal.text
    done = f"{stored.games} of {stored.games} games"
    assert terminal.screen[0].rstrip() == f"tournament {stored.tournament}: finished, {done}"
    assert re.search(r"^place\s+bot\s+score", terminal.text, re.MULTILINE)
    assert {"greedy", "rnd"} <= set(re.findall(r"^\S+\s+(\w+)\s+\d\.\d{3}", terminal.text,
                                               re.MULTILINE))


def test_rankings_watch_of_the_pools_redraws_until_ctrl_c(stored: Stored) -> None:
    terminal = run_on_terminal([*ARENA, "--db", str(stored.db), "rankings", "--watch",
                                "--interval", "0.2"], coloured_env(), timeout=30,
                               stop_when=lambda seen: seen.count(HOME.encode()) >= 3)
    assert terminal.exit_code == 130
    assert terminal.output.count(HOME.encode()) >= 2, "read again and redrawn"
    assert terminal.screen[0].startswith("rankings at ")
    assert "read every 0.2 s (Ctrl-C stops)" in terminal.screen[0]
    assert "greedy" in terminal.text
    assert terminal.output.endswith(SHOW_CURSOR.encode())


def test_rankings_watch_off_a_terminal_prints_the_tables_without_escapes(
        stored: Stored) -> None:
    piped = subprocess.run([*ARENA, "--db", str(stored.db), "rankings", "--tournament",
                            stored.tournament, "--watch"], env=coloured_env(),
                           capture_output=True, text=True, timeout=30, check=True).stdout
    assert "\x1b" not in piped
    done = f"{stored.games} of {stored.games} games"
    assert piped.startswith(f"tournament {stored.tournament}: finished, {done}\n")
    assert piped.count("place ") == 1


# ------------------------------------------------------------------------- watch

def test_watch_draws_a_live_game_on_the_board_until_its_result(tmp_path: Path) -> None:
    async def slow(bot: TestBot, request: bot_pb2.DecisionRequest) -> bot_pb2.Decision:
        await asyncio.sleep(0.005)
        return await first_legal(bot, request)

    async def scenario() -> tuple[Terminal, list[int]]:
        async with running_server() as server:
            port = server.port or 0
            gate = asyncio.Event()

            async def gated(bot: TestBot, request: bot_pb2.DecisionRequest) -> bot_pb2.Decision:
                await gate.wait()
                return await slow(bot, request)

            bots = [await TestBot(port, TOKENS[name], gated).start() for name in ("alice", "bob")]
            game = asyncio.create_task(server.play_game(["alice", "bob"], ONE_HAND, 4,
                                                        game_id="live"))
            while not server.tables():
                await asyncio.sleep(0.001)
            loop = asyncio.get_running_loop()
            watcher = asyncio.to_thread(
                run_on_terminal, [*ARENA, "--db", str(tmp_path / "none.db"), "--server",
                                  f"127.0.0.1:{port}", "watch", "live", "--delay", "0"],
                coloured_env(), timeout=60,
                on_output=lambda seen: b"top card" in seen and loop.call_soon_threadsafe(
                    gate.set))
            terminal = await watcher
            result = await game
            for bot in bots:
                await bot.close()
        assert result.outcome is not None
        return terminal, list(result.outcome.scores)

    terminal, scores = asyncio.run(scenario())
    assert terminal.exit_code == 0, terminal.text
    assert terminal.output.count(HOME.encode()) > 2, "redrawn as the game went on"
    assert terminal.screen[0].startswith("game live · hand 1")
    assert {name: score for name, (_, score) in seat_rows(terminal).items()} == \
        dict(zip(["alice", "bob"], scores, strict=True))
    assert "game over" in terminal.text
