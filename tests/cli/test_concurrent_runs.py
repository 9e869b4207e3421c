"""Two `generate` runs at once, into sibling directories or the same one, both end with complete output."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE_SNAPSHOT = Path(__file__).resolve().parents[2] / "generated_examples" / "demo_client" / "snapshot.json"


def _start(snapshot: Path, output: Path, *extra: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "mcp_codegen", "generate", "--snapshot", str(snapshot), "-o", str(output)]
    return subprocess.Popen(
        [*command, "--overwrite", *extra], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def _both_succeed(first: subprocess.Popen[str], second: subprocess.Popen[str]) -> None:
    for process in (first, second):
        output, _ = process.communicate(timeout=120)
        assert process.returncode == 0, output


@pytest.mark.parametrize("round_", range(3))
def test_two_runs_into_sibling_directories_both_succeed(tmp_path: Path, round_: int) -> None:
    snapshot = tmp_path / "snapshot.json"
    shutil.copy(EXAMPLE_SNAPSHOT, snapshot)
    parent = tmp_path / "out"
    _both_succeed(_start(snapshot, parent / "alpha"), _start(snapshot, parent / "beta"))
    for name in ("alpha", "beta"):
        assert (parent / name / "client.py").is_file()
        assert (parent / name / "__init__.py").is_file()
    assert sorted(path.name for path in parent.iterdir()) == ["alpha", "beta"]


def test_two_skeleton_runs_into_one_directory_keep_one_handlers_file(tmp_path: Path) -> None:
    snapshot = tmp_path / "snapshot.json"
    shutil.copy(EXAMPLE_SNAPSHOT, snapshot)
    output = tmp_path / "server"
    first = _start(snapshot, output, "--server-skeleton")
    second = _start(snapshot, output, "--server-skeleton")
    said = [process.communicate(timeout=120)[0] for process in (first, second)]
    assert (output / "handlers.py").is_file(), said
    assert not [path.name for path in output.iterdir() if path.name.endswith(".tmp")]
