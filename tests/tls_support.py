"""Certificates for TLS tests: a throwaway CA and a certificate it signed for 127.0.0.1."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import trustme


@dataclass(frozen=True)
class Certificates:
    """PEM files: the CA to trust, the server's certificate chain and its private key."""

    ca: Path
    cert: Path
    key: Path


def write_certificates(folder: Path) -> Certificates:
    """Make a CA and a certificate for 127.0.0.1 and localhost, written into `folder`."""
    ca = trustme.CA()
    issued = ca.issue_cert("127.0.0.1", "localhost")
    files = Certificates(folder / "ca.pem", folder / "cert.pem", folder / "key.pem")
    ca.cert_pem.write_to_path(str(files.ca))
    issued.private_key_pem.write_to_path(str(files.key))
    for index, blob in enumerate(issued.cert_chain_pems):
        blob.write_to_path(str(files.cert), append=index > 0)
    return files
