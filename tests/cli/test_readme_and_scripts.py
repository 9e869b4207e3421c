"""What the README shows and the quick-start scripts do: the README is a short overview whose links reach the
docs, and the scripts install into a project-local virtual environment (never the system's Python).

The README's Python example runs with the docs' examples (tests/docs/test_docs_examples.py), which also parse the
config examples as the files they name."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_codegen.errors import UsageError
from mcp_codegen.inputs.config import load_config

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_an_unknown_allow_warnings_code_in_the_config_is_named(tmp_path: Path) -> None:
    path = tmp_path / "mcp-codegen.toml"
    path.write_text('allow_warnings = ["pattern-dropped", "patern-droped"]\n', encoding="utf-8")
    with pytest.raises(UsageError, match="patern-droped"):
        load_config(path)


def test_the_readme_quick_start_is_the_two_scripts() -> None:
    quick_start = README[README.index("## Quick start") : README.index("## Features")]
    assert "bash scripts/demo.sh" in quick_start and "bash scripts/test.sh" in quick_start
    for script in ("demo.sh", "test.sh"):
        assert (ROOT / "scripts" / script).is_file()


def test_the_readme_is_an_overview_whose_links_reach_the_docs() -> None:
    assert len(README.splitlines()) <= 150  # the details live in docs/
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
    docs_links = [link for link in links if link.startswith("docs/")]
    assert len(docs_links) >= 15  # the features link into the docs
    missing = [link for link in links if "://" not in link and not (ROOT / link).exists()]
    assert missing == [], f"README links to files that do not exist: {missing}"
    # and every docs page it links to is in the site's navigation
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert [link for link in docs_links if link.removeprefix("docs/") not in nav and link != "docs/index.md"] == []


def test_exit_codes_and_benchmark_figures_live_in_the_docs_not_the_readme() -> None:
    assert "| code | meaning |" not in README and "| benchmark |" not in README
    assert "docs/reference/exit-codes.md" in README and "docs/explanation/speed.md" in README


def test_the_readme_install_section_does_not_rely_on_pypi() -> None:
    install = README[README.index("## Install") : README.index("## Quick start")]
    assert "pip install -e ./runtime -e ." in install and "git+" in install
    assert "#subdirectory=runtime" in install  # the generator requires the runtime by version: both are named
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
    # the docs site builds (strictly) after the docs extra is installed, before the tests run
    build = test_sh.index("python -m mkdocs build --strict")
    assert test_sh.index("'.[test,docs]'") < build < test_sh.index("python -m pytest")
