"""A plain install, as a user gets it: the runtime's wheel built from runtime/, and nothing but declared dependencies.

One fresh virtual environment (`python -m venv`, filled by uv) gets the runtime's wheel (with `mcp` and `pydantic`, its
dependencies), `mypy` and `pyright`, and no extra: no `temporalio`, no `keyring`, no agent framework. In it
every generated example passes `mypy --strict` and pyright strict, temporal.py included; then a `--meta
pyproject` project's wheel installs with the runtime's wheel and nothing else, type-checks and calls the demo
server.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import ROOT, install_into, mypy_cache, venv_with, wheel_build

pytestmark = pytest.mark.slow(reason="a venv with no extras, built and filled with wheels, then mypy in it")

EXAMPLES = ROOT / "generated_examples"
PACKAGES = ("demo_client", "everything_client", "pdf_client")
EXTRAS = ("temporalio", "keyring", "pydantic-ai-slim", "langchain-core", "openai-agents", "anthropic", "smolagents")


def _run(*arguments: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in arguments], capture_output=True, text=True, check=False, cwd=cwd)


class Plain:
    def __init__(self, root: Path) -> None:
        self.root, self.dist, self.python = root, root / "dist", root / "venv" / "bin" / "python"

    def installed(self) -> set[str]:
        listed = _run(sys.executable, "-m", "uv", "pip", "list", "--format=freeze", "--python", self.python).stdout
        return {line.split("==")[0].lower() for line in listed.splitlines()}


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Plain]:
    env = Plain(tmp_path_factory.mktemp("plain"))
    built = _run(*wheel_build(ROOT / "runtime", env.dist))
    assert built.returncode == 0, built.stderr
    requirements = ("mcp-codegen-runtime", "mypy>=2.4,<3", "pyright>=1.1.400")
    venv_with(env.root / "venv", "--find-links", str(env.dist), *requirements)
    assert not env.installed() & set(EXTRAS)
    yield env


@pytest.mark.parametrize("package", PACKAGES)
def test_generated_packages_type_check_without_extras(plain: Plain, package: str, tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    checked = _run(plain.python, "-m", "mypy", "--strict", mypy_cache(plain.python), package, cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    config = {"typeCheckingMode": "strict", "pythonVersion": "3.11"}
    (tmp_path / "pyrightconfig.json").write_text(json.dumps(config), encoding="utf-8")
    # --pythonpath: the plain environment's packages (else pyright asks the `python` on PATH, this one's).
    pyright = _run(plain.python, "-m", "pyright", "--outputjson", "--pythonpath", plain.python, package, cwd=tmp_path)
    report = json.loads(pyright.stdout)
    assert report["summary"]["errorCount"] == 0, [d["message"] for d in report["generalDiagnostics"]][:10]
    searched = _run(plain.python, "-m", "pyright", "--verbose", "--pythonpath", plain.python, package, cwd=tmp_path)
    assert str(plain.root / "venv" / "lib") in searched.stdout  # it read the plain environment's site-packages


def test_a_project_wheel_installs_with_the_runtime_wheel_and_calls_the_demo_server(plain: Plain) -> None:
    project = plain.root / "demo-client"
    generated = _run(sys.executable, "-m", "mcp_codegen", "generate", "-q", "--snapshot",
                     EXAMPLES / "demo_client" / "snapshot.json", "-o", project, "--meta", "pyproject")  # fmt: skip
    assert generated.returncode == 0, generated.stderr
    built = _run(*wheel_build(project, plain.dist))
    assert built.returncode == 0, built.stderr
    (wheel,) = plain.dist.glob("demo_client-0.1.0-*.whl")  # the default project version
    # Only the runtime's wheel is offered beside the index: the project needs nothing of this repository else.
    installed = _run(*install_into(plain.python, "--find-links", str(plain.dist), str(wheel)))
    assert installed.returncode == 0, installed.stderr
    names = plain.installed()
    assert {"demo-client", "mcp-codegen-runtime"} <= names
    assert "mcp-client-codegen" not in names and "datamodel-code-generator" not in names
    assert not names & set(EXTRAS)

    user = plain.root / "use_client.py"
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
    checked = _run(plain.python, "-m", "mypy", "--strict", mypy_cache(plain.python), user)
    assert checked.returncode == 0, checked.stdout
    # The client runs in the plain environment; the demo server it starts is this environment's Python.
    called = _run(plain.python, user, sys.executable, cwd=plain.root)
    assert called.returncode == 0, called.stderr
    assert called.stdout.split() == ["5", "Oslo"]
