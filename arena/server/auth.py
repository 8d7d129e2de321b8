"""Who is connecting: tokens in call metadata, the authenticators that name their bot,
and the organizer's admin token (`arena.server.permissions` decides what each may call)."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Protocol

from arena.store import hash_token

TOKENS_VARIABLE = "ARENA_TOKENS"
"""Environment variable holding a JSON object of bot name → token."""
TOKENS_FILE_VARIABLE = "ARENA_TOKENS_FILE"
"""Environment variable naming a tokens file (see `TokenTable.from_file`)."""


class Authenticator(Protocol):
    """Names the bot a token belongs to."""

    def bot_name(self, token: str) -> str | None:
        """The registered name of the bot holding `token`, or None for an unknown token."""


class TokenError(ValueError):
    """A token table could not be read; the message says where and why."""


class TokenTable:
    """An authenticator over a fixed table of bot name → token (for tests and `arena serve`).

    Tokens are kept only as SHA-256 digests, so a lookup leaks nothing about
    the tokens through timing.
    """

    def __init__(self, tokens: Mapping[str, str]) -> None:
        self._names: dict[str, str] = {}
        for name, token in tokens.items():
            if not name or not token:
                raise TokenError("bot names and tokens must not be empty")
            digest = hash_token(token)
            if digest in self._names:
                raise TokenError(f"bots {self._names[digest]!r} and {name!r} share a token")
            self._names[digest] = name

    def bot_name(self, token: str) -> str | None:
        """The name of the bot holding `token`, or None."""
        return self._names.get(hash_token(token))

    @property
    def names(self) -> list[str]:
        """Every bot name in the table, sorted."""
        return sorted(self._names.values())

    @classmethod
    def from_json(cls, text: str) -> TokenTable:
        """Read a JSON object mapping bot name → token."""
        return cls(tokens_from_json(text))

    @classmethod
    def from_file(cls, path: str | Path) -> TokenTable:
        """Read a tokens file: a JSON object, or ``NAME TOKEN`` lines (``#`` comments)."""
        return cls(tokens_from_file(path))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> TokenTable:
        """Read the file named by `ARENA_TOKENS_FILE` and the JSON in `ARENA_TOKENS`.

        Both may be set; `ARENA_TOKENS` wins for a name in both. Neither set gives
        an empty table, which lets no bot in.
        """
        env = os.environ if environ is None else environ
        tokens: dict[str, str] = {}
        if env.get(TOKENS_FILE_VARIABLE):
            tokens.update(tokens_from_file(env[TOKENS_FILE_VARIABLE]))
        if env.get(TOKENS_VARIABLE):
            tokens.update(tokens_from_json(env[TOKENS_VARIABLE]))
        return cls(tokens)


def tokens_from_json(text: str) -> dict[str, str]:
    """Bot name → token from a JSON object."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TokenError(f"tokens are not valid JSON: {exc}") from None
    if not isinstance(data, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise TokenError("tokens must be a JSON object of bot name → token strings")
    return data


def tokens_from_lines(lines: Iterable[str]) -> dict[str, str]:
    """Bot name → token from ``NAME TOKEN`` lines; blank lines and ``#`` comments are skipped."""
    tokens: dict[str, str] = {}
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        parts = text.split()
        if len(parts) != 2:
            raise TokenError(f"line {number}: expected 'NAME TOKEN', got {text!r}")
        tokens[parts[0]] = parts[1]
    return tokens


def tokens_from_file(path: str | Path) -> dict[str, str]:
    """Bot name → token from a file holding a JSON object or ``NAME TOKEN`` lines."""
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise TokenError(f"{path}: {exc.strerror}") from None
    if text.lstrip().startswith("{"):
        return tokens_from_json(text)
    return tokens_from_lines(text.splitlines())


def bearer_token(metadata: Iterable[tuple[str, str | bytes]] | None) -> str | None:
    """The token of an ``authorization: Bearer <token>`` metadata entry, if there is one."""
    for key, value in metadata or ():
        if key.lower() != "authorization" or not isinstance(value, str):
            continue
        scheme, _, token = value.strip().partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            return token.strip()
    return None


ADMIN_TOKEN_VARIABLE = "ARENA_ADMIN_TOKEN"
"""Environment variable holding the admin token (for `arena serve` and `--server`)."""


def admin_token_path(db_path: Path) -> Path:
    """Where `arena serve` keeps the admin token of a database: a file beside it."""
    return db_path.parent / f"{db_path.stem}.admin-token"


class AdminTokenError(ValueError):
    """An admin token that cannot go in gRPC metadata; the message names where it is from."""


def find_admin_token(db_path: Path, environ: Mapping[str, str] | None = None) -> str | None:
    """The admin token for a server: `ARENA_ADMIN_TOKEN`, else the file `arena serve`
    wrote beside `db_path`, else None; without surrounding whitespace. A token gRPC
    cannot send raises `AdminTokenError`."""
    env = os.environ if environ is None else environ
    if env.get(ADMIN_TOKEN_VARIABLE, "").strip():
        return sendable_token(env[ADMIN_TOKEN_VARIABLE], ADMIN_TOKEN_VARIABLE)
    path = admin_token_path(db_path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return sendable_token(text, str(path)) if text.strip() else None


def issue_admin_token(db_path: Path, environ: Mapping[str, str] | None = None,
                      ) -> tuple[str, Path | None]:
    """The admin token `arena serve` uses, and the file that holds it: the one in
    `ARENA_ADMIN_TOKEN` (kept in no file), else the one in the file beside `db_path`
    (if only its owner may read it), else a new one written there, owner-only. A token
    no command could send raises `AdminTokenError`."""
    env = os.environ if environ is None else environ
    if env.get(ADMIN_TOKEN_VARIABLE, "").strip():
        return sendable_token(env[ADMIN_TOKEN_VARIABLE], ADMIN_TOKEN_VARIABLE), None
    path = admin_token_path(db_path)
    with contextlib.suppress(OSError):
        if path.stat().st_mode & 0o077 == 0 and (
                text := path.read_text(encoding="utf-8", errors="replace")).strip():
            return sendable_token(text, str(path)), path
    token = secrets.token_urlsafe(24)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        os.fchmod(file.fileno(), 0o600)
        file.write(token + "\n")
    return token, path


def sendable_token(token: str, source: str, kind: str = "the admin token") -> str:
    """`token` without surrounding whitespace, if gRPC metadata can carry what is left
    (`AdminTokenError`, naming `source`, if not)."""
    token = token.strip()
    if not all(" " <= character <= "~" for character in token):
        raise AdminTokenError(f"{kind} in {source} holds a character gRPC metadata "
                              "cannot carry (only printable ASCII can go)")
    return token
