"""TLS for the server's public port: a certificate chain and its private key, checked early.

With TLS, `ArenaServer` serves its public address encrypted and keeps a
second, plaintext port on 127.0.0.1 for what runs on the same machine (the
managed bots it launches, the CLI's in-process sessions), so that bots
without TLS support can still be managed.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path

import grpc


class TlsError(ValueError):
    """A certificate or key could not be used; the message says which file and why."""


@dataclass(frozen=True)
class ServerTls:
    """The PEM certificate chain and private key the server presents."""

    certificate_chain: bytes
    private_key: bytes

    @classmethod
    def from_files(cls, certificate: Path, key: Path) -> ServerTls:
        """Read and check a PEM certificate chain and its key; `TlsError` if they do not
        load or do not belong together."""
        chain, private_key = _read_pem(certificate, "certificate"), _read_pem(key, "key")
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        try:
            context.load_cert_chain(certificate, key)
        except ssl.SSLError as exc:
            raise TlsError(f"{certificate} and {key} are not a certificate chain and its "
                           f"private key ({exc.reason or exc})") from None
        return cls(chain, private_key)

    def credentials(self) -> grpc.ServerCredentials:
        """The gRPC server credentials."""
        return grpc.ssl_server_credentials([(self.private_key, self.certificate_chain)])


def _read_pem(path: Path, what: str) -> bytes:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TlsError(f"cannot read the TLS {what} {path}: {exc.strerror}") from None
    if b"-----BEGIN " not in data:
        raise TlsError(f"the TLS {what} {path} is not PEM")
    return data
