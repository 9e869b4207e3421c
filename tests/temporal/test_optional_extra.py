"""The `temporal` module stays optional: a package used without it never imports `temporalio`, and a generated
project declares its `temporal` extra as the runtime's, in the runtime's window."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from mcp_codegen.cli import cli
from mcp_codegen.generate.project import extra_requirements

EXAMPLES = Path(__file__).resolve().parents[2] / "generated_examples"
ROOT = Path(__file__).resolve().parents[2]

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
    runtime = tomllib.loads((ROOT / "runtime" / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    generator = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    # The runtime's extra is the one source; the generator's own `temporal` extra has the same range.
    assert runtime["optional-dependencies"]["temporal"] == ["temporalio>=1.35,<2"]
    assert generator["optional-dependencies"]["temporal"] == runtime["optional-dependencies"]["temporal"]
    assert generator["optional-dependencies"]["keyring"] == runtime["optional-dependencies"]["keyring"]
    assert extra_requirements()["temporal"] == ("mcp-codegen-runtime[temporal]>=0.2,<1",)
    target = tmp_path / "demo-project"
    snapshot = EXAMPLES / "demo_client" / "snapshot.json"
    arguments = ["generate", "--snapshot", str(snapshot), "-o", str(target), "--meta", "pyproject", "-q"]
    assert cli.main(args=arguments, standalone_mode=False) in (None, 0)
    project = tomllib.loads((target / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    # (and `code`, code mode's sandbox: tests/code_mode)
    assert project["optional-dependencies"] == {
        "temporal": ["mcp-codegen-runtime[temporal]>=0.2,<1"],
        "code": ["mcp-codegen-runtime[code]>=0.2,<1"],
    }
    assert "mcp-codegen-runtime>=0.2,<1" in project["dependencies"]
    assert [path.name for path in target.glob("src/*/temporal.py")] == ["temporal.py"]
