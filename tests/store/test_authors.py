"""Authors in the store: their tokens, invites, ownership of bots, quotas, the audit
trail and the entry rule of at most K bots per author — on SQLite and PostgreSQL."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from arena.store import (
    MIGRATIONS,
    AuthorRole,
    BotKind,
    DuplicateName,
    InvalidInput,
    InviteRefused,
    NotOwner,
    Quota,
    QuotaExceeded,
    Store,
    StoreError,
    UnknownAuthor,
    hash_token,
)


@pytest.fixture
def store(store_target: Path | str) -> Iterator[Store]:
    with Store.open(store_target) as opened:
        yield opened


def submit(store: Store, base: str, author_id: int | None, quota: Quota | None = None,
           number: int = 0) -> str:
    """Store a version of `base` (nothing to build) and return its name."""
    version = store.add_version(base, f"{number:064x}", {"name": base, "run": "./bot"},
                                "./bot", "native", "/nowhere", author_id=author_id,
                                quota=quota)
    return version.name


def test_an_authors_token_is_shown_once_and_kept_only_as_a_hash(store: Store) -> None:
    author, token = store.add_author("alice")
    assert author.role is AuthorRole.AUTHOR and not author.may_run
    assert store.author_by_token(token) == author
    assert store.author_by_token(token + "x") is None
    with store._lock:
        rows = store._conn.execute("SELECT token_hash FROM authors").fetchall()
    assert [row[0] for row in rows] == [hash_token(token)]


def test_two_authors_cannot_share_a_name_but_a_removed_ones_is_free(store: Store) -> None:
    store.add_author("alice")
    with pytest.raises(DuplicateName, match="an author named 'alice' already exists"):
        store.add_author("alice", AuthorRole.VIEWER)
    store.remove_author("alice")
    assert store.add_author("alice", AuthorRole.VIEWER)[0].role is AuthorRole.VIEWER


def test_a_removed_authors_token_stops_working_and_their_bots_retire(store: Store) -> None:
    alice, token = store.add_author("alice")
    store.add_bot("alice-bot", BotKind.REMOTE, author_id=alice.id)
    store.add_bot("house-bot", BotKind.REMOTE)
    removed, retired = store.remove_author("alice")
    assert not removed.active and retired == ["alice-bot"]
    assert store.author_by_token(token) is None
    assert [bot.name for bot in store.list_bots()] == ["house-bot"]
    with pytest.raises(UnknownAuthor):
        store.remove_author("alice")


def test_a_rotated_token_replaces_the_old_one(store: Store) -> None:
    _, old = store.add_author("alice")
    new = store.rotate_author_token("alice")
    assert store.author_by_token(old) is None
    found = store.author_by_token(new)
    assert found is not None and found.name == "alice"


def test_an_invite_lets_in_as_many_as_its_cap_and_no_more(store: Store) -> None:
    _, code = store.create_invite(2, AuthorRole.VIEWER)
    first, token = store.register_author(code, "ann")
    store.register_author(code, "ben")
    assert first.role is AuthorRole.VIEWER and store.author_by_token(token) == first
    with pytest.raises(InviteRefused, match=r"used up \(2 of 2 places taken\)"):
        store.register_author(code, "cy")
    with pytest.raises(InviteRefused, match="not valid"):
        store.register_author("invite-made-up", "cy")
    assert [(i.cap, i.used) for i in store.list_invites()] == [(2, 2)]


def test_an_invite_for_a_taken_name_uses_no_place(store: Store) -> None:
    store.add_author("ann")
    _, code = store.create_invite(1)
    with pytest.raises(DuplicateName):
        store.register_author(code, "ann")
    assert store.register_author(code, "ben")[0].name == "ben"


def test_a_bots_versions_are_its_first_submitters_alone(store: Store) -> None:
    alice, _ = store.add_author("alice")
    bob, _ = store.add_author("bob")
    assert submit(store, "nimble", alice.id) == "nimble@1"
    with pytest.raises(NotOwner, match="belongs to someone else"):
        submit(store, "nimble", bob.id, number=1)
    with pytest.raises(NotOwner):
        submit(store, "nimble", None, number=2)  # the organizer too
    assert submit(store, "nimble", alice.id, number=3) == "nimble@2"
    assert store.bot_author("nimble") == alice.id
    assert store.bot_author("nimble@1") == alice.id


def test_a_quota_refusal_names_the_quota_and_when_it_frees(store: Store) -> None:
    alice, _ = store.add_author("alice")
    quota = Quota(submissions_per_hour=2, active_versions=10)
    submit(store, "a", alice.id, quota, 1)
    submit(store, "b", alice.id, quota, 2)
    before = datetime.now(UTC)
    with pytest.raises(QuotaExceeded) as refused:
        submit(store, "c", alice.id, quota, 3)
    message = str(refused.value)
    assert message.startswith("quota reached: submissions per hour (2); the next submission "
                              "is taken from ")
    frees = datetime.strptime(re.search(r"from (\S+ \S+) UTC", message)[1],  # type: ignore[index]
                              "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
    assert before + timedelta(minutes=59) < frees <= before + timedelta(hours=1, seconds=1)
    assert "(in 60 min)" in message or "(in 59 min)" in message
    assert [bot.name for bot in store.list_bots()] == ["a@1", "b@1"]


def test_the_active_versions_quota_frees_when_one_retires(store: Store) -> None:
    alice, _ = store.add_author("alice")
    quota = Quota(active_versions=2)
    submit(store, "a", alice.id, quota, 1)
    submit(store, "a", alice.id, quota, 2)
    with pytest.raises(QuotaExceeded, match=r"active versions \(2\).*arena bot remove"):
        submit(store, "a", alice.id, quota, 3)
    store.remove_bot("a@1")
    assert submit(store, "a", alice.id, quota, 4) == "a@3"


def test_a_quota_figure_must_be_positive(store: Store) -> None:
    with pytest.raises(InvalidInput, match="submissions per day must be more than 0"):
        store.add_author("alice", quota=Quota(submissions_per_day=0))


def test_at_most_k_bots_per_author_enter_the_newest_first(store: Store) -> None:
    alice, _ = store.add_author("alice")
    bob, _ = store.add_author("bob")
    for name in ("a1", "a2", "a3"):
        store.add_bot(name, BotKind.REMOTE, author_id=alice.id)
    store.add_bot("b1", BotKind.REMOTE, author_id=bob.id)
    store.add_bot("house1", BotKind.REMOTE)
    store.add_bot("house2", BotKind.REMOTE)
    assert store.latest_entrants_per_author(None) == ["a1", "a2", "a3", "b1", "house1",
                                                      "house2"]
    assert store.latest_entrants_per_author(2) == ["a2", "a3", "b1", "house1", "house2"]
    assert store.latest_entrants_per_author(1) == ["a3", "b1", "house1", "house2"]
    with pytest.raises(InvalidInput):
        store.latest_entrants_per_author(0)


def test_the_audit_trail_lists_newest_first_and_by_author(store: Store) -> None:
    alice, _ = store.add_author("alice")
    store.record_audit("organizer", "organizer", None, "AddAuthor", "alice", "ok")
    store.record_audit("alice", "author", alice.id, "SubmitBot", "nimble@1", "ok")
    store.record_audit("alice", "author", alice.id, "RemoveBot", "other", "refused",
                       "x" * 2000)
    entries = store.audit()
    assert [(e.actor, e.action) for e in entries] == [
        ("alice", "RemoveBot"), ("alice", "SubmitBot"), ("organizer", "AddAuthor")]
    assert len(entries[0].detail) == 500
    assert [e.action for e in store.audit(author_id=alice.id, limit=1)] == ["RemoveBot"]


def test_a_database_from_before_authors_keeps_its_bots_the_organizers(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with Store.open(path, migrations=MIGRATIONS[:7]) as old:
        old.add_bot("veteran", BotKind.REMOTE)
    with Store.open(path) as store:
        assert store.bot("veteran").author_id is None
        assert store.bot_author("veteran") is None
        alice, _ = store.add_author("alice")
        assert store.add_bot("new", BotKind.REMOTE, author_id=alice.id)[0].author_id == alice.id


def test_a_timetable_keeps_its_per_author_cap_and_takes_it_only_without_bots(
        store: Store) -> None:
    moment = datetime(2030, 1, 1, tzinfo=UTC)
    kept = store.add_timetable("final", "round_robin", {}, {}, None, share=0.5,
                               first_due=moment, every=None, per_author=2)
    assert kept.per_author == 2 and store.timetables()[0].per_author == 2
    with pytest.raises(InvalidInput, match="per_author: goes with the latest entrants"):
        store.add_timetable("named", "round_robin", {}, {}, ["a", "b"], share=0.5,
                            first_due=moment, every=None, per_author=1)


def test_a_closed_store_says_it_is_closed_when_asked_who_owns_a_bot(
        store_target: Path | str) -> None:
    store = Store.open(store_target)
    store.add_bot("greedy", BotKind.REMOTE)
    store.close()
    with pytest.raises(StoreError, match="the store is closed"):
        store.bot_author("greedy")
