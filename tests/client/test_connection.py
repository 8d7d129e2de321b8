"""The SDK against a scripted fake server: Hello, answers by request id, tables, reconnects."""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from arena.client import (
    Action,
    ActionKind,
    Backoff,
    Bot,
    Card,
    CardPlayed,
    Choice,
    Client,
    Color,
    Event,
    ExitReason,
    FunctionBot,
    Outcome,
    Phase,
    ServerError,
    Table,
    UnknownEvent,
    View,
)
from arena.client.bot import run
from arena.client.testing import (
    BOT_NAME,
    FAST_BACKOFF,
    TOKEN,
    ClientThread,
    Conn,
    FakeArena,
    ScriptRun,
    events,
    first_legal,
    game_end,
    game_start,
    pb_card,
    pb_cards,
    play,
    request,
    run_script,
    simple,
)
from arena.v1 import bot_pb2, uno_pb2
from tests.support import free_port

FAST = FAST_BACKOFF
first = first_legal


def client_for(arena: FakeArena, bot: Bot | None = None, **options: Any) -> Client:
    options.setdefault("backoff", FAST)
    return Client(bot or FunctionBot(first, name="first"), server=arena.address, token=TOKEN,
                  **options)


def play_script(bot: Bot, script: Any, **options: Any) -> tuple[FakeArena, ScriptRun]:
    """Run `bot` against one connection running `script`; stop it once it handled it all."""
    played = run_script(bot, script, **options)
    assert played.reason is ExitReason.STOPPED
    return played.arena, played


class Recorder(Bot):
    """Records every call; answers with a fixed choice function."""

    name = "recorder"

    def __init__(self, choose: Any = first) -> None:
        self.choose = choose
        self.calls: list[tuple[str, Any]] = []

    def decide(self, view: View, legal: list[Action]) -> Any:
        self.calls.append(("decide", (view, legal)))
        return self.choose(view, legal)

    def on_game_start(self, table: Table) -> None:
        self.calls.append(("start", table))

    def on_events(self, table: Table, new: list[Event]) -> None:
        self.calls.append(("events", (table, new)))

    def on_game_end(self, table: Table, outcome: Outcome) -> None:
        self.calls.append(("end", (table, outcome)))

    def on_error(self, error: ServerError, table: Table | None) -> None:
        self.calls.append(("error", (error, table)))

    def of(self, kind: str) -> list[Any]:
        return [payload for name, payload in self.calls if name == kind]


# ---------------------------------------------------------------- the Hello

def test_hello_carries_token_version_max_tables_and_auto_single_action() -> None:
    async def script(conn: Conn) -> None:
        pass

    arena, runner = play_script(Recorder(), script, max_tables=3, auto_single_action=True,
                                bot_version="rec 1.0")
    conn = arena.connections[0]
    assert conn.metadata["authorization"] == f"Bearer {TOKEN}"
    assert conn.hello is not None
    assert (conn.hello.max_tables, conn.hello.auto_single_action) == (3, True)
    assert conn.hello.bot_version == "rec 1.0"
    assert runner.client.bot_name == BOT_NAME


def test_server_and_token_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    async def script(conn: Conn) -> None:
        pass

    with FakeArena(script) as arena:
        monkeypatch.setenv("ARENA_SERVER", arena.address)
        monkeypatch.setenv("ARENA_TOKEN", TOKEN)
        monkeypatch.setenv("ARENA_MAX_TABLES", "5")
        runner = ClientThread(Client(FunctionBot(first), backoff=FAST))
        arena.wait_for(lambda: arena.scripts_done >= 1)
        assert runner.result() is ExitReason.STOPPED
    assert arena.connections[0].hello is not None
    assert arena.connections[0].hello.max_tables == 5
    assert runner.client.connections >= 1


# ------------------------------------------------------------------ answers

def test_an_index_answer_is_sent_with_the_request_id() -> None:
    async def script(conn: Conn) -> None:
        await conn.send(game_start("g1", 0, ["tester", "other"]))
        answer = await conn.ask(request("r-17", "g1", 0, "R5 B7", "R2",
                                        [play("R5"), simple("draw")]))
        assert answer.WhichOneof("choice") == "action_index"
        assert answer.action_index == 1

    play_script(FunctionBot(lambda view, legal: 1), script)


def test_an_action_answer_becomes_its_index_in_the_legal_list() -> None:
    def pick_b7(view: View, legal: list[Action]) -> Action:
        return next(a for a in legal if a.card == Card.parse("R7"))

    async def script(conn: Conn) -> None:
        await conn.send(game_start("g1", 0, ["tester", "other"]))
        answer = await conn.ask(request("r1", "g1", 0, "R5 R7", "R2",
                                        [play("R5"), play("R7"), simple("draw")]))
        assert answer.action_index == 1

    play_script(FunctionBot(pick_b7), script)


def test_a_protocol_action_or_a_fresh_equal_action_is_accepted() -> None:
    answers: Iterator[Choice] = iter([
        uno_pb2.Action(kind=uno_pb2.ACTION_KIND_DRAW),
        Action(ActionKind.PLAY, card=Card.parse("W"), color=Color.BLUE),
    ])

    async def script(conn: Conn) -> None:
        await conn.send(game_start("g1", 0, ["tester", "other"]))
        legal = [play("W", "red"), play("W", "blue"), simple("draw")]
        assert (await conn.ask(request("r1", "g1", 0, "W R1", "G2", legal))).action_index == 2
        assert (await conn.ask(request("r2", "g1", 0, "W R1", "G2", legal))).action_index == 1

    play_script(FunctionBot(lambda view, legal: next(answers)), script)


def test_an_uno_call_that_cannot_matter_is_dropped_like_the_server_does() -> None:
    def shout(view: View, legal: list[Action]) -> Action:
        return Action(ActionKind.PLAY, card=Card.parse("R5"), uno=True)

    async def script(conn: Conn) -> None:
        await conn.send(game_start("g1", 0, ["tester", "other"]))
        answer = await conn.ask(request("r1", "g1", 0, "R5 R7 B1", "R2",
                                        [play("R5"), play("R7"), simple("draw")]))
        assert answer.action_index == 0

    play_script(FunctionBot(shout), script)


@pytest.mark.parametrize("bad", [7, -1, True, None, "R5",
                                 Action(ActionKind.PLAY, card=Card.parse("G9"))])
def test_an_answer_that_is_not_legal_falls_back_to_the_passive_action(
        bad: Any, caplog: pytest.LogCaptureFixture) -> None:
    async def script(conn: Conn) -> None:
        await conn.send(game_start("g1", 0, ["tester", "other"]))
        answer = await conn.ask(request("r1", "g1", 0, "R5", "R2", [play("R5"), simple("draw")]))
        assert answer.action_index == 1

    def answer_bad(view: View, legal: list[Action]) -> Any:
        return bad

    with caplog.at_level(logging.ERROR, logger="arena.client"):
        play_script(FunctionBot(answer_bad), script)
    assert "not one of the 2 legal actions" in caplog.text


def test_cards_this_sdk_cannot_read_do_not_stop_the_bot() -> None:
    newer = uno_pb2.Card(rank=99, color=uno_pb2.COLOR_RED)  # type: ignore[arg-type]
    message = request("r1", "g1", 0, "R5", "R2", [
        uno_pb2.Action(kind=uno_pb2.ACTION_KIND_PLAY, card=newer), play("R5")])
    message.events.add().card_played.CopyFrom(uno_pb2.CardPlayed(seat=1, card=newer))
    bot = Recorder(lambda view, legal: 1)

    async def script(conn: Conn) -> None:
        await conn.send(game_start("g1", 0, ["me", "them"]))
        assert (await conn.ask(message)).action_index == 1
        assert (await conn.ask(request("r2", "g1", 0, "R5", "R2", [play("R5")]))
                ).action_index == 0

    play_script(bot, script)
    (view, legal), _ = bot.of("decide")
    assert legal[0].kind is ActionKind.PLAY and legal[0].card is None
    assert [type(e) for _, events in bot.of("events") for e in events] == [UnknownEvent]


def test_a_decide_may_run_an_event_loop_of_its_own() -> None:
    def decide(view: View, legal: list[Action]) -> int:
        async def think() -> int:
            await asyncio.sleep(0)
            return 1  # not the fallback (draw), which a raising decide gets

        return asyncio.run(think())

    async def script(conn: Conn) -> None:
        answer = await conn.ask(request("r1", "g1", 0, "R5 R7", "R2",
                                        [play("R5"), play("R7"), simple("draw")]))
        assert answer.action_index == 1

    play_script(FunctionBot(decide), script)


def test_a_decide_that_raises_is_logged_and_answered_with_the_fallback(
        caplog: pytest.LogCaptureFixture) -> None:
    def broken(view: View, legal: list[Action]) -> int:
        raise RuntimeError("bug in the bot")

    async def script(conn: Conn) -> None:
        await conn.send(game_start("g1", 0, ["tester", "other"]))
        legal = [simple("challenge"), simple("accept")]
        answer = await conn.ask(request("r1", "g1", 0, "R5", "W+4", legal, phase="challenge",
                                        active="green"))
        assert answer.action_index == 1
        # the bot keeps playing after the error
        answer = await conn.ask(request("r2", "g1", 0, "R5", "R2", [play("R5"), simple("draw")]))
        assert answer.action_index == 1

    with caplog.at_level(logging.ERROR, logger="arena.client"):
        play_script(FunctionBot(broken), script)
    assert "bug in the bot" in caplog.text


def test_the_view_and_legal_actions_reach_decide_typed() -> None:
    bot = Recorder()

    async def script(conn: Conn) -> None:
        await conn.send(game_start("g1", 1, ["a", "tester", "c"]))
        await conn.ask(request("r1", "g1", 1, "R5 W+4", "R2", [play("R5"), simple("draw")],
                               hand_sizes=[7, 2, 3], uno_offender=2))

    play_script(bot, script)
    [(view, legal)] = bot.of("decide")
    assert view.game_id == "g1" and view.seat == 1 and view.request_id == "r1"
    assert view.phase is Phase.PLAY
    assert [c.short() for c in view.hand] == ["R5", "W+4"]
    assert view.top_card == Card.parse("R2") and view.active_color is Color.RED
    assert view.hand_sizes == (7, 2, 3) and view.uno_offender == 2
    assert view.table.players[2].name == "c"
    assert isinstance(view.raw, uno_pb2.SeatView) and view.request.request_id == "r1"
    assert [str(a) for a in legal] == ["play R5", "draw"]


# ------------------------------------------------------------------- tables

def test_several_tables_are_tracked_separately() -> None:
    bot = Recorder(lambda view, legal: len(legal) - 1)

    def played(seat: int, short: str) -> uno_pb2.Event:
        card = pb_card(short)
        return uno_pb2.Event(card_played=uno_pb2.CardPlayed(seat=seat, card=card,
                                                            color=card.color))

    async def script(conn: Conn) -> None:
        await conn.send(game_start("A", 0, ["tester", "x"]),
                        game_start("B", 2, ["y", "z", "tester"], seven_o=True))
        await conn.send(events("A", played(1, "R1")), events("B", played(0, "G3"),
                                                              played(1, "G4")))
        # two requests outstanding at once, answered by id
        await conn.send(
            bot_pb2.ServerMessage(decision_request=request(
                "rb", "B", 2, "G5", "G4", [play("G5"), simple("draw")],
                hand_sizes=[5, 5, 1])),
            bot_pb2.ServerMessage(decision_request=request(
                "ra", "A", 0, "R9", "R1", [play("R9"), simple("draw")])),
        )
        answers = {d.request_id: d.action_index
                   for d in [await conn.decision(), await conn.decision()]}
        assert answers == {"ra": 1, "rb": 1}
        await conn.send(game_end("A", [0, 30]))
        await conn.send(events("B", played(2, "G5")))
        await conn.send(game_end("B", [12, 0, 0]))

    play_script(bot, script, max_tables=2)
    tables = {t.game_id: t for t in bot.of("start")}
    assert (tables["A"].seat, tables["B"].seat) == (0, 2)
    assert tables["B"].rules.seven_o and not tables["A"].rules.seven_o
    assert [e.card.short() for e in tables["A"].events if isinstance(e, CardPlayed)] == ["R1"]
    assert [e.card.short() for e in tables["B"].events if isinstance(e, CardPlayed)] == \
        ["G3", "G4", "G5"]
    views = {view.game_id: view for view, _ in bot.of("decide")}
    assert views["A"].table is tables["A"] and views["B"].table is tables["B"]
    ends = {table.game_id: outcome for table, outcome in bot.of("end")}
    assert ends["A"].winners == (1,) and ends["B"].winners == (0,)
    assert tables["A"].outcome is ends["A"] and tables["A"].decisions == 1


def test_hooks_of_a_function_bot_and_forgetting_a_finished_table() -> None:
    seen: list[str] = []
    client_box: list[Client] = []
    tracked_during_end: list[bool] = []

    def on_end(table: Table, outcome: Outcome) -> None:
        # recorded here and asserted below: the SDK catches exceptions from hooks
        tracked_during_end.append(table.game_id in client_box[0].tables)
        seen.append(f"end {table.game_id} {outcome.reason}")

    bot = FunctionBot(first, on_game_start=lambda t: seen.append(f"start {t.game_id}"),
                      on_events=lambda t, new: seen.append(f"events {len(new)}"),
                      on_game_end=on_end)

    async def script(conn: Conn) -> None:
        await conn.send(game_start("g", 0, ["tester", "x"]))
        await conn.send(events("g", uno_pb2.Event(cards_received=uno_pb2.CardsReceived(
            seat=0, cards=pb_cards("R1 R2")))))
        await conn.send(game_end("g", [0, 5], reason="target_reached"))

    with FakeArena(script) as arena:
        client = client_for(arena, bot)
        client_box.append(client)
        runner = ClientThread(client)
        arena.wait_for(lambda: arena.scripts_done >= 1 and len(seen) == 3)
        assert runner.result() is ExitReason.STOPPED
    assert seen == ["start g", "events 1", "end g target_reached"]
    assert tracked_during_end == [True]  # still there during the hook
    assert client.tables == {} and client.games_played == 1


def test_a_request_for_a_game_never_started_is_still_answered(
        caplog: pytest.LogCaptureFixture) -> None:
    bot = Recorder()

    async def script(conn: Conn) -> None:
        answer = await conn.ask(request("r1", "lost", 3, "R5", "R2", [play("R5")],
                                        hand_sizes=[1, 1, 1, 1]))
        assert answer.action_index == 0

    play_script(bot, script)
    [(view, _)] = bot.of("decide")
    assert view.table.game_id == "lost" and view.table.seat == 3


def test_in_band_errors_go_to_on_error_and_the_stream_goes_on() -> None:
    bot = Recorder()

    async def script(conn: Conn) -> None:
        await conn.send(game_start("g", 0, ["tester", "x"]))
        await conn.send(bot_pb2.ServerMessage(error=bot_pb2.Error(
            code=bot_pb2.ERROR_CODE_DEADLINE_EXCEEDED, message="too slow", request_id="r0",
            game_id="g")))
        await conn.ask(request("r1", "g", 0, "R5", "R2", [play("R5")]))

    play_script(bot, script)
    [(error, table)] = bot.of("error")
    assert error == ServerError("deadline_exceeded", "too slow", "r0", "g")
    assert table is not None and table.game_id == "g"


# --------------------------------------------------------------- reconnects

def test_a_dropped_stream_is_reconnected_and_play_goes_on() -> None:
    bot = Recorder()

    async def script(conn: Conn) -> None:
        if conn.index == 0:
            await conn.send(game_start("g", 0, ["tester", "x"]))
            await conn.abort(grpc.StatusCode.UNAVAILABLE, "server restarting")
        answer = await conn.ask(request("r2", "g", 0, "R5", "R2", [play("R5"), simple("draw")]))
        assert answer.action_index == 0

    with FakeArena(script) as arena:
        runner = ClientThread(client_for(arena, bot))
        arena.wait_for(lambda: arena.scripts_done >= 1)
        assert runner.result() is ExitReason.STOPPED
    assert len(arena.connections) == 2
    assert runner.client.connections == 2
    [(view, _)] = bot.of("decide")
    assert view.table.players  # the table from before the drop is kept


def test_a_stream_closed_by_the_server_is_reconnected() -> None:
    async def script(conn: Conn) -> None:
        pass  # the stream ends with OK at once

    with FakeArena(script) as arena:
        runner = ClientThread(client_for(arena))
        arena.wait_for(lambda: len(arena.connections) >= 3)
        assert runner.result() is ExitReason.STOPPED


def test_reconnecting_gives_up_when_no_server_answers() -> None:
    port = free_port()
    client = Client(FunctionBot(first), server=f"127.0.0.1:{port}", token=TOKEN,
                    give_up_after=0.3, backoff=FAST)
    start = time.monotonic()
    assert client.run() is ExitReason.GAVE_UP
    assert time.monotonic() - start < 5
    assert client.connections == 0


def test_unauthenticated_ends_the_run_without_retrying(caplog: pytest.LogCaptureFixture) -> None:
    async def script(conn: Conn) -> None:
        raise AssertionError("a bad token must never reach the script")

    with FakeArena(script) as arena:
        client = Client(FunctionBot(first), server=arena.address, token="wrong", backoff=FAST)
        runner = ClientThread(client)
        assert runner.join(10) is ExitReason.UNAUTHENTICATED
        assert arena.rejected == 1
    assert "rejected the token" in caplog.text


def test_run_returns_unauthenticated_for_a_function_bot() -> None:
    async def script(conn: Conn) -> None:
        raise AssertionError("unreachable")

    with FakeArena(script) as arena:
        reason = run(first, name="f", server=arena.address, token="nope",
                     configure_logging=False)
    assert reason is ExitReason.UNAUTHENTICATED


def test_stop_while_waiting_to_reconnect_returns_promptly() -> None:
    port = free_port()
    client = Client(FunctionBot(first), server=f"127.0.0.1:{port}", token=TOKEN,
                    give_up_after=None, backoff=Backoff(initial=30, maximum=30))
    runner = ClientThread(client)
    time.sleep(0.3)
    start = time.monotonic()
    assert runner.result() is ExitReason.STOPPED
    assert time.monotonic() - start < 3


def test_stop_while_the_hello_waits_on_a_server_that_never_answers_returns_promptly() -> None:
    with socket.create_server(("127.0.0.1", 0)) as silent:  # accepts, never speaks HTTP/2
        client = Client(FunctionBot(first), server=f"127.0.0.1:{silent.getsockname()[1]}",
                        token=TOKEN, give_up_after=None)
        runner = ClientThread(client)
        time.sleep(0.5)
        start = time.monotonic()
        assert runner.result() is ExitReason.STOPPED
        assert time.monotonic() - start < 3


def test_events_inside_a_request_reach_on_events_before_decide() -> None:
    bot = Recorder()

    async def script(conn: Conn) -> None:
        assert conn.hello is not None and conn.hello.events_in_requests
        await conn.send(game_start("g", 0, ["tester", "x"]))
        message = request("r1", "g", 0, "R5", "R2", [play("R5")])
        message.events.append(uno_pb2.Event(card_played=uno_pb2.CardPlayed(
            seat=1, card=pb_card("R2"), color=uno_pb2.COLOR_RED)))
        await conn.ask(message)

    play_script(bot, script)
    assert [name for name, _ in bot.calls] == ["start", "events", "decide"]
    [(view, _)] = bot.of("decide")
    assert [str(e.card) for e in view.table.events if isinstance(e, CardPlayed)] == ["R2"]


def test_events_in_requests_can_be_declined() -> None:
    async def script(conn: Conn) -> None:
        assert conn.hello is not None and not conn.hello.events_in_requests

    play_script(Recorder(), script, events_in_requests=False)


def test_a_game_start_sent_again_after_a_reconnect_starts_a_fresh_table() -> None:
    bot = Recorder()
    dealt = events("g", uno_pb2.Event(cards_received=uno_pb2.CardsReceived(
        seat=0, cards=pb_cards("R1 R2"))))

    async def script(conn: Conn) -> None:
        await conn.send(game_start("g", 0, ["tester", "x"]), dealt)
        if conn.index == 0:
            await conn.abort(grpc.StatusCode.UNAVAILABLE, "dropped")
        await conn.ask(request("r1", "g", 0, "R1 R2", "R3", [play("R1")]))

    with FakeArena(script) as arena:
        runner = ClientThread(client_for(arena, bot))
        arena.wait_for(lambda: arena.scripts_done >= 1)
        assert runner.result() is ExitReason.STOPPED
    first_table, second_table = bot.of("start")
    assert first_table is not second_table
    [(view, _)] = bot.of("decide")
    assert view.table is second_table and len(second_table.events) == 1
