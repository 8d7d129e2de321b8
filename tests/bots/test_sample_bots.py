"""Every sample bot, as a real process, plays whole games on a real ArenaServer over loopback."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.engine import RuleSet
from arena.server import GameResult, SeatTermination
from arena.server.tls import ServerTls
from tests.bots.bot_harness import (
    BotProcess,
    LiveArena,
    cpp_command,
    node_command,
    python_command,
)
from tests.support import free_port, wait_until
from tests.tls_support import write_certificates

pytestmark = pytest.mark.timeout(300)

COMMANDS: dict[str, Callable[[], list[str]]] = {
    "random": lambda: python_command("random_bot"),
    "random-b": lambda: python_command("random_bot"),
    "greedy": lambda: python_command("greedy_bot"),
    "counter": lambda: python_command("counter_bot"),
    "node": node_command,
    "cpp": cpp_command,
}
TOKENS = {name: f"token-{name}" for name in COMMANDS}
STRATEGIES = ["greedy", "counter", "node", "cpp"]
"""The bots with a strategy of their own (random is their sparring partner)."""

OFFICIAL = RuleSet()
ONE_HAND = RuleSet(target_score=None)
HOUSE_RULES = RuleSet.from_dict(dict(
    deck="2018", shuffle_hands_card="swap", seven_o=True, jump_in=True, progressive=True,
    draw_to_match=True, target_score=None))
"""Every decision kind at once: swaps with targets, jump-ins, stacking, drawing to match."""


class Lineup:
    """The bot processes of one test module, started on first use."""

    def __init__(self, arena: LiveArena) -> None:
        self.arena = arena
        self.processes: dict[str, BotProcess] = {}

    def __call__(self, *names: str) -> list[str]:
        """Make sure the named bots are connected; return the names."""
        for name in names:
            if name not in self.processes:
                command = COMMANDS[name]()
                self.processes[name] = BotProcess(name, command, self.arena.address,
                                                  TOKENS[name])
        try:
            self.arena.wait_for_bots(names, timeout=30)
        except TimeoutError:
            logs = "\n".join(f"--- {n}:\n{self.processes[n].output}" for n in names)
            pytest.fail(f"bots did not connect:\n{logs}")
        return list(names)

    def close(self) -> None:
        """Stop every bot; each must exit cleanly and must not have logged a traceback."""
        problems = []
        for name, process in self.processes.items():
            code = process.stop()
            if code != 0 or "Traceback" in process.output:
                problems.append(f"--- {name} exited {code}:\n{process.output[-3000:]}")
        assert not problems, "\n".join(problems)


@pytest.fixture(scope="module")
def arena() -> Iterator[LiveArena]:
    with LiveArena(TOKENS) as live:
        yield live


@pytest.fixture(scope="module")
def lineup(arena: LiveArena) -> Iterator[Lineup]:
    bots = Lineup(arena)
    yield bots
    bots.close()


def assert_clean(result: GameResult) -> None:
    """Every seat played to the end without a single strike, and the game replays."""
    assert result.seat_terminations == (SeatTermination.NORMAL,) * len(result.players)
    assert result.strikes == (0,) * len(result.players), result.strikes
    game = result.replay()
    assert game.outcome == result.outcome


@pytest.mark.parametrize("name", STRATEGIES)
def test_a_bot_plays_full_games_to_500_against_random(
        name: str, arena: LiveArena, lineup: Lineup) -> None:
    players = lineup(name, "random")
    for seed in (1, 2):
        seats = players if seed % 2 else players[::-1]
        result = arena.play(seats, OFFICIAL, seed)
        assert_clean(result)
        assert result.outcome.termination == "target_reached"
        assert max(result.outcome.scores) >= 500


@pytest.mark.parametrize("name", STRATEGIES)
def test_a_bot_plays_every_house_rule_at_a_four_player_table(
        name: str, arena: LiveArena, lineup: Lineup) -> None:
    others = [n for n in ("random", "greedy", "counter", "random-b") if n != name][:3]
    players = lineup(name, *others)
    for seed in range(3):
        result = arena.play(players[seed % 4:] + players[:seed % 4], HOUSE_RULES, seed)
        assert_clean(result)


def test_python_bots_play_many_tables_at_once(arena: LiveArena, lineup: Lineup) -> None:
    players = lineup("greedy", "counter")
    games = [(players if seed % 2 else players[::-1], seed) for seed in range(8)]
    results = arena.play_many(games, ONE_HAND)
    assert len({r.game_id for r in results}) == 8
    for result in results:
        assert_clean(result)


@pytest.mark.parametrize("name", STRATEGIES)
def test_a_strategy_beats_random(name: str, arena: LiveArena, lineup: Lineup) -> None:
    players = lineup(name, "random")
    games = [(players if seed % 2 else players[::-1], 100 + seed) for seed in range(16)]
    wins = sum(name in (r.players[w] for w in r.outcome.winners)
               for r in arena.play_many(games, ONE_HAND))
    assert wins >= 11, f"{name} won only {wins} of 16 single hands against random"


@pytest.mark.parametrize("name", ["random", "greedy", "counter", "node", "cpp"])
def test_a_bot_with_a_bad_token_exits_at_once_and_cleanly(name: str, arena: LiveArena) -> None:
    output = _exits_at_once_and_cleanly(
        BotProcess(name, COMMANDS[name](), arena.address, "not-a-token"))
    assert "token" in output.lower()


def _exits_at_once_and_cleanly(process: BotProcess) -> str:
    """Wait for a bot that should give up at once: exit code 2, no traceback; its output."""
    try:
        code = process.wait(timeout=20)
    finally:
        process.stop()
    assert code == 2, process.output
    assert "Traceback" not in process.output
    return process.output


@pytest.mark.parametrize("name", ["random", "node", "cpp"])
def test_a_bot_plays_over_tls_trusting_the_certificates_it_is_given(
        name: str, tmp_path: Path) -> None:
    files = write_certificates(tmp_path)
    trust = {"ARENA_TLS_CA": str(files.ca)}
    with LiveArena(TOKENS, tls=ServerTls.from_files(files.cert, files.key)) as live:
        players = [name, "random-b"]
        bots = [BotProcess(n, COMMANDS[n](), live.address, TOKENS[n], trust) for n in players]
        try:
            live.wait_for_bots(players)
            assert_clean(live.play(players, ONE_HAND, 5))
        finally:
            codes = [bot.stop() for bot in bots]
        assert codes == [0, 0], "\n".join(bot.output for bot in bots)


@pytest.mark.parametrize("name", ["random", "node", "cpp"])
def test_a_bot_with_unreadable_tls_certificates_exits_at_once_and_cleanly(
        name: str, tmp_path: Path) -> None:
    missing = tmp_path / "missing-ca.pem"
    output = _exits_at_once_and_cleanly(BotProcess(
        name, COMMANDS[name](), "127.0.0.1:1", TOKENS[name], {"ARENA_TLS_CA": str(missing)}))
    assert str(missing) in output


def test_python_bot_started_with_dash_m_plays(arena: LiveArena) -> None:
    process = BotProcess("greedy", [sys.executable, "-m", "sample_bots.python.greedy_bot"],
                         arena.address, TOKENS["greedy"])
    try:
        wait_until(lambda: "welcomed as greedy" in process.output, what="the -m bot's Welcome")
    finally:
        assert process.stop() == 0, process.output


@pytest.mark.parametrize("name", ["greedy", "node", "cpp"])
def test_a_bot_reconnects_when_the_server_restarts(name: str) -> None:
    command = COMMANDS[name]()
    port = free_port()
    with LiveArena(TOKENS, port=port) as first:
        process = BotProcess(name, command, first.address, TOKENS[name])
        first.wait_for_bots([name])
    try:
        with LiveArena(TOKENS, port=port) as second:
            partner = BotProcess("random", COMMANDS["random"](), second.address, TOKENS["random"])
            try:
                second.wait_for_bots([name, "random"], timeout=30)
                assert_clean(second.play([name, "random"], ONE_HAND, seed=5))
            finally:
                assert partner.stop() == 0, partner.output
    finally:
        assert process.stop() == 0, process.output
    assert "reconnecting" in process.output
    assert "Traceback" not in process.output
