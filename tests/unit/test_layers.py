"""The layers of src/mcp_codegen and the runtime (runtime/src/mcp_codegen_runtime): `lint-imports` keeps the
contracts in pyproject.toml and breaks on each bad edge.

The contracts (`[tool.importlinter]`): each stage imports only the stages below it (cli -> output -> generate |
drift -> snapshot -> inputs -> the shared leaf modules -> runtime), the runtime imports nothing of the generator,
the demo server stands alone, and no sibling packages or modules import each other in a circle.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

SOURCE = ROOT / "src"
RUNTIME_SOURCE = ROOT / "runtime" / "src"
CONFIG = ROOT / "pyproject.toml"
STAGES = "Each stage imports only the stages below it"
RUNTIME = "The runtime imports nothing of the generator"
DEMO_ALONE = "The demo server imports nothing of mcp_codegen"
DEMO_UNUSED = "Nothing of mcp_codegen imports the demo server"
NO_CYCLES = "No import cycle between sibling packages or modules"
ALL_CONTRACTS = (STAGES, RUNTIME, DEMO_ALONE, DEMO_UNUSED, NO_CYCLES)


def lint_imports(source: Path, runtime_source: Path = RUNTIME_SOURCE) -> subprocess.CompletedProcess[str]:
    """`lint-imports` (the one installed beside this interpreter) on `mcp_codegen` under `source` and
    `mcp_codegen_runtime` under `runtime_source`."""
    executable = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert executable is not None, "lint-imports is missing: install the test extra (pip install -e '.[test]')"
    return subprocess.run(
        [executable, "--no-cache", str(CONFIG)],
        cwd=source,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(source), str(runtime_source)]), "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def verdicts(output: str) -> dict[str, str]:
    """Contract name -> KEPT or BROKEN, from lint-imports' summary."""
    found = {}
    for name in ALL_CONTRACTS:
        line = next((line for line in output.splitlines() if line.startswith(name)), "")
        found[name] = "KEPT" if line.rstrip().endswith("KEPT") else "BROKEN" if line.rstrip().endswith("BROKEN") else ""
    return found


def test_src_keeps_every_contract() -> None:
    result = lint_imports(SOURCE)
    assert result.returncode == 0, result.stdout + result.stderr
    assert verdicts(result.stdout) == dict.fromkeys(ALL_CONTRACTS, "KEPT"), result.stdout


#: One bad edge each, added to a copy of src/mcp_codegen (or of the runtime, `mcp_codegen_runtime/...`): (module to
#: edit, line to add, the contract it breaks).
BAD_EDGES = {
    "input imports output": ("inputs/launch.py", "from mcp_codegen.output import write", STAGES),
    "snapshot imports generate": ("snapshot/model.py", "import mcp_codegen.generate.naming", STAGES),
    "shared module imports a stage": ("errors.py", "from mcp_codegen.inputs import options", STAGES),
    "runtime imports the generator": ("mcp_codegen_runtime/text.py", "from mcp_codegen import wording", RUNTIME),
    "runtime imports the generator's root": ("mcp_codegen_runtime/files.py", "import mcp_codegen", RUNTIME),
    "demo imports the generator": ("demo/server.py", "from mcp_codegen import errors", DEMO_ALONE),
    "the generator imports demo": ("cli/serve.py", "import mcp_codegen.demo.server", DEMO_UNUSED),
    "a circle inside a stage": ("generate/ir.py", "from mcp_codegen.generate import render", NO_CYCLES),
}


@pytest.mark.parametrize("case", sorted(BAD_EDGES))
def test_a_bad_edge_breaks_its_contract(case: str, tmp_path: Path) -> None:
    module, line, contract = BAD_EDGES[case]
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(SOURCE / "mcp_codegen", tmp_path / "mcp_codegen", ignore=ignore)
    shutil.copytree(RUNTIME_SOURCE / "mcp_codegen_runtime", tmp_path / "mcp_codegen_runtime", ignore=ignore)
    edited = tmp_path / (module if module.startswith("mcp_codegen_runtime/") else f"mcp_codegen/{module}")
    edited.write_text(edited.read_text(encoding="utf-8") + f"\n{line}  # noqa\n", encoding="utf-8")
    result = lint_imports(tmp_path, tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert verdicts(result.stdout)[contract] == "BROKEN", result.stdout
