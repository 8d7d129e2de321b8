"""The permission table and the rule that reads it, caller by caller, without a server
(tests/server/test_permissions.py checks the same through real calls)."""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from types import SimpleNamespace

import pytest

from arena.server.permissions import (
    ORGANIZER,
    RULES,
    STRICT_OWNER,
    Caller,
    Need,
    Role,
    Rule,
    current_caller,
    missing,
)

AUTHOR = Caller(Role.AUTHOR, "amy", author_id=3)
RUNNING_AUTHOR = Caller(Role.AUTHOR, "amy", author_id=3, may_run=True)
VIEWER = Caller(Role.VIEWER, "vic")
ANONYMOUS = Caller(Role.ANONYMOUS, "(no token)")
RUN_LEAVE = "the organizer's leave to run competitions (`arena author set NAME --may-run`)"

EXPECTED: dict[Need, dict[str, str | None]] = {
    Need.INVITE: {"none": None, "none-public": None, "viewer": None, "author": None,
                  "runner": None, "organizer": None},
    Need.PUBLIC: {"none": "a token", "none-public": None, "viewer": None, "author": None,
                  "runner": None, "organizer": None},
    Need.SIGNED_IN: {"none": "a token", "none-public": "a token", "viewer": None,
                     "author": None, "runner": None, "organizer": None},
    Need.AUTHOR: {"none": "a token", "none-public": "a token", "viewer": "an author's token",
                  "author": None, "runner": None, "organizer": None},
    Need.OWNER: {"none": "a token", "none-public": "a token",
                 "viewer": "the token of the bot's author", "author": None, "runner": None,
                 "organizer": None},
    Need.RUNNER: {"none": "a token", "none-public": "a token", "viewer": RUN_LEAVE,
                  "author": RUN_LEAVE, "runner": None, "organizer": None},
    Need.ORGANIZER: {"none": "a token", "none-public": "a token",
                     "viewer": "the organizer's token", "author": "the organizer's token",
                     "runner": "the organizer's token", "organizer": None},
}
"""For each need and caller, what `missing` says the caller lacks (None: may go on)."""
CALLERS: dict[str, tuple[Caller | None, bool]] = {
    "none": (None, False), "none-public": (None, True), "viewer": (VIEWER, False),
    "author": (AUTHOR, False), "runner": (RUNNING_AUTHOR, False),
    "organizer": (ORGANIZER, False)}


@pytest.mark.parametrize("need", list(Need))
@pytest.mark.parametrize("who", sorted(CALLERS))
def test_what_each_caller_lacks_for_each_need(need: Need, who: str) -> None:
    caller, public = CALLERS[who]
    assert missing(Rule(need), caller, public) == EXPECTED[need][who]


def test_an_anonymous_caller_on_a_public_server_is_treated_as_signed_in_for_reading() -> None:
    assert missing(Rule(Need.PUBLIC), ANONYMOUS, True) is None
    assert missing(Rule(Need.AUTHOR), ANONYMOUS, True) == "an author's token"


NEEDS = {
    Need.ORGANIZER: {"ListConnectedBots", "ScheduleTournament", "UnscheduleTournament",
                     "AddAuthor", "ListAuthors", "RemoveAuthor", "RotateAuthorToken",
                     "SetAuthor", "CreateInvite"},
    Need.PUBLIC: {"ListTables", "WatchGame", "ListBots", "ListTournaments", "GetSchedule",
                  "GetRankings", "GetRatingHistory", "ListPools", "GetCrosstable", "GetStats",
                  "FitRatings", "ListGames", "GetGame", "ExportTournament"},
    Need.AUTHOR: {"AddBot", "SubmitBot", "ListAudit"},
    Need.OWNER: {"RemoveBot", "ListBotVersions", "GetBotLog"},
    Need.RUNNER: {"CreateTournament", "RunTournament", "RunLadder", "PlayMatch"},
    Need.INVITE: {"RegisterAuthor"},
    Need.SIGNED_IN: {"WhoAmI"},
}
AUDITED = {"AddBot", "RemoveBot", "SubmitBot", "CreateTournament", "RunTournament",
           "ScheduleTournament", "UnscheduleTournament", "RunLadder", "PlayMatch",
           "FitRatings", "AddAuthor", "RemoveAuthor", "RotateAuthorToken", "SetAuthor",
           "CreateInvite", "RegisterAuthor"}


@pytest.mark.parametrize("need", list(Need))
def test_the_table_gives_each_rpc_its_need(need: Need) -> None:
    assert {name for name, rule in RULES.items() if rule.need is need} == NEEDS[need]


def test_the_calls_that_change_something_are_audited() -> None:
    assert {name for name, rule in RULES.items() if rule.audited} == AUDITED


def test_the_owned_and_organizer_fields_of_the_table() -> None:
    assert {name: rule.owned for name, rule in RULES.items() if rule.owned} == {
        "RemoveBot": "name", "ListBotVersions": "name", "GetBotLog": "name",
        "GetGame": "as_bot"}
    assert {name: rule.organizer_field for name, rule in RULES.items()
            if rule.organizer_field} == {"FitRatings": "apply"}
    assert frozenset({"SubmitBot"}) == STRICT_OWNER


def test_an_unaudited_rule_audits_nothing() -> None:
    assert not Rule(Need.PUBLIC).audits(SimpleNamespace())


def test_an_audited_rule_audits_every_call_and_every_stream() -> None:
    assert Rule(Need.AUTHOR, audited=True).audits(SimpleNamespace())
    assert Rule(Need.PUBLIC, organizer_field="apply", audited=True).audits(None)


def test_a_rule_with_an_organizer_field_audits_only_calls_that_set_it() -> None:
    rule = Rule(Need.PUBLIC, organizer_field="apply", audited=True)
    assert rule.audits(SimpleNamespace(apply=True))
    assert not rule.audits(SimpleNamespace(apply=False))
    assert not rule.audits(SimpleNamespace())


def test_the_organizer_owns_the_organizers_bots_and_everyone_elses_are_their_authors() -> None:
    assert ORGANIZER.is_organizer and ORGANIZER.owns(None) and not ORGANIZER.owns(3)
    assert AUTHOR.owns(3) and not AUTHOR.owns(4) and not AUTHOR.owns(None)
    assert not AUTHOR.is_organizer and not VIEWER.owns(None)


def test_outside_a_call_the_caller_is_the_organizer() -> None:
    assert current_caller() == ORGANIZER
    assert (ORGANIZER.role, ORGANIZER.name, ORGANIZER.may_run) == (Role.ORGANIZER,
                                                                  "organizer", True)


def test_a_caller_is_a_value_and_neither_it_nor_the_table_changes_once_made() -> None:
    assert {AUTHOR: "kept"}[Caller(Role.AUTHOR, "amy", author_id=3)] == "kept"
    with pytest.raises(FrozenInstanceError):
        AUTHOR.may_run = True  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        RULES["AddAuthor"].need = Need.PUBLIC  # type: ignore[misc]
