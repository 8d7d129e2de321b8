"""Sandboxes for the commands arena runs on others' behalf: bots and their builds.

`wrap` turns a command line into one that runs it under bubblewrap — no network, its
own PID namespace, a read-only view of the system and of the paths it is given, a
private size-limited ``/tmp``, resource `Limits`, and, when arena runs as root, a uid of
its own; `popen_kwargs` gives the matching `subprocess.Popen` arguments. `status` says
whether (and how) sandboxing works on this machine, in plain words.
"""

from arena.sandbox.api import (
    SandboxStatus,
    command_paths,
    popen_kwargs,
    program_path,
    sandbox_env,
    sdk_paths,
    status,
    wrap,
)
from arena.sandbox.limits import Limits
from arena.sandbox.plan import SYSTEM_PATHS, SandboxError, sandbox_uid
from arena.sandbox.report import describe

__all__ = ["SYSTEM_PATHS", "Limits", "SandboxError", "SandboxStatus", "command_paths", "describe",
           "popen_kwargs", "program_path", "sandbox_env", "sandbox_uid", "sdk_paths", "status",
           "wrap"]
