"""Regenerate the code derived from `protos/`: the protobuf and gRPC Python code in
`arena/v1/`, and the SDK's enums and event classes in `arena/client/_generated_enums.py`
and `arena/client/_generated.py`.

Run with ``python -m arena.protogen`` (or ``make protos``). With ``--check`` it
generates into a temporary folder and exits 1 if the committed code differs.

The SDK module is written from the descriptors of `uno.proto`: one string enum per
protocol enum in `SDK_ENUMS` (members named without the enum's prefix) and one
frozen dataclass per kind of the `Event` oneof, its fields those of the message,
in order. What the proto cannot say (docstrings, which fields take a default) is
in the tables below; `arena.client.convert` reads messages by the same rules.
"""

from __future__ import annotations

import argparse
import filecmp
import shutil
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from google.protobuf.descriptor import (
        Descriptor,
        EnumDescriptor,
        FieldDescriptor,
        FileDescriptor,
    )
    from google.protobuf.descriptor_pb2 import FileDescriptorProto

ROOT = Path(__file__).resolve().parent.parent
PROTOS = ROOT / "protos"
PACKAGE = ROOT / "arena" / "v1"
SDK_MODULE = ROOT / "arena" / "client" / "_generated.py"
"""The SDK's event classes (they hold cards, so they come after `arena.client.model`)."""
SDK_ENUMS_MODULE = ROOT / "arena" / "client" / "_generated_enums.py"
"""The SDK's enums (`arena.client.model` builds its cards on them)."""
INIT_TEXT = '"""Generated protobuf and gRPC code for the arena.v1 protocol (see protos/)."""\n'
_DESCRIPTORS = "descriptors.pb"
_UNO = "arena/v1/uno.proto"


def proto_files() -> list[Path]:
    """The .proto files of the protocol, in a stable order."""
    return sorted((PROTOS / "arena" / "v1").glob("*.proto"))


def generate(out_dir: Path) -> Path:
    """Generate code for every proto into `out_dir`; return the folder of the package.

    The descriptors of every file, with their comments, go to `out_dir`/descriptors.pb.
    """
    from grpc_tools import protoc

    plugin = Path(sysconfig.get_path("scripts")) / "protoc-gen-mypy_grpc"
    includes = Path(protoc.__file__).parent / "_proto"
    args = [
        "grpc_tools.protoc",
        f"-I{PROTOS}",
        f"-I{includes}",
        f"--python_out={out_dir}",
        f"--pyi_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        f"--plugin=protoc-gen-mypy_grpc={plugin}",
        f"--mypy_grpc_out=quiet:{out_dir}",
        f"--descriptor_set_out={out_dir / _DESCRIPTORS}",
        "--include_source_info",
        *(str(p.relative_to(PROTOS)) for p in proto_files()),
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    package = out_dir / "arena" / "v1"
    (package / "__init__.py").write_text(INIT_TEXT)
    return package


# ------------------------------------------------------------ the SDK module

@dataclass(frozen=True)
class SdkEnum:
    """How the SDK shows one protocol enum."""

    doc: str
    with_unspecified: bool
    """Whether the zero value is a member (UNSPECIFIED); without it, it reads as None."""
    mixin: str = ""
    """A class of `arena.client._enum_methods` that gives the enum its methods."""


SDK_ENUMS: dict[str, SdkEnum] = {
    "Color": SdkEnum("One of the four card colours.", with_unspecified=False,
                     mixin="ColorMethods"),
    "Rank": SdkEnum("What is printed on a card: a number, an action symbol or a wild.",
                    with_unspecified=False),
    "Phase": SdkEnum("What kind of decision is due (see the phase table in protos/README.md).",
                     with_unspecified=True),
    "ActionKind": SdkEnum("The verbs of the game.", with_unspecified=True),
    "DrawReason": SdkEnum("Why a seat drew cards.", with_unspecified=True),
    "HandEndReason": SdkEnum("How a hand ended.", with_unspecified=True),
}
"""The protocol enums the SDK has, by name, in the order they are written."""

SDK_EVENT_DOCS: dict[str, str] = {
    "DealerChosen": "Each seat drew a card (several rounds when tied); the highest number deals.",
    "HandStarted": "A new hand was dealt.",
    "CardsReceived": "Private: the cards your seat took into its hand (deal or draw).",
    "HandReplaced": "Private: your whole hand after hands moved (Seven-O, Shuffle or Swap Hands).",
    "StarterReturned": "A Wild Draw Four turned up first went back into the deck.",
    "FirstCard": "The first card of the discard pile was turned up.",
    "CardPlayed": "A seat played a card; `color` is the colour now active (declared, for a wild).",
    "ColorChosen": "A seat declared the colour of a wild turned up first.",
    "CardsDrawn": "A seat drew `count` cards (fewer than asked when the piles ran dry).",
    "CardKept": "A seat kept the card it drew and ended its turn.",
    "TurnSkipped": "A seat lost its turn.",
    "DirectionChanged": "Play reversed; `direction` is +1 (increasing seats) or -1.",
    "ChallengeResolved":
        "A Wild Draw Four was challenged; `guilty` says whether the accused had the old colour.",
    "HandRevealed": "Private to the challenger: the accused's hand as the challenge showed it.",
    "ChallengeDeclined": "The seat hit by a Wild Draw Four accepted the draw.",
    "UnoCalled": "A seat called UNO late, inside the catch window.",
    "UnoCaught": "`catcher` caught `seat`, who had not called UNO.",
    "HandsSwapped": "Two seats swapped hands (Seven-O 7, Swap Hands).",
    "HandsRotated": "Every hand passed to the next seat in `direction` (Seven-O 0).",
    "HandsShuffled":
        "All hands were collected, shuffled and dealt again by `seat` (Shuffle Hands).",
    "DeckReshuffled":
        "The discard pile, all but its top card, became the new draw pile of `cards` cards.",
    "HandEnded": "A hand is over; `points[seat]` is what it scored for that seat.",
    "PlayerEliminated": "Challenge UNO: a seat reached the target and is out of the game.",
    "GameEnded": "The game is over.",
}
"""The docstring of each event class; an event missing here takes its message's comment."""

SDK_FIELD_DEFAULTS: dict[tuple[str, str], str] = {
    ("CardPlayed", "jump_in"): "False",
    ("CardPlayed", "target"): "None",
}
"""Event fields added after bots were written against the event: a default keeps their
constructors working."""

_DIGITS = ("ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE")

_SDK_ENUMS_HEADER = '''"""The SDK's enums, one per enum of uno.proto that bots see.

Generated by `python -m arena.protogen` from protos/arena/v1/uno.proto: do not edit.
Import them from `arena.client` (or `arena.client.model`).
"""

from __future__ import annotations

from enum import StrEnum

{imports}'''

_SDK_HEADER = '''"""The SDK's event classes, one per `Event` kind of uno.proto, and their enums.

Generated by `python -m arena.protogen` from protos/arena/v1/uno.proto: do not edit.
Import them from `arena.client` (or `arena.client.events`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

{imports}from arena.client.model import Card
from arena.v1 import uno_pb2
'''

_SDK_EVENT_BASE = '''

@dataclass(frozen=True, slots=True)
class Event:
    """Base class of every event; `raw` is the protocol's Event message."""

    raw: uno_pb2.Event | None = field(default=None, compare=False, repr=False, kw_only=True)
'''


def enum_prefix(name: str) -> str:
    """The prefix of a protocol enum's value names: COLOR_ for Color, DRAW_REASON_ for
    DrawReason."""
    return "".join("_" + c if c.isupper() and i else c for i, c in enumerate(name)).upper() + "_"


def enum_members(enum: EnumDescriptor) -> Iterator[tuple[str, str]]:
    """The SDK members of a protocol enum, as (name, value): UNSPECIFIED unless the SDK
    reads the zero value as None, number ranks valued by their digit."""
    prefix = enum_prefix(enum.name)
    for value in enum.values:
        name = value.name.removeprefix(prefix)
        if value.number == 0 and not SDK_ENUMS[enum.name].with_unspecified:
            continue
        yield name, str(_DIGITS.index(name)) if name in _DIGITS else name.lower()


def field_annotation(field: FieldDescriptor) -> str:
    """The SDK type of a message field: repeated fields are tuples, proto3 `optional`
    scalars may be None."""
    one = _value_annotation(field)
    if field.is_repeated:
        return f"tuple[{one}, ...]"
    if field.has_presence and field.message_type is None:
        return f"{one} | None"
    return one


def _value_annotation(field: FieldDescriptor) -> str:
    if field.enum_type is not None:
        name: str = field.enum_type.name
        return name if SDK_ENUMS[name].with_unspecified else f"{name} | None"
    if field.message_type is not None:
        return message_annotation(field.message_type)
    scalars = {field.TYPE_BOOL: "bool", field.TYPE_STRING: "str", field.TYPE_BYTES: "bytes",
               field.TYPE_DOUBLE: "float", field.TYPE_FLOAT: "float"}
    return scalars.get(field.type, "int")


def message_annotation(message: Descriptor) -> str:
    """The SDK type of a message inside an event: a Card, the one field of a wrapper, or
    a tuple of the fields."""
    if message.name == "Card":
        return "Card"
    parts = [field_annotation(f) for f in message.fields]
    return parts[0] if len(parts) == 1 else f"tuple[{', '.join(parts)}]"


def _uno_file(descriptor_set: Path) -> tuple[FileDescriptor, FileDescriptorProto]:
    from google.protobuf import descriptor_pb2, descriptor_pool

    files = descriptor_pb2.FileDescriptorSet.FromString(descriptor_set.read_bytes())
    pool = descriptor_pool.DescriptorPool()
    for file_proto in files.file:
        pool.Add(file_proto)
    return pool.FindFileByName(_UNO), next(f for f in files.file if f.name == _UNO)


def sdk_enums_text(descriptor_set: Path) -> str:
    """The text of arena/client/_generated_enums.py for the descriptors in
    `descriptor_set`."""
    uno, _ = _uno_file(descriptor_set)
    mixins = sorted({spec.mixin for spec in SDK_ENUMS.values() if spec.mixin})
    imports = "".join(f"from arena.client._enum_methods import {name}\n" for name in mixins)
    parts = [_SDK_ENUMS_HEADER.format(imports=imports)]
    parts.append("\n__all__ = [\n" + "".join(f'    "{name}",\n' for name in SDK_ENUMS) + "]\n")
    for name, spec in SDK_ENUMS.items():
        bases = f"{spec.mixin}, StrEnum" if spec.mixin else "StrEnum"
        members = "".join(f'    {member} = "{value}"\n'
                          for member, value in enum_members(uno.enum_types_by_name[name]))
        parts.append(f'\n\nclass {name}({bases}):\n    """{spec.doc}"""\n\n{members}')
    return "".join(parts)


def sdk_module_text(descriptor_set: Path) -> str:
    """The text of arena/client/_generated.py for the descriptors in `descriptor_set`."""
    uno, uno_proto = _uno_file(descriptor_set)
    comments = _message_comments(uno_proto)
    imports = ("from arena.client._generated_enums import (\n"
               + "".join(f"    {name},\n" for name in sorted(SDK_ENUMS)) + ")\n")
    parts = [_SDK_HEADER.format(imports=imports)]
    parts.append(_SDK_EVENT_BASE)
    events = [kind.message_type for kind in
              uno.message_types_by_name["Event"].oneofs_by_name["kind"].fields
              if kind.message_type is not None]
    parts.extend(_event_class(message, comments) for message in events)
    names = [*SDK_ENUMS, "Event", *(message.name for message in events)]
    parts.insert(1, "\n__all__ = [\n" + "".join(f'    "{name}",\n' for name in names) + "]\n")
    return "".join(parts)


def _message_comments(file_proto: FileDescriptorProto) -> dict[str, str]:
    """The leading comment of each top-level message, by name."""
    message_types = 4  # FileDescriptorProto.message_type, in a location's path
    return {
        file_proto.message_type[location.path[1]].name:
            " ".join(location.leading_comments.split())
        for location in file_proto.source_code_info.location
        if len(location.path) == 2 and location.path[0] == message_types
        and location.leading_comments
    }


def _event_class(message: Descriptor, comments: dict[str, str]) -> str:
    doc = SDK_EVENT_DOCS.get(message.name) or comments.get(message.name)
    if not doc:
        raise SystemExit(f"protogen: event {message.name} has no docstring: add one to "
                         "SDK_EVENT_DOCS or a comment above its message")
    lines = [f"\n\n@dataclass(frozen=True, slots=True)\nclass {message.name}(Event):\n",
             f'    """{doc}"""\n\n']
    for f in message.fields:
        default = SDK_FIELD_DEFAULTS.get((message.name, f.name))
        lines.append(f"    {f.name}: {field_annotation(f)}"
                     + (f" = {default}" if default is not None else "") + "\n")
    return "".join(lines)


# ------------------------------------------------------------------ main

def differences(generated: Path, committed: Path) -> list[str]:
    """Names of files that differ between two generated folders."""
    names = {p.name for p in generated.iterdir()} | (
        {p.name for p in committed.iterdir()} if committed.exists() else set()
    )
    names -= {"__pycache__"}
    return sorted(
        name for name in names
        if not (committed / name).exists() or not (generated / name).exists()
        or not filecmp.cmp(generated / name, committed / name, shallow=False)
    )


def main(argv: list[str] | None = None) -> int:
    """Regenerate (default) or check (``--check``) the generated code."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true",
                        help="fail if arena/v1 or the SDK's generated modules are stale")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        generated = generate(Path(tmp))
        sdk_texts = {SDK_ENUMS_MODULE: sdk_enums_text(Path(tmp) / _DESCRIPTORS),
                     SDK_MODULE: sdk_module_text(Path(tmp) / _DESCRIPTORS)}
        stale = differences(generated, PACKAGE)
        stale.extend(str(module.relative_to(ROOT)) for module, text in sdk_texts.items()
                     if not module.exists() or module.read_text() != text)
        if options.check:
            if stale:
                print("stale generated code: " + ", ".join(stale) + " (run `make protos`)")
                return 1
            return 0
        if PACKAGE.exists():
            shutil.rmtree(PACKAGE)
        shutil.copytree(generated, PACKAGE, ignore=shutil.ignore_patterns("__pycache__"))
        for module, text in sdk_texts.items():
            module.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
