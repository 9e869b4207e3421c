"""`mcp-codegen verify` covers every package mcp-codegen writes, offline: an umbrella package (its subpackages and
its own files), a server skeleton, and a package whose live generation warned at connect time.

Each test edits one generated file by hand and expects verify to name it and exit 1; unedited, exit 0.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import prewarmed
import pytest

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = ROOT / "generated_examples" / "everything_client" / "snapshot.json"
#: The demo server, after a banner on stdout (a line that is not JSON-RPC).
NOISY_SERVER = (
    "print('Welcome to my server', flush=True); import runpy; runpy.run_module('mcp_codegen.demo', run_name='__main__')"
)


def _run(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        prewarmed.command(["-m", "mcp_codegen", *arguments]), cwd=cwd, capture_output=True, text=True, timeout=180
    )


def _edit(path: Path) -> None:
    path.write_text(path.read_text(encoding="utf-8") + "# edited by hand\n", encoding="utf-8")


@pytest.fixture
def umbrella(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    python = json.dumps(sys.executable)
    (tmp_path / "pyproject.toml").write_text(
        f"""[tool.mcp-codegen]
output = "mcp_clients"

[tool.mcp-codegen.servers.demo]
command = {python}
args = ["-m", "mcp_codegen.demo"]

[tool.mcp-codegen.servers.memory]
command = {python}
args = ["-m", "mcp_codegen.demo"]
""",
        encoding="utf-8",
    )
    generated = _run("generate", "-q", cwd=tmp_path)
    assert generated.returncode == 0, generated.stderr
    return tmp_path


def test_an_umbrella_package_is_verified_member_by_member(umbrella: Path) -> None:
    current = _run("verify", cwd=umbrella)
    assert current.returncode == 0, current.stderr
    assert "skipped" not in current.stderr and "mcp_clients is current" in current.stderr

    client = umbrella / "mcp_clients" / "memory" / "client.py"
    _edit(client)
    stale = _run("verify", str(client), cwd=umbrella)  # as pre-commit passes a changed file
    assert stale.returncode == 1, stale.stderr
    assert f"changed: {client.resolve()}" in stale.stdout
    assert "skipped" not in stale.stderr


def test_the_umbrellas_own_files_are_verified(umbrella: Path) -> None:
    _edit(umbrella / "mcp_clients" / "__init__.py")
    stale = _run("verify", "mcp_clients", cwd=umbrella)
    assert stale.returncode == 1, stale.stderr
    assert "changed: " in stale.stdout and stale.stdout.strip().endswith("mcp_clients/__init__.py")
    refused = _run("generate", "-q", cwd=umbrella)  # the edit is not lost silently
    assert refused.returncode == 4 and "you changed __init__.py" in refused.stderr, refused.stderr
    assert _run("generate", "-q", "--overwrite", cwd=umbrella).returncode == 0
    assert _run("verify", cwd=umbrella).returncode == 0


def test_a_server_skeleton_is_verified(tmp_path: Path) -> None:
    generated = _run("generate", "-q", "--snapshot", str(SNAPSHOT), "--server-skeleton", "-o", "skel", cwd=tmp_path)
    assert generated.returncode == 0, generated.stderr
    current = _run("verify", "skel", cwd=tmp_path)
    assert current.returncode == 0, current.stderr
    assert "skipped" not in current.stderr

    client = tmp_path / "skel" / "_generated" / "client.py"
    _edit(client)
    stale = _run("verify", str(client), cwd=tmp_path)
    assert stale.returncode == 1, stale.stderr
    assert f"changed: {client.resolve()}" in stale.stdout
    assert "--server-skeleton" in stale.stderr  # the command it suggests writes a skeleton again


def test_a_package_whose_server_printed_a_banner_verifies(tmp_path: Path) -> None:
    command = f"{sys.executable} -c {json.dumps(NOISY_SERVER)}"
    generated = _run("generate", "--stdio", command, "-o", "noisy", cwd=tmp_path)
    assert generated.returncode == 0, generated.stderr
    assert "warning[server-stdout-noise]" in generated.stderr  # the warning is still reported by the run
    verified = _run("verify", "noisy", cwd=tmp_path)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    # The suggested offline regeneration is up to date, and verify still passes after it.
    again = _run("generate", "--snapshot", "noisy/snapshot.json", "-o", "noisy", cwd=tmp_path)
    assert again.returncode == 0 and "is up to date" in again.stderr, again.stderr
    assert _run("verify", "noisy", cwd=tmp_path).returncode == 0
