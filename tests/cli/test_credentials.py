"""The tokens `arena login` keeps: where the file is, what it holds, that only its owner
may read it, and the wording when it cannot be read or written."""

from __future__ import annotations

import json
import os
import resource
import signal
import stat
from pathlib import Path
from typing import Any

import pytest

from arena.cli.credentials import (
    CREDENTIALS_VARIABLE,
    CredentialsError,
    credentials_path,
    forget_token,
    store_token,
    stored_token,
)

SERVER = "arena.example:50051"


def env_for(path: Path) -> dict[str, str]:
    """An environment naming the credentials file `path`."""
    return {CREDENTIALS_VARIABLE: str(path)}


def test_the_credentials_variable_names_the_file() -> None:
    assert credentials_path({CREDENTIALS_VARIABLE: "/x/creds.json",
                             "XDG_CONFIG_HOME": "/cfg"}) == Path("/x/creds.json")


def test_the_file_is_under_the_xdg_config_folder() -> None:
    assert credentials_path({"XDG_CONFIG_HOME": "/cfg", CREDENTIALS_VARIABLE: ""}) == Path(
        "/cfg/arena/credentials.json")


def test_without_xdg_the_file_is_under_the_home_config_folder() -> None:
    assert credentials_path({"XDG_CONFIG_HOME": ""}) == (
        Path.home() / ".config" / "arena" / "credentials.json")


def test_no_file_keeps_no_token(tmp_path: Path) -> None:
    assert stored_token(SERVER, env_for(tmp_path / "none.json")) is None


def test_a_stored_token_is_kept_per_server_with_name_and_role(tmp_path: Path) -> None:
    env = env_for(tmp_path / "cfg" / "credentials.json")
    path = store_token(SERVER, "t1", "amy", "author", env)
    store_token("other:1", "t2", "bob", "viewer", env)
    assert (stored_token(SERVER, env), stored_token("other:1", env)) == ("t1", "t2")
    assert json.loads(path.read_text())[SERVER] == {"token": "t1", "name": "amy",
                                                    "role": "author"}


def test_the_credentials_file_is_indented_json_and_its_folders_are_made(tmp_path: Path
                                                                        ) -> None:
    env = env_for(tmp_path / "home" / "config" / "arena" / "credentials.json")
    path = store_token(SERVER, "t1", "amy", "author", env)
    store_token("other:1", "t2", "bob", "viewer", env)
    forget_token("other:1", env)
    assert path.read_text() == json.dumps(
        {SERVER: {"token": "t1", "name": "amy", "role": "author"}}, indent=2)


def test_the_credentials_file_and_its_new_folder_are_owner_only(tmp_path: Path) -> None:
    path = store_token(SERVER, "t1", "amy", "author",
                       env_for(tmp_path / "cfg" / "credentials.json"))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_storing_again_replaces_the_token_and_tightens_a_loose_file(tmp_path: Path) -> None:
    env = env_for(tmp_path / "credentials.json")
    path = store_token(SERVER, "t1", "amy", "author", env)
    path.chmod(0o644)
    store_token(SERVER, "t9", "amy", "organizer", env)
    assert stored_token(SERVER, env) == "t9"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.parametrize("entry", [{"token": ""}, {"token": 7}, {"name": "amy"}, "t1"])
def test_an_entry_without_a_token_string_keeps_no_token(tmp_path: Path, entry: object) -> None:
    (tmp_path / "credentials.json").write_text(json.dumps({SERVER: entry}))
    assert stored_token(SERVER, env_for(tmp_path / "credentials.json")) is None


def test_forgetting_drops_one_servers_token(tmp_path: Path) -> None:
    env = env_for(tmp_path / "credentials.json")
    store_token(SERVER, "t1", "amy", "author", env)
    store_token("other:1", "t2", "bob", "viewer", env)
    assert forget_token(SERVER, env) is True
    assert (stored_token(SERVER, env), stored_token("other:1", env)) == (None, "t2")
    assert forget_token(SERVER, env) is False


def test_forgetting_without_a_file_drops_nothing(tmp_path: Path) -> None:
    assert forget_token(SERVER, env_for(tmp_path / "none.json")) is False
    assert not (tmp_path / "none.json").exists()


def test_a_file_that_is_not_json_is_refused_with_what_to_do(tmp_path: Path) -> None:
    (tmp_path / "credentials.json").write_text("{nope")
    with pytest.raises(CredentialsError, match="credentials.json is not the JSON `arena "
                                               "login` writes; remove it and log in again"):
        stored_token(SERVER, env_for(tmp_path / "credentials.json"))


def test_a_file_of_json_that_is_no_object_is_refused(tmp_path: Path) -> None:
    (tmp_path / "credentials.json").write_text("[1, 2]")
    with pytest.raises(CredentialsError, match="credentials.json is not the JSON `arena "
                                               "login` writes$"):
        stored_token(SERVER, env_for(tmp_path / "credentials.json"))


def test_a_folder_in_place_of_the_file_cannot_be_read(tmp_path: Path) -> None:
    (tmp_path / "credentials.json").mkdir()
    with pytest.raises(CredentialsError, match="cannot read .*credentials.json: Is a directory"):
        stored_token(SERVER, env_for(tmp_path / "credentials.json"))


def test_a_file_that_cannot_be_created_is_refused_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "credentials.json").symlink_to(tmp_path / "gone" / "credentials.json")
    with pytest.raises(CredentialsError, match="cannot write .*credentials.json: No such file "
                                               "or directory"):
        store_token(SERVER, "t1", "amy", "author", env_for(tmp_path / "credentials.json"))


def test_a_folder_that_cannot_be_made_is_refused_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "config").symlink_to(tmp_path / "gone")
    with pytest.raises(CredentialsError, match="cannot write .*credentials.json: File exists"):
        store_token(SERVER, "t1", "amy", "author",
                    env_for(tmp_path / "config" / "arena" / "credentials.json"))


def test_storing_writes_indented_json(tmp_path: Path) -> None:
    path = store_token(SERVER, "t1", "amy", "author", env_for(tmp_path / "credentials.json"))
    assert path.read_text() == json.dumps(
        {SERVER: {"token": "t1", "name": "amy", "role": "author"}}, indent=2)


def test_a_new_credentials_file_is_owner_only_from_the_moment_it_is_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whoever opens the file before it is tightened keeps that access: so even with no
    umask to narrow it, the new file is owner-only as it is opened for writing."""
    modes: list[int] = []
    fdopen = os.fdopen

    def fdopen_noting_the_mode(descriptor: int, *args: Any, **kwargs: Any) -> Any:
        modes.append(stat.S_IMODE(os.fstat(descriptor).st_mode))
        return fdopen(descriptor, *args, **kwargs)

    monkeypatch.setattr(os, "fdopen", fdopen_noting_the_mode)
    umask = os.umask(0)
    try:
        store_token(SERVER, "t1", "amy", "author", env_for(tmp_path / "credentials.json"))
    finally:
        os.umask(umask)
    assert modes == [0o600]


def test_a_logout_that_cannot_write_the_file_is_refused_with_the_reason(tmp_path: Path
                                                                        ) -> None:
    env = env_for(tmp_path / "credentials.json")
    store_token(SERVER, "t1", "amy", "author", env)
    store_token("other:1", "t2", "bob", "viewer", env)
    limits = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (10, limits[1]))  # no room: even root
    try:
        with pytest.raises(CredentialsError,
                           match="cannot write .*credentials.json: File too large"):
            forget_token(SERVER, env)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limits)
        signal.signal(signal.SIGXFSZ, handler)
    assert stored_token(SERVER, env) == "t1" and stored_token("other:1", env) == "t2"
    assert [p.name for p in tmp_path.iterdir()] == ["credentials.json"]


def test_a_linked_credentials_file_is_written_where_the_link_points(tmp_path: Path) -> None:
    (tmp_path / "dotfiles").mkdir()
    (tmp_path / "credentials.json").symlink_to(tmp_path / "dotfiles" / "credentials.json")
    store_token(SERVER, "t1", "amy", "author", env_for(tmp_path / "credentials.json"))
    assert (tmp_path / "credentials.json").is_symlink()
    assert stored_token(SERVER, env_for(tmp_path / "dotfiles" / "credentials.json")) == "t1"
