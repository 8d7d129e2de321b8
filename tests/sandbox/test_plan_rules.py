"""The sandbox plan's smaller rules word by word: each kind of mount, the fixed options,
what a root arena adds, the plan's JSON, and which paths count as inside another."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from arena.sandbox import Limits, SandboxError
from arena.sandbox.plan import (
    SYSTEM_PATHS,
    UID_BASE,
    UID_SPAN,
    Mount,
    Plan,
    bwrap_arguments,
    bwrap_options,
    make_plan,
    sandbox_uid,
    sandboxed_command,
)


def mount_words(mount: Mount) -> list[str]:
    """bwrap's words for one mount, as a plan holding only it gives them."""
    words = bwrap_options(Plan(("/bin/true",), "/", (mount,)))
    start = words.index("/dev") + 1
    return words[start:words.index("--chdir")]


@pytest.mark.parametrize(("mount", "words"), [
    (Mount("ro", "/in", "/out"), ["--ro-bind", "/out", "/in"]),
    (Mount("rw", "/in", "/out"), ["--bind", "/out", "/in"]),
    (Mount("symlink", "/bin", "usr/bin"), ["--symlink", "usr/bin", "/bin"]),
    (Mount("dir", "/w"), ["--perms", "0755", "--dir", "/w"]),
    (Mount("hide-dir", "/s"), ["--perms", "0000", "--size", "4096", "--tmpfs", "/s"]),
    (Mount("hide-file", "/s.db"), ["--ro-bind", "/dev/null", "/s.db"]),
])
def test_each_kind_of_mount_has_its_bwrap_words(mount: Mount, words: list[str]) -> None:
    assert mount_words(mount) == words


def test_an_unknown_kind_of_mount_is_refused() -> None:
    with pytest.raises(SandboxError, match="unknown mount kind 'tunnel'"):
        mount_words(Mount("tunnel", "/x"))


def test_an_empty_command_is_refused() -> None:
    with pytest.raises(SandboxError, match="nothing to run"):
        make_plan([], workdir="/")


def test_the_fixed_options_of_every_sandbox() -> None:
    words = bwrap_options(Plan(("/bin/true",), "/w", ()))
    assert words == ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
                     "--unshare-net", "--unshare-user", "--disable-userns", "--uid", "65534",
                     "--gid", "65534", "--die-with-parent", "--new-session", "--hostname",
                     "arena-sandbox", "--perms", "1777", "--size", str(64 * 1024 * 1024),
                     "--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev", "--chdir", "/w",
                     "--remount-ro", "/"]


def test_a_root_arena_keeps_only_the_capabilities_setpriv_needs() -> None:
    words = bwrap_options(Plan(("/bin/true",), "/", (), network=True, privileged=True))
    assert words[-6:] == ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add",
                          "CAP_SETPCAP"]
    assert "--unshare-net" not in words and "--uid" not in words


def test_an_unprivileged_sandbox_runs_the_command_as_it_is() -> None:
    assert sandboxed_command(Plan(("/bin/echo", "hi"), "/", ())) == ["/bin/echo", "hi"]
    assert bwrap_arguments(Plan(("/bin/echo",), "/", (), bwrap="/opt/bwrap"))[0] == "/opt/bwrap"


def test_the_system_folders_are_bound_or_linked_as_they_are_here() -> None:
    mounts = make_plan(["/bin/true"], workdir="/").mounts
    for path in SYSTEM_PATHS:
        if os.path.islink(path):
            assert Mount("symlink", path, os.readlink(path)) in mounts
        elif os.path.isdir(path):
            assert Mount("ro", path, path) in mounts
        else:
            assert all(m.dest != path for m in mounts)


def test_a_plan_reads_back_its_json_exactly() -> None:
    plan = Plan(("/bin/true",), "/w", (Mount("dir", "/w"),), Limits(processes=3), seccomp=True,
                cgroups=("/sys/fs/cgroup/a/cgroup.procs",))
    data = json.loads(plan.to_json())
    assert data["mounts"] == [["dir", "/w", ""]] and data["seccomp"] is True
    assert data["cgroups"] == ["/sys/fs/cgroup/a/cgroup.procs"]
    assert data["limits"]["processes"] == 3
    assert " " not in plan.to_json()
    assert Plan.from_json(plan.to_json()) == plan


def test_an_older_plans_json_without_seccomp_or_cgroups_reads_with_neither() -> None:
    data = json.loads(Plan(("/bin/true",), "/", ()).to_json())
    del data["seccomp"], data["cgroups"]
    plan = Plan.from_json(json.dumps(data))
    assert (plan.seccomp, plan.cgroups) == (False, ())


def test_seccomp_and_cgroups_are_carried_into_the_plan() -> None:
    plan = make_plan(["/bin/true"], workdir="/", seccomp=True, cgroups=["/c/cgroup.procs"],
                     bwrap="/b", setpriv="/s")
    assert (plan.seccomp, plan.cgroups, plan.bwrap, plan.setpriv) == (
        True, ("/c/cgroup.procs",), "/b", "/s")


def test_a_sandboxs_uid_is_drawn_from_the_keys_hash_above_every_account() -> None:
    digest = hashlib.sha256(b"7/bot").digest()
    assert (UID_BASE, UID_SPAN) == (2_000_000_000, 100_000_000)
    assert sandbox_uid("7/bot") == 2_000_000_000 + int.from_bytes(digest[:8], "big") % (
        100_000_000)


def test_a_folder_whose_name_extends_another_is_not_inside_it(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "bc").mkdir()
    plan = make_plan(["/bin/true"], workdir="/", read_only_paths=[str(tmp_path / "b"),
                                                                  str(tmp_path / "bc")])
    bound = [m.dest for m in plan.mounts if m.kind == "ro"]
    assert str(tmp_path / "b") in bound and str(tmp_path / "bc") in bound


def test_a_workdir_inside_a_bound_folder_is_not_made_again(tmp_path: Path) -> None:
    plan = make_plan(["/bin/true"], workdir=str(tmp_path / "w" / "sub"),
                     writable_paths=[str(tmp_path / "w")])
    assert Mount("dir", str(tmp_path / "w" / "sub")) not in plan.mounts
    assert plan.workdir == str(tmp_path / "w" / "sub")


def test_a_relative_workdir_is_made_absolute() -> None:
    plan = make_plan(["/bin/true"], workdir="somewhere/../here")
    assert plan.workdir == os.path.join(os.getcwd(), "here")


def test_a_root_workdir_needs_no_folder() -> None:
    assert all(m.kind != "dir" or m.dest != "/" for m in make_plan(["/bin/true"],
                                                                    workdir="/").mounts)


def test_a_hidden_path_gets_no_parent_folders_of_its_own(tmp_path: Path) -> None:
    (tmp_path / "shown" / "deep").mkdir(parents=True)
    (tmp_path / "shown" / "deep" / "secret").write_text("x")
    plan = make_plan(["/bin/true"], workdir="/", read_only_paths=[str(tmp_path / "shown")],
                     hidden_paths=[str(tmp_path / "shown" / "deep" / "secret")])
    assert Mount("dir", str(tmp_path / "shown" / "deep")) not in plan.mounts
    assert Mount("hide-file", str(tmp_path / "shown" / "deep" / "secret")) in plan.mounts


def test_each_parent_folder_is_made_once_for_many_binds(tmp_path: Path) -> None:
    plan = make_plan(["/bin/true"], workdir="/", read_only_paths=[
        str(tmp_path / "a"), str(tmp_path / "b")])
    made = [m.dest for m in plan.mounts if m.kind == "dir"]
    assert made.count(str(tmp_path)) == 1


def test_a_plan_grants_by_default_no_network_no_privilege_and_the_default_limits() -> None:
    plan = make_plan(["/bin/true"], workdir="/")
    assert (plan.network, plan.privileged, plan.uid, plan.seccomp, plan.cgroups) == (
        False, False, 65534, False, ())
    assert plan.limits == Limits()
    bare = Plan(("/bin/true",), "/", ())
    assert (bare.network, bare.privileged, bare.uid, bare.seccomp, bare.cgroups) == (
        False, False, 65534, False, ())


def test_a_plan_cannot_be_widened_once_made() -> None:
    plan = make_plan(["/bin/true"], workdir="/")
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.network = True  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.mounts[0].kind = "rw"  # type: ignore[misc]


def test_what_a_plan_shows_is_only_ever_named() -> None:
    make: Any = make_plan
    with pytest.raises(TypeError):
        make(["/bin/true"], "/")


def test_a_path_inside_a_system_folder_does_not_stop_the_paths_after_it() -> None:
    plan = make_plan(["/bin/true"], workdir="/", read_only_paths=["/srv/bot", "/bin/tool"],
                     writable_paths=["/usr/share/x", "/var/out"])
    assert Mount("ro", "/srv/bot", "/srv/bot") in plan.mounts
    assert Mount("rw", "/var/out", "/var/out") in plan.mounts
    assert all(m.dest not in ("/bin/tool", "/usr/share/x") for m in plan.mounts)


def test_a_writable_folder_inside_a_read_only_one_is_bound_after_it(tmp_path: Path) -> None:
    bot, data = str(tmp_path / "bot"), str(tmp_path / "bot" / "data")
    plan = make_plan(["/bin/true"], workdir="/", read_only_paths=[bot], writable_paths=[data])
    words = bwrap_options(plan)
    steps = [words[i:i + 3] for i in range(len(words) - 2)]
    assert steps.index(["--ro-bind", bot, bot]) < steps.index(["--bind", data, data])


def test_a_workdirs_folders_are_made_even_after_a_hidden_path(tmp_path: Path) -> None:
    (tmp_path / "shown").mkdir()
    (tmp_path / "shown" / "secret").write_text("x")
    work = tmp_path / "work" / "w"
    plan = make_plan(["/bin/true"], workdir=str(work), read_only_paths=[str(tmp_path / "shown")],
                     hidden_paths=[str(tmp_path / "shown" / "secret")])
    made = [m.dest for m in plan.mounts if m.kind == "dir"]
    assert made.index(str(work.parent)) < made.index(str(work))
