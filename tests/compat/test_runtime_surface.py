"""What generated packages take from the runtime: its public names only, and nothing else of it.

The contract is derived from the code: every `import` of `mcp_codegen_runtime` in the generated examples and the
compatibility fixture names a module of `PUBLIC_MODULES` and a name of that module's `__all__`; the examples stay
small (the runtime is not in them), and a release that changes only the version changes one literal.
"""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

import mcp_codegen_runtime

EXAMPLES = ROOT / "generated_examples"
PACKAGES = [EXAMPLES / name for name in ("demo_client", "everything_client", "pdf_client")]
PACKAGES.append(ROOT / "tests" / "compat" / "demo_client_0_2")


def runtime_imports(package: Path) -> list[tuple[str, str, str]]:
    """(file, module, name) of every `from mcp_codegen_runtime... import name` in the package."""
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found += [(path.name, a.name, "") for a in node.names if a.name.startswith("mcp_codegen_runtime")]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mcp_codegen_runtime"):
                found += [(path.name, node.module or "", alias.name) for alias in node.names]
    return found


@pytest.mark.parametrize("package", PACKAGES, ids=lambda path: path.name)
def test_generated_code_imports_only_public_names(package: Path) -> None:
    imports = runtime_imports(package)
    assert imports, "a generated package imports the runtime"
    for file, module, name in imports:
        assert module in mcp_codegen_runtime.PUBLIC_MODULES, (file, module)
        public = importlib.import_module(module).__all__
        assert name in public, f"{file}: {name} is not in {module}.__all__"


@pytest.mark.parametrize("module", mcp_codegen_runtime.PUBLIC_MODULES)
def test_every_public_name_resolves(module: str) -> None:
    imported = importlib.import_module(module)
    for name in imported.__all__:
        assert getattr(imported, name) is not None, f"{module}.{name}"
    assert len(set(imported.__all__)) == len(imported.__all__)


def test_no_package_carries_a_runtime_copy() -> None:
    for package in PACKAGES:
        assert not (package / "_runtime").exists(), package
        manifest = json.loads((package / ".mcp-codegen.json").read_text(encoding="utf-8"))
        assert not [path for path in manifest["files"] if path.startswith("_runtime/")]


def python_lines(package: Path) -> int:
    return sum(len(path.read_text(encoding="utf-8").splitlines()) for path in package.rglob("*.py"))


def test_generated_packages_hold_only_the_server() -> None:
    # The runtime was 23,336 of the demo package's 25.1k lines when it was copied into every package.
    assert python_lines(EXAMPLES / "demo_client") <= 2000
    assert python_lines(EXAMPLES / "everything_client") <= 3000


def test_what_methods_raise_is_said_once_in_the_client_class() -> None:
    source = (EXAMPLES / "everything_client" / "client.py").read_text(encoding="utf-8")
    assert source.count("Raises:") == 2  # AsyncClient and Client
    assert source.count("ConnectionClosedError: ") == 2


def _generate(version: str, snapshot: Path, out: Path, *options: str) -> dict[str, bytes]:
    """Generate offline with the generator (and runtime) version patched to `version`; the files by path."""
    code = (
        "import sys, mcp_codegen_runtime._version as v; v.__version__ = sys.argv.pop(1); "
        "from mcp_codegen._console import main; main()"
    )
    command = [sys.executable, "-c", code, version, "generate", "-q", "--snapshot", str(snapshot), "-o", str(out)]
    subprocess.run([*command, *options], check=True, capture_output=True, text=True)
    return {path.relative_to(out).as_posix(): path.read_bytes() for path in out.rglob("*") if path.is_file()}


@pytest.mark.parametrize("options", [("--cli",), ("--meta", "pyproject")], ids=["package", "project"])
def test_a_release_that_changes_only_the_version_changes_one_literal(tmp_path: Path, options: tuple[str, ...]) -> None:
    snapshot = EXAMPLES / "demo_client" / "snapshot.json"
    before = _generate("0.2.0", snapshot, tmp_path / "a" / "demo_client", *options)
    after = _generate("0.2.7", snapshot, tmp_path / "b" / "demo_client", *options)
    assert sorted(before) == sorted(after)
    changed = sorted(path for path in before if before[path] != after[path])
    init = "src/demo_client/__init__.py" if "pyproject" in options else "__init__.py"
    assert changed == sorted([init, ".mcp-codegen.json"])
    lines = set(before[init].decode().splitlines()) ^ set(after[init].decode().splitlines())
    assert lines == {'__generator_version__ = "0.2.0"', '__generator_version__ = "0.2.7"'}
