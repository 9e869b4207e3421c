"""A snapshot file is parsed and made canonical once: generating from a file already in canonical form does not
read its text back, and writes the bytes of a run that does (the live path, which has no file text)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import corpus_snapshot

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.fingerprint import input_hash
from mcp_codegen.generate.manifest import MANIFEST
from mcp_codegen.generate.pipeline import generate_files
from mcp_codegen.snapshot.model import Snapshot, read_snapshot


def calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often, from now on, a text is parsed, a snapshot made canonical and its digest text encoded."""
    counts = {"from_json": 0, "_canonicalised": 0, "_ordered": 0}
    for name in counts:
        real = Snapshot.__dict__[name]
        function = real.__func__ if isinstance(real, classmethod) else real

        def counted(*args: object, _name: str = name, _function: object = function, **keywords: object) -> object:
            counts[_name] += 1
            return _function(*args, **keywords)  # type: ignore[operator]

        monkeypatch.setattr(Snapshot, name, classmethod(counted) if isinstance(real, classmethod) else counted)
    return counts


def _generate(snapshot: Snapshot) -> dict[str, bytes]:
    return generate_files(snapshot, package_name="github_client", diagnostics=Diagnostics())


def test_a_canonical_file_is_not_read_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    live = corpus_snapshot("github")  # made from JSON data, no file text: what a live run generates from
    expected = _generate(live)
    path = tmp_path / "snapshot.json"
    path.write_bytes(expected["snapshot.json"])
    snapshot = read_snapshot(path)
    counts = calls(monkeypatch)
    assert _generate(snapshot) == expected
    # The manifest's input hash is the one an "is it current?" check takes first: the digest text is kept.
    assert input_hash(snapshot, "github_client") in expected[MANIFEST].decode()
    assert counts == {"from_json": 0, "_canonicalised": 0, "_ordered": 1}


def test_a_file_not_in_canonical_form_is_read_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = _generate(corpus_snapshot("github"))
    data = json.loads(expected["snapshot.json"])
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")  # the same content in another text
    snapshot = read_snapshot(path)
    counts = calls(monkeypatch)
    assert _generate(snapshot) == expected
    assert counts["from_json"] == 1
