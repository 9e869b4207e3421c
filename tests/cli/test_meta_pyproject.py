"""`generate --meta pyproject`: a client project that builds a wheel, installs alone, type-checks and calls a server.

The proof runs as a user would: `pip wheel` builds the project (its own build backend, in pip's isolated
build environment), a fresh virtual environment gets the wheel and nothing but its declared dependencies,
`mypy --strict` checks code using it against that environment, and the installed client calls the demo server.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

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
    assert meta["name"] == "demo-client" and meta["version"] == "1.0.0"
    own = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    assert set(meta["dependencies"]) == set(runtime_requirements())
    assert {d.split("<")[0].split(">")[0] for d in meta["dependencies"]} == {"mcp", "pydantic"}
    assert all(any(r.split("<")[0].split(">")[0] in d for d in own) for r in meta["dependencies"])

    again = _generate(project)
    assert again.returncode == 0
    assert _generate(project, "--check").returncode == 0
    assert _run(sys.executable, "-m", "mcp_codegen", "verify", str(project)).returncode == 0
    assert _run(sys.executable, "-m", "mcp_codegen", "diff", str(project), str(DEMO_SNAPSHOT)).returncode == 0
    versioned = _generate(project, "--package-version", "2.1")
    assert versioned.returncode == 0
    assert 'version = "2.1"' in (project / "pyproject.toml").read_text(encoding="utf-8")
    assert _run(sys.executable, "-m", "mcp_codegen", "verify", str(project)).returncode == 0  # options recorded
    (project / "src" / "demo_client" / "client.py").write_text("# edited\n", encoding="utf-8")
    stale = _generate(project, "--package-version", "2.1", "--check")
    assert stale.returncode == 1 and "client.py" in stale.stdout + stale.stderr
    assert _generate(project, "--package-version", "not a version").returncode == 2


@pytest.mark.slow
def test_the_wheel_installs_alone_type_checks_and_calls_the_demo_server(tmp_path: Path) -> None:
    project = tmp_path / "demo-client"
    assert _generate(project).returncode == 0
    dist = tmp_path / "dist"
    built = _run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(project))
    assert built.returncode == 0, built.stderr
    (wheel,) = dist.glob("demo_client-1.0.0-*.whl")
    venv = tmp_path / "venv"
    assert _run(sys.executable, "-m", "venv", str(venv)).returncode == 0
    python = venv / "bin" / "python"
    installed = _run(str(python), "-m", "pip", "install", "-q", str(wheel))
    assert installed.returncode == 0, installed.stderr
    listed = _run(str(python), "-m", "pip", "list", "--format=freeze").stdout
    assert "mcp-client-codegen" not in listed and "datamodel-code-generator" not in listed  # nothing but its deps

    user = tmp_path / "use_client.py"
    user.write_text(
        "import sys\n"
        "from demo_client import Client, GetWeatherResult\n\n"
        "def main(python: str) -> None:\n"
        "    with Client.stdio(python, ['-m', 'mcp_codegen.demo'], stderr='discard') as client:\n"
        "        total: int = client.add(a=2, b=3)\n"
        "        weather: GetWeatherResult = client.get_weather(city='Oslo')\n"
        "        print(total, weather.city)\n\n"
        "if __name__ == '__main__':\n"
        "    main(sys.argv[1])\n",
        encoding="utf-8",
    )
    checked = _run(
        sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir=/dev/null",
        "--python-executable", str(python), str(user),
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout
    # The client runs in the fresh environment; the demo server it starts is this environment's Python.
    called = _run(str(python), str(user), sys.executable, cwd=tmp_path)
    assert called.returncode == 0, called.stderr
    assert called.stdout.split() == ["5", "Oslo"]


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
