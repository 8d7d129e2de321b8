"""`arena-bot.toml`: what a manifest must say, and the errors that say what it lacks."""

from __future__ import annotations

import pytest

from arena.submissions import Manifest, ManifestError, Runtime, parse_manifest


def test_a_manifest_names_the_bot_its_commands_and_runtime() -> None:
    manifest = parse_manifest('name = "greedy"\nrun = "python greedy_bot.py"\n'
                              'build = "make"\nruntime = "python"\n')
    assert manifest == Manifest("greedy", "python greedy_bot.py", "make", Runtime.PYTHON)


def test_without_a_runtime_a_bot_is_native_and_without_a_build_nothing_is_built() -> None:
    manifest = parse_manifest('name = "b"\nrun = "./bot"\n')
    assert (manifest.runtime, manifest.build) == (Runtime.NATIVE, None)


def test_a_name_given_on_the_command_line_replaces_the_manifests() -> None:
    assert parse_manifest('name = "greedy"\nrun = "./x"\n', name="greedy-2").name == "greedy-2"


@pytest.mark.parametrize(("text", "message"), [
    ('run = "./x"\n', "arena-bot.toml: missing 'name'"),
    ('name = "b"\n', "arena-bot.toml: missing 'run'"),
    ('name = "b"\nrun = ""\n', "'run' must be a non-empty string"),
    ('name = "b"\nrun = 3\n', "'run' must be a non-empty string"),
    ('name = "b@2"\nrun = "./x"\n', "name 'b@2' must start with a letter or digit"),
    ('name = "-b"\nrun = "./x"\n', "name '-b' must start with a letter or digit"),
    ('name = "b"\nrun = "./x"\nruntime = "java"\n', "runtime 'java' is not one of"),
    ('name = "b"\nrun = "./x"\ncommand = "y"\n', "unknown field 'command'"),
    ('name = "b"\nrun = "./x\n', "not valid TOML"),
    (f'name = "b"\nrun = "{"x" * 1001}"\n', "'run' must be one line of at most 1000"),
])
def test_a_manifest_arena_cannot_use_is_refused_saying_why(text: str, message: str) -> None:
    with pytest.raises(ManifestError, match="^arena-bot.toml: ") as refused:
        parse_manifest(text)
    assert message in str(refused.value)
