"""Fixtures shared by the unit tests.

* ``cache`` (function) -> ``Path``: an empty user cache for this test (``MCP_CODEGEN_CACHE_DIR``), turned on.
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv("MCP_CODEGEN_CACHE_DIR", str(directory))
    monkeypatch.delenv("MCP_CODEGEN_NO_CACHE", raising=False)
    return directory
