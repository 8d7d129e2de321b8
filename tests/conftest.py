"""Suite-wide rules: under CI (CI=true) a skipped test is a failure; Ctrl-C reaches the
processes the tests start, however the suite itself was started."""

from __future__ import annotations

import os

# Some tests start processes with `preexec_fn`, which makes subprocess fork() rather than
# vfork() (arena itself never passes one), from a process where gRPC threads run. gRPC's
# fork handlers then race those threads and may abort the child before it execs ("Other
# threads are currently calling into gRPC, skipping fork() handlers"). Every child here
# execs at once and none uses a channel across the fork, for which gRPC documents turning
# its fork support off. Set before gRPC is imported.
os.environ["GRPC_ENABLE_FORK_SUPPORT"] = "false"

import signal  # noqa: E402

import pytest  # noqa: E402

from tests.support import IN_CI  # noqa: E402

pytest_plugins = ("tests.postgres_support",)

# A shell starts a background job (`make test &`) with SIGINT ignored, and every process
# a test starts would inherit that: the tests that press Ctrl-C need it to reach them.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """Turn a skip into a failure when running under CI, where every toolchain is installed."""
    outcome = yield
    report = outcome.get_result()
    if IN_CI and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped under CI=true, where nothing may skip: {reason}"
