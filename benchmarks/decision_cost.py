"""Decision-cost benchmark: the CPU of arena's own work in one decision, with no transport.

The scale benchmark measures a decision's whole CPU on one pinned worker (its
server and its four bots) against a ping-pong that moves the same messages and
does nothing else. This one measures, in this process and by CPU time, the part
of a decision that is arena's own, to say how much of the difference it is:

- "server": four-seat tables of single hands played through `GameTable` and
  `ConnectionSeat` over in-process connections whose bots answer at once with a
  random legal action: the engine, the view and request encoding, the table and
  seat logic, the decision parsed by the bot service's own parser (`bot_message_parser`),
  and each finished game converted for the driver (`played_game`). No gRPC, no
  reader or writer task.
- "SDK": the messages one seat of those games was sent, handed in order to the
  Python SDK's `Client` (parsed as a `ServerMessage`, events and view decoded, the
  random bot's `decide`, the answer built and serialized), logging at INFO to
  /dev/null as a managed bot logs to its file.
- "bare bot": what a bot without an SDK does with the same messages: parse each,
  and answer a request with a Decision of a random legal index.

Figures are µs of CPU per decision, the median of `repeats` runs.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import statistics
import time
from collections.abc import Sequence
from typing import Any

from arena.engine.actions import Action
from arena.engine.rules import RuleSet
from arena.engine.view import SeatView
from arena.policy import BotPolicy
from arena.result import played_game
from arena.server.connection import BotConnection, BotHello, Outgoing, PendingDecision
from arena.server.message_size import MAX_BOT_MESSAGE_BYTES, bot_message_parser
from arena.server.seat import Answer, ConnectionSeat
from arena.server.table import GameTable
from arena.v1 import bot_pb2

SEATS = ("north", "east", "south", "west")
RULES: dict[str, Any] = {"target_score": None}
TABLES = 4
"""Tables played at once, as a worker of the scale benchmark plays them."""


class _InstantConnection(BotConnection):
    """A connection whose bot answers each request at once (on the loop's next turn) with
    a random legal index, as bytes the bot service parses; it keeps what it was sent
    when `kept` is a list."""

    def __init__(self, name: str, rng: random.Random, kept: list[bytes] | None) -> None:
        super().__init__(name, BotHello(f"{name} (instant)", TABLES, False, True))
        self._rng = rng
        self._kept = kept
        self._parse = bot_message_parser(MAX_BOT_MESSAGE_BYTES)
        self.legal_count = 0

    def send(self, message: Outgoing) -> None:
        if self._kept is not None:
            self._kept.append(message if isinstance(message, bytes)
                              else message.SerializeToString())

    def ask(self, request_id: str, request: Outgoing, timeout: float) -> PendingDecision:
        pending = super().ask(request_id, request, timeout)
        answer = bot_pb2.BotMessage()
        answer.decision.request_id = request_id
        answer.decision.action_index = self._rng.randrange(self.legal_count)
        data = answer.SerializeToString()
        asyncio.get_running_loop().call_soon(lambda: self.receive(self._parse(data)))
        return pending


class _InstantSeat(ConnectionSeat):
    """A connection seat that tells its instant connection how many actions are legal."""

    connection: _InstantConnection

    async def decide(self, view: SeatView, legal: list[Action], timeout: float,
                     bank: float) -> tuple[Answer, float]:
        self.connection.legal_count = len(legal)
        return await super().decide(view, legal, timeout, bank)


async def _play(games: int, seed: int, kept: list[bytes]) -> int:
    """Play `games` games, `TABLES` at once; the first seat's messages go to `kept`.
    Returns the decisions taken."""
    rng = random.Random(seed)
    connections = [_InstantConnection(name, rng, kept if index == 0 else None)
                   for index, name in enumerate(SEATS)]
    rules = RuleSet.from_dict(RULES)
    tables = asyncio.Semaphore(TABLES)
    decisions = 0

    async def one(game: int) -> None:
        nonlocal decisions
        async with tables:
            table = GameTable(f"bench:{game}", SEATS, rules, seed * 100_000 + game,
                              BotPolicy())
            for number, connection in enumerate(connections):
                table.seat(number, _InstantSeat(connection))
            result = await table.run()
            decisions += table.decisions
            played_game(result)

    await asyncio.gather(*(one(game) for game in range(games)))
    return decisions


def server_cost(games: int, seed: int) -> tuple[float, list[bytes]]:
    """CPU µs per decision of the server's own work over `games` games, and the messages
    the first seat was sent."""
    kept: list[bytes] = []
    asyncio.run(_play(max(TABLES, games // 4), seed + 1, []))  # warm the encoders' caches
    start = time.process_time()
    decisions = asyncio.run(_play(games, seed, kept))
    return 1e6 * (time.process_time() - start) / decisions, kept


def _random_decide(view: Any, legal: Sequence[Any]) -> int:
    return int(view.table.rng.randrange(len(legal)))


def sdk_cost(messages: Sequence[bytes]) -> float:
    """CPU µs per decision of the Python SDK handling `messages` (one seat's, in order)."""
    from arena.client.bot import as_bot
    from arena.client.connection import Client

    handler = logging.StreamHandler(open(os.devnull, "w"))  # noqa: SIM115  closed below
    client_log = logging.getLogger("arena.client")
    level, propagate = client_log.level, client_log.propagate
    client_log.addHandler(handler)
    client_log.setLevel(logging.INFO)
    client_log.propagate = False
    try:
        client = Client(as_bot(_random_decide, name="random"), token="bench",
                        max_tables=TABLES)
        parse = bot_pb2.ServerMessage.FromString
        decisions = 0
        start = time.process_time()
        for data in messages:
            answer = client._handle(parse(data))
            if answer is not None:
                answer.SerializeToString()
                decisions += 1
        return 1e6 * (time.process_time() - start) / max(1, decisions)
    finally:
        client_log.removeHandler(handler)
        client_log.setLevel(level)
        client_log.propagate = propagate
        handler.stream.close()


def bare_bot_cost(messages: Sequence[bytes], seed: int) -> float:
    """CPU µs per decision of a bot without an SDK: parse, and answer a request."""
    rng = random.Random(seed)
    parse = bot_pb2.ServerMessage.FromString
    decisions = 0
    start = time.process_time()
    for data in messages:
        message = parse(data)
        if message.WhichOneof("kind") == "decision_request":
            request = message.decision_request
            answer = bot_pb2.BotMessage()
            answer.decision.request_id = request.request_id
            answer.decision.action_index = rng.randrange(len(request.legal_actions))
            answer.SerializeToString()
            decisions += 1
    return 1e6 * (time.process_time() - start) / max(1, decisions)


def measure(games: int, seed: int) -> dict[str, float]:
    """One run of every figure over `games` games seeded `seed`."""
    server, messages = server_cost(games, seed)
    return {"server": server, "SDK": sdk_cost(messages),
            "bare bot": bare_bot_cost(messages, seed)}


def run(repeats: int = 3, scale: float = 1.0) -> list[dict[str, object]]:
    """Median over `repeats` runs of each part's CPU per decision."""
    games = max(TABLES, int(160 * scale))
    runs = [measure(games, seed) for seed in range(repeats)]
    described = {
        "server": "server's own work: engine, encoding, table and seat, parsing the answer, "
                  "the game for the driver",
        "SDK": "Python SDK: parsing, events, view, the random bot's decide, the answer",
        "bare bot": "a bot without an SDK: parsing, a random index, the answer",
    }
    return [{"part": part, "what": what,
             "CPU µs/decision": round(statistics.median(r[part] for r in runs), 1)}
            for part, what in described.items()]
