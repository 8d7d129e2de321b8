"""The tokens `arena login` keeps, one per server, in an owner-only file under the
user's config folder (`$XDG_CONFIG_HOME/arena/credentials.json`, by default
`~/.config/arena/credentials.json`)."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

CREDENTIALS_VARIABLE = "ARENA_CREDENTIALS"
"""Names another credentials file (tests, several identities on one account)."""


class CredentialsError(ValueError):
    """The credentials file cannot be read or written; the message says why."""


def credentials_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where the tokens are kept."""
    env = os.environ if environ is None else environ
    if env.get(CREDENTIALS_VARIABLE):
        return Path(env[CREDENTIALS_VARIABLE])
    config = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "arena" / "credentials.json"


def _load(path: Path) -> dict[str, dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise CredentialsError(f"cannot read {path}: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise CredentialsError(f"{path} is not the JSON `arena login` writes; remove it "
                               "and log in again") from None
    if not isinstance(data, dict):
        raise CredentialsError(f"{path} is not the JSON `arena login` writes")
    return {k: v for k, v in data.items() if isinstance(v, dict)}


def stored_token(server: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The token kept for `server`, if any."""
    entry = _load(credentials_path(environ)).get(server)
    token = None if entry is None else entry.get("token")
    return token if isinstance(token, str) and token else None


def store_token(server: str, token: str, name: str, role: str,
                environ: Mapping[str, str] | None = None) -> Path:
    """Keep `token` for `server` (replacing any); return the file, owner-only."""
    path = credentials_path(environ)
    data = _load(path)
    data[server] = {"token": token, "name": name, "role": role}
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise CredentialsError(f"cannot write {path}: {exc.strerror}") from None
    _save(path, data)
    return path


def forget_token(server: str, environ: Mapping[str, str] | None = None) -> bool:
    """Drop the token kept for `server`; whether there was one."""
    path = credentials_path(environ)
    data = _load(path)
    if server not in data:
        return False
    del data[server]
    _save(path, data)
    return True


def _save(path: Path, data: dict[str, dict[str, Any]]) -> None:
    """Write `data` as the file at `path` (or where its link points), owner-only: whole
    in a new file beside it, then put in its place, so a write that fails (a full disk)
    leaves the tokens kept before."""
    target = path.resolve()
    try:
        descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name}.",
                                                 dir=target.parent)
    except OSError as exc:
        raise CredentialsError(f"cannot write {path}: {exc.strerror}") from None
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            json.dump(data, file, indent=2)
        os.replace(temporary, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise CredentialsError(f"cannot write {path}: {exc.strerror}") from None
