"""The snapshot text made from cached item texts is `Snapshot.to_text()`, byte for byte, cold and warm."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import corpus_names, corpus_snapshot, snapshot_of

from mcp_codegen.generate.cache import SUFFIX, encode_entry, read_entry
from mcp_codegen.generate.snapshot_text import snapshot_text
from mcp_codegen.snapshot.model import Snapshot

EXAMPLES = sorted(Path(__file__).resolve().parents[2].joinpath("generated_examples").rglob("snapshot.json"))


def _snapshots() -> list[Snapshot]:
    examples = [Snapshot.from_text(path.read_text(encoding="utf-8")) for path in EXAMPLES]
    odd = snapshot_of(
        [{"name": "ünïcode", "description": 'line\nbreak "quoted" \u2028 \U0001f600', "inputSchema": {}}],
        instructions="non-ASCII: é\n",
    )
    return [corpus_snapshot(name) for name in corpus_names()] + examples + [odd]


@pytest.mark.parametrize("cache", ["off", "cold then warm"])
def test_same_text_as_to_text(cache: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_CODEGEN_CACHE_DIR", str(tmp_path))
    if cache == "off":
        monkeypatch.setenv("MCP_CODEGEN_NO_CACHE", "1")
    snapshots = _snapshots()
    assert len(snapshots) > 14
    for snapshot in snapshots:
        assert snapshot_text(snapshot) == snapshot.to_text()
        assert snapshot_text(snapshot) == snapshot.to_text()  # from the cache when it is on


def test_warm_run_reads_items_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_CODEGEN_CACHE_DIR", str(tmp_path))
    snapshot = corpus_snapshot("github")
    expected = snapshot.to_text()
    snapshot_text(snapshot)
    [entry] = list((tmp_path / "snapshot-items").rglob(f"*{SUFFIX}"))  # one per server
    stored = read_entry(entry)
    assert len(stored["results"]) == len(snapshot.tools)
    for result in stored["results"].values():  # a warm run takes the stored texts: alter them and it shows
        result["text"] = result["text"].replace("{", "{ ")
    entry.write_bytes(encode_entry(stored))
    assert snapshot_text(snapshot) != expected


def test_a_canonical_file_read_the_usual_way_keeps_no_items(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its tools' texts are recognised by their digests next time: their indented texts need not be kept."""
    monkeypatch.setenv("MCP_CODEGEN_CACHE_DIR", str(tmp_path / "cache"))
    live = corpus_snapshot("github")
    path = tmp_path / "snapshot.json"
    path.write_text(live.to_text(), encoding="utf-8")
    from_file = Snapshot.from_text(path.read_text(encoding="utf-8"))  # a new server: read the usual way
    assert snapshot_text(from_file) == live.to_text()
    assert not list((tmp_path / "cache").glob(f"snapshot-items/*/*{SUFFIX}"))
    assert list((tmp_path / "cache").glob(f"snapshot-texts/*/*{SUFFIX}"))  # what the next read recognises it by
    assert snapshot_text(live) == live.to_text()  # a live snapshot's items are kept
    assert list((tmp_path / "cache").glob(f"snapshot-items/*/*{SUFFIX}"))
