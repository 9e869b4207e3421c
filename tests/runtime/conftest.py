"""Fixtures of the runtime tests: an empty file token store and an in-memory keyring (OAuth), and a package
generated now from the committed server-everything snapshot."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import keyring
import pytest
from auth_helpers import MemoryKeyring
from helpers import imported_package

from mcp_codegen.cli import cli

EVERYTHING_SNAPSHOT = Path(__file__).resolve().parents[2] / "generated_examples" / "everything_client" / "snapshot.json"


@pytest.fixture
def token_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty config directory for the token store, file backend."""
    config = tmp_path / "config"
    monkeypatch.setenv("MCP_CODEGEN_CONFIG_DIR", str(config))
    monkeypatch.setenv("MCP_CODEGEN_TOKEN_STORE", "file")
    return config / "auth"


@pytest.fixture
def memory_keyring(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryKeyring]:
    """The keyring backend chosen by default (a real backend keeping passwords in a dict), an empty config."""
    monkeypatch.setenv("MCP_CODEGEN_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("MCP_CODEGEN_TOKEN_STORE", raising=False)
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


@pytest.fixture(scope="module")
def everything(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """A client package generated (now, with this runtime) from the committed everything snapshot."""
    target = tmp_path_factory.mktemp("everything") / "everything_now"
    arguments = ["generate", "--snapshot", str(EVERYTHING_SNAPSHOT), "-o", str(target), "-q"]
    assert cli.main(args=arguments, standalone_mode=False) in (None, 0)
    with imported_package(target) as package:
        yield package
