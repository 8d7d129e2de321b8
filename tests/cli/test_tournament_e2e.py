"""Tournaments and matches end to end: the CLI, real gRPC on 127.0.0.1, SQLite, bot processes.

The bots are the Python sample bots, launched by arena as managed bots. Games
are single hands (rules `target_score = null`) to keep the run short.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import pty
import re
import select
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from arena import wire
from arena.engine import RuleSet
from arena.engine import replay as replay_game
from arena.record import GameRecord
from arena.server.auth import ADMIN_TOKEN_VARIABLE, admin_token_path
from arena.store import Store, StoredGame
from arena.v1 import uno_pb2
from tests.cli.cli_support import (
    ARENA,
    BOTS,
    ONE_HAND,
    add_bots,
    arena,
    assert_recorded_once,
    bot_command,
    descends_from,
    invoke,
    is_alive,
    leaderboard_tables,
    marked_env,
    ok,
    processes_marked,
    query,
    read_only,
    sample_bot_processes,
    serving,
    wait_for_line,
    write_json,
)
from tests.support import free_port
from tests.tls_support import write_certificates

pytestmark = pytest.mark.timeout(60)

RANKING_KEYS = ["pool", "place", "place_low", "place_high", "tier", "bot", "score", "ci_low",
                "ci_high", "ci_level", "ci_method", "elo", "elo_low", "elo_high", "mu", "sigma",
                "conservative", "games", "wins", "shared_firsts", "win_rate", "average_points",
                "timeouts",
                "crashes", "illegal", "disconnects", "malformed", "below", "difference_below",
                "difference_low", "difference_high", "difference_level", "p_value_below",
                "separated_from_below", "separation_method"]
FAULT_KEYS = ["timeouts", "crashes", "illegal", "disconnects", "malformed"]
"""Counted in a tournament's standings; null in a rule-set pool, which does not count them."""
RANKING_COLUMNS = ["place", "bot", "score", "CI", "Elo", "μ", "σ", "games", "wins", "win rate",
                   "avg points"]


@dataclass(frozen=True)
class Played:
    """A round robin of 3 bots at tables of 3, 2 deals: 6 games, played through the CLI."""

    db: Path
    schedule_before: str
    run: Result
    schedule_after: str


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    tmp = tmp_path_factory.mktemp("round-robin")
    db = tmp / "arena.db"
    add_bots(db, BOTS)
    settings = write_json(tmp / "settings.json", {"rules": ONE_HAND})
    ok(db, "tournament", "create", "t1", "greedy", "rnd", "counter", "--table-size", "3",
       "--deals", "2", "--seed", "11", "--settings", str(settings))
    before = ok(db, "tournament", "schedule", "t1", "--format", "csv").stdout
    run = ok(db, "tournament", "run", "t1")
    after = ok(db, "tournament", "schedule", "t1", "--format", "csv").stdout
    return Played(db, before, run, after)


def _csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def _records(db: Path, tournament: str) -> list[StoredGame]:
    store = Store.open(db)
    try:
        return [store.get_game(s.game_id) for s in store.scheduled_games(tournament)
                if s.game_id is not None]
    finally:
        store.close()


# ------------------------------------------------------------- round robin

def test_the_schedule_is_there_before_play_and_every_game_of_it_is_played(played: Played) -> None:
    before, after = _csv(played.schedule_before), _csv(played.schedule_after)
    assert len(before) == 6
    assert {row["status"] for row in before} == {"pending"}
    assert {row["number"] for row in before} == {""}
    strip = ("status", "number")
    assert [{k: v for k, v in row.items() if k not in strip} for row in after] == \
        [{k: v for k, v in row.items() if k not in strip} for row in before]
    assert {row["status"] for row in after} == {"done"}
    assert sorted(int(row["number"]) for row in after) == list(range(1, 7))
    assert [row["id"] for row in after] == [f"t1:{index}" for index in range(6)]


def test_every_scheduled_game_is_recorded_exactly_once_as_scheduled(played: Played) -> None:
    assert_recorded_once(played.db, "t1", 6)
    for record in _records(played.db, "t1"):
        assert record.outcome.termination.value == "single_hand"
        assert sorted(record.outcome.ranks)[0] == 0
        assert list(record.seat_terminations) == ["normal"] * 3


def test_the_run_ends_with_the_rankings_and_the_tournament_is_finished(played: Played) -> None:
    [(heading, rows)] = leaderboard_tables(played.run.stdout)
    assert heading.startswith("tournament t1: 6 games (pool tournament:t1)")
    assert list(rows[0]) == RANKING_COLUMNS
    assert sorted(row["bot"] for row in rows) == ["counter", "greedy", "rnd"]
    assert {row["games"] for row in rows} == {"6"}
    [status] = json.loads(ok(played.db, "tournament", "status", "t1", "--format", "json").stdout)
    assert (status["status"], status["games_done"], status["games_total"]) == ("finished", 6, 6)


def test_ratings_count_every_seat_played_and_every_win(played: Played) -> None:
    standings = json.loads(ok(played.db, "tournament", "standings", "t1",
                              "--format", "json").stdout)
    overall = json.loads(ok(played.db, "rankings", "--format", "json").stdout)
    unfaulted = dict.fromkeys(FAULT_KEYS)
    assert [{**row, "pool": "", **unfaulted} for row in standings] == \
        [{**row, "pool": ""} for row in overall], "the only games played are the tournament's"
    assert {row[key] for row in standings for key in FAULT_KEYS} == {0}, \
        "a tournament's standings count its faults: none here"
    assert list(standings[0]) == RANKING_KEYS
    header = ok(played.db, "rankings", "--format", "csv").stdout.splitlines()[0]
    assert header == ",".join(RANKING_KEYS)
    assert [row["place_low"] for row in standings] == \
        sorted(row["place_low"] for row in standings)
    assert {row["bot"]: row["games"] for row in standings} == {b: 6 for b in BOTS}
    winners = Counter(r.seats[r.outcome.ranks.index(0)] for r in _records(played.db, "t1"))
    assert {row["bot"]: row["wins"] for row in standings} == {b: winners[b] for b in BOTS}
    for row in standings:
        assert row["conservative"] == pytest.approx(row["mu"] - 3 * row["sigma"])
        assert row["ci_low"] <= row["score"] <= row["ci_high"]


def test_rankings_list_the_pools_the_games_were_rated_in(played: Played) -> None:
    pools = json.loads(ok(played.db, "rankings", "--pools", "--format", "json").stdout)
    assert [(p["pool"], p["games"], p["tournament"]) for p in pools][0] == \
        ("tournament:t1", 6, "t1")
    [rules_pool] = [p for p in pools if p["tournament"] is None]
    assert rules_pool["description"] == "official rules with target_score=none, 3 seats"
    assert (rules_pool["games"], rules_pool["tau"]) == (6, 0.0)
    shown = ok(played.db, "rankings").stdout
    assert shown.startswith("official rules with target_score=none, 3 seats: 6 games (pool rules:")
    listed = ok(played.db, "rankings", "--pools").stdout
    for pool in pools:  # not rounded to two places: a bot pool's draw chance is 0.005
        assert f" {pool['draw_probability']:.4g} " in f" {listed} ".replace("\n", " \n ")


def test_crosstable_shows_every_pair_that_met_with_its_interval_and_los(played: Played) -> None:
    rows = json.loads(ok(played.db, "crosstable", "--tournament", "t1", "--format", "json").stdout)
    assert {(r["bot"], r["opponent"]) for r in rows} == \
        {(a, b) for a in BOTS for b in BOTS if a != b}
    for row in rows:
        assert row["wins"] + row["losses"] + row["draws"] == row["games"] == 6
        assert row["score_low"] <= row["score"] <= row["score_high"]
        assert 0 <= row["los"] <= 1
        assert row["level"] == 0.95 and "uncorrected" in row["method"]
    table = ok(played.db, "crosstable", "--tournament", "t1").stdout
    assert table.splitlines()[0] == "tournament t1: 6 games (pool tournament:t1)"
    assert table.splitlines()[1].startswith("intervals: 95%, block-clustered Student-t")


def test_the_standings_json_carries_the_evidence_for_each_adjacent_pair(played: Played) -> None:
    rows = json.loads(ok(played.db, "rankings", "--tournament", "t1", "--format", "json").stdout)
    for upper, lower in zip(rows, rows[1:], strict=False):
        assert upper["below"] == lower["bot"]
        assert upper["difference_level"] == pytest.approx(1 - 0.05 / 2)  # 3 bots, 2 pairs
        assert upper["difference_low"] <= upper["difference_below"] <= upper["difference_high"]
        assert 0 <= upper["p_value_below"] <= 1
        assert upper["separated_from_below"] == (upper["place_low"] != lower["place_low"])
        assert "Bonferroni" in upper["separation_method"]
    assert rows[-1]["below"] is None and rows[-1]["difference_level"] is None
    for row in rows:
        assert row["ci_level"] == 0.95 and "Student-t" in row["ci_method"]
        if row["elo"] is None:  # a perfect (or nil) score has no finite Elo
            assert row["score"] in (0.0, 1.0)
        else:
            assert (row["elo"] > 0) == (row["score"] > 0.5)
    shown = ok(played.db, "rankings", "--tournament", "t1").stdout
    assert "CI: 95% interval of the score (block-clustered Student-t" in shown
    if any(not row["separated_from_below"] for row in rows[:-1]):
        assert "(97.5% interval, Bonferroni over 2 adjacent pairs for 95% in all; p = " in shown


def test_a_tiebreak_ranks_shared_places_for_prizes_and_says_it_is_a_rule(
        played: Played) -> None:
    rows = json.loads(ok(played.db, "rankings", "--tournament", "t1", "--tiebreak",
                         "--format", "json").stdout)
    assert sorted(row["prize_rank"] for row in rows) == [1, 2, 3]
    by_prize = sorted(rows, key=lambda row: row["prize_rank"])
    assert [row["place_low"] for row in by_prize] == sorted(row["place_low"] for row in rows)
    assert all("a tie-break rule, not evidence" in row["tiebreak_rule"] for row in rows)
    shown = ok(played.db, "rankings", "--tournament", "t1", "--tiebreak").stdout
    assert "prize: a tie-break rule, not evidence: within each shared place" in shown
    assert any(line.split()[:2] == ["prize", "place"] for line in shown.splitlines())


def test_stats_show_each_seat_and_the_duplicate_deals(played: Played) -> None:
    rows = json.loads(ok(played.db, "stats", "--tournament", "t1", "--format", "json").stdout)
    assert [row["seat"] for row in rows] == [0, 1, 2]
    assert {row["games"] for row in rows} == {6} and {row["table_size"] for row in rows} == {3}
    assert all(0 <= row["p_value"] <= 1 for row in rows)
    assert {(row["duplicate_groups"], row["rotations"]) for row in rows} == {(6, 3)}
    assert all(row["chi_square_design_effect"] > 0 for row in rows)
    text = ok(played.db, "stats", "--tournament", "t1").stdout
    assert "duplicate deals: 6 times a bot played one deal in 3 rotations" in text
    effect = rows[0]["chi_square_design_effect"]
    assert f"divided by the seats' design effect {effect:.3f}" in text


def test_rankings_fit_compares_fitted_pool_and_default_parameters(played: Played) -> None:
    rows = json.loads(ok(played.db, "rankings", "--tournament", "t1", "--fit",
                         "--format", "json").stdout)
    assert [row["parameters"] for row in rows] == ["fitted", "pool", "trueskill defaults",
                                                    "coin flip"]
    assert {(row["training_games"], row["held_out_games"]) for row in rows} == {(5, 1)}
    assert all(-50 < row["log_likelihood"] < 0 for row in rows)
    assert rows[1]["tau"] == 0 and rows[2]["beta"] == pytest.approx(25 / 6)
    # three seats: three pairs at even chances
    assert rows[3]["log_likelihood"] == pytest.approx(3 * math.log(0.5), rel=0.01)
    assert "only 6 games (fewer than 500)" in rows[0]["warning"]
    shown = ok(played.db, "rankings", "--tournament", "t1", "--fit").stdout
    assert "coin flip" in shown and "fitted β: " in shown
    assert "warning: " in shown and "only 6 games" in shown


def test_rankings_fit_apply_rates_the_pool_again_under_the_fitted_parameters(
        played: Played, tmp_path: Path) -> None:
    from arena import rating

    db = tmp_path / "arena.db"
    with closing(sqlite3.connect(played.db)) as source, closing(sqlite3.connect(db)) as copy:
        source.backup(copy)
    pools_before = {p["pool"]: p for p in json.loads(
        ok(db, "rankings", "--pools", "--format", "json").stdout)}
    rows = json.loads(ok(db, "rankings", "--tournament", "t1", "--fit", "--apply",
                         "--format", "json").stdout)
    fitted = rows[0]
    assert fitted["parameters"] == "fitted" and fitted["applied"] is True
    pools = {p["pool"]: p for p in json.loads(
        ok(db, "rankings", "--pools", "--format", "json").stdout)}
    assert pools["tournament:t1"]["beta"] == pytest.approx(fitted["beta"])
    assert pools["tournament:t1"]["draw_probability"] == pytest.approx(
        fitted["draw_probability"])
    assert pools["tournament:t1"]["tau"] == pools_before["tournament:t1"]["tau"]
    others = set(pools) - {"tournament:t1"}
    assert others and all(pools[key] == pools_before[key] for key in others), \
        "the other pools keep their parameters"
    with closing(Store.open(db, read_only=True)) as store:
        parameters = store.pool("tournament:t1").parameters
        skills: dict[str, rating.Skill] = {}
        for game in store.pool_games("tournament:t1"):
            before = {bot: skills.get(bot, parameters.initial_skill) for bot in game.seats}
            skills.update(rating.rate_game(before, game.seats, game.ranks, game.teams,
                                           parameters=parameters))
        stored = {r.bot: (r.mu, r.sigma) for r in store.ratings(pool="tournament:t1")}
    assert stored.keys() == skills.keys()
    for bot, skill in skills.items():
        assert stored[bot] == pytest.approx((skill.mu, skill.sigma)), \
            f"{bot}: the pool's games rated again, in order, under its new parameters"
    shown = ok(db, "rankings", "--tournament", "t1", "--fit", "--apply").stdout
    assert "applied: pool tournament:t1 now rates with β " in shown
    refused = arena(db, "rankings", "--tournament", "t1", "--apply")
    assert refused.exit_code == 2 and "--apply sets the parameters --fit finds" in refused.stderr


def test_games_lists_the_tournament_newest_first(played: Played) -> None:
    rows = json.loads(ok(played.db, "games", "--tournament", "t1", "--format", "json").stdout)
    assert [row["number"] for row in rows] == list(range(6, 0, -1))
    assert list(rows[0]) == GAME_KEYS
    assert sorted(row["id"] for row in rows) == [f"t1:{index}" for index in range(6)]
    for row in rows:
        assert row["tournament"] == "t1" and len(row["seats"]) == 3
        assert all(isinstance(score, int) for score in row["scores"])
        assert row["winners"] == [row["seats"][row["ranks"].index(0)]]
        assert row["seat_terminations"] == ["normal"] * 3 and row["forfeited_seat"] is None
    assert json.loads(ok(played.db, "games", "--bot", "rnd", "--limit", "2",
                         "--format", "json").stdout) == rows[:2]


GAME_KEYS = ["id", "number", "tournament", "seats", "scores", "ranks", "winners", "termination",
             "seat_terminations", "forfeited_seat", "started_at", "finished_at"]


def _public_id(db: Path, number: int) -> str:
    """The public id `arena games` lists for the stored game `number`."""
    rows = json.loads(ok(db, "games", "--limit", "1000", "--format", "json").stdout)
    return str(next(row["id"] for row in rows if row["number"] == number))


def _engine_events(record: StoredGame) -> tuple[list[object], list[object]]:
    """The stored events, and those of the engine re-playing the stored seed and actions."""
    game = replay_game(RuleSet.from_dict(record.rules), len(record.seats), record.seed,
                       [wire.action_from_proto(wire.dict_into(a, uno_pb2.Action()))
                        for a in record.actions])
    if record.forfeited_seat is not None:
        game.forfeit(record.forfeited_seat)
    stored: list[object] = [wire.event_from_proto(wire.dict_into(e, uno_pb2.Event()))
                            for e in record.events]
    assert game.outcome is not None
    assert game.outcome.scores == record.outcome.scores
    assert game.outcome.ranks == record.outcome.ranks
    return stored, list(game.events)


def test_every_stored_game_replays_in_the_engine_and_on_the_command_line(played: Played) -> None:
    for record in _records(played.db, "t1"):
        stored, replayed = _engine_events(record)
        assert stored == replayed
        public_id = _public_id(played.db, record.id)
        result = ok(played.db, "replay", public_id)
        lines = result.stdout.splitlines()
        assert lines[1].startswith("── hand 1 ──")
        assert "\x1b[" not in result.stdout, "no colours when stdout is not a terminal"
        assert ok(played.db, "replay", str(record.id)).stdout == result.stdout, \
            "the stored number still names the game"
        export = ok(played.db, "replay", public_id, "--export", "jsonl").stdout
        assert len(export.splitlines()) == 1 + len(record.events)
        assert all(len(json.loads(line)) == 1 for line in export.splitlines())


def test_a_replay_export_starts_with_a_header_of_players_seed_and_rules(played: Played) -> None:
    [record] = [r for r in _records(played.db, "t1") if r.id == 1]
    lines = ok(played.db, "replay", _public_id(played.db, 1), "--export", "jsonl").stdout
    header = json.loads(lines.splitlines()[0])["header"]
    assert (header["id"], header["number"], header["tournament"]) == (
        _public_id(played.db, 1), 1, "t1")
    assert header["seats"] == list(record.seats) and header["seed"] == record.seed
    assert header["rules"] == record.rules
    assert header["scores"] == list(record.outcome.scores)
    assert header["ranks"] == list(record.outcome.ranks)
    assert header["seat_terminations"] == ["normal"] * 3


def test_a_replay_export_writes_scores_as_numbers(played: Played) -> None:
    lines = ok(played.db, "replay", "1", "--export", "jsonl").stdout.splitlines()
    ended = json.loads(lines[-1])["game_ended"]
    assert all(isinstance(score, int) for score in ended["scores"]), ended
    hands = [json.loads(line)["hand_ended"] for line in lines if "hand_ended" in line]
    assert hands and all(isinstance(total, int) for hand in hands for total in hand["totals"])


# ------------------------------------------------------- machine formats

LISTINGS = (
    ("bot", "list"), ("tournament", "list"), ("tournament", "status", "t1"),
    ("tournament", "schedule", "t1"), ("tournament", "standings", "t1"), ("rankings",),
    ("rankings", "--pools"), ("rankings", "--tournament", "t1", "--fit"),
    ("crosstable", "--tournament", "t1"), ("stats", "--tournament", "t1"), ("games",),
    ("tables",),
)
"""Every command with --format, as it runs on the played tournament."""


def _strict_json(text: str) -> Any:
    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("command", LISTINGS, ids=" ".join)
def test_every_json_listing_has_machine_keys_and_numbers_as_numbers(
        played: Played, command: tuple[str, ...]) -> None:
    rows = _strict_json(ok(played.db, *command, "--format", "json").stdout)
    assert isinstance(rows, list)
    for row in rows:
        for key, value in row.items():
            assert re.fullmatch(r"[a-z][a-z0-9_]*", key), f"{key!r} is not a machine key"
            assert key in LABEL_KEYS or not (
                isinstance(value, str) and re.fullmatch(r"-?\d+(\.\d+)?", value)), \
                f"{key} holds the number {value!r} as a string"
            assert not (isinstance(value, str) and " " in value and key in LIST_KEYS), \
                f"{key} holds a list as a string"


LABEL_KEYS = {"place", "id"}
"""Keys whose values are always text, even when it reads as a number ("1", or "2–3")."""
LIST_KEYS = {"seats", "players", "bots", "scores", "ranks", "winners", "seat_terminations",
             "teams"}
"""Keys whose values are lists in every JSON listing."""


@pytest.mark.parametrize("command", LISTINGS, ids=" ".join)
def test_every_csv_listing_has_the_json_listings_keys(
        played: Played, command: tuple[str, ...]) -> None:
    rows = _strict_json(ok(played.db, *command, "--format", "json").stdout)
    text = ok(played.db, *command, "--format", "csv").stdout
    header = next(csv.reader(io.StringIO(text)))
    if rows:
        assert header == list(rows[0])
        assert len(_csv(text)) == len(rows)


def test_a_games_listing_gives_scores_and_seats_as_lists_of_numbers_and_names(
        played: Played) -> None:
    [row] = json.loads(ok(played.db, "games", "--limit", "1", "--format", "json").stdout)
    assert isinstance(row["number"], int) and isinstance(row["id"], str)
    assert all(isinstance(score, int) for score in row["scores"])
    assert all(isinstance(name, str) for name in row["seats"]) and len(row["seats"]) == 3
    [line] = _csv(ok(played.db, "games", "--limit", "1", "--format", "csv").stdout)
    assert line["seats"] == " ".join(row["seats"])
    assert line["scores"] == " ".join(str(score) for score in row["scores"])


# ---------------------------------------------------------------- export

def _export(db: Path, tournament: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lines = [json.loads(line) for line in ok(db, "export", tournament).stdout.splitlines()]
    assert all(len(line) == 1 for line in lines), "each line is one {kind: object}"
    [header], games = [lines[0]["header"]], [line["game"] for line in lines[1:]]
    return header, games


def test_export_starts_with_a_header_of_the_tournament(played: Played) -> None:
    header, _ = _export(played.db, "t1")
    assert (header["export"], header["version"], header["tournament"]) == (
        "arena-tournament-export", 1, "t1")
    assert (header["format"], header["status"]) == ("round_robin", "finished")
    assert header["bots"] == ["counter", "greedy", "rnd"]
    assert (header["games_total"], header["games_done"]) == (6, 6)
    assert header["settings"]["seed"] == 11 and header["rules"]["target_score"] is None


def test_export_has_one_line_per_game_in_schedule_order_with_seats_and_outcome(
        played: Played) -> None:
    _, games = _export(played.db, "t1")
    records = {r.id: r for r in _records(played.db, "t1")}
    assert [g["id"] for g in games] == [f"t1:{index}" for index in range(6)]
    assert [g["game_index"] for g in games] == list(range(6))
    for game in games:
        stored = records[game["number"]]
        assert [seat["bot"] for seat in game["seats"]] == list(stored.seats)
        assert [seat["score"] for seat in game["seats"]] == list(stored.outcome.scores)
        assert [seat["rank"] for seat in game["seats"]] == list(stored.outcome.ranks)
        assert [seat["termination"] for seat in game["seats"]] == ["normal"] * 3
        assert list(game["seats"][0]) == ["seat", "bot", "base_name", "version", "score", "rank",
                                          "termination"]
        assert (game["termination"], game["forfeited_seat"]) == ("single_hand", None)
        assert game["record"]["seed"] == stored.seed


def test_every_exported_game_record_replays_to_its_outcome(played: Played) -> None:
    _, games = _export(played.db, "t1")
    records = {r.id: r for r in _records(played.db, "t1")}
    for game in games:
        record = GameRecord.from_dict(game["record"])
        assert record == records[game["number"]].game_record()
        assert record.verify_replay().outcome == records[game["number"]].outcome


def test_export_of_a_tournament_there_is_not_says_so(played: Played) -> None:
    result = arena(played.db, "export", "nope")
    assert result.exit_code == 1
    assert result.stderr == "Error: no tournament 'nope'\n"


def test_replay_hands_shows_each_seats_dealt_hand_and_no_draws(played: Played) -> None:
    for record in _records(played.db, "t1"):
        lines = ok(played.db, "replay", str(record.id), "--hands").stdout.splitlines()
        shown = [line for line in lines if line.startswith("  ")]
        assert sorted(line.split(":")[0].strip() for line in shown) == sorted(record.seats)
        assert all(len(line.split(":")[1].split()) == 7 for line in shown)


def _tampered_copy(db: Path, copy: Path, change: str) -> Path:
    with closing(read_only(db)) as source, closing(sqlite3.connect(copy)) as target:
        source.backup(target)
        target.execute(change)
        target.commit()
    return copy


def test_a_game_whose_events_were_altered_does_not_replay(played: Played, tmp_path: Path) -> None:
    copy = _tampered_copy(played.db, tmp_path / "copy.db",
                          "UPDATE games SET events = json_remove(events, '$[#-1]') WHERE id = 1")
    result = invoke("--db", str(copy), "replay", "1")
    assert (result.exit_code, result.stderr) == (
        1, f"Error: game {_public_id(played.db, 1)} does not replay: its stored events differ\n")


def test_a_game_whose_seed_was_altered_does_not_replay(played: Played, tmp_path: Path) -> None:
    copy = _tampered_copy(played.db, tmp_path / "copy.db",
                          "UPDATE games SET seed = seed + 1 WHERE id = 1")
    result = invoke("--db", str(copy), "replay", "1")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: game {_public_id(played.db, 1)} does not replay: "), \
        result.stderr
    assert result.stdout == ""


def test_a_game_whose_rules_were_altered_does_not_replay(played: Played, tmp_path: Path) -> None:
    copy = _tampered_copy(played.db, tmp_path / "copy.db",
                          "UPDATE games SET rules = json_set(rules, '$.hand_size', 0) WHERE id = 1")
    result = invoke("--db", str(copy), "replay", "1")
    assert (result.exit_code, result.stderr) == (
        1, f"Error: game {_public_id(played.db, 1)} does not replay: its stored record is not "
           "usable: hand_size: must be between 1 and 20, got 0\n")


def _read_terminal(argv: list[str], env: dict[str, str]) -> str:
    """Run a command on a pseudo-terminal and return what it printed."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(argv, stdin=terminal, stdout=terminal, stderr=terminal, env=env)
    os.close(terminal)
    chunks = []
    deadline = time.monotonic() + 20
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([controller], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(controller, 65536)
                except OSError:  # the terminal closed: the command ended
                    break
                if not chunk:
                    break
                chunks.append(chunk)
            elif process.poll() is not None:
                break
        assert process.wait(timeout=10) == 0, b"".join(chunks)
    finally:
        os.close(controller)
        if process.poll() is None:
            process.kill()
    return b"".join(chunks).decode()


def test_replay_is_coloured_on_a_terminal_unless_no_color(played: Played) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    argv = [*ARENA, "--db", str(played.db), "replay", "1"]
    coloured = _read_terminal(argv, env)
    plain = _read_terminal(argv, {**env, "NO_COLOR": "1"})
    assert "\x1b[" in coloured
    assert "\x1b[" not in plain
    assert "── hand 1 ──" in plain


# ------------------------------------------------------------ partners

def test_a_partner_tournament_records_teams_and_scores_partners_together(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    add_bots(db, {"a": "greedy", "b": "random", "c": "counter", "d": "greedy"})
    settings = write_json(tmp_path / "settings.json", {"rules": ONE_HAND})
    ok(db, "tournament", "create", "pairs", "a", "b", "c", "d", "--format", "partners",
       "--settings", str(settings))
    ok(db, "tournament", "run", "pairs")
    [status] = json.loads(ok(db, "tournament", "status", "pairs", "--format", "json").stdout)
    assert (status["format"], status["status"], status["games_done"], status["games_total"]) == \
        ("partners", "finished", 12, 12)
    records = _records(db, "pairs")
    assert len(records) == 12
    partners: Counter[frozenset[str]] = Counter()
    for record in records:
        assert record.rules["scoring"] == "partners"
        assert record.teams == ((0, 2), (1, 3))
        ranks = record.outcome.ranks
        assert ranks[0] == ranks[2] and ranks[1] == ranks[3] and ranks[0] != ranks[1]
        partners.update(frozenset(record.seats[s] for s in team) for team in record.teams)
        stored, replayed = _engine_events(record)
        assert stored == replayed
    assert len(partners) == 6 and set(partners.values()) == {4}, "every pair partners once"
    standings = json.loads(ok(db, "tournament", "standings", "pairs", "--format", "json").stdout)
    assert {row["bot"]: row["games"] for row in standings} == {b: 12 for b in "abcd"}


# --------------------------------------------------------------- match

def test_a_match_plays_each_deal_in_every_seat_rotation(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    add_bots(db, BOTS)
    rules = write_json(tmp_path / "one-hand.json", ONE_HAND)
    result = ok(db, "match", "greedy", "rnd", "counter", "--games", "2", "--seed", "4",
                "--rules", str(rules))
    [match] = json.loads(ok(db, "tournament", "list", "--format", "json").stdout)
    assert match["name"].startswith("match-")
    assert (match["status"], match["games_done"], match["games_total"]) == ("finished", 3, 3), \
        "2 games round up to one deal in each of the 3 rotations"
    [(heading, rows)] = leaderboard_tables(result.stdout)
    assert heading.startswith(f"tournament {match['name']}: 3 games")
    assert {row["bot"]: row["games"] for row in rows} == {b: "3" for b in BOTS}
    assert f"the match is tournament {match['name']}" in result.stdout
    games = query(db, "SELECT id FROM games")
    assert len(games) == 3
    store = Store.open(db)
    try:
        records = [store.get_game(row["id"]) for row in games]
    finally:
        store.close()
    for seat in range(3):
        assert sorted(r.seats[seat] for r in records) == sorted(BOTS), "every bot in every seat"
    for record in records:
        assert record.rules["target_score"] is None
        stored, replayed = _engine_events(record)
        assert stored == replayed


# ------------------------------------------------------- arena serve

def _first_live_game(*remote: str) -> dict[str, object]:
    """The first game `arena tables` lists as being played on the server `remote` names."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        tables = json.loads(invoke(*remote, "tables", "--format", "json").stdout)
        if tables:
            assert list(tables[0]) == ["id", "players", "hand", "decisions"]
            return dict(tables[0])
        time.sleep(0.01)
    raise AssertionError("no game started")


def test_serve_answers_remote_commands_and_stops_on_sigterm(tmp_path: Path) -> None:
    port = free_port()
    address = f"127.0.0.1:{port}"
    db = tmp_path / "served.db"
    with marked_env(f"serve-{port}") as env, serving(db, port, env) as server:
        said = wait_for_line(server, "Ctrl-C stops", timeout=20)
        token_file = admin_token_path(db)
        assert (f"arena serving on {address} (database {db}, admin token in {token_file})"
                in said)
        assert token_file.stat().st_mode & 0o777 == 0o600
        refused = invoke("--server", address, "--db", str(tmp_path / "other.db"),
                         "bot", "list")
        assert refused.exit_code == 1 and "missing token" in refused.output
        wrong = invoke("--server", address, "bot", "list",
                       env={ADMIN_TOKEN_VARIABLE: "not-the-token"})
        assert wrong.exit_code == 1 and "not valid on this server" in wrong.output
        remote = ("--server", address, "--db", str(db))  # the token file beside it
        for name, script in (("greedy", "greedy"), ("rnd", "random")):
            added = invoke(*remote, "bot", "add", name, "--command", bot_command(script))
            assert added.exit_code == 0, added.output
        listed = json.loads(invoke(*remote, "bot", "list", "--format", "json").stdout)
        assert [(b["name"], b["connected"]) for b in listed] == \
            [("greedy", False), ("rnd", False)]
        rules = tmp_path / "short.toml"
        rules.write_text("[rules]\ntarget_score = 150\n")
        match = subprocess.Popen([*ARENA, *remote, "match", "greedy", "rnd", "--games", "2",
                                  "--concurrency", "1", "--rules", str(rules)], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            live = _first_live_game(*remote)
            watched = invoke(*remote, "watch", str(live["id"]))
            _, match_err = match.communicate(timeout=30)
        finally:
            if match.poll() is None:
                match.kill()
                match.communicate()
        assert match.returncode == 0, match_err
        assert watched.exit_code == 0, watched.output
        replayed = invoke(*remote, "replay", str(live["id"]))
        first = json.loads(invoke(*remote, "games", "--format", "json").stdout)[-1]
        assert (live["id"], live["players"]) == (first["id"], first["seats"]), \
            "the live game is listed under the id `tables` showed"
        assert str(live["id"]).startswith("match-") and str(live["id"]).endswith(":0")
        assert watched.stdout == replayed.stdout, "watching live shows what replay shows"
        assert watched.stdout.splitlines()[-1].startswith("game over (target reached): ")
        listed = json.loads(invoke(*remote, "bot", "list", "--format", "json").stdout)
        assert [(b["name"], b["connected"]) for b in listed] == \
            [("greedy", True), ("rnd", True)], "managed bots stay up with the server"
        games = json.loads(invoke(*remote, "games", "--format", "json").stdout)
        assert len(games) == 2
        # Sandboxed, they carry no marker: this server's are those that descend from it.
        bots = [pid for pid in sample_bot_processes("greedy", "random")
                if descends_from(pid, server.pid)]
        assert len(bots) == 2, "two managed bot processes"

        started = time.monotonic()
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=10) == 0
        assert time.monotonic() - started < 5
        assert processes_marked(f"serve-{port}") == [], "the server stopped its bots"
        assert not [pid for pid in bots if is_alive(pid)], "the server stopped its bots"
    assert len(query(db, "SELECT id FROM games")) == 2, "the games are in the server's database"


def test_serve_over_tls_serves_commands_that_trust_it_and_its_managed_bots(
        tmp_path: Path) -> None:
    files = write_certificates(tmp_path)
    ca_file, cert_file, key_file = files.ca, files.cert, files.key
    assert "--tls-cert and --tls-key go together" in invoke(
        "--db", str(tmp_path / "x.db"), "serve", "--tls-cert", str(cert_file)).output
    unusable = invoke("--db", str(tmp_path / "x.db"), "serve", "--tls-cert", str(key_file),
                      "--tls-key", str(key_file))
    assert unusable.exit_code == 1 and "not a certificate chain" in unusable.output
    port = free_port()
    address = f"127.0.0.1:{port}"
    db = tmp_path / "tls.db"
    with (marked_env(f"tls-{port}") as env,
          serving(db, port, env, "--tls-cert", str(cert_file), "--tls-key", str(key_file))
          as server):
        said = wait_for_line(server, "Ctrl-C stops", timeout=20)
        assert f"arena serving on {address} over TLS" in said
        remote = ("--server", address, "--db", str(db))
        plaintext = invoke(*remote, "bot", "list")
        assert plaintext.exit_code == 1 and "ARENA_TLS_CA" in plaintext.output
        trusted = {"ARENA_TLS_CA": str(ca_file)}
        for name, script in (("greedy", "greedy"), ("rnd", "random")):
            added = invoke(*remote, "bot", "add", name, "--command", bot_command(script),
                           env=trusted)
            assert added.exit_code == 0, added.output
        rules = write_json(tmp_path / "one-hand.json", {"rules": ONE_HAND})
        played = invoke(*remote, "match", "greedy", "rnd", "--games", "2", "--rules",
                        str(rules), env=trusted)  # the managed bots use loopback
        assert played.exit_code == 0, played.output
        games = json.loads(invoke(*remote, "games", "--format", "json", env=trusted).stdout)
        assert len(games) == 2
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=10) == 0


# -------------------------------------------------------------- forfeits

CRASHING_BOT = """
import os

from arena.client import run


def decide(view, legal):
    os._exit(3)


if __name__ == "__main__":
    raise SystemExit(run(decide, name="crasher").exit_code)
"""


def test_a_bot_that_crashes_forfeits_and_the_forfeit_replays(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    tmp_path.chmod(0o755)  # a root arena's sandboxed bot runs as another user: it must read
    crasher = tmp_path / "crashing_bot.py"
    crasher.write_text(CRASHING_BOT)
    ok(db, "bot", "add", "crasher", "--command", f"{shlex.quote(sys.executable)} {crasher}")
    add_bots(db, {"greedy": "greedy"})
    settings = write_json(tmp_path / "settings.json",
                          {"rules": ONE_HAND, "policy": {"on_violation": "forfeit"}})
    ok(db, "tournament", "create", "f", "crasher", "greedy", "--table-size", "2",
       "--settings", str(settings))
    run = ok(db, "tournament", "run", "f")
    records = _records(db, "f")
    assert len(records) == 2
    for record in records:
        seat = record.seats.index("crasher")
        assert record.outcome.termination.value == "forfeit"
        assert record.seat_terminations[seat] == "crash"
        assert record.seat_terminations[1 - seat] == "normal"
        assert record.outcome.ranks[seat] == 1 and record.outcome.ranks[1 - seat] == 0
        assert record.forfeited_seat == seat
        assert all("forfeit" not in action for action in record.actions)
        stored, replayed = _engine_events(record)
        assert stored == replayed
        lines = ok(db, "replay", str(record.id)).stdout.splitlines()
        assert lines[-1] == "game over: crasher forfeited (crash: its process died); greedy wins"
    rows = json.loads(ok(db, "games", "--format", "json").stdout)
    assert [(row["winners"], row["termination"]) for row in rows] == [(["greedy"], "forfeit")] * 2
    assert ("warning: bots failed in this run's games: crasher (2 crashes); "
            "`arena games --tournament f` shows which games") in run.stderr
    standings = json.loads(ok(db, "tournament", "standings", "f", "--format", "json").stdout)
    assert {row["bot"]: row["crashes"] for row in standings} == {"crasher": 2, "greedy": 0}
    [(_, table)] = leaderboard_tables(run.stdout)
    assert {row["bot"]: row["faults"] for row in table} == {"crasher": "2 crashes", "greedy": "-"}
    assert "crasher crash" in ok(db, "games", "--tournament", "f").stdout


# ------------------------------------------------------------ sequential runs


def test_a_match_under_sprt_plays_until_the_test_decides(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    add_bots(db, {"greedy": "greedy", "rnd": "random"})
    rules = write_json(tmp_path / "rules.json", ONE_HAND)
    result = ok(db, "match", "greedy", "rnd", "--sprt", "--h1", "0.6", "--rules", str(rules))
    assert ("SPRT: H1 (an expected score of 0.600 per deal) accepted for greedy over H0 "
            "(0.500) after") in result.stdout
    assert "greedy scored 0.9" in result.stdout or "greedy scored 1.000" in result.stdout
    [match] = json.loads(ok(db, "tournament", "list", "--format", "json").stdout)
    assert match["games_done"] == match["games_total"] and match["games_total"] % 2 == 0
    assert 2 <= match["games_total"] < 200


def test_a_match_under_sprt_shows_elo_and_gives_its_llr_history_in_json(
        tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    add_bots(db, {"greedy": "greedy", "rnd": "random"})
    rules = write_json(tmp_path / "rules.json", ONE_HAND)
    shown = ok(db, "match", "greedy", "rnd", "--sprt", "--rules", str(rules)).stdout
    assert "the pentanomial test" in shown
    assert "greedy: score per deal " in shown
    assert "(95%, normal-mixture confidence sequence" in shown
    assert "Elo +" in shown and "note: the SPRT chose when this match stopped" in shown
    result = json.loads(ok(db, "match", "greedy", "rnd", "--sprt", "--rules", str(rules),
                           "--seed", "5", "--format", "json").stdout)
    test = result["sprt"]
    assert test["model"] == "pentanomial" and test["decision"] == "H1"
    assert test["bot"] == "greedy" and test["games"] == 2 * test["blocks"]
    assert len(test["llr_history"]) == test["blocks"] < 40
    assert test["llr_history"][-1] == test["llr"] >= test["upper_bound"]
    assert test["score"]["level"] == 0.95 and "confidence sequence" in test["score"]["method"]
    assert test["elo"]["method"] and test["stopped_early"] and test["note"]
    assert {row["bot"] for row in result["rankings"]} == {"greedy", "rnd"}


def test_a_tournament_run_until_separated_stops_once_the_leaderboard_is_ordered(
        tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    add_bots(db, {"greedy": "greedy", "rnd": "random"})
    settings = write_json(tmp_path / "settings.json", {"rules": ONE_HAND})
    ok(db, "tournament", "create", "sep", "greedy", "rnd", "--table-size", "2", "--deals", "2",
       "--settings", str(settings))
    result = ok(db, "tournament", "run", "sep", "--until-separated", "--max-games", "200")
    assert "until separated: every adjacent pair is separated at 95% after" in result.stdout
    [status] = json.loads(ok(db, "tournament", "status", "sep", "--format", "json").stdout)
    assert status["games_done"] == status["games_total"] > 4
    [(heading, rows)] = leaderboard_tables(result.stdout)
    assert [row["bot"] for row in rows] == ["greedy", "rnd"]
    assert [row["place"] for row in rows] == ["1", "2"]


def test_a_finished_tournament_run_again_until_separated_launches_its_bots(
        tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    add_bots(db, {"greedy": "greedy", "rnd": "random"})
    settings = write_json(tmp_path / "settings.json", {"rules": ONE_HAND})
    ok(db, "tournament", "create", "again", "greedy", "rnd", "--table-size", "2", "--deals",
       "1", "--settings", str(settings))
    ok(db, "tournament", "run", "again")
    result = ok(db, "tournament", "run", "again", "--until-separated", "--max-games", "200",
                "--wait", "10")
    assert "until separated: every adjacent pair is separated" in result.stdout
    assert "absent" not in result.stderr
    rows = json.loads(ok(db, "games", "--tournament", "again", "--limit", "500",
                         "--format", "json").stdout)
    assert rows and all(row["termination"] != "forfeit" for row in rows)
