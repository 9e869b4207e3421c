"""Fixtures of the agent-adapter tests: fresh client packages that include the runtime under test.

The packages in generated_examples/ carry a copy of the runtime made when they were last
regenerated; these tests generate their own from the same snapshots (into a temporary directory,
under names no other test uses) so they always exercise src/mcp_codegen/runtime.

* ``demo_pkg`` / ``everything_pkg`` / ``pdf_pkg`` (session): the imported packages ``agents_demo_client``,
  ``agents_everything_client`` and ``agents_pdf_client`` (MCP Apps: the PDF server's listing).
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
def agent_packages_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("agent_packages")


@pytest.fixture(scope="session")
def demo_pkg(agent_packages_dir: Path) -> ModuleType:
    return _generate(agent_packages_dir, "demo_client", "agents_demo_client")


@pytest.fixture(scope="session")
def everything_pkg(agent_packages_dir: Path) -> ModuleType:
    return _generate(agent_packages_dir, "everything_client", "agents_everything_client")


@pytest.fixture(scope="session")
def pdf_pkg(agent_packages_dir: Path) -> ModuleType:
    return _generate(agent_packages_dir, "pdf_client", "agents_pdf_client")
