"""Shared helpers for tests that generate packages and type-check them."""

from __future__ import annotations

import contextlib
import importlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.pipeline import generate_files
from mcp_codegen.output.write import write_package
from mcp_codegen.snapshot.model import Snapshot

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"


def corpus_snapshot(name: str) -> Snapshot:
    """A captured real server listing as a snapshot (the corpus files lack only the format version)."""
    data = json.loads((CORPUS / f"{name}.json").read_text(encoding="utf-8"))
    data["formatVersion"] = 1
    return Snapshot.from_json(data, source=name)


def corpus_names() -> list[str]:
    return sorted(path.stem for path in CORPUS.glob("*.json"))


def snapshot_of(tools: list[dict[str, Any]], **extra: Any) -> Snapshot:
    data: dict[str, Any] = {
        "formatVersion": 1,
        "serverInfo": {"name": "test-server", "version": "1.0.0"},
        "capabilities": {"tools": {}},
        "tools": tools,
    }
    data.update(extra)
    return Snapshot.from_json(data)


def generate_into(directory: Path, snapshot: Snapshot, package_name: str) -> Diagnostics:
    diagnostics = Diagnostics()
    files = generate_files(snapshot, package_name=package_name, diagnostics=diagnostics)
    write_package(directory / package_name, files, overwrite=True)
    return diagnostics


def codegen(*args: str, cwd: Path = ROOT, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`python -m mcp_codegen *args` as users run it: its exit code and captured stdout/stderr, stdin closed."""
    return subprocess.run(
        [sys.executable, "-m", "mcp_codegen", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def run_checker(arguments: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(arguments, cwd=cwd, capture_output=True, text=True, check=False)


def mypy_strict(cwd: Path, *packages: str) -> subprocess.CompletedProcess[str]:
    return run_checker(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir=/dev/null", *packages], cwd
    )


def pyright_strict(cwd: Path, *packages: str) -> subprocess.CompletedProcess[str]:
    (cwd / "pyrightconfig.json").write_text(json.dumps({"typeCheckingMode": "strict", "pythonVersion": "3.11"}))
    try:
        return run_checker([sys.executable, "-m", "pyright", *packages], cwd)
    finally:
        (cwd / "pyrightconfig.json").unlink()


@contextlib.contextmanager
def imported_package(directory: Path) -> Iterator[ModuleType]:
    """Import the generated package at `directory` (its parent put on sys.path); forget it again after."""
    parent = str(directory.parent)
    added = parent not in sys.path
    if added:
        sys.path.insert(0, parent)
    importlib.invalidate_caches()
    try:
        yield importlib.import_module(directory.name)
    finally:
        for module in [m for m in sys.modules if m == directory.name or m.startswith(directory.name + ".")]:
            del sys.modules[module]
        if added:
            sys.path.remove(parent)
