"""The committed examples are exactly what the current generator writes, and they type-check."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, mypy_strict, pyright_strict

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.pipeline import generate_files
from mcp_codegen.inputs.options import GenerateOptions
from mcp_codegen.output.write import differences, read_manifest
from mcp_codegen.snapshot.model import read_snapshot

EXAMPLES = ROOT / "generated_examples"
PACKAGES = ["demo_client", "everything_client", "pdf_client"]
#: The options scripts/regen_examples.py generates each example with.
OPTIONS = {"demo_client": ["--cli"]}


@pytest.mark.parametrize("package", PACKAGES)
def test_example_is_what_the_generator_writes(package: str) -> None:
    snapshot = read_snapshot(EXAMPLES / package / "snapshot.json")
    options = GenerateOptions.from_json((read_manifest(EXAMPLES / package) or {}).get("options"))
    files = generate_files(snapshot, package_name=package, diagnostics=Diagnostics(), options=options)
    stale = differences(EXAMPLES / package, files)
    assert stale == [], f"regenerate with `python scripts/regen_examples.py`: {stale}"


def test_examples_pass_mypy_strict() -> None:
    result = mypy_strict(EXAMPLES, *PACKAGES)
    assert result.returncode == 0, result.stdout + result.stderr


def test_examples_pass_pyright_strict() -> None:
    result = pyright_strict(EXAMPLES, *PACKAGES)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 errors" in result.stdout


def test_examples_are_black_formatted() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "black", "--check", "--quiet", *PACKAGES], cwd=EXAMPLES, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_runtime_sources_are_black_clean_at_the_default_line_length() -> None:
    # The runtime's own style (its pyproject has no black settings): the default line length.
    runtime = ROOT / "runtime" / "src" / "mcp_codegen_runtime"
    result = subprocess.run([sys.executable, "-m", "black", "--check", "--quiet", "-l", "88", str(runtime)])
    assert result.returncode == 0


@pytest.mark.parametrize("package", PACKAGES)
def test_generation_is_byte_identical_across_hash_seeds(tmp_path: Path, package: str) -> None:
    outputs = []
    for seed in ("0", "1"):
        out = tmp_path / seed / package
        subprocess.run(
            [
                sys.executable,
                "-m",
                "mcp_codegen",
                "generate",
                "-q",
                "--snapshot",
                str(EXAMPLES / package / "snapshot.json"),
                *OPTIONS.get(package, []),
                "-o",
                str(out),
            ],
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        outputs.append({p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()})
    assert outputs[0] == outputs[1]


def test_example_imports_without_mcp_codegen(tmp_path: Path) -> None:
    """The package needs only mcp and pydantic: it must import with mcp_codegen made unimportable."""
    shutil.copytree(EXAMPLES / "demo_client", tmp_path / "demo_client")
    (tmp_path / "mcp_codegen.py").write_text("raise ImportError('generated code must not import mcp_codegen')\n")
    code = "import demo_client, sys; demo_client.TOOLS['add'].arguments_model; assert 'mcp' not in sys.modules"
    subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, check=True, env={**os.environ, "PYTHONPATH": str(tmp_path)}
    )
