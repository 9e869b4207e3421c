"""Compiled templates are cached per user; the cache never changes what is written, and is optional."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import jinja2
import pytest

from mcp_codegen.generate.render import _template_cache

ROOT = Path(__file__).resolve().parents[2]
DEMO_SNAPSHOT = ROOT / "generated_examples" / "demo_client" / "snapshot.json"


def _generate(output: Path, cache_home: Path) -> dict[str, bytes]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    command = [
        sys.executable,
        "-m",
        "mcp_codegen",
        "generate",
        "-q",
        "--snapshot",
        str(DEMO_SNAPSHOT),
        "-o",
        str(output),
    ]
    subprocess.run(command, env=env, check=True, capture_output=True)
    return {str(path.relative_to(output)): path.read_bytes() for path in sorted(output.rglob("*")) if path.is_file()}


def test_a_warm_cache_writes_the_same_bytes(tmp_path: Path) -> None:
    cache_home = tmp_path / "cache"
    cold = _generate(tmp_path / "cold" / "demo_client", cache_home)
    cached = sorted(p.name for p in (cache_home / "mcp-codegen" / "templates").iterdir())
    assert cached and all(name.endswith(".cache") for name in cached)
    warm = _generate(tmp_path / "warm" / "demo_client", cache_home)
    assert warm == cold


def test_no_writable_cache_directory_means_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert _template_cache() is None
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "fresh"))
    assert isinstance(_template_cache(), jinja2.FileSystemBytecodeCache)
