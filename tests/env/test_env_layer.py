"""DESIGN.md's layer rule for `arena.env`: the engine as an environment and the lane's game
loop know nothing of gRPC, the store, the server or the CLI (they build the bots' messages
through `arena.wire`, the one place a seat's view is made)."""

from __future__ import annotations

import pytest

from tests.test_layers import _in, _modules_of, imports_of


@pytest.mark.parametrize("module", _modules_of("arena.env"))
def test_the_env_imports_neither_grpc_nor_the_store_nor_the_server(module: str) -> None:
    forbidden = {name for name in imports_of(module)
                 if name.split(".")[0] in {"grpc", "grpc_health", "grpc_reflection"}
                 or _in(name, "arena.store", "arena.server", "arena.cli", "arena.tournament")}
    assert not forbidden, f"{module} imports {sorted(forbidden)}"


def test_the_encoding_and_the_action_space_import_neither_engine_nor_sdk() -> None:
    for module in ("arena.env.actions", "arena.env.encoding"):
        assert not {name for name in imports_of(module)
                    if _in(name, "arena.engine", "arena.client")}, module
