"""Parts of pages that show one server answer and nothing else, rendered once per answer.

A pool's leaderboard table is a function of its `GetRankings` answer alone: the same
answer renders the same HTML for every visitor. A large pool's table is most of what
its page costs (a thousand rows, a dozen escaped values each), so each part is kept by
what it shows, the answer's bytes, and rendered again only when the answer changes.
The answer itself is still asked of the server on every page, with the visitor's own
token: the server's permission table decides, the cache only saves the rendering.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable

from google.protobuf.message import Message
from markupsafe import Markup

KEPT = 32
"""Parts kept at most (the least recently shown go first)."""


class RenderedParts:
    """Rendered parts by (kind, the answer they show)."""

    def __init__(self, kept: int = KEPT) -> None:
        self.kept = kept
        self._parts: OrderedDict[tuple[str, bytes], Markup] = OrderedDict()
        self.rendered = 0
        """Parts rendered so far (the tests count them)."""

    def get(self, kind: str, answer: Message, render: Callable[[], str]) -> Markup:
        """The part `kind` showing `answer`: kept, or made by `render()` (which must
        read nothing but `answer`) and kept."""
        digest = hashlib.blake2b(answer.SerializeToString(deterministic=True),
                                 digest_size=16).digest()
        key = (kind, digest)
        part = self._parts.get(key)
        if part is None:
            part = Markup(render())
            self.rendered += 1
            self._parts[key] = part
            while len(self._parts) > self.kept:
                self._parts.popitem(last=False)
        self._parts.move_to_end(key)
        return part
