"""The generated code in arena/v1 matches protos/ (regenerate with `make protos`)."""

from __future__ import annotations

from arena import protogen


def test_generated_code_is_up_to_date_with_protos() -> None:
    assert protogen.main(["--check"]) == 0, "arena/v1 is stale: run `make protos`"
