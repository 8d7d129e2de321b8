"""A bot stops on SIGTERM whichever of its threads the kernel hands the signal to: an
idle bot's main thread, asleep in its event loop, still runs Python's handler soon."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess

from tests.bots.bot_harness import BotProcess, LiveArena, python_command

TOKENS = {"random": "token-random"}


def _other_threads(pid: int) -> list[int]:
    return [int(tid) for tid in os.listdir(f"/proc/{pid}/task") if int(tid) != pid]


def _signal_thread(pid: int, tid: int, signum: int) -> None:
    """tgkill(2): `signum` to thread `tid` of process `pid`, and to no other thread."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.tgkill(pid, tid, signum) != 0:
        raise OSError(ctypes.get_errno(), f"tgkill({pid}, {tid}) failed")


def test_an_idle_bot_stops_on_a_sigterm_delivered_to_one_of_grpcs_threads() -> None:
    with LiveArena(TOKENS) as live:
        bot = BotProcess("random", python_command("random_bot"), live.address,
                         TOKENS["random"])
        try:
            live.wait_for_bots(list(TOKENS), timeout=30)
            threads = _other_threads(bot.process.pid)
            assert threads, "gRPC runs threads of its own beside the bot's main thread"
            _signal_thread(bot.process.pid, threads[-1], signal.SIGTERM)
            code = bot.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        finally:
            bot.stop()
    assert code == 0, f"the bot did not stop on SIGTERM within 5 s:\n{bot.output}"
    assert "SIGTERM: stopping" in bot.output
