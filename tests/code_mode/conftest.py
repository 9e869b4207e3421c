"""Fixtures of the code-mode tests: client packages generated from the example snapshots, with the runtime under test.

* ``code_demo`` / ``code_everything`` (session): the imported packages ``code_demo_client`` (the demo
  server) and ``code_everything_client`` (npm server-everything), each with its `code_api.pyi`.
* ``code_ms365`` (session): ``code_ms365_client``, from the ms-365 listing (344 tools; a minute to generate).
* ``code_ledger`` (session): ``code_ledger_client``, from the listing of `ledger_server` (a server that keeps a
  ledger of the calls it executes).
"""

from __future__ import annotations

import gzip
import importlib
import sys
from pathlib import Path
from types import ModuleType

import anyio
import pytest
from helpers import generate_into
from ledger_server import Ledger, build_ledger_server

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.snapshot.fetch import snapshot_server
from mcp_codegen.snapshot.model import Snapshot, read_snapshot

EXAMPLES = Path(__file__).resolve().parents[2] / "generated_examples"
MS365 = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "ms365_0.155.0.snapshot.json.gz"


def generate_package(root: Path, snapshot: Path | Snapshot, name: str) -> ModuleType:
    generate_into(root, read_snapshot(snapshot) if isinstance(snapshot, Path) else snapshot, name)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return importlib.import_module(name)


@pytest.fixture(scope="session")
def code_packages_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("code_packages")


@pytest.fixture(scope="session")
def code_demo(code_packages_dir: Path) -> ModuleType:
    return generate_package(code_packages_dir, EXAMPLES / "demo_client" / "snapshot.json", "code_demo_client")


@pytest.fixture(scope="session")
def code_everything(code_packages_dir: Path) -> ModuleType:
    return generate_package(
        code_packages_dir, EXAMPLES / "everything_client" / "snapshot.json", "code_everything_client"
    )


@pytest.fixture(scope="session")
def code_ms365(code_packages_dir: Path) -> ModuleType:
    snapshot = code_packages_dir / "ms365.snapshot.json"
    snapshot.write_bytes(gzip.decompress(MS365.read_bytes()))
    return generate_package(code_packages_dir, snapshot, "code_ms365_client")


@pytest.fixture(scope="session")
def code_ledger(code_packages_dir: Path) -> ModuleType:
    async def listing() -> Snapshot:
        return await snapshot_server(build_ledger_server(Ledger()), diagnostics=Diagnostics())

    return generate_package(code_packages_dir, anyio.run(listing), "code_ledger_client")
