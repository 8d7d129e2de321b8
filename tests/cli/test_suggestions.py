"""A misspelled bot or tournament name is answered with the closest known one, and a
listing that was cut says so."""

from __future__ import annotations

from pathlib import Path

from arena.cli.suggest import closest, unknown_name
from tests.cli.cli_support import ONE_HAND, add_bots, arena, ok, write_json


def test_the_closest_name_is_a_slip_of_the_keyboard_away() -> None:
    known = ["greedy", "random", "counter", "node-bot"]
    assert closest("gredy", known) == "greedy"
    assert closest("Random", known) == "random"
    assert closest("countr@2", ["counter@1", "counter@2"]) == "counter@2"
    assert closest("greedy", known) is None  # the name itself: nothing to suggest
    assert closest("zzz", known) is None


def test_the_unknown_name_is_read_from_the_server_s_words() -> None:
    assert unknown_name("no bot named 'gredy'") == ("bot", "gredy")
    assert unknown_name("no tournament 'sprng'") == ("tournament", "sprng")
    assert unknown_name("no game sprng:1: there is no tournament sprng (`arena tournament "
                        "list` lists them)") == ("tournament", "sprng")
    assert unknown_name("the first message must be a Hello") is None


def test_a_misspelled_bot_or_tournament_gets_a_did_you_mean(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    add_bots(db, {"greedy": "greedy", "rnd": "random"})
    ok(db, "tournament", "create", "spring", "greedy", "rnd", "--table-size", "2")
    for args, says in ((("match", "greedy", "rdn", "--games", "2"), "did you mean 'rnd'?"),
                       (("bot", "versions", "Greedy"), "did you mean 'greedy'?"),
                       (("tournament", "standings", "sprng"), "did you mean 'spring'?"),
                       (("replay", "sprin:1"), "did you mean 'spring'?")):
        result = arena(db, *args)
        assert result.exit_code == 1, result.output
        assert says in result.output, (args, result.output)
        assert len(result.output.strip().splitlines()) == 1
    far = arena(db, "bot", "versions", "zzzz")
    assert far.exit_code == 1 and "did you mean" not in far.output


def test_games_says_when_it_left_games_out(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    add_bots(db, {"greedy": "greedy", "rnd": "random"})
    rules = write_json(tmp_path / "one-hand.json", ONE_HAND)
    ok(db, "match", "greedy", "rnd", "--games", "4", "--seed", "1", "--rules", str(rules))
    cut = arena(db, "games", "--limit", "3")
    assert cut.exit_code == 0
    assert "the newest 3 games; more were left out (--limit N shows more)" in cut.output
    whole = arena(db, "games", "--limit", "4")
    assert "left out" not in whole.output
