"""`--server`: the admin token and TLS settings a command reads from the environment
or a file, against a real `arena serve` process; a setting that cannot be used is one
clear line naming where it came from."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.client.connection import TLS_CA_VARIABLE, TLS_VARIABLE
from arena.server.auth import ADMIN_TOKEN_VARIABLE, admin_token_path
from tests.cli.cli_support import arena, invoke, marked_env, serving, wait_for_line
from tests.support import free_port
from tests.tls_support import write_certificates

pytestmark = pytest.mark.timeout(60)

NO_BOTS = "no bots yet: add one with `arena bot add NAME`\n"


def test_an_admin_token_with_surrounding_whitespace_is_trimmed_by_serve_and_commands(
        tmp_path: Path) -> None:
    port = free_port()
    db = tmp_path / "served.db"
    with (marked_env(f"token-{os.getpid()}-{port}") as env,
          serving(db, port, {**env, ADMIN_TOKEN_VARIABLE: " s3cret-token\n"}) as server):
        wait_for_line(server, "Ctrl-C stops", timeout=20)
        for token in ("s3cret-token\n", "\ts3cret-token  ", "s3cret-token"):
            result = invoke("--server", f"127.0.0.1:{port}", "bot", "list",
                            env={ADMIN_TOKEN_VARIABLE: token})
            assert (result.exit_code, result.stdout, result.stderr) == (0, NO_BOTS, ""), token


@pytest.mark.parametrize("token", ["s3crét", "s3c\tret", "s3c\nret"])
def test_an_admin_token_gRPC_cannot_send_is_refused_naming_the_variable(
        tmp_path: Path, token: str) -> None:
    result = invoke("--db", str(tmp_path / "arena.db"), "--server", f"127.0.0.1:{free_port()}",
                    "bot", "list", env={ADMIN_TOKEN_VARIABLE: token})
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f"Error: the admin token in {ADMIN_TOKEN_VARIABLE} holds a character gRPC metadata "
        "cannot carry (only printable ASCII can go)\n")


@pytest.mark.parametrize("content", ["s3crét\n".encode(), b"\xff\xfe\n"])
def test_an_admin_token_file_gRPC_cannot_send_is_refused_naming_the_file(
        tmp_path: Path, content: bytes) -> None:
    db = tmp_path / "arena.db"
    path = admin_token_path(db)
    path.write_bytes(content)
    result = invoke("--db", str(db), "--server", f"127.0.0.1:{free_port()}", "bot", "list",
                    env={ADMIN_TOKEN_VARIABLE: None})
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f"Error: the admin token in {path} holds a character gRPC metadata "
        "cannot carry (only printable ASCII can go)\n")
    assert path.read_bytes() == content


def test_serve_refuses_an_admin_token_no_command_could_send(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    result = arena(db, "serve", "--port", "0", env={ADMIN_TOKEN_VARIABLE: "s3crét"})
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f"Error: the admin token in {ADMIN_TOKEN_VARIABLE} holds a character gRPC metadata "
        "cannot carry (only printable ASCII can go)\n")
    assert not admin_token_path(db).exists()


# --------------------------------------------------------------------- TLS

def test_a_tls_server_whose_certificate_is_not_trusted_is_said_to_fail_the_handshake(
        tmp_path: Path) -> None:
    (tmp_path / "theirs").mkdir()
    (tmp_path / "ours").mkdir()
    theirs, ours = write_certificates(tmp_path / "theirs"), write_certificates(tmp_path / "ours")
    port = free_port()
    address = f"127.0.0.1:{port}"
    with (marked_env(f"tls-{os.getpid()}-{port}") as env,
          serving(tmp_path / "served.db", port, env, "--tls-cert", str(theirs.cert),
                  "--tls-key", str(theirs.key)) as server):
        wait_for_line(server, "Ctrl-C stops", timeout=20)
        result = invoke("--db", str(tmp_path / "served.db"), "--server", address, "bot", "list",
                        env={TLS_CA_VARIABLE: str(ours.ca), TLS_VARIABLE: None})
        assert (result.exit_code, result.stdout) == (1, "")
        assert result.stderr == (
            f"Error: cannot reach the arena server at {address}: the TLS handshake failed: "
            f"its certificate does not match the certificates in {TLS_CA_VARIABLE} "
            f"({ours.ca}), or it does not serve TLS.\n")
        system = invoke("--db", str(tmp_path / "served.db"), "--server", address, "bot", "list",
                        env={TLS_CA_VARIABLE: None, TLS_VARIABLE: "1"})
        assert system.stderr == (
            f"Error: cannot reach the arena server at {address}: the TLS handshake failed: "
            f"its certificate does not match the system's trusted certificates "
            f"({TLS_VARIABLE}), or it does not serve TLS.\n")


def test_no_tls_server_at_the_address_is_not_blamed_on_an_unset_variable(
        tmp_path: Path) -> None:
    (tmp_path / "ours").mkdir()
    ca = write_certificates(tmp_path / "ours").ca
    address = f"127.0.0.1:{free_port()}"
    result = invoke("--db", str(tmp_path / "arena.db"), "--server", address, "bot", "list",
                    env={TLS_CA_VARIABLE: str(ca)})
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f"Error: cannot reach the arena server at {address}: is `arena serve` running? "
        "(If it is, the TLS handshake may have failed: its certificate may not match "
        f"the certificates in {TLS_CA_VARIABLE} ({ca}).)\n")
