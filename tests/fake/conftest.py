"""Fixtures of the fake-server tests: fresh generated packages (with their `testing` module) and small snapshots.

The packages in generated_examples/ carry the runtime and templates of their last regeneration; these
tests generate their own from the same snapshots, under names no other test uses.

* ``fake_demo_pkg`` / ``fake_everything_pkg`` (session): the imported packages ``fake_demo_client`` and
  ``fake_everything_client`` (their directory's parent is ``fake_packages_dir``).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.pipeline import generate_files
from mcp_codegen.output.write import write_package
from mcp_codegen.snapshot.model import read_snapshot

EXAMPLES = Path(__file__).resolve().parents[2] / "generated_examples"


def _generate(root: Path, example: str, name: str) -> ModuleType:
    snapshot = read_snapshot(EXAMPLES / example / "snapshot.json")
    files = generate_files(snapshot, package_name=name, diagnostics=Diagnostics())
    write_package(root / name, files, overwrite=True)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return importlib.import_module(name)


@pytest.fixture(scope="session")
def fake_packages_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fake_packages")


@pytest.fixture(scope="session")
def fake_demo_pkg(fake_packages_dir: Path) -> ModuleType:
    return _generate(fake_packages_dir, "demo_client", "fake_demo_client")


@pytest.fixture(scope="session")
def fake_everything_pkg(fake_packages_dir: Path) -> ModuleType:
    return _generate(fake_packages_dir, "everything_client", "fake_everything_client")
