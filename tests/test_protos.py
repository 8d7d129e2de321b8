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
