"""The runtime's modules import one another without a cycle (at module level or inside functions), and the
package's names are imported on first use.

A cycle hidden by a function-level import works until someone moves the import; the agent tools
reach their clients through `runtime/protocols.py` instead. Imports under `if TYPE_CHECKING:`
are annotations only and never run, so they are not edges.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import mcp_codegen_runtime as runtime

RUNTIME = Path(__file__).resolve().parents[2] / "runtime" / "src" / "mcp_codegen_runtime"


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _module_name(root: Path, path: Path) -> str:
    """`client/base.py` -> "client.base"; a package's `__init__.py` is the package itself."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts) or "__init__"


def _relative_imports(tree: ast.AST, module: str, is_package: bool, modules: set[str]) -> set[str]:
    """Runtime modules imported anywhere in `tree` (functions included), except under TYPE_CHECKING."""
    found: set[str] = set()
    package = module.split(".") if is_package and module != "__init__" else module.split(".")[:-1]

    def resolve(level: int, name: str) -> str:
        base = package[: len(package) - (level - 1)] if level > 1 else package
        return ".".join([*base, *filter(None, name.split("."))]) or "__init__"

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom) and node.level >= 1:
            target = resolve(node.level, node.module or "")
            submodules = {f"{target}.{alias.name}".removeprefix("__init__.") for alias in node.names}
            if submodules <= modules:  # from .pkg import submodule: the package is loaded first anyway
                found.update(submodules)
            else:
                found.add(target)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found & modules


def runtime_import_graph(root: Path) -> dict[str, set[str]]:
    """Every runtime module (dotted, relative to the runtime) -> the runtime modules it imports."""
    paths = sorted(root.rglob("*.py"))
    modules = {_module_name(root, path) for path in paths}
    graph: dict[str, set[str]] = {}
    for path in paths:
        name = _module_name(root, path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        graph[name] = _relative_imports(tree, name, path.name == "__init__.py", modules) - {name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of `graph` as a path (first module repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state:
                cycle = visit(target)
                if cycle is not None:
                    return cycle
        path.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state:
            cycle = visit(module)
            if cycle is not None:
                return cycle
    return None


def test_the_runtime_has_no_import_cycle() -> None:
    graph = runtime_import_graph(RUNTIME)
    assert {"client.base", "client.blocking", "agents.tool", "agents.protocols", "auth"} <= set(graph)
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle in the runtime: " + " -> ".join(cycle or [])


def test_agent_tools_reach_clients_only_through_the_protocols() -> None:
    graph = runtime_import_graph(RUNTIME)
    assert graph["agents.protocols"] <= {"calls.results", "calls.specs"}  # a leaf over the call types
    for module, targets in graph.items():
        if module.startswith("agents"):
            assert not {target for target in targets if target.startswith("client")}, module


def test_the_cycle_check_sees_function_level_imports(tmp_path: Path) -> None:
    # The check itself: a cycle closed by an import inside a function is found,
    # one closed only under TYPE_CHECKING is not.
    (tmp_path / "a.py").write_text("from .b import x\n")
    (tmp_path / "b.py").write_text("def f():\n    from .a import y\n")
    (tmp_path / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import z\n")
    (tmp_path / "d.py").write_text("from . import c\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "e.py").write_text("from ..d import w\nfrom . import f\n")
    (tmp_path / "pkg" / "f.py").write_text("")
    graph = runtime_import_graph(tmp_path)
    assert find_cycle(graph) == ["a", "b", "a"]
    assert graph["c"] == set() and graph["d"] == {"c"}
    assert graph["pkg.e"] == {"d", "pkg.f"}


def test_every_name_of_the_package_is_imported_from_where_type_checkers_see_it() -> None:
    # `_EXPORTS` (what `__getattr__` imports) and the `TYPE_CHECKING` imports (what mypy and pyright read)
    # name the same modules and the same names.
    tree = ast.parse((RUNTIME / "__init__.py").read_text(encoding="utf-8"))
    [block] = [node for node in tree.body if isinstance(node, ast.If) and _is_type_checking(node.test)]
    seen = {
        node.module: tuple(sorted(alias.name for alias in node.names))
        for node in block.body
        if isinstance(node, ast.ImportFrom) and node.module is not None
    }
    assert seen == {module: tuple(sorted(names)) for module, names in runtime._EXPORTS.items()}
    constants = {"PACKAGE_EXPORTS", "PACKAGE_LAZY_EXPORTS", "PUBLIC_MODULES", "__version__"}
    assert set(runtime.__all__) == {*runtime._WHERE, *constants}
    for name in runtime.__all__:
        assert getattr(runtime, name) is not None, name
    assert set(runtime.PACKAGE_LAZY_EXPORTS.items()) <= set(runtime._WHERE.items())


def test_importing_a_light_runtime_module_loads_neither_pydantic_nor_the_sdk() -> None:
    # The generator reads these in its main process; the package's `__init__` runs first and must stay light.
    code = (
        "import sys\n"
        "import mcp_codegen_runtime.calls.drift, mcp_codegen_runtime.calls.uri, mcp_codegen_runtime.files\n"
        "import mcp_codegen_runtime.text, mcp_codegen_runtime.command_line.table\n"
        "from mcp_codegen_runtime import PACKAGE_EXPORTS\n"
        "print(sorted(m for m in ('pydantic', 'mcp', 'mcp_types', 'anyio') if m in sys.modules))\n"
        "from mcp_codegen_runtime import AsyncClientBase, SnapshotData\n"
        "print('pydantic' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split("\n")[:2] == ["[]", "True"], result.stdout + result.stderr
