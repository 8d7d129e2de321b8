"""The generated code in arena/v1 and arena/client/_generated.py matches protos/
(regenerate with `make protos`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena import protogen


def test_generated_code_is_up_to_date_with_protos() -> None:
    assert protogen.main(["--check"]) == 0, "generated code is stale: run `make protos`"


def test_the_check_finds_an_sdk_module_that_no_longer_matches_the_protos(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    edited = tmp_path / "_generated_enums.py"
    member = '    TURN_LIMIT = "turn_limit"\n'
    edited.write_text(protogen.SDK_ENUMS_MODULE.read_text().replace(member, ""))
    monkeypatch.setattr(protogen, "SDK_ENUMS_MODULE", edited)
    monkeypatch.setattr(protogen, "ROOT", tmp_path)
    assert protogen.main(["--check"]) == 1
    assert "_generated_enums.py" in capsys.readouterr().out
    assert "TURN_LIMIT" not in edited.read_text()  # a check writes nothing


def test_every_proto_file_names_its_generated_code_for_java_go_and_csharp() -> None:
    from arena.v1 import admin_pb2, bot_pb2, uno_pb2

    modules = (admin_pb2, bot_pb2, uno_pb2)
    messages = {name for module in modules for name in module.DESCRIPTOR.message_types_by_name}
    outer_classes = set()
    for module in modules:
        options = module.DESCRIPTOR.GetOptions()
        assert options.java_package == "arena.v1", module.DESCRIPTOR.name
        assert options.java_multiple_files, module.DESCRIPTOR.name
        assert options.go_package == "arena/v1;arenav1", module.DESCRIPTOR.name
        assert options.csharp_namespace == "Arena.V1", module.DESCRIPTOR.name
        outer_classes.add(options.java_outer_classname)
    # Java's default outer class of bot.proto would be `Bot`, holding `Bot.Error`; an
    # outer class may not share a name with a message of the package either.
    assert outer_classes == {"AdminProto", "BotProto", "UnoProto"}
    assert not outer_classes & messages


def test_protoc_writes_java_classes_of_their_own_and_a_csharp_namespace(
        tmp_path: Path) -> None:
    import shutil
    import subprocess

    from tests.support import IN_CI

    protoc = shutil.which("protoc")
    if protoc is None:
        if IN_CI:
            pytest.fail("protoc is missing under CI (.ci/run installs protobuf-compiler)")
        pytest.skip("protoc is not installed (apt-get install protobuf-compiler)")
    (tmp_path / "java").mkdir()
    (tmp_path / "cs").mkdir()
    subprocess.run([protoc, f"-I{protogen.PROTOS}", f"--java_out={tmp_path / 'java'}",
                    f"--csharp_out={tmp_path / 'cs'}",
                    *(str(p) for p in protogen.proto_files())], check=True, timeout=60)
    java = {p.name for p in (tmp_path / "java" / "arena" / "v1").iterdir()}
    assert {"Error.java", "ErrorCode.java", "BotProto.java", "UnoProto.java",
            "AdminProto.java", "DecisionRequest.java"} <= java
    assert "Bot.java" not in java
    assert "namespace Arena.V1 {" in (tmp_path / "cs" / "Bot.cs").read_text()
