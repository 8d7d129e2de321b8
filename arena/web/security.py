"""Who a visitor is, and the guards around what they send: sign-in sessions kept on the
server, the CSRF token every form carries, and the limit on sign-in tries.

A session's cookie holds only a random id; the author's token stays in this process's
memory (`Sessions`), and every page they open calls the server with it.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

SESSION_COOKIE = "arena_session"
CSRF_COOKIE = "arena_csrf"
CSRF_FIELD = "csrf"

SESSION_SECONDS = 12 * 3600.0
"""How long a sign-in lasts without being used."""

MAX_SESSIONS = 10_000
"""Sessions kept at once; past it the least recently used is dropped."""

LOGIN_TRIES = 5
LOGIN_WINDOW_SECONDS = 60.0
"""A client address may try to sign in `LOGIN_TRIES` times in any `LOGIN_WINDOW_SECONDS`."""


@dataclass(slots=True)
class SignedIn:
    """A visitor signed in with a token: who the server says they are."""

    token: str
    name: str
    role: str
    csrf: str
    last_seen: float

    @property
    def is_organizer(self) -> bool:
        """Whether the token is the organizer's."""
        return self.role == "organizer"


@dataclass
class Sessions:
    """Session id → the signed-in visitor, kept in memory (a restart signs everyone out)."""

    lifetime: float = SESSION_SECONDS
    capacity: int = MAX_SESSIONS
    clock: Callable[[], float] = time.monotonic
    _open: dict[str, SignedIn] = field(default_factory=dict)

    def open(self, token: str, name: str, role: str) -> tuple[str, SignedIn]:
        """A new session for `token`: its id (for the cookie) and its record."""
        while len(self._open) >= self.capacity:
            del self._open[next(iter(self._open))]
        session_id = secrets.token_urlsafe(32)
        signed = SignedIn(token, name, role, secrets.token_urlsafe(32), self.clock())
        self._open[session_id] = signed
        return session_id, signed

    def get(self, session_id: str | None) -> SignedIn | None:
        """The visitor of `session_id`, if it is open and has not lapsed."""
        if not session_id:
            return None
        signed = self._open.get(session_id)
        if signed is None:
            return None
        now = self.clock()
        if now - signed.last_seen > self.lifetime:
            del self._open[session_id]
            return None
        signed.last_seen = now
        self._open[session_id] = self._open.pop(session_id)  # most recently used last
        return signed

    def close(self, session_id: str | None) -> None:
        """Sign the session out."""
        if session_id:
            self._open.pop(session_id, None)

    def __len__(self) -> int:
        return len(self._open)


def new_csrf() -> str:
    """A fresh CSRF token for a visitor not signed in (kept in their cookie)."""
    return secrets.token_urlsafe(32)


def same_token(sent: str | None, expected: str | None) -> bool:
    """Whether a form's CSRF token is the one expected, in constant time."""
    return bool(sent) and bool(expected) and hmac.compare_digest(str(sent), str(expected))


@dataclass
class LoginLimiter:
    """Counts sign-in tries per client address in a sliding window."""

    tries: int = LOGIN_TRIES
    window: float = LOGIN_WINDOW_SECONDS
    clock: Callable[[], float] = time.monotonic
    _seen: dict[str, deque[float]] = field(default_factory=dict)

    def allow(self, address: str) -> bool:
        """Count one try from `address`; False when it is over the limit."""
        now = self.clock()
        if len(self._seen) > 100_000:
            self._forget_quiet(now)
        recent = self._seen.setdefault(address, deque())
        while recent and now - recent[0] >= self.window:
            recent.popleft()
        if len(recent) >= self.tries:
            return False
        recent.append(now)
        return True

    def retry_after(self, address: str) -> int:
        """Seconds until `address` may try again."""
        recent = self._seen.get(address)
        if not recent:
            return 0
        return max(1, int(self.window - (self.clock() - recent[0])) + 1)

    def _forget_quiet(self, now: float) -> None:
        for address in [a for a, times in self._seen.items()
                        if not times or now - times[-1] >= self.window]:
            del self._seen[address]
