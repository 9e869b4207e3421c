"""`default_fits` verdicts: the same as jsonschema's, kept in the user's cache so a warm run need not import it."""

from __future__ import annotations

import marshal
from pathlib import Path

import pytest

from mcp_codegen.generate.cache import SUFFIX, encode_entry
from mcp_codegen.generate.model_defaults import default_fits

ROOT = {"$defs": {"Tag": {"type": "string"}}, "type": "object"}
CASES = [
    ([], {"type": "array", "items": {"type": "string"}}, True),
    (["a", 1], {"type": "array", "items": {"type": "string"}}, False),
    (["x"], {"type": "array", "items": {"$ref": "#/$defs/Tag"}}, True),
    ([2], {"type": "array", "items": {"$ref": "#/$defs/Tag"}}, False),
    ({"a": 1}, {"type": "object", "additionalProperties": {"type": "integer"}}, True),
]


@pytest.mark.parametrize("off", [False, True])
def test_verdicts_cold_and_warm(off: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_CODEGEN_CACHE_DIR", str(tmp_path))
    if off:
        monkeypatch.setenv("MCP_CODEGEN_NO_CACHE", "1")
    for _ in range(2):
        assert [default_fits(value, schema, ROOT) for value, schema, _fits in CASES] == [c[2] for c in CASES]
    assert len(list(tmp_path.rglob(f"*{SUFFIX}"))) == (0 if off else len(CASES))


def test_warm_verdict_comes_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_CODEGEN_CACHE_DIR", str(tmp_path))
    value, schema, fits = CASES[0]
    assert default_fits(value, schema, ROOT) is fits
    (entry,) = tmp_path.rglob(f"*{SUFFIX}")
    entry.write_bytes(encode_entry({"fits": False}))
    assert default_fits(value, schema, ROOT) is False
    for corrupt in (b"not an entry", encode_entry({"fits": False})[:-1], marshal.dumps(["fits"])):
        entry.write_bytes(corrupt)  # a corrupt entry is a miss
        assert default_fits(value, schema, ROOT) is True
