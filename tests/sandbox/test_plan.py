"""The sandbox's bwrap command line, word by word, and what a command needs to be shown."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.sandbox import Limits, SandboxError, command_paths, sandbox_env, sdk_paths
from arena.sandbox.plan import (
    INSIDE_UID,
    UID_BASE,
    UID_SPAN,
    Mount,
    Plan,
    bwrap_arguments,
    make_plan,
    sandbox_uid,
)


def _pairs(words: list[str], flag: str) -> list[tuple[str, str]]:
    return [(words[i + 1], words[i + 2]) for i, word in enumerate(words) if word == flag]


def _before_command(words: list[str]) -> list[str]:
    return words[:len(words) - words[::-1].index("--") - 1]


def test_a_sandbox_has_no_network_unless_asked() -> None:
    closed = bwrap_arguments(make_plan(["/bin/true"], workdir="/"))
    opened = bwrap_arguments(make_plan(["/bin/true"], workdir="/", network=True))
    assert "--unshare-net" in closed and "--unshare-net" not in opened


def test_a_sandbox_has_its_own_pid_namespace_and_dies_with_its_parent() -> None:
    words = bwrap_arguments(make_plan(["/bin/true"], workdir="/"))
    for flag in ("--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session"):
        assert flag in words


def test_a_root_arena_starts_the_command_as_the_plans_uid_without_capabilities() -> None:
    words = bwrap_arguments(make_plan(["/bin/true", "x"], workdir="/", privileged=True,
                                      uid=UID_BASE + 7, setpriv="/usr/bin/setpriv"))
    tail = words[words.index("/usr/bin/setpriv"):]
    assert tail == ["/usr/bin/setpriv", "--reuid", str(UID_BASE + 7), "--regid",
                    str(UID_BASE + 7), "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
                    "--no-new-privs",
                    "--", "/bin/true", "x"]
    assert "--unshare-user" not in words


def test_an_unprivileged_arena_sandboxes_in_a_user_namespace_as_nobody() -> None:
    words = bwrap_arguments(make_plan(["/bin/true"], workdir="/"))
    assert {"--unshare-user", "--disable-userns"} <= set(words)
    assert words[words.index("--uid") + 1] == str(INSIDE_UID)
    assert "setpriv" not in " ".join(words)
    assert words[-2:] == ["--", "/bin/true"]


def test_paths_are_shown_read_only_at_their_own_place_and_nested_ones_once(tmp_path: Path
                                                                            ) -> None:
    inner = tmp_path / "bot" / "lib"
    inner.mkdir(parents=True)
    words = bwrap_arguments(make_plan(["/bin/true"], workdir="/", read_only_paths=[
        str(tmp_path / "bot"), str(inner), "/usr/lib"]))
    bound = _pairs(words, "--ro-bind")
    assert (str(tmp_path / "bot"), str(tmp_path / "bot")) in bound
    assert all(dest != str(inner) for _, dest in bound)
    assert [pair for pair in bound if pair[1].startswith("/usr")] == [("/usr", "/usr")]


def test_writable_paths_are_bound_writable(tmp_path: Path) -> None:
    words = bwrap_arguments(make_plan(["/bin/true"], workdir=str(tmp_path),
                                      writable_paths=[str(tmp_path)]))
    assert (str(tmp_path), str(tmp_path)) in _pairs(words, "--bind")


def test_the_whole_file_system_cannot_be_shown() -> None:
    with pytest.raises(SandboxError):
        make_plan(["/bin/true"], workdir="/", read_only_paths=["/"])


def test_only_the_system_and_a_few_files_of_etc_are_shown() -> None:
    words = bwrap_arguments(make_plan(["/bin/true"], workdir="/"))
    shown = {dest for _, dest in _pairs(words, "--ro-bind")}
    assert "/etc" not in shown and "/etc/shadow" not in shown and "/root" not in shown
    assert "/home" not in shown and "/var" not in shown
    assert "/etc/passwd" in shown


def test_hidden_paths_inside_a_shown_folder_are_covered_and_others_left_out(tmp_path: Path
                                                                             ) -> None:
    (tmp_path / "arena.db").write_text("secret")
    (tmp_path / "logs").mkdir()
    elsewhere = tmp_path.parent / "elsewhere.db"
    words = bwrap_arguments(make_plan(["/bin/true"], workdir="/", read_only_paths=[
        str(tmp_path)], hidden_paths=[str(tmp_path / "arena.db"), str(tmp_path / "logs"),
                                      str(elsewhere), str(tmp_path / "absent")]))
    assert ("/dev/null", str(tmp_path / "arena.db")) in _pairs(words, "--ro-bind")
    assert words[words.index(str(tmp_path / "logs")) - 1] == "--tmpfs"
    assert str(elsewhere) not in words and str(tmp_path / "absent") not in words


def test_the_private_tmp_has_the_limits_size_and_is_mounted_before_the_binds(tmp_path: Path
                                                                             ) -> None:
    words = bwrap_arguments(make_plan(["/bin/true"], workdir="/", read_only_paths=[
        str(tmp_path)], limits=Limits(tmp_bytes=5 * 1024 * 1024)))
    at = words.index("--tmpfs")
    assert words[at + 1] == "/tmp" and words[at - 2:at] == ["--size", str(5 * 1024 * 1024)]
    assert words[at - 4:at - 2] == ["--perms", "1777"]
    assert at < words.index("--ro-bind")


def test_sockets_are_bound_at_their_inside_path(tmp_path: Path) -> None:
    words = bwrap_arguments(make_plan(["/bin/true"], workdir="/", sockets={
        str(tmp_path / "bots.sock"): "/run/arena/arena.sock"}))
    assert (str(tmp_path / "bots.sock"), "/run/arena/arena.sock") in _pairs(words, "--ro-bind")


def test_folders_leading_to_a_bind_are_made_passable_before_it(tmp_path: Path) -> None:
    words = bwrap_arguments(make_plan(["/bin/true"], workdir="/", read_only_paths=[
        str(tmp_path / "a")]))
    made = [words[i + 3] for i, word in enumerate(words)
            if word == "--perms" and words[i + 1] == "0755" and words[i + 2] == "--dir"]
    assert "/run" not in made
    bind_at = words.index(str(tmp_path / "a"))
    needed = [str(p) for p in (tmp_path / "a").parents if str(p) not in ("/", "/tmp")]
    assert needed and all(p in made and words.index(p) < bind_at for p in needed)


def test_the_workdir_exists_even_when_nothing_shows_it_and_the_root_is_read_only(
        tmp_path: Path) -> None:
    words = bwrap_arguments(make_plan(["/bin/true"], workdir=str(tmp_path / "w")))
    assert words[words.index("--chdir") + 1] == str(tmp_path / "w")
    assert str(tmp_path / "w") in words[:words.index("--chdir")]
    assert _before_command(words)[-2:] == ["--remount-ro", "/"]


def test_a_plan_survives_its_json() -> None:
    plan = make_plan(["/bin/echo", "hi there"], workdir="/", limits=Limits(processes=9),
                     privileged=True, uid=UID_BASE + 1, sockets={"/a/s": "/run/s"})
    assert Plan.from_json(plan.to_json()) == plan
    assert Mount("ro", "/run/s", "/a/s") in plan.mounts


def test_each_key_has_its_own_stable_uid_in_the_sandbox_range() -> None:
    uids = {sandbox_uid(f"1234/bot-{i}") for i in range(50)}
    assert len(uids) == 50 and sandbox_uid("1234/bot-0") == sandbox_uid("1234/bot-0")
    assert all(UID_BASE <= uid < UID_BASE + UID_SPAN for uid in uids)


def test_limits_refuse_nonsense() -> None:
    with pytest.raises(ValueError):
        Limits(processes=0)
    with pytest.raises(ValueError):
        Limits(memory_bytes=-1)
    assert Limits.from_dict(Limits(open_files=99).to_dict()) == Limits(open_files=99)


def test_a_python_command_is_shown_its_interpreter_and_its_scripts_folder(tmp_path: Path
                                                                          ) -> None:
    script = tmp_path / "bot" / "bot.py"
    script.parent.mkdir()
    script.write_text("")
    shown = command_paths([sys.executable, "bot/bot.py", "--fast"], cwd=tmp_path)
    assert str(tmp_path / "bot") in shown
    real = Path(sys.executable).resolve()
    assert any(real.is_relative_to(path) for path in shown)
    assert any(Path(sys.executable).is_relative_to(path) for path in shown)
    assert str(tmp_path) not in shown


def test_the_sdk_is_the_arena_package_and_the_protocol_files() -> None:
    names = [Path(path).name for path in sdk_paths()]
    assert names[0] == "arena" and set(names) <= {"arena", "protos"}


def test_a_sandboxed_environment_is_a_minimal_base_and_what_it_is_given() -> None:
    env = sandbox_env({"ARENA_TOKEN": "t"})
    assert env["ARENA_TOKEN"] == "t" and env["HOME"] == "/tmp"
    assert set(env) == {"PATH", "HOME", "TMPDIR", "LANG", "ARENA_TOKEN"}
