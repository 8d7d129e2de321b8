"""TLS on the server's port: bots and the SDK connect encrypted; managed bots use loopback."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import grpc
import pytest
import trustme

from arena.client import Client, ClientConfigError, ExitReason, FunctionBot
from arena.client.connection import channel_credentials
from arena.policy import BotPolicy
from arena.server.tls import ServerTls, TlsError
from tests.server.bots import TestBot, first_legal
from tests.server.server_support import ONE_HAND, TOKENS, running_server
from tests.tls_support import write_certificates


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A CA, a certificate it signed for 127.0.0.1 with its key, and another key."""
    folder = tmp_path_factory.mktemp("tls")
    files = write_certificates(folder)
    other_key = folder / "other-key.pem"
    trustme.CA().issue_cert("127.0.0.1").private_key_pem.write_to_path(str(other_key))
    return {"ca": files.ca, "cert": files.cert, "key": files.key, "other key": other_key}


def test_a_certificate_and_key_are_checked_before_serving(certificates: dict[str, Path],
                                                         tmp_path: Path) -> None:
    tls = ServerTls.from_files(certificates["cert"], certificates["key"])
    assert tls.certificate_chain.startswith(b"-----BEGIN CERTIFICATE-----")
    with pytest.raises(TlsError, match="cannot read the TLS certificate .*missing.pem"):
        ServerTls.from_files(tmp_path / "missing.pem", certificates["key"])
    (tmp_path / "garbage.pem").write_text("not a key")
    with pytest.raises(TlsError, match="garbage.pem is not PEM"):
        ServerTls.from_files(certificates["cert"], tmp_path / "garbage.pem")
    with pytest.raises(TlsError, match="not a certificate chain and its private key"):
        ServerTls.from_files(certificates["cert"], certificates["other key"])


def test_the_sdk_plays_over_tls_and_a_plaintext_bot_cannot_connect(
        certificates: dict[str, Path]) -> None:
    tls = ServerTls.from_files(certificates["cert"], certificates["key"])

    async def scenario() -> None:
        async with running_server(tls=tls) as server:
            assert server.port != server.local_port
            client = Client(FunctionBot(lambda view, legal: 0, name="first"),
                            server=f"127.0.0.1:{server.port}", token=TOKENS["alice"],
                            tls=str(certificates["ca"]))
            thread = threading.Thread(target=client.run)
            thread.start()
            try:
                plaintext = await TestBot(server.port or 0, TOKENS["carol"]).start()
                await plaintext.wait_ended()
                assert plaintext.status is grpc.StatusCode.UNAVAILABLE
                local = await TestBot(server.local_port or 0, TOKENS["bob"],
                                      first_legal).start()
                await server.wait_for_bots(["alice", "bob"], timeout=10)
                result = await server.play_game(["alice", "bob"], ONE_HAND, 3, BotPolicy(), "g")
                assert result.strikes == (0, 0)
                await local.close()
            finally:
                client.stop()
                await asyncio.to_thread(thread.join, 10)

    asyncio.run(scenario())


def test_the_sdk_refuses_a_certificates_file_it_cannot_use(tmp_path: Path) -> None:
    with pytest.raises(ClientConfigError, match="cannot read the TLS certificates"):
        channel_credentials(tmp_path / "missing.pem")
    (tmp_path / "empty.pem").write_text("nothing here")
    with pytest.raises(ClientConfigError, match="holds no PEM certificate"):
        channel_credentials(None, {"ARENA_TLS_CA": str(tmp_path / "empty.pem")})
    assert channel_credentials(None, {}) is None
    assert channel_credentials(None, {"ARENA_TLS": "1"}) is not None
    assert channel_credentials(False, {"ARENA_TLS": "1"}) is None


def test_run_reports_an_unusable_tls_setting_instead_of_raising(tmp_path: Path) -> None:
    from arena.client import run

    reason = run(lambda view, legal: 0, server="127.0.0.1:1", token="t",
                 tls=tmp_path / "missing.pem", configure_logging=False)
    assert reason is ExitReason.REJECTED and reason.exit_code == 2


def test_server_commands_read_the_tls_settings_exactly_as_bots_do(tmp_path: Path) -> None:
    from arena.cli.session import tls_from_env

    for value, on in (("1", True), ("y", True), ("TRUE", True), ("off", False), ("0", False)):
        assert (tls_from_env({"ARENA_TLS": value}) is not None) is on, value
        assert (channel_credentials(None, {"ARENA_TLS": value}) is not None) is on, value
    (tmp_path / "empty.pem").write_text("nothing here")
    with pytest.raises(ValueError, match="holds no PEM certificate"):
        tls_from_env({"ARENA_TLS_CA": str(tmp_path / "empty.pem")})
