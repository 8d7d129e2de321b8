"""The tutorial's example bot, taken from the tutorial itself, beats the random sample bot.

Both run as real processes over real gRPC on loopback. The games are single
hands, heads-up, each from its own deal with the seats alternating; the claim
is a one-sided binomial test against "no better than a coin" at α = 0.01.
"""

from __future__ import annotations

import inspect
import math
import re
import sys
import textwrap
from collections.abc import Iterator

import pytest

import arena.client
from arena.engine import RuleSet
from arena.engine import events as ev
from arena.server import GameResult, SeatTermination
from tests.bots.bot_harness import ROOT, BotProcess, LiveArena, python_command

pytestmark = pytest.mark.timeout(120)

TUTORIAL = ROOT / "docs" / "tutorial" / "first-bot-python.md"
GAMES = 40
ALPHA = 0.01
ONE_HAND = RuleSet(target_score=None)
TOKENS = {"readme": "token-readme", "random": "token-random"}


def readme_bot_code() -> str:
    """The first Python block of the tutorial's "Write the bot" section."""
    text = TUTORIAL.read_text(encoding="utf-8")
    section = re.search(r"^## 2\. Write the bot\n(.*?)(?=^## )", text, re.M | re.S)
    assert section is not None, f"{TUTORIAL} has no '## 2. Write the bot' section"
    block = re.search(r"^```python\n(.*?)^```", section.group(1), re.M | re.S)
    assert block is not None, "the tutorial's 'Write the bot' section has no ```python block"
    return block.group(1)


def binomial_p_value(wins: int, games: int) -> float:
    """P(X >= wins) for X ~ Binomial(games, 1/2): how likely a coin wins this often."""
    return sum(math.comb(games, k) for k in range(wins, games + 1)) / (1 << games)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[GameResult]]:
    script = tmp_path_factory.mktemp("readme") / "readme_bot.py"
    script.write_text(readme_bot_code(), encoding="utf-8")
    with LiveArena(TOKENS) as live:
        bots = [BotProcess("readme", [sys.executable, str(script)], live.address,
                           TOKENS["readme"], {"ARENA_MAX_TABLES": "4"}),
                BotProcess("random", python_command("random_bot"), live.address,
                           TOKENS["random"])]
        try:
            live.wait_for_bots(list(TOKENS), timeout=30)
            games = [(("readme", "random") if deal % 2 == 0 else ("random", "readme"), deal)
                     for deal in range(GAMES)]
            yield live.play_many(games, ONE_HAND)
        finally:
            logs = {bot.name: (bot.stop(), bot.output) for bot in bots}
        for name, (code, output) in logs.items():
            assert code == 0 and "Traceback" not in output, f"{name} exited {code}:\n{output}"


def readme_seat(result: GameResult) -> int:
    return result.players.index("readme")


def test_the_readme_bot_wins_more_than_random_at_alpha_001(results: list[GameResult]) -> None:
    assert len(results) == GAMES
    assert all(r.seat_terminations == (SeatTermination.NORMAL,) * 2 for r in results)
    wins = sum(readme_seat(r) in r.outcome.winners for r in results)
    p_value = binomial_p_value(wins, GAMES)
    assert p_value < ALPHA, f"the README bot won {wins} of {GAMES} (p = {p_value:.3f})"


def test_the_readme_bot_calls_uno_and_is_never_caught(results: list[GameResult]) -> None:
    calls = caught = 0
    for result in results:
        seat = readme_seat(result)
        calls += sum(isinstance(e, ev.CardPlayed) and e.seat == seat and e.uno
                     for e in result.events)
        caught += sum(isinstance(e, ev.UnoCaught) and e.seat == seat for e in result.events)
    assert calls > GAMES // 2
    assert caught == 0


def test_the_binomial_p_value_is_a_coin_s_tail() -> None:
    assert binomial_p_value(0, 10) == 1.0
    assert binomial_p_value(10, 10) == 2 ** -10
    assert binomial_p_value(28, 40) < ALPHA < binomial_p_value(27, 40)


def test_the_sdk_docstring_shows_the_readme_bot() -> None:
    docstring = inspect.getdoc(arena.client)
    assert docstring is not None
    assert textwrap.indent(readme_bot_code(), "    ").rstrip() in docstring
