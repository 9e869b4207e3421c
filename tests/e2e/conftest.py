"""Fixtures for the end-to-end tests: run the real `mcp-codegen` CLI, import what it wrote, compare trees.

* ``codegen`` (session) -> ``run(*args, cwd=ROOT, env=None)``: runs ``python -m mcp_codegen *args`` as a
  subprocess and returns the ``CompletedProcess`` (text mode, stdout/stderr captured).
* ``generate_package`` (session) -> ``generate(directory, *server_args)``: ``mcp-codegen generate -q ... -o
  directory`` (the package name is the directory's name); fails the test, with the CLI's stderr, unless it
  exits 0.
* ``import_package`` (session) -> ``load(directory)``: imports a generated package by its directory name
  (its parent is put on ``sys.path``); everything imported is removed again at the end of the session.
* ``unique_name(prefix)``: a fresh package name, so that two generated packages never share a module cache.
* ``tree(directory)``: ``{relative posix path: bytes}`` of every file, ``__pycache__`` left out.
"""

from __future__ import annotations

import contextlib
import subprocess
import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import ModuleType

import prewarmed
import pytest
from helpers import imported_package

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "generated_examples"

Run = Callable[..., "subprocess.CompletedProcess[str]"]


def unique_name(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def tree(directory: Path) -> dict[str, bytes]:
    return {
        path.relative_to(directory).as_posix(): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def run_codegen(
    *args: str, cwd: Path = ROOT, env: Mapping[str, str] | None = None, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        prewarmed.command(["-m", "mcp_codegen", *args]),
        cwd=cwd,
        env=dict(env) if env is not None else None,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        check=False,
    )


@pytest.fixture(scope="session")
def codegen() -> Run:
    return run_codegen


@pytest.fixture(scope="session")
def generate_package() -> Callable[..., Path]:
    def generate(directory: Path, *server_args: str, cwd: Path = ROOT) -> Path:
        result = run_codegen("generate", "-q", *server_args, "-o", str(directory), cwd=cwd)
        assert result.returncode == 0, f"mcp-codegen generate failed ({result.returncode}): {result.stderr}"
        assert "Traceback" not in result.stderr
        return directory

    return generate


@pytest.fixture(scope="session")
def import_package() -> Iterator[Callable[[Path], ModuleType]]:
    with contextlib.ExitStack() as stack:
        yield lambda directory: stack.enter_context(imported_package(directory))
