"""The runtime (mcp-codegen-runtime, py.typed, which generated packages import) passes mypy --strict and pyright.

The hand-written fakepkg is checked too, since it uses the runtime the way generated code does.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import mypy_cache

HERE = Path(__file__).resolve().parent
RUNTIME = HERE.parents[1] / "runtime" / "src" / "mcp_codegen_runtime"


def _layout(root: Path) -> None:
    shutil.copytree(RUNTIME, root / "mcp_codegen_runtime", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(HERE / "fakepkg", root / "fakepkg", ignore=shutil.ignore_patterns("__pycache__", "*.json"))


def test_mypy_strict(tmp_path: Path) -> None:
    _layout(tmp_path)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            mypy_cache(),
            "--python-version",
            "3.11",
            "-p",
            "mcp_codegen_runtime",
            "-p",
            "fakepkg",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_pyright_strict(tmp_path: Path) -> None:
    pyright = shutil.which("pyright")
    if pyright is None:  # pragma: no cover - pyright is a test dependency
        pytest.fail("pyright is not installed")
    _layout(tmp_path)
    config = {"typeCheckingMode": "strict", "pythonVersion": "3.11", "include": ["mcp_codegen_runtime", "fakepkg"]}
    (tmp_path / "pyrightconfig.json").write_text(json.dumps(config))
    result = subprocess.run([pyright, "--outputjson"], cwd=tmp_path, capture_output=True, text=True, check=False)
    report = json.loads(result.stdout)
    problems = [
        f"{item['file']}:{item['range']['start']['line'] + 1}: {item['message']}"
        for item in report["generalDiagnostics"]
        if item["severity"] in ("error", "warning")
    ]
    assert not problems, "\n".join(problems)
