"""Install the third-party MCP test servers (npm) into tests/servers/node_modules.

Usage: ``python tests/servers/install.py`` prints the path of server-everything's ``dist/index.js``.

npm runs only when the installed version differs from the pinned one in package.json, so running this
again is cheap. Exits non-zero with a clear message when node/npm are missing or the install fails.
Also importable (``tests/conftest.py`` uses :func:`ensure_everything`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
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
def _install_lock() -> Iterator[None]:
    """Serialize installs between processes (pytest-xdist workers), keyed on this checkout's path.

    The lock file lives in the temp dir, not in node_modules, which `npm ci` deletes.
    """
    try:
        import fcntl
    except ImportError:  # not POSIX: no locking
        yield
        return
    key = hashlib.sha256(str(HERE).encode()).hexdigest()[:16]
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
    node_executable()
    npm = shutil.which("npm")
    if npm is None:
        raise InstallError(
            f"`npm` is not on PATH: it is needed to install {PACKAGE}@{wanted} into {NODE_MODULES} "
            "(install Node.js >= 20 with npm, then run `python tests/servers/install.py`)"
        )
    if (HERE / "package-lock.json").is_file():
        command = [npm, "ci", "--no-audit", "--no-fund"]
    else:
        command = [npm, "install", "--no-audit", "--no-fund"]
    if not quiet:
        print(f"installing {PACKAGE}@{wanted}: {' '.join(command[1:])} (in {HERE})", file=sys.stderr, flush=True)
    try:
        completed = subprocess.run(
            command,
            cwd=HERE,
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
    got = installed_version()
    if got != wanted:
        raise InstallError(f"after `npm {command[1]}`, {PACKAGE} is at version {got!r}, expected {wanted!r}")
    return ENTRY_POINT


def everything_command() -> list[str]:
    """The command line that runs server-everything over stdio (installing it first if needed)."""
    entry = ensure_everything(quiet=True)
    return [node_executable(), str(entry), "stdio"]


def main() -> int:
    try:
        entry = ensure_everything()
    except InstallError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(entry)
    return 0


if __name__ == "__main__":
    sys.exit(main())
