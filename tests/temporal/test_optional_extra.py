"""The `temporal` module stays optional: a package used without it never imports `temporalio`, and a generated
project declares the extra in the range mcp-codegen's own `temporal` extra gives."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from mcp_codegen.cli import cli
from mcp_codegen.generate.project import extra_requirements

EXAMPLES = Path(__file__).resolve().parents[2] / "generated_examples"
PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"

LOADED = "[m for m in sys.modules if m == 'temporalio' or m.startswith('temporalio.')]"


def test_a_package_used_without_its_temporal_module_never_imports_temporalio() -> None:
    code = (
        "import sys, demo_client, demo_client.testing, demo_client.specs\n"
        "demo_client.AsyncClient.connect; demo_client.models.GetWeatherResult\n"
        f"assert not {LOADED}, {LOADED}\n"
        "import demo_client.temporal\n"
        f"assert {LOADED}\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=EXAMPLES, check=True)


def test_a_generated_project_declares_the_temporal_extra(tmp_path: Path) -> None:
    own = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert extra_requirements()["temporal"] == ("temporalio<2,>=1.35",)
    assert own["temporal"] == ["temporalio>=1.35,<2"]
    target = tmp_path / "demo-project"
    snapshot = EXAMPLES / "demo_client" / "snapshot.json"
    arguments = ["generate", "--snapshot", str(snapshot), "-o", str(target), "--meta", "pyproject", "-q"]
    assert cli.main(args=arguments, standalone_mode=False) in (None, 0)
    project = tomllib.loads((target / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    # (and `code`, code mode's sandbox: tests/code_mode)
    assert project["optional-dependencies"] == {
        "temporal": ["temporalio<2,>=1.35"],
        "code": ["pydantic-monty<1.5,>=1.4"],
    }
    assert [path.name for path in target.glob("src/*/temporal.py")] == ["temporal.py"]
