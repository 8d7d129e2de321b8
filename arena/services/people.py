"""The people of a hosted competition: authors and viewers, invites, and the audit
trail of what everyone did.

`PeopleService` is the organizer's (and, for `register`, an invite holder's) way to
let people in; who may call what is `arena.server.permissions`'s to decide. Its
methods block on the store: a server runs them in a worker thread.
"""

from __future__ import annotations

from dataclasses import fields, replace

from arena.store import AuditEntry, Author, AuthorRole, Invite, Quota, Store


def quota_with(base: Quota, changes: dict[str, int]) -> Quota:
    """`base` with the figures in `changes` that are set (more than 0)."""
    known = {f.name for f in fields(Quota)}
    return replace(base, **{k: v for k, v in changes.items() if k in known and v > 0})


class PeopleService:
    """Authors, viewers, invites and the audit trail, over one store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def add(self, name: str, role: str, may_run: bool, quota: dict[str, int],
            ) -> tuple[Author, str]:
        """Add an author or a viewer; return them and their token (shown once)."""
        return self.store.add_author(name, role or AuthorRole.AUTHOR, may_run=may_run,
                                     quota=quota_with(Quota(), quota))

    def authors(self) -> tuple[list[tuple[Author, list[str]]], list[Invite]]:
        """Every author and viewer with the bots they own, and the invites."""
        return ([(author, self.store.authored_bots(author.id))
                 for author in self.store.list_authors()], self.store.list_invites())

    def remove(self, name: str) -> tuple[Author, list[str]]:
        """Remove an author: their token stops working and their bots are retired (their
        games and ratings stay; `BotService.forget` stops what still runs of them)."""
        return self.store.remove_author(name)

    def rotate(self, name: str) -> tuple[Author, str]:
        """A new token for author `name`; the old one stops working."""
        token = self.store.rotate_author_token(name)
        return self.store.author(name), token

    def change(self, name: str, quota: dict[str, int], may_run: bool | None) -> Author:
        """Change an author's quota (the figures set) and whether they may run
        competitions."""
        author = self.store.author(name)
        return self.store.set_author(name, quota=quota_with(author.quota, quota),
                                     may_run=may_run)

    def invite(self, cap: int, role: str) -> tuple[Invite, str]:
        """A new invite code for up to `cap` people (shown once)."""
        return self.store.create_invite(cap, role or AuthorRole.AUTHOR)

    def register(self, code: str, name: str) -> tuple[Author, str]:
        """Add author `name` on invite `code`; return them and their token."""
        return self.store.register_author(code, name)

    def bots_of(self, author_id: int) -> list[str]:
        """The active bots and versions an author owns."""
        return self.store.authored_bots(author_id)

    def audit(self, author: str | None, limit: int) -> list[AuditEntry]:
        """The newest `limit` audit lines, of one author (by name) or everyone."""
        if author:
            found = self.store.author(author)
            return self.store.audit(author_id=found.id, limit=limit)
        return self.store.audit(limit=limit)

    def audit_of(self, author_id: int, limit: int) -> list[AuditEntry]:
        """The newest `limit` audit lines of one author (by id)."""
        return self.store.audit(author_id=author_id, limit=limit)
