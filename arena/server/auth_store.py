"""Authenticators backed by the store, and short-lived tokens for managed bots."""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from arena.server.auth import Authenticator
from arena.store import Store, hash_token


class StoreAuthenticator:
    """Accepts the tokens `arena bot add` issued (the store keeps their hashes)."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def bot_name(self, token: str) -> str | None:
        """The registered bot this token belongs to, or None."""
        bot = self._store.bot_by_token(token)
        return None if bot is None else bot.name


class SessionTokens:
    """Tokens minted for the managed bots this server launches; valid until it stops.

    The store keeps only hashes of registered tokens, so a managed bot is given a
    fresh session token of its own when it is launched. These are kept as hashes
    too, so a lookup leaks nothing about them through timing.
    """

    def __init__(self) -> None:
        self._names: dict[str, str] = {}

    def mint(self, bot_name: str) -> str:
        """A new token that authenticates as `bot_name`."""
        token = "session-" + secrets.token_urlsafe(24)
        self._names[hash_token(token)] = bot_name
        return token

    def bot_name(self, token: str) -> str | None:
        """The bot a session token was minted for, or None."""
        return self._names.get(hash_token(token))

    def revoke(self, bot_name: str) -> None:
        """Invalidate every session token minted for `bot_name`."""
        self._names = {t: n for t, n in self._names.items() if n != bot_name}


class AnyOf:
    """Accepts a token that any of several authenticators accepts (the first answer wins)."""

    def __init__(self, authenticators: Sequence[Authenticator]) -> None:
        self._authenticators = tuple(authenticators)

    def bot_name(self, token: str) -> str | None:
        """The bot name from the first authenticator that knows the token."""
        for authenticator in self._authenticators:
            name = authenticator.bot_name(token)
            if name is not None:
                return name
        return None
