"""A tournament on a Dask cluster over TLS, started as docs/how-to/scale-out.md says:
``dask scheduler`` and ``dask worker`` with ``--tls-*`` options, the driver given its
certificate in Dask's
``DASK_DISTRIBUTED__COMM__TLS__*`` environment variables and ``--cluster tls://…``.

The certificates come from a throwaway CA (`trustme`). The scheduler, its worker
and the driver are real processes on 127.0.0.1, their HTTP servers too; the bots
are the deterministic sample bots, so the games match a run in one process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.cli_support import ARENA, add_bots, assert_recorded_once, marked_env, ok
from tests.distributed.test_workers import BOTS, _create, _games, _ratings
from tests.support import free_port, wait_until

pytestmark = pytest.mark.timeout(90)

DASK = [sys.executable, "-m", "dask"]
LOOPBACK_HTTP = ["--no-dashboard", "--dashboard-address", "127.0.0.1:0"]
"""Dask's HTTP server listens even without a dashboard: on loopback here."""


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CA (``ca.pem``) and a certificate and key for the scheduler, the worker and the
    driver (``NAME.pem``, ``NAME-key.pem``), as docs/how-to/scale-out.md names them."""
    import trustme

    folder = tmp_path_factory.mktemp("tls")
    ca = trustme.CA()
    ca.cert_pem.write_to_path(str(folder / "ca.pem"))
    for name in ("scheduler", "worker", "driver"):
        issued = ca.issue_cert("127.0.0.1", "localhost")
        issued.cert_chain_pems[0].write_to_path(str(folder / f"{name}.pem"))
        issued.private_key_pem.write_to_path(str(folder / f"{name}-key.pem"))
    return folder


def _tls(certificates: Path, name: str) -> list[str]:
    return ["--tls-ca-file", str(certificates / "ca.pem"),
            "--tls-cert", str(certificates / f"{name}.pem"),
            "--tls-key", str(certificates / f"{name}-key.pem")]


@pytest.fixture(scope="module")
def tls_cluster(certificates: Path) -> Iterator[str]:
    """A scheduler and one single-threaded worker started with the TLS options of
    docs/how-to/scale-out.md, on 127.0.0.1: the scheduler's ``tls://`` address."""
    port = free_port()
    address = f"tls://127.0.0.1:{port}"
    ready = certificates / "scheduler.json"
    with marked_env(f"tls-{os.getpid()}-{port}") as env:
        env = {key: value for key, value in env.items() if not key.startswith("DASK_")}
        scheduler = subprocess.Popen(
            [*DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port), *LOOPBACK_HTTP,
             "--scheduler-file", str(ready), *_tls(certificates, "scheduler")],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        worker = None
        try:
            wait_until(lambda: ready.exists() or scheduler.poll() is not None, timeout=30,
                       what="the TLS scheduler")
            assert scheduler.poll() is None, "the scheduler started"
            worker = subprocess.Popen(
                [*DASK, "worker", address, "--nthreads", "1", "--host", "127.0.0.1",
                 *LOOPBACK_HTTP, *_tls(certificates, "worker")],
                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            yield address
        finally:
            for process in (worker, scheduler):
                if process is not None:
                    process.terminate()
                    process.wait(timeout=30)


def _driver_env(certificates: Path, **extra: str) -> dict[str, str]:
    """The driver's environment: the Dask settings of docs/how-to/scale-out.md for its
    certificate."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("DASK_")}
    env.pop("ARENA_DB", None)
    return {**env, **extra}


def _run(db: Path, name: str, address: str, env: dict[str, str]
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, "--db", str(db), "tournament", "run", name,
                           "--cluster", address],
                          env=env, capture_output=True, text=True, timeout=80)


def test_a_tournament_on_a_tls_cluster_with_the_readmes_settings_plays_as_one_process(
        tmp_path: Path, certificates: Path, tls_cluster: str) -> None:
    db = tmp_path / "arena.db"
    add_bots(db, BOTS)
    total = _create(db, "alone", deals=4)
    _create(db, "tls", deals=4)
    ok(db, "tournament", "run", "alone")
    env = _driver_env(
        certificates,
        DASK_DISTRIBUTED__COMM__TLS__CA_FILE=str(certificates / "ca.pem"),
        DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT=str(certificates / "driver.pem"),
        DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY=str(certificates / "driver-key.pem"),
        DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION="True")
    run = _run(db, "tls", tls_cluster, env)
    assert run.returncode == 0, run.stderr
    assert_recorded_once(db, "tls", total)
    assert _games(db, "tls") == _games(db, "alone")
    assert _ratings(db, "tls") == _ratings(db, "alone")


def test_a_driver_without_a_certificate_is_refused_by_the_tls_cluster_saying_so(
        tmp_path: Path, certificates: Path, tls_cluster: str) -> None:
    db = tmp_path / "arena.db"
    add_bots(db, BOTS)
    _create(db, "plain", deals=1)
    env = _driver_env(
        certificates, DASK_DISTRIBUTED__COMM__TLS__CA_FILE=str(certificates / "ca.pem"))
    run = _run(db, "plain", tls_cluster, env)
    assert run.returncode != 0
    assert "Traceback" not in run.stderr
    assert f"could not be played on the cluster {tls_cluster}" in run.stderr
    assert "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT" in run.stderr
