"""The golden games: recorded games the engine must replay event for event.

Each file in tests/golden/ holds a game record and the public events the engine
produced when it was recorded. A failure here means the engine now plays one of
those games differently; if that change is deliberate, re-record the games with
the command the failure prints (see tests/golden/make_golden.py) and review the diff.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena import wire
from arena.engine import Game
from arena.record import GameRecord, ReplayMismatchError
from tests.golden.make_golden import (
    CASES,
    FEATURES,
    GOLDEN_DIR,
    REGENERATE,
    golden_path,
    layout,
    record_case,
)

GOLDEN_FILES = sorted(GOLDEN_DIR.glob("*.json"))
MAX_TOTAL_BYTES = 2_000_000


def load(path: Path) -> dict[str, Any]:
    """A golden file's document."""
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def rerecord_hint(name: str) -> str:
    """The line that tells a reader how to re-record a golden game."""
    return f"if the rules changed on purpose, re-record it with: {REGENERATE} {name}"


def first_difference(name: str, expected: list[dict[str, Any]],
                     replayed: list[dict[str, Any]]) -> str | None:
    """None when the two event streams are equal, else a readable account of the
    first event where they part, with the event before it and the re-record command."""
    if expected == replayed:
        return None
    index = next((i for i, (e, r) in enumerate(zip(expected, replayed, strict=False))
                  if e != r), min(len(expected), len(replayed)))
    lines = [f"golden game {name}: the replay differs at public event {index} "
             f"({len(expected)} expected, {len(replayed)} replayed)"]
    if index > 0:
        lines.append(f"  after:    {json.dumps(expected[index - 1])}")
    missing = "(no event)"
    lines.append(f"  expected: {json.dumps(expected[index]) if index < len(expected) else missing}")
    lines.append(f"  replayed: {json.dumps(replayed[index]) if index < len(replayed) else missing}")
    lines.append(rerecord_hint(name))
    return "\n".join(lines)


def replay_or_fail(path: Path, *, check_outcome: bool = False) -> tuple[dict[str, Any], Game]:
    """A golden file's document and its game replayed; a record that no longer replays
    (or, with `check_outcome`, ends differently) fails the test with the re-record command."""
    document = load(path)
    record = GameRecord.from_dict(document["record"])
    try:
        return document, record.verify_replay() if check_outcome else record.replay()
    except ReplayMismatchError as exc:
        problem = str(exc)
    pytest.fail(f"golden game {path.stem}: {problem}\n{rerecord_hint(path.stem)}", pytrace=False)


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.stem)
def test_golden_game_replays_to_the_same_public_events(path: Path) -> None:
    document, game = replay_or_fail(path)
    replayed = [wire.event_to_dict(e) for e in wire.public_events(game.events)]
    difference = first_difference(path.stem, document["public_events"], replayed)
    if difference is not None:
        pytest.fail(difference, pytrace=False)


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.stem)
def test_golden_game_replays_to_its_recorded_outcome(path: Path) -> None:
    replay_or_fail(path, check_outcome=True)


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.stem)
def test_golden_game_shows_the_features_it_was_recorded_for(path: Path) -> None:
    document, game = replay_or_fail(path)
    missing = [name for name in document["features"] if not FEATURES[name](game.events)]
    assert not missing, f"{path.stem} no longer shows {missing}; {rerecord_hint(path.stem)}"


def test_every_case_has_a_golden_file_and_every_file_a_case() -> None:
    recorded = {path.stem for path in GOLDEN_FILES}
    cases = {case.name for case in CASES}
    assert recorded == cases, (f"missing: {sorted(cases - recorded)}, stale: "
                               f"{sorted(recorded - cases)}; re-record with: {REGENERATE}")


def test_recording_the_cases_again_writes_the_same_files() -> None:
    changed = [case.name for case in CASES
               if layout(record_case(case)) != golden_path(case.name).read_text(encoding="utf-8")]
    assert not changed, f"re-recording changes {changed}; re-record with: {REGENERATE}"


def test_golden_games_cover_official_house_and_forfeited_games() -> None:
    records = [GameRecord.from_dict(load(path)["record"]) for path in GOLDEN_FILES]
    official_seats = {len(r.seats) for r in records
                      if r.rules.house_rules() == [] and r.forfeited_seat is None}
    assert {2, 3, 4} <= official_seats
    assert {"progressive", "seven_o", "jump_in"} <= {
        rule for r in records for rule in r.rules.house_rules()}
    assert any(r.teams is not None for r in records)
    assert any(r.outcome.hands_played > 1 for r in records)
    assert any(r.forfeited_seat is not None for r in records)


def test_golden_files_stay_small() -> None:
    total = sum(path.stat().st_size for path in GOLDEN_FILES)
    assert total <= MAX_TOTAL_BYTES


def test_a_replay_that_parts_from_the_golden_events_names_the_event_and_the_command() -> None:
    expected: list[dict[str, Any]] = [
        {"turn_skipped": {"seat": 1}}, {"direction_changed": {"direction": -1}}]
    replayed: list[dict[str, Any]] = [{"turn_skipped": {"seat": 1}}, {"direction_changed": {}}]
    message = first_difference("example", expected, replayed)
    assert message is not None
    assert "public event 1" in message
    assert '"direction": -1' in message
    assert f"{REGENERATE} example" in message


def test_a_replay_with_fewer_events_than_the_golden_file_is_reported() -> None:
    expected: list[dict[str, Any]] = [
        {"turn_skipped": {"seat": 1}}, {"direction_changed": {"direction": -1}}]
    message = first_difference("example", expected, expected[:1])
    assert message is not None
    assert "public event 1" in message and "(no event)" in message


def test_equal_event_streams_have_no_difference() -> None:
    events = [{"turn_skipped": {"seat": 1}}]
    assert first_difference("example", events, list(events)) is None
