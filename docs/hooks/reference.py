"""MkDocs hook: the reference pages written from the code.

A page asks for a generated part with a marker alone on its line:

- ``<!-- generated: protocol -->``: every service, message, field and enum of
  `protos/arena/v1/*.proto`, with the comments written in the files;
- ``<!-- generated: configuration -->``: the keys of tournament, ladder, bot-policy
  and rule-set settings, from the dataclasses that read them;
- ``<!-- generated: protocolguide -->``: `protos/README.md`, the bot author's guide;
- ``<!-- generated: environment -->``: the ``ARENA_*`` environment variables that
  arena's code reads.

The command line's reference is mkdocs-click's (`docs/reference/cli.md`).
"""

from __future__ import annotations

import collections.abc
import dataclasses
import inspect
import re
import sys
import tempfile
import types
import typing
from collections.abc import Callable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PROTOS = ROOT / "protos"
MARKER = re.compile(r"^<!-- generated: ([a-z]+) -->$", re.MULTILINE)

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def on_page_markdown(markdown: str, **_: Any) -> str:
    """Replace each generated part's marker with the part."""
    return MARKER.sub(lambda match: GENERATORS[match.group(1)](), markdown)


# ------------------------------------------------------------------ protocol

def _descriptors() -> Any:
    """The protos' FileDescriptorSet, comments included."""
    from google.protobuf import descriptor_pb2
    from grpc_tools import protoc

    includes = Path(protoc.__file__).parent / "_proto"
    files = sorted((PROTOS / "arena" / "v1").glob("*.proto"))
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "descriptors.pb"
        code = protoc.main(["grpc_tools.protoc", f"-I{PROTOS}", f"-I{includes}",
                            f"--descriptor_set_out={out}", "--include_source_info",
                            *(str(f.relative_to(PROTOS)) for f in files)])
        if code != 0:
            raise RuntimeError("protoc could not read protos/")
        descriptor_set = descriptor_pb2.FileDescriptorSet()
        descriptor_set.ParseFromString(out.read_bytes())
    return descriptor_set


def _comments(file: Any) -> dict[tuple[int, ...], str]:
    """Each element's comments (leading, then trailing), by its path in the file."""
    found = {}
    for location in file.source_code_info.location:
        text = " ".join(part.strip() for part in (location.leading_comments,
                                                   location.trailing_comments) if part.strip())
        if text:
            found[tuple(location.path)] = _one_paragraph(text)
    return found


def _one_paragraph(text: str) -> str:
    return re.sub(r"\s*\n\s*", " ", text).replace("|", "\\|")


_SCALARS = {1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 8: "bool",
            9: "string", 12: "bytes", 13: "uint32", 17: "sint32", 18: "sint64"}


def _type_name(field: Any) -> str:
    if field.type_name:
        short = field.type_name.rsplit(".", 1)[-1]
        name = f"[{short}](#{short.lower()})"
    else:
        name = _SCALARS.get(field.type, "?")
    if field.label == 3:
        return f"repeated {name}"
    if field.proto3_optional:
        return f"optional {name}"
    return name


def _message(message: Any, path: tuple[int, ...], comments: dict[tuple[int, ...], str],
             prefix: str = "") -> Iterator[str]:
    name = prefix + message.name
    yield f"### {name} {{#{message.name.lower()}}}\n"
    if path in comments:
        yield comments[path] + "\n"
    oneofs = {i: oneof.name for i, oneof in enumerate(message.oneof_decl)}
    if message.field:
        yield "| field | number | type | meaning |\n|---|---|---|---|"
        for index, field in enumerate(message.field):
            note = comments.get(path + (2, index), "")
            if field.HasField("oneof_index") and not field.proto3_optional:
                note = f"one of `{oneofs[field.oneof_index]}`. {note}".strip()
            yield f"| `{field.name}` | {field.number} | {_type_name(field)} | {note} |"
        yield ""
    else:
        yield "*(no fields)*\n"
    for index, nested in enumerate(message.nested_type):
        if not nested.options.map_entry:
            yield from _message(nested, path + (3, index), comments, f"{name}.")
    for index, enum in enumerate(message.enum_type):
        yield from _enum(enum, path + (4, index), comments)


def _enum(enum: Any, path: tuple[int, ...], comments: dict[tuple[int, ...], str]
          ) -> Iterator[str]:
    yield f"### {enum.name} {{#{enum.name.lower()}}}\n"
    if path in comments:
        yield comments[path] + "\n"
    yield "| value | number | meaning |\n|---|---|---|"
    for index, value in enumerate(enum.value):
        yield f"| `{value.name}` | {value.number} | {comments.get(path + (2, index), '')} |"
    yield ""


def protocol() -> str:
    """The protocol's reference: per file, its services, messages and enums."""
    out: list[str] = []
    for file in _descriptors().file:
        if not file.name.startswith("arena/"):
            continue
        comments = _comments(file)
        out.append(f"## {file.name}\n")
        if (12,) in comments:  # the comment above `syntax`
            out.append(comments[(12,)] + "\n")
        options = [f"`{key}` = `{value}`" for key, value in sorted(
            (field.name, value) for field, value in file.options.ListFields())]
        if options:
            out.append("Options: " + ", ".join(options) + ".\n")
        for s_index, service in enumerate(file.service):
            out.append(f"### service {service.name} {{#service-{service.name.lower()}}}\n")
            if (6, s_index) in comments:
                out.append(comments[(6, s_index)] + "\n")
            out.append("| call | request | response | meaning |\n|---|---|---|---|")
            for m_index, method in enumerate(service.method):
                request = method.input_type.rsplit(".", 1)[-1]
                response = method.output_type.rsplit(".", 1)[-1]
                stream_in = "stream " if method.client_streaming else ""
                stream_out = "stream " if method.server_streaming else ""
                out.append(f"| `{method.name}` | {stream_in}[{request}](#{request.lower()}) | "
                           f"{stream_out}[{response}](#{response.lower()}) | "
                           f"{comments.get((6, s_index, 2, m_index), '')} |")
            out.append("")
        for index, enum in enumerate(file.enum_type):
            out.extend(_enum(enum, (5, index), comments))
        for index, message in enumerate(file.message_type):
            out.extend(_message(message, (4, index), comments))
    return "\n".join(out)


# ------------------------------------------------------------- configuration

def _bullets(doc: str) -> dict[str, str]:
    """The ``- `name`: meaning`` bullets of a docstring, by name; a bullet that names
    several keys (```a`: this; `b`: that``, or ```a`, `b`: both``) gives each its part."""
    items: list[str] = []
    for line in inspect.cleandoc(doc).splitlines():
        if line.startswith("- "):
            items.append(line[2:])
        elif items and line.startswith("  "):
            items[-1] += " " + line.strip()
        elif items and not line.strip():
            items.append("")
    found: dict[str, str] = {}
    for item in filter(None, items):
        for part in re.split(r";\s+(?=`\w+`:)", item):
            head = re.match(r"((?:`\w+`(?:, | and )?)+):\s*(.*)", part)
            if head:
                for name in re.findall(r"`(\w+)`", head.group(1)):
                    found[name] = head.group(2)
    return found


def _default(field: dataclasses.Field[Any]) -> str:
    if field.default is not dataclasses.MISSING:
        value = field.default
    elif field.default_factory is not dataclasses.MISSING:
        value = field.default_factory()
    else:
        return "required"
    if isinstance(value, StrEnum):
        return f'`"{value.value}"`'
    if value is None:
        return "none"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, str | int | float):
        return f"`{value!r}`".replace("'", '"')
    if dataclasses.is_dataclass(value) or isinstance(value, dict | tuple):
        return "see below" if dataclasses.is_dataclass(value) else "empty"
    return f"`{value}`"


def _kind(cls: type, field: dataclasses.Field[Any]) -> str:
    hint = typing.get_type_hints(cls)[field.name]
    if typing.get_origin(hint) is typing.Literal:
        return " \\| ".join(f'`"{value}"`' for value in typing.get_args(hint))
    for arg in (*typing.get_args(hint), hint):
        if isinstance(arg, type) and issubclass(arg, StrEnum):
            return " \\| ".join(f'`"{member.value}"`' for member in arg)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return "table"
    if typing.get_origin(hint) in (dict, collections.abc.Mapping):
        return "table"
    names = {int: "integer", float: "number of seconds", bool: "`true` or `false`",
             str: "text", type(None): "none"}
    args = typing.get_args(hint) if typing.get_origin(hint) is types.UnionType else (hint,)
    return " or ".join(names.get(arg, str(arg).replace("typing.", "")) for arg in args)


def _settings_table(cls: type, notes: dict[str, str] | None = None) -> str:
    meanings = {**_bullets(cls.__doc__ or ""), **(notes or {})}
    rows = ["| key | takes | default | meaning |", "|---|---|---|---|"]
    for field in dataclasses.fields(cls):
        meaning = meanings.get(field.name, "").replace("|", "\\|")
        rows.append(f"| `{field.name}` | {_kind(cls, field)} | {_default(field)} | {meaning} |")
    return "\n".join(rows) + "\n"


_RULE_NOTES = {
    "deck": "the classic 108-card deck, or the 2018 edition's 112",
    "shuffle_hands_card": "the 2018 deck's Shuffle Hands card, or its Korean Swap Hands",
    "customizable_effect": "what the 2018 deck's Customizable cards do",
    "hand_size": "cards dealt to each seat",
    "uno_penalty": "cards drawn by a seat caught without calling UNO",
    "challenge_extra_penalty": "cards a failed Wild Draw Four challenger draws beyond the 4",
    "wild_draw_four_rule": "when a Wild Draw Four may be played honestly",
    "reverse_first_card": "who starts when the first card turned is a Reverse",
    "going_out_draw_four_challengeable": "whether a Wild Draw Four that goes out can be "
                                         "challenged",
    "draw_four_bluffing": "a Wild Draw Four may be played against the colour condition, "
                          "and a challenge punishes it",
    "scoring": "how a game is won and ranked",
    "target_score": 'points that end the game; `"none"` (TOML) or null (JSON): one hand',
    "individual_hands": "hands of the four-player individual game",
    "max_turns_per_hand": "turns after which a hand ends as a dead hand",
    "max_hands": "hands after which a game ends",
    "choose_first_dealer": "draw for the first dealer (otherwise seat 0 deals)",
    "progressive": "house rule: stack Draw Twos and Wild Draw Fours",
    "seven_o": "house rule: a 7 swaps hands with a chosen seat, a 0 passes every hand on",
    "jump_in": "house rule: play an identical card out of turn",
    "draw_to_match": "house rule: draw until a card plays",
    "force_play": "house rule: a drawn card that plays must be played",
    "last_card_no_action": "house rule: a hand may not go out on an action card",
}


def configuration() -> str:
    """The settings files' keys: tournament, ladder, timetable share, policy, rules."""
    from arena.engine.rules import RuleSet
    from arena.ladder.settings import LadderSettings
    from arena.policy import BotPolicy
    from arena.tournament.schedule import TournamentSettings

    return "\n".join([
        "## Tournament settings {#tournament-settings}\n",
        "`arena tournament create NAME --settings FILE.toml` (and `arena match`, whose "
        "options set the same keys). A timetabled tournament also takes `share`: the "
        "part of `arena serve --tables` its editions play on (0.5 by default).\n",
        _settings_table(TournamentSettings, {"format": "how the bots are seated: every "
                                             "combination, partner pairs, fixed teams, or one "
                                             "challenger against the field",
                                             "teams": "the fixed pairs of the teams format: "
                                             '`[["a", "b"], ["c", "d"]]`',
                                             "policy": "the [bot policy](#bot-policy), "
                                                       "a `[policy]` table",
                                             "rules": "the [rule set](#rule-set), a "
                                                      "`[rules]` table"}),
        "## Ladder settings {#ladder-settings}\n",
        "`arena serve --ladder FILE.toml` and `arena ladder run --settings FILE.toml`.\n",
        _settings_table(LadderSettings, {"policy": "the [bot policy](#bot-policy)",
                                         "rules": "the [rule set](#rule-set)"}),
        "## Bot policy {#bot-policy}\n",
        "The `[policy]` table of tournament and ladder settings: what a bot's "
        "mistakes cost.\n",
        _settings_table(BotPolicy),
        "## Rule set {#rule-set}\n",
        "The `[rules]` table of a settings file, or a file of its own given with "
        "`--rules` (top-level keys). The defaults are the official rules; "
        "[Rules coverage](rules-coverage.md) says which rule each key decides.\n",
        _settings_table(RuleSet, _RULE_NOTES),
    ])


# --------------------------------------------------------------- environment

def environment() -> str:
    """The ``ARENA_*`` variables read anywhere in arena, with the files reading them."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "arena").rglob("*.py")):
        if "v1" in path.parts:
            continue
        for name in re.findall(r"[\"'](ARENA_[A-Z_]+)[\"']", path.read_text()):
            found.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    rows = ["| variable | read in |", "|---|---|"]
    for name, files in sorted(found.items()):
        rows.append(f"| `{name}` | {', '.join(f'`{f}`' for f in sorted(files))} |")
    return "\n".join(rows) + "\n"


def protocol_guide() -> str:
    """The bot author's guide, `protos/README.md`, kept beside the protocol it explains."""
    return (PROTOS / "README.md").read_text()


GENERATORS: dict[str, Callable[[], str]] = {
    "protocolguide": protocol_guide,
    "protocol": protocol,
    "configuration": configuration,
    "environment": environment,
}


if __name__ == "__main__":  # print a part: python docs/hooks/reference.py protocol
    print(GENERATORS[sys.argv[1]]())
