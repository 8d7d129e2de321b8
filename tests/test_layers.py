"""The layers of DESIGN.md, as rules over what each module imports.

The layer rules count the imports that run at import time: those at a module's top
level, not those inside a function or under `if TYPE_CHECKING:`. The rule against
circles counts every import, wherever it stands: a circle of imports is one, whether
it runs at import time, later, or only for the type checker.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "arena"
STDLIB = frozenset(sys.stdlib_module_names) | {"__future__"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))
           if "v1" not in path.relative_to(PACKAGE).parts}


def _top_level(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and "TYPE_CHECKING" not in ast.unparse(node.test):
            yield from _top_level(node.body + node.orelse)
        elif isinstance(node, ast.Try):
            yield from _top_level(node.body + node.orelse + node.finalbody)


def imports_of(module: str, *, anywhere: bool = False) -> set[str]:
    """Every module `module` imports at import time, or with `anywhere` wherever the
    import stands (`from p import m` counts as p.m when m is a module of arena)."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    found: set[str] = set()
    nodes = ([n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
             if anywhere else _top_level(tree.body))
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif node.module is not None and node.level == 0:
            submodules = {f"{node.module}.{a.name}" for a in node.names} & MODULES.keys()
            found.update(submodules or {node.module})
    return found


def _roots(module: str) -> set[str]:
    return {name.split(".")[0] for name in imports_of(module)}


def _arena_imports(module: str) -> set[str]:
    return {name for name in imports_of(module) if name.split(".")[0] == "arena"}


def _in(module: str, *layers: str) -> bool:
    return any(module == layer or module.startswith(layer + ".") for layer in layers)


def _modules_of(*layers: str) -> list[str]:
    return sorted(m for m in MODULES if _in(m, *layers))


def test_the_package_has_the_modules_the_rules_speak_of() -> None:
    for layer in ("arena.engine", "arena.client", "arena.store", "arena.tournament",
                  "arena.services", "arena.server", "arena.supervisor", "arena.cli",
                  "arena.rating", "arena.stats"):
        assert _modules_of(layer), f"no module in {layer}"


@pytest.mark.parametrize("module", _modules_of("arena.engine"))
def test_the_engine_imports_only_the_standard_library(module: str) -> None:
    outside = {name for name in imports_of(module)
               if name.split(".")[0] not in STDLIB and not _in(name, "arena.engine")}
    assert not outside, f"{module} imports {sorted(outside)}"


@pytest.mark.parametrize("module", _modules_of("arena.client"))
def test_the_sdk_imports_neither_the_engine_nor_the_server(module: str) -> None:
    arena_parts = {name for name in _arena_imports(module)
                   if name != "arena" and not _in(name, "arena.client", "arena.v1")}
    assert not arena_parts, f"{module} imports {sorted(arena_parts)}"


@pytest.mark.parametrize("module", _modules_of("arena.store", "arena.tournament",
                                               "arena.rating", "arena.stats",
                                               "arena.services"))
def test_the_store_tournaments_ratings_and_management_import_no_grpc(module: str) -> None:
    grpc_parts = {name for name in imports_of(module)
                  if name.split(".")[0] in {"grpc", "grpc_health", "grpc_reflection"}
                  or _in(name, "arena.server.admin", "arena.server.server", "arena.v1")}
    assert not grpc_parts, f"{module} imports {sorted(grpc_parts)}"


@pytest.mark.parametrize("module", _modules_of("arena.store", "arena.tournament",
                                               "arena.rating", "arena.stats"))
def test_the_lower_layers_never_import_the_server_or_the_cli(module: str) -> None:
    upward = {name for name in _arena_imports(module)
              if _in(name, "arena.server", "arena.cli", "arena.supervisor")}
    assert not upward, f"{module} imports {sorted(upward)}"


def test_the_statistics_import_only_the_standard_library() -> None:
    for module in _modules_of("arena.stats"):
        outside = {name for name in imports_of(module)
                   if name.split(".")[0] not in STDLIB and not _in(name, "arena.stats")}
        assert not outside, f"{module} imports {sorted(outside)}"


def test_the_rating_chart_imports_only_the_standard_library() -> None:
    outside = {name for name in imports_of("arena.chart") if name.split(".")[0] not in STDLIB}
    assert not outside, f"arena.chart imports {sorted(outside)}"


def test_the_narration_imports_only_the_standard_library_and_the_engine() -> None:
    outside = {name for name in imports_of("arena.narration")
               if name.split(".")[0] not in STDLIB and not _in(name, "arena.engine")}
    assert not outside, f"arena.narration imports {sorted(outside)}"


@pytest.mark.parametrize("module", _modules_of("arena.report"))
def test_the_report_never_imports_the_cli(module: str) -> None:
    cli_parts = {name for name in _arena_imports(module) if _in(name, "arena.cli")}
    assert not cli_parts, f"{module} imports {sorted(cli_parts)}"


@pytest.mark.parametrize("module", _modules_of("arena.supervisor"))
def test_bot_supervision_knows_nothing_of_the_rules(module: str) -> None:
    arena_parts = {name for name in _arena_imports(module)
                   if not _in(name, "arena.supervisor", "arena.sandbox")}
    assert not arena_parts, f"{module} imports {sorted(arena_parts)}"


@pytest.mark.parametrize("module", _modules_of("arena.sandbox"))
def test_the_sandbox_imports_only_the_standard_library_and_itself(module: str) -> None:
    outside = {name for name in imports_of(module)
               if name.split(".")[0] not in STDLIB and not _in(name, "arena.sandbox")}
    assert not outside, f"{module} imports {sorted(outside)}"


@pytest.mark.parametrize("module", sorted(set(MODULES) - set(_modules_of("arena.cli"))))
def test_only_the_cli_imports_click(module: str) -> None:
    assert "click" not in _roots(module), f"{module} imports click"


def _cycle_from(start: str, graph: dict[str, set[str]]) -> list[str] | None:
    path: list[str] = []
    on_path: set[str] = set()
    done: set[str] = set()

    def visit(module: str) -> list[str] | None:
        if module in on_path:
            return path[path.index(module):] + [module]
        if module in done:
            return None
        path.append(module)
        on_path.add(module)
        for target in sorted(graph.get(module, ())):
            if (cycle := visit(target)) is not None:
                return cycle
        path.pop()
        on_path.discard(module)
        done.add(module)
        return None

    return visit(start)


def test_no_module_imports_itself_back_not_even_for_types_or_inside_a_function() -> None:
    graph = {module: {name for name in imports_of(module, anywhere=True)
                      if name in MODULES} for module in MODULES}
    cycles = [cycle for module in MODULES if (cycle := _cycle_from(module, graph))]
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles[:3])


@pytest.mark.parametrize("module", _modules_of("arena.services"))
def test_the_services_import_neither_the_server_nor_the_cli_nor_click(module: str) -> None:
    upward = {name for name in imports_of(module, anywhere=True)
              if _in(name, "arena.server", "arena.cli", "arena.web", "arena.wire_admin")
              or name.split(".")[0] in {"click", "grpc", "starlette"}}
    assert not upward, f"{module} imports {sorted(upward)}"


def test_the_cycle_check_counts_type_only_imports_and_finds_a_circle() -> None:
    # rankings_fetch imports the session for its types only.
    assert "arena.cli.session" in imports_of("arena.cli.rankings_fetch", anywhere=True)
    assert "arena.cli.session" not in imports_of("arena.cli.rankings_fetch")
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}}
    assert _cycle_from("a", graph) == ["a", "b", "c", "a"]
    assert _cycle_from("a", {"a": {"b"}, "b": set()}) is None


MAX_SERVER_CLASS_LINES = 400
"""The longest a class of `arena.server` may be: one that grows past it serves more than
one concern and is split by concern (DESIGN.md)."""


@pytest.mark.parametrize("module", _modules_of("arena.server"))
def test_no_class_of_the_server_is_over_400_lines(module: str) -> None:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    long = {node.name: (node.end_lineno or node.lineno) - node.lineno + 1
            for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    over = {name: lines for name, lines in long.items() if lines > MAX_SERVER_CLASS_LINES}
    assert not over, f"{module}: classes over {MAX_SERVER_CLASS_LINES} lines: {over}"


WEB_MAY_IMPORT = ("arena.web", "arena.v1", "arena.wire_admin", "arena.wire", "arena.narration",
                  "arena.chart")
"""What the web front may use of arena: its own modules, the admin service's generated
stubs and their conversions (`wire_admin`, `wire` for a game's events, `narration` for
their words, `chart` to draw the report's rating chart). DESIGN.md puts the web over the
services: it reaches them only through the admin RPCs, as the CLI does, so that the
server's permission table decides what each visitor sees: it never opens the store, never
imports the engine's internals, the server or the CLI."""


@pytest.mark.parametrize("module", _modules_of("arena.web"))
def test_the_web_front_reaches_the_server_only_through_the_admin_rpcs(module: str) -> None:
    imported = imports_of(module, anywhere=True)
    outside = {name for name in imported if name.split(".")[0] == "arena"
               and name != "arena" and not _in(name, *WEB_MAY_IMPORT)}
    assert not outside, f"{module} imports {sorted(outside)}"
    assert not {name for name in imported if name.split(".")[0] in {"click", "sqlite3",
                                                                    "psycopg"}}


def test_the_layer_rules_know_the_web_front() -> None:
    assert _modules_of("arena.web"), "no module in arena.web"


@pytest.mark.parametrize("module", ["arena.metrics", "arena.logs"])
def test_metrics_and_logs_import_only_the_standard_library_prometheus_and_the_record(
        module: str) -> None:
    outside = {name for name in imports_of(module, anywhere=True)
               if name.split(".")[0] not in STDLIB | {"prometheus_client"}
               and name != "arena.record"}
    assert outside == set(), f"{module} imports {sorted(outside)}"
