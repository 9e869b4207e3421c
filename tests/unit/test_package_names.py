"""A generated package's import name hides no module: not the standard library's, not one the runtime imports.

`-o os` once wrote a package `os` that hid the standard library (mypy then reported errors from `os/client.py`).
The modules the runtime imports are read from its source here (every `import`, and every module named to
`importlib.import_module` or the agent adapters' `require`), so the generator's list cannot fall behind it.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from cli.test_cli import TINY_SNAPSHOT, assert_fails, run, write_json

from mcp_codegen.errors import UsageError
from mcp_codegen.inputs.options import RUNTIME_MODULES, validate_top_level_name

RUNTIME = Path(__file__).resolve().parents[2] / "runtime" / "src" / "mcp_codegen_runtime"
DYNAMIC_IMPORTERS = {"import_module", "require"}


def _runtime_imports() -> set[str]:
    found = {"mcp_codegen_runtime"}
    for source in RUNTIME.rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
            elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                if callee in DYNAMIC_IMPORTERS and isinstance(node.args[0].value, str):
                    found.add(node.args[0].value.split(".")[0])
    agents = ast.parse((RUNTIME / "agents" / "imports.py").read_text(encoding="utf-8"))
    for node in ast.walk(agents):  # the frameworks the adapters import by name (`require(module, ...)`)
        if isinstance(node, ast.Dict):
            found |= {key.value for key in node.keys if isinstance(key, ast.Constant) and isinstance(key.value, str)}
    return {name for name in found if name not in sys.stdlib_module_names}


def test_every_module_the_runtime_imports_is_a_refused_name() -> None:
    imported = _runtime_imports()
    assert {"mcp", "pydantic", "anyio", "mcp_codegen_runtime", "temporalio", "langchain_core"} <= imported
    assert imported <= RUNTIME_MODULES, sorted(imported - RUNTIME_MODULES)


@pytest.mark.parametrize(
    "name", ["os", "json", "typing", "asyncio", "logging", "email", "string", *sorted(RUNTIME_MODULES)]
)
def test_a_name_that_would_hide_a_module_is_refused_with_a_suggestion(name: str) -> None:
    with pytest.raises(UsageError, match=f"use --package-name {name}_client") as raised:
        validate_top_level_name(name)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("name", ["os_client", "my_client", "json_tools", "demo_client", "weather"])
def test_other_names_are_kept(name: str) -> None:
    assert validate_top_level_name(name) == name


def test_generate_o_os_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    snapshot = str(write_json(tmp_path / "tiny.json", TINY_SNAPSHOT))
    assert_fails(
        run("generate", "--snapshot", snapshot, "-o", "os", cwd=tmp_path), 2, "'os'", "--package-name os_client"
    )
    assert_fails(run("generate", "--snapshot", snapshot, "-o", "out/mcp", cwd=tmp_path), 2, "the runtime imports")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["tiny.json"]
    assert (
        run(
            "generate", "-q", "--snapshot", snapshot, "-o", "os", "--package-name", "os_client", cwd=tmp_path
        ).returncode
        == 0
    )
