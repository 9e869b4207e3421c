"""`generate --meta pyproject`: a client project, its layout, dependencies and regeneration rules.

That its wheel installs in a fresh environment with the runtime's wheel alone, type-checks and calls a server is
tests/compat/test_plain_install.py's proof.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from mcp_codegen.generate.project import runtime_requirements

ROOT = Path(__file__).resolve().parents[2]
DEMO_SNAPSHOT = ROOT / "generated_examples" / "demo_client" / "snapshot.json"


def _run(*arguments: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(arguments), capture_output=True, text=True, check=False, cwd=cwd)


def _generate(project: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    command = ["generate", "--snapshot", str(DEMO_SNAPSHOT), "-o", str(project), "--meta", "pyproject", "-q"]
    return _run(sys.executable, "-m", "mcp_codegen", *command, *extra)


def test_the_project_layout_and_its_regeneration_rules(tmp_path: Path) -> None:
    project = tmp_path / "demo-client"
    assert _generate(project).returncode == 0
    assert (project / "src" / "demo_client" / "client.py").is_file()
    assert (project / "src" / "demo_client" / "py.typed").is_file()
    assert (project / ".mcp-codegen.json").is_file() and not (
        project / "src" / "demo_client" / ".mcp-codegen.json"
    ).exists()
    meta = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    # Not the server's reported version (1.0.0): a FastMCP server reports FastMCP's; the project says so.
    assert meta["name"] == "demo-client" and meta["version"] == "0.1.0"
    pyproject = (project / "pyproject.toml").read_text(encoding="utf-8")
    assert "# The version: mcp-codegen's default: set yours with --package-version" in pyproject
    assert "Version 0.1.0 (mcp-codegen's default" in (project / "README.md").read_text(encoding="utf-8")
    # The generator's own dependencies (hatch_build.py adds the runtime to them).
    own = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["hatch"]["metadata"]
    own = own["hooks"]["custom"]["dependencies"]
    assert set(meta["dependencies"]) == set(runtime_requirements())
    names = {d.split("<")[0].split(">")[0] for d in meta["dependencies"]}
    assert names == {"mcp-codegen-runtime", "mcp", "pydantic"}
    assert "mcp-codegen-runtime>=0.2,<1" in meta["dependencies"]  # the runtime with a lower and an upper bound
    assert all(any(r.split("<")[0].split(">")[0] in d for d in own) for r in meta["dependencies"][1:])

    again = _generate(project)
    assert again.returncode == 0
    assert _generate(project, "--check").returncode == 0
    assert _run(sys.executable, "-m", "mcp_codegen", "verify", str(project)).returncode == 0
    assert _run(sys.executable, "-m", "mcp_codegen", "diff", str(project), str(DEMO_SNAPSHOT)).returncode == 0
    versioned = _generate(project, "--package-version", "2.1")
    assert versioned.returncode == 0
    pyproject = (project / "pyproject.toml").read_text(encoding="utf-8")
    assert 'version = "2.1"' in pyproject and "# The version: the version given to mcp-codegen" in pyproject
    assert _run(sys.executable, "-m", "mcp_codegen", "verify", str(project)).returncode == 0  # options recorded
    (project / "src" / "demo_client" / "client.py").write_text("# edited\n", encoding="utf-8")
    stale = _generate(project, "--package-version", "2.1", "--check")
    assert stale.returncode == 1 and "client.py" in stale.stdout + stale.stderr
    # (--overwrite: the hand edit above is not what this checks)
    assert _generate(project, "--package-version", "not a version", "--overwrite").returncode == 2


def test_the_config_key_writes_a_project_and_an_umbrella_refuses_it(tmp_path: Path) -> None:
    demo = f'command = "{sys.executable}"\nargs = ["-m", "mcp_codegen.demo"]\n'
    (tmp_path / "mcp-codegen.toml").write_text(
        f'output = "clients"\n\n[servers.demo]\n{demo}meta = "pyproject"\npackage_version = "3.0"\n\n'
        f"[servers.other]\n{demo}",
        encoding="utf-8",
    )
    single = _run(sys.executable, "-m", "mcp_codegen", "generate", "--server", "demo", "-o", "demo-client", "-q",
                  cwd=tmp_path)  # fmt: skip
    assert single.returncode == 0, single.stderr
    assert 'version = "3.0"' in (tmp_path / "demo-client" / "pyproject.toml").read_text(encoding="utf-8")
    umbrella = _run(sys.executable, "-m", "mcp_codegen", "generate", "-q", cwd=tmp_path)
    assert umbrella.returncode == 2 and "needs one server written with -o" in umbrella.stderr


def test_a_frameworks_version_is_never_the_projects(tmp_path: Path) -> None:
    """wikipedia-mcp 2.0.1 on FastMCP reports serverInfo.version 4.2.3 (FastMCP's): the project is 0.1.0, a note
    (not a warning: --strict passes) says how to set it, and the reported version is named as not used."""
    import json

    snapshot = json.loads(DEMO_SNAPSHOT.read_text(encoding="utf-8"))
    snapshot["serverInfo"] = {"name": "Wikipedia", "version": "4.2.3"}
    source = tmp_path / "wikipedia.json"
    source.write_text(json.dumps(snapshot), encoding="utf-8")
    project = tmp_path / "wikipedia-client"
    command = ["generate", "--snapshot", str(source), "-o", str(project), "--meta", "pyproject", "--strict", "-v"]
    result = _run(sys.executable, "-m", "mcp_codegen", *command)
    assert result.returncode == 0, result.stderr
    assert tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"] == "0.1.0"
    note = next(line for line in result.stderr.splitlines() if "[package-version-defaulted]" in line)
    assert note.startswith(
        "mcp-codegen: info[package-version-defaulted]: project.version: the project is version 0.1.0"
    )
    assert "'4.2.3' is not used" in note
