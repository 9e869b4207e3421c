"""`mcp-codegen --help` and `generate --help` say where the cache is, as `generate/cache.py` finds it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from mcp_codegen.cli import cli
from mcp_codegen.generate.cache import cache_root


@pytest.mark.parametrize("arguments", [["--help"], ["generate", "--help"]])
def test_help_names_the_cache_directory(arguments: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    shown = " ".join(CliRunner().invoke(cli, arguments).output.split())
    assert "$MCP_CODEGEN_CACHE_DIR, else $XDG_CACHE_HOME/mcp-codegen, else ~/.cache/mcp-codegen" in shown
    assert "MCP_CODEGEN_NO_CACHE=1" in shown
    # What it says is where the cache is.
    for name in ("MCP_CODEGEN_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache_root() == tmp_path / ".cache" / "mcp-codegen"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "mcp-codegen"
    monkeypatch.setenv("MCP_CODEGEN_CACHE_DIR", str(tmp_path / "mine"))
    assert cache_root() == tmp_path / "mine"
