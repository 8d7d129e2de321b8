"""`arena new bot NAME`: a bot project that `arena bot submit NAME` takes at once.

A project is a folder named after the bot with its manifest (`arena-bot.toml`), the
bot, a test and a README. A Python bot is written here, on the SDK; the Node.js and
C++ projects start from the sample bots' code (`sample_bots/node`, `sample_bots/cpp`),
their manifests and build files adapted to a folder of their own.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import click

from arena.cli.app import main
from arena.cli.demo import SAMPLE_BOTS

LANGUAGES = ("python", "node", "cpp")
"""The languages `arena new bot` writes a project in."""

PROTOS = SAMPLE_BOTS.parent / "protos"
"""arena's .proto files, which a local build of a C++ project compiles."""

_PYTHON_MANIFEST = '''\
# {name}: `arena bot submit {folder}` makes {name}@1, the next submit {name}@2, ...
name = "{name}"
run = "python bot.py"     # started in the version's own folder
runtime = "python"        # arena's own interpreter, which has the SDK (arena.client)
'''

_PYTHON_BOT = '''\
"""{name}: plays its highest-scoring card, calls UNO, catches, and draws otherwise.

Run by arena once submitted (`arena bot submit {folder}`), or by hand against a
server: ``ARENA_SERVER=127.0.0.1:50051 ARENA_TOKEN=... python bot.py``.
"""

from __future__ import annotations

from arena.client import Action, View, call_or_catch, passive, plays, run


def decide(view: View, legal: list[Action]) -> Action:
    """The decision for `view`: one of the `legal` actions (the server lists them all)."""
    options = plays(legal)  # each play once, calling UNO when it leaves one card
    if options:
        return max(options, key=lambda action: action.points)
    return call_or_catch(legal) or passive(legal)  # a late UNO call or a catch; else draw


if __name__ == "__main__":
    # run() returns why it stopped: 0 stopped, 1 gave up, 2 token or stream refused.
    raise SystemExit(run(decide, name="{name}").exit_code)
'''

_PYTHON_TEST = '''\
"""{name}'s tests, offline: whole games against the real rules engine, no server.

Run: python -m pytest {folder}
"""

from __future__ import annotations

from bot import decide

from arena.testing import play_offline, stacked


def test_it_sheds_the_skip_before_the_five_and_calls_uno() -> None:
    # {name} holds RS and R5 on R2; seat 1 holds one card, so skipping it wins the hand.
    result = play_offline(decide, deal=stacked("RS R5", "R1", starter="R2"),
                          rules={{"target_score": None}})
    assert [str(d.action) for d in result.decisions] == ["play RS UNO!", "play R5"]
    assert result.won


def test_it_plays_a_whole_game_legally() -> None:
    result = play_offline(decide, seed=1, rules={{"target_score": 100}})
    assert result.decisions  # every answer was legal, or play_offline would have failed
'''

_README = '''\
# {name}

An arena UNO bot in {language}, made by `arena new bot {name} --lang {lang}`.

{body}
Submit it, and play it against the sample bots:

```
arena bot submit {folder}
arena bot submit sample_bots/python          # greedy
arena match {name} greedy --games 10 --seed 1
arena replay 1 --as {name}                   # the first game, as {name} saw it
```

Each submit with changed files makes a new version ({name}@1, {name}@2, ...).
The protocol is in arena's docs (reference/protocol-guide.md).
'''

_LANGUAGE_NAMES = {"python": "Python", "node": "Node.js", "cpp": "C++"}

_BODIES = {
    "python": "`bot.py` decides; `test_bot.py` plays it offline against the rules engine\n"
              "(`python -m pytest {folder}`).\n",
    "node": "`bot.js` decides, straight from arena's .proto files; `test/bot.test.js`\n"
            "checks its choices. Install its dependencies once, before testing or\n"
            "submitting (builds have no network, so `node_modules/` goes with the files):\n\n"
            "```\ncd {folder} && npm install && npm test && cd -\n```\n",
    "cpp": "`bot.cc` decides, built from arena's .proto files with protoc,\n"
           "grpc_cpp_plugin and libgrpc++-dev (Debian's `protobuf-compiler-grpc` and\n"
           "`libgrpc++-dev`); `make -C {folder} check` builds it and checks that it starts.\n",
}

_NODE_MANIFEST = '''\
# {name}: run `npm install` here first (builds have no network, so node_modules/ goes with
# the files). The build copies arena's .proto files (ARENA_PROTOS) into the folder, where
# bot.js finds them.
name = "{name}"
build = "mkdir -p protos && cp -R \\"$ARENA_PROTOS/arena\\" protos/"
run = "node bot.js"
runtime = "node"
'''

_CPP_MANIFEST = '''\
# {name}: built from arena's .proto files (ARENA_PROTOS) with protoc, grpc_cpp_plugin and
# libgrpc++-dev, as the Makefile says.
name = "{name}"
build = "make PROTOS=\\"$ARENA_PROTOS\\""
run = "build/arena_bot"
'''

_CPP_CHECK = '''
# `make check`: the bot builds, starts, and stops at once with status 2 when it is given
# settings it cannot use (here a TLS certificate file that does not exist).
check: $(BUILD)/arena_bot
\t@ARENA_TLS_CA=/nonexistent/ca.pem timeout 10 $(BUILD)/arena_bot 2>/dev/null; \\
\tcode=$$?; test $$code -eq 2 || {{ echo "the bot ended with status $$code, not 2"; exit 1; }}; \\
\techo "{name} builds and runs"
'''


def write_project(name: str, language: str, folder: Path) -> list[Path]:
    """Write a bot project for `name` in `language` into `folder` (which must not exist);
    return the files written. `click.ClickException` says what stands in the way."""
    # Not at import: `arena --help` loads no store.
    from arena.store import NAME
    from arena.submissions.manifest import MANIFEST, parse_manifest

    if not NAME.fullmatch(name):
        raise click.ClickException(
            f"bot name {name!r} must start with a letter or digit and use only letters, "
            "digits, '_', '.' and '-' (at most 64 characters)")
    if folder.exists():
        raise click.ClickException(f"{folder} already exists: choose another name or "
                                   "remove it first")
    values = {"name": name, "folder": str(folder)}
    if language == "python":
        files = {path: text.format(**values) for path, text in (
            (MANIFEST, _PYTHON_MANIFEST), ("bot.py", _PYTHON_BOT), ("test_bot.py", _PYTHON_TEST))}
    elif language == "node":
        files = {MANIFEST: _NODE_MANIFEST.format(**values), **_node_files(name)}
    else:
        files = {MANIFEST: _CPP_MANIFEST.format(**values), **_cpp_files(name)}
    body = _BODIES[language].format(**values)
    files["README.md"] = _README.format(**values, lang=language, body=body,
                                        language=_LANGUAGE_NAMES[language])
    folder.mkdir(parents=True)
    written = []
    for relative, text in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        written.append(path)
    parse_manifest((folder / MANIFEST).read_text(), str(folder / MANIFEST))
    return written


def _sample(*parts: str) -> str:
    path = SAMPLE_BOTS.joinpath(*parts)
    if not path.is_file():
        raise click.ClickException(f"{path} not found: `arena new bot --lang node|cpp` "
                                   "starts from arena's sample bots, in its checkout")
    return path.read_text()


def _node_files(name: str) -> dict[str, str]:
    package = json.loads(_sample("node", "package.json"))
    package["name"] = re.sub(r"[^a-z0-9._-]", "-", name.lower())
    package["description"] = f"{name}: an arena UNO bot in Node.js"
    lock = json.loads(_sample("node", "package-lock.json"))
    lock["name"] = package["name"]
    lock.get("packages", {}).get("", {})["name"] = package["name"]
    return {
        "bot.js": _sample("node", "bot.js").replace(
            "path.resolve(__dirname, '..', '..', 'protos')", json.dumps(str(PROTOS))),
        "package.json": json.dumps(package, indent=2) + "\n",
        "package-lock.json": json.dumps(lock, indent=2) + "\n",
        "test/bot.test.js": _sample("node", "test", "bot.test.js"),
    }


def _cpp_files(name: str) -> dict[str, str]:
    makefile = _sample("cpp", "Makefile").replace(
        "# The C++ sample bot, built from ../../protos", "# An arena bot in C++, built from "
        "arena's protos").replace(
        "PROTOS := ../../protos", f"PROTOS ?= {PROTOS}")
    makefile = makefile.replace(".PHONY: all clean", ".PHONY: all clean check")
    makefile += _CPP_CHECK.format(name=name)
    return {"bot.cc": _sample("cpp", "bot.cc"), "Makefile": makefile}


@main.group()
def new() -> None:
    """Start a project from a template.

    \b
    Example:
      arena new bot my-bot --lang python
    """


@new.command("bot")
@click.argument("name")
@click.option("--lang", "language", type=click.Choice(LANGUAGES), default="python",
              show_default=True, help="The language of the bot.")
@click.option("--dir", "folder", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="Where to write it (default: a new folder NAME here).")
def new_bot(name: str, language: str, folder: Path | None) -> None:
    """Write a bot project NAME: its manifest, the bot, a test and a README.

    `arena bot submit NAME` takes it as it is (a Node.js bot after `npm install`
    in its folder; a C++ bot builds where libgrpc++-dev is installed).

    \b
    Example:
      arena new bot my-bot --lang python
      python -m pytest my-bot
      arena bot submit my-bot
    """
    target = folder if folder is not None else Path(name)
    written = write_project(name, language, target)
    for path in written:
        click.echo(f"wrote {path}")
    click.echo(f"next: `arena bot submit {target}`, then `arena match {name} ...`", err=True)
