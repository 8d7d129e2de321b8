"""Regenerate the protobuf and gRPC Python code in `arena/v1/` from `protos/`.

Run with ``python -m arena.protogen`` (or ``make protos``). With ``--check`` it
generates into a temporary folder and exits 1 if the committed code differs.
"""

from __future__ import annotations

import argparse
import filecmp
import shutil
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTOS = ROOT / "protos"
PACKAGE = ROOT / "arena" / "v1"
INIT_TEXT = '"""Generated protobuf and gRPC code for the arena.v1 protocol (see protos/)."""\n'


def proto_files() -> list[Path]:
    """The .proto files of the protocol, in a stable order."""
    return sorted((PROTOS / "arena" / "v1").glob("*.proto"))


def generate(out_dir: Path) -> Path:
    """Generate code for every proto into `out_dir`; return the folder of the package."""
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
        *(str(p.relative_to(PROTOS)) for p in proto_files()),
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    package = out_dir / "arena" / "v1"
    (package / "__init__.py").write_text(INIT_TEXT)
    return package


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
    parser.add_argument("--check", action="store_true", help="fail if arena/v1 is stale")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        generated = generate(Path(tmp))
        stale = differences(generated, PACKAGE)
        if options.check:
            if stale:
                print("stale generated code: " + ", ".join(stale) + " (run `make protos`)")
                return 1
            return 0
        if PACKAGE.exists():
            shutil.rmtree(PACKAGE)
        shutil.copytree(generated, PACKAGE, ignore=shutil.ignore_patterns("__pycache__"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
