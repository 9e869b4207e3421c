"""What the README shows and the quick-start scripts do: the config examples parse as the files they name,
and the scripts install into a project-local virtual environment (never the system's Python)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_codegen.diagnostics import CODES
from mcp_codegen.errors import UsageError
from mcp_codegen.inputs.config import load_config

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _toml_examples() -> list[tuple[str, str]]:
    """Every ```toml block of the README that names its file in its first line (`# mcp-codegen.toml`)."""
    blocks = re.findall(r"^```toml\n(.*?)^```", README, re.MULTILINE | re.DOTALL)
    named = []
    for block in blocks:
        first = block.splitlines()[0]
        if match := re.fullmatch(r"#\s*(mcp-codegen\.toml|pyproject\.toml)\b.*", first):
            named.append((match.group(1), block))
    return named


def test_the_readme_shows_both_config_forms() -> None:
    assert sorted(name for name, _ in _toml_examples()) == ["mcp-codegen.toml", "pyproject.toml"]


@pytest.mark.parametrize(("name", "text"), _toml_examples(), ids=lambda value: value if value.endswith("toml") else "")
def test_readme_config_examples_parse_as_the_file_they_name(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    cfg = load_config(path)
    assert set(cfg.servers) == {"memory", "time", "docs"}
    assert set(cfg.allow_warnings) <= set(CODES)
    # and the other file name rejects it: the two forms are not interchangeable
    other = tmp_path / ("pyproject.toml" if name == "mcp-codegen.toml" else "mcp-codegen.toml")
    other.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError):
        load_config(other)


def test_an_unknown_allow_warnings_code_in_the_config_is_named(tmp_path: Path) -> None:
    path = tmp_path / "mcp-codegen.toml"
    path.write_text('allow_warnings = ["pattern-dropped", "patern-droped"]\n', encoding="utf-8")
    with pytest.raises(UsageError, match="patern-droped"):
        load_config(path)


def test_the_readme_install_section_does_not_rely_on_pypi() -> None:
    install = README[README.index("## Install") : README.index("## Quick start")]
    assert "pip install -e ." in install and "git+" in install
    assert "pip install mcp-client-codegen" in install  # kept, for when it is published


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_scripts_create_and_reuse_a_project_local_venv(tmp_path: Path) -> None:
    """`scripts/venv.sh` (sourced by demo.sh and test.sh) makes `python` the one in ./.venv, created by $PYTHON."""
    project = tmp_path / "project"
    (project / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "venv.sh", project / "scripts" / "venv.sh")
    probe = 'source scripts/venv.sh && python -c "import sys; print(sys.prefix)"'
    env = {**os.environ, "PYTHON": sys.executable}
    env.pop("VIRTUAL_ENV", None)

    def prefix() -> str:
        done = subprocess.run(
            ["bash", "-c", probe], cwd=project, env=env, capture_output=True, text=True, check=False, timeout=300
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert Path(prefix()).resolve() == (project / ".venv").resolve()
    (project / ".venv" / "marker").write_text("reused")
    assert Path(prefix()).resolve() == (project / ".venv").resolve()
    assert (project / ".venv" / "marker").exists()  # reused, not recreated


def test_demo_and_test_scripts_use_the_venv_helper() -> None:
    for script in ("demo.sh", "test.sh"):
        text = (ROOT / "scripts" / script).read_text(encoding="utf-8")
        assert "source scripts/venv.sh" in text
        assert '"$PYTHON" -m' not in text  # installs with the venv's python, not $PYTHON
    test_sh = (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
    assert test_sh.index("mypy --strict src") < test_sh.index("python -m pytest")
    assert test_sh.index("ruff check src") < test_sh.index("python -m pytest")
