"""What lets an operator watch a command: `--metrics HOST:PORT` (Prometheus metrics with
health and readiness) and the log options every command shares."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from arena.metrics import Metrics, MetricsServer
    from arena.store import Store

F = TypeVar("F", bound=Callable[..., Any])

MetricsAddress = tuple[str, int]
"""Where `--metrics` serves: a host and a port (0: a free one)."""


class MetricsAddressType(click.ParamType):  # type: ignore[type-arg]
    """`--metrics HOST:PORT` (or `:PORT`, or a bare PORT, on 127.0.0.1)."""

    name = "host:port"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> MetricsAddress:
        """The host and port `value` names, or a usage error."""
        if isinstance(value, tuple):
            return value
        text = str(value).strip()
        host, _, port_text = text.rpartition(":")
        host = host.strip("[]") or "127.0.0.1"
        try:
            port = int(port_text)
        except ValueError:
            self.fail(f"{text!r} is not HOST:PORT (say 127.0.0.1:9464)", param, ctx)
        if not 0 <= port <= 65535:
            self.fail(f"port {port} is not between 0 and 65535", param, ctx)
        return host, port


def metrics_option(function: F) -> F:
    """The `--metrics HOST:PORT` option of the commands that drive runs."""
    return click.option(
        "--metrics", "metrics_at", type=MetricsAddressType(), default=None,
        metavar="HOST:PORT",
        help="Serve Prometheus metrics at http://HOST:PORT/metrics, with /healthz (the "
             "process answers) and /readyz (it can record: its store takes a write); "
             "port 0 picks a free one, said on stderr.")(function)


def refuse_remote_metrics(server: str | None, metrics_at: MetricsAddress | None) -> None:
    """A usage error for --metrics with --server: the run is the server's to count."""
    if server and metrics_at is not None:
        raise click.UsageError("--metrics counts what this process plays and records; with "
                               "--server the run is the server's: start `arena serve` with "
                               "--metrics")


@contextlib.contextmanager
def serving_metrics(metrics: Metrics, at: MetricsAddress, store: Store
                    ) -> Iterator[MetricsServer]:
    """Serve `metrics` at `at` while the block runs, ready while `store` takes a write;
    a `ClickException` when the address cannot be had."""
    import logging

    from arena.logs import is_json
    from arena.metrics import MetricsServer

    host, port = at
    server = MetricsServer(metrics, host, port, ready=store.cannot_write)
    try:
        server.start()
    except OSError as exc:
        raise click.ClickException(f"--metrics: cannot listen on {host}:{port}: "
                                   f"{exc.strerror or exc}") from None
    where = f"http://{host}:{server.port}/metrics"
    logging.getLogger("arena.metrics").info("serving metrics at %s", where,
                                            extra={"metrics_url": where})
    if not is_json():
        click.echo(f"metrics at {where} (health /healthz, readiness /readyz)", err=True)
    try:
        yield server
    finally:
        server.stop()


def configure_logs(log_format: str, log_file: Path | None) -> None:
    """Set up the logs as --log-format and --log-file say (nothing for the defaults); a
    `ClickException` for a log file that cannot be opened."""
    from arena.logs import configure

    if log_format == "human" and log_file is None:
        return
    try:
        configure("json" if log_format == "json" else "human", log_file)
    except OSError as exc:
        raise click.ClickException(f"--log-file: cannot write {log_file}: "
                                   f"{exc.strerror or exc}") from None
