"""Fixtures of the runtime's OAuth tests: an empty file token store, an in-memory keyring."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from auth_helpers import MemoryKeyring


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
