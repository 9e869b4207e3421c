"""Shared helpers for tests that generate packages and type-check them."""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import functools
import hashlib
import importlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib.metadata import distribution
from pathlib import Path
from types import ModuleType
from typing import Any

import prewarmed
import pytest

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.pipeline import generate_files
from mcp_codegen.output.write import write_package
from mcp_codegen.snapshot.model import Snapshot

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"


def sigint_by_default() -> None:
    """`preexec_fn` of a child a test interrupts: SIGINT does what it does from a terminal.

    A shell starts background jobs with SIGINT ignored, and children inherit that: a suite run in the background
    would otherwise send its Ctrl-C to a child that never sees it.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


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
    """`python -m mcp_codegen *args` as users run it: its exit code and captured stdout/stderr, stdin closed (forked
    from a process that imported `mcp` already: tests/prewarmed.py)."""
    return subprocess.run(
        prewarmed.command(["-m", "mcp_codegen", *args]),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def run_checker(arguments: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(arguments, cwd=cwd, capture_output=True, text=True, check=False)


@functools.cache
def _mypy_caches() -> Path:
    """This test process's folder of mypy caches, made on first use and removed at exit."""
    root = Path(tempfile.mkdtemp(prefix="mcp-codegen-test-mypy-"))
    atexit.register(shutil.rmtree, root, True)
    return root


def mypy_cache(interpreter: str | Path = sys.executable) -> str:
    """`--cache-dir=...` for mypy resolving imports in `interpreter`'s environment: one cache per test process
    (an xdist worker runs its tests one at a time) and environment, removed at exit. The environment's packages
    (pydantic, mcp, the runtime) are then analysed once per worker, not once per check (6.5 s against 0.7 s for
    a generated package); mypy rechecks what changed, the generated packages always."""
    digest = hashlib.sha256(str(interpreter).encode()).hexdigest()[:12]
    return f"--cache-dir={_mypy_caches() / digest}"


def mypy_strict(cwd: Path, *packages: str) -> subprocess.CompletedProcess[str]:
    return run_checker([sys.executable, "-m", "mypy", "--strict", mypy_cache(), *packages], cwd)


def pyright_strict(cwd: Path, *packages: str) -> subprocess.CompletedProcess[str]:
    (cwd / "pyrightconfig.json").write_text(json.dumps({"typeCheckingMode": "strict", "pythonVersion": "3.11"}))
    try:
        return run_checker([sys.executable, "-m", "pyright", *packages], cwd)
    finally:
        (cwd / "pyrightconfig.json").unlink()


def _ty() -> str:
    return shutil.which("ty", path=str(Path(sys.executable).parent)) or "ty"


def _ty_options(cwd: Path, interpreter: str) -> list[str]:
    """`ty check`'s arguments before the paths: the project, `interpreter`'s environment, strict output."""
    return ["check", "--project", str(cwd), "--python", str(Path(interpreter).parent.parent),
            "--python-version", "3.11", "--output-format", "concise", "--error-on-warning"]  # fmt: skip


def ty_check(cwd: Path, *paths: str) -> subprocess.CompletedProcess[str]:
    """ty (this environment's, pinned in the test extras) over `paths`, imports resolved in this environment."""
    return run_checker([_ty(), *_ty_options(cwd, sys.executable), *paths], cwd)


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


# ---------------------------------------------------------------------------------------- the three checkers


@dataclass(frozen=True)
class Checked:
    """One checker's run over many packages."""

    checker: str
    returncode: int
    output: str
    seconds: float


def code_mode_ty() -> str:
    """The ty release code mode type-checks with: the one pydantic-monty's worker binary embeds (its SBOM names the
    `ty_python_semantic` crate it was built with), as a requirement (`ty==0.0.14`)."""
    sboms = [f for f in distribution("pydantic-monty-runtime").files or () if f.name.endswith(".cyclonedx.json")]
    components = json.loads(sboms[0].locate().read_text(encoding="utf-8"))["components"]
    [release] = {c["version"] for c in components if c["name"] == "ty_python_semantic"}
    return f"ty=={release}"


def wheel_build(project: Path, dist: Path) -> list[str]:
    """The command that builds `project`'s wheel into `dist`, isolated as `pip wheel` builds it (uv, a test
    dependency: under a second, where pip takes four)."""
    return [sys.executable, "-m", "uv", "build", "--quiet", "--wheel", "--out-dir", str(dist), str(project)]


def install_into(python: Path, *arguments: str) -> list[str]:
    """The command that installs `arguments` (as `pip install` takes them) into `python`'s environment, which needs
    no pip of its own (uv: about a second, where pip takes eleven)."""
    return [sys.executable, "-m", "uv", "pip", "install", "--quiet", "--python", str(python), *arguments]


def venv_with(venv: Path, *arguments: str) -> Path:
    """A new virtual environment at `venv`, with no pip of its own, holding `arguments` (as `pip install` takes them,
    installed by `install_into`); its interpreter. Fails the test with the installer's words when a step fails."""
    python = venv / "bin" / "python"
    for step in ([sys.executable, "-m", "venv", "--without-pip", str(venv)], install_into(python, *arguments)):
        done = subprocess.run(step, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr[-3000:]
    return python


def plain_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The interpreter of a virtual environment holding the runtime's wheel and its declared dependencies only (no
    extra: no temporalio, keyring or agent framework), as a user's plain install has them; and the ty release code
    mode runs (`code_mode_ty`), as a command.

    Built once per test session: the xdist workers share it (a lock file; the first one builds it).
    """
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    root = shared / "plain-install"
    python = root / "venv" / "bin" / "python"
    shared.mkdir(parents=True, exist_ok=True)
    with (shared / "plain-install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / "ready").exists():
            shutil.rmtree(root, ignore_errors=True)
            dist = root / "dist"
            built = subprocess.run(wheel_build(ROOT / "runtime", dist), capture_output=True, text=True, check=False)
            assert built.returncode == 0, built.stderr[-3000:]
            # ty as a command (its package is nothing generated code imports), into that environment only, never
            # this one, whose ty it would replace.
            venv_with(root / "venv", "--find-links", str(dist), "mcp-codegen-runtime", code_mode_ty())
            (root / "ready").touch()
    return python


def type_check(cwd: Path, packages: Sequence[str], python: Path | None = None) -> dict[str, Checked]:
    """`mypy --strict`, pyright (strict) and ty over `packages` (folders in `cwd`), one run each, resolving imports in
    `python`'s environment (this one's by default). The checkers are this environment's (pinned in the test
    extras): only the packages they read come from `python`'s. With a `plain_python` environment, each package's
    `code_api.pyi` is also checked by the ty release code mode runs."""
    interpreter = str(python or sys.executable)
    ty, ty_options = _ty(), _ty_options(cwd, interpreter)
    commands = {
        "mypy": [sys.executable, "-m", "mypy", "--strict", mypy_cache(interpreter), "--python-executable", interpreter,
                 *packages],
        "pyright": [sys.executable, "-m", "pyright", "--pythonpath", interpreter, *packages],
        "ty": [ty, *ty_options, *packages],
    }  # fmt: skip
    code_mode = Path(interpreter).with_name("ty")
    stubs = [f"{package}/code_api.pyi" for package in packages if (cwd / package / "code_api.pyi").exists()]
    if python is not None and code_mode.exists() and stubs:
        commands["ty (code mode's)"] = [str(code_mode), *ty_options, *stubs]
    config = cwd / "pyrightconfig.json"
    config.write_text(json.dumps({"typeCheckingMode": "strict", "pythonVersion": "3.11"}))
    results = {}
    try:
        for checker, command in commands.items():
            started = time.perf_counter()
            done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
            elapsed = time.perf_counter() - started
            results[checker] = Checked(checker, done.returncode, done.stdout + done.stderr, elapsed)
    finally:
        config.unlink()
    return results
