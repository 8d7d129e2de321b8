"""Only a run on a cluster pays for `distributed`: nothing else in arena imports it."""

from __future__ import annotations

import subprocess
import sys

from tests.support import ROOT


def test_the_cli_and_local_workers_do_not_import_distributed() -> None:
    check = ("import sys, arena.cli, arena.cli.session, arena.cli.tournaments, "
             "arena.distributed, arena.distributed.local, arena.server.assembly; "
             "sys.exit('distributed' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", check], cwd=ROOT).returncode == 0


def test_the_cluster_module_is_where_distributed_comes_in() -> None:
    check = "import sys, arena.distributed.cluster; sys.exit('distributed' not in sys.modules)"
    assert subprocess.run([sys.executable, "-c", check], cwd=ROOT).returncode == 0
