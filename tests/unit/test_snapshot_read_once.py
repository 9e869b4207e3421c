"""A snapshot file is parsed and made canonical once: generating from a file does not read its text back, and
writes the bytes of a run that does (the live path, which has no file text). A file in canonical form is
recognised tool by tool (`item_texts`): only the tools whose text no run has seen are made canonical."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import corpus_snapshot

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.fingerprint import input_hash
from mcp_codegen.generate.manifest import MANIFEST
from mcp_codegen.generate.pipeline import generate_files
from mcp_codegen.generate.snapshot_text import item_texts
from mcp_codegen.snapshot import model
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


def test_a_file_not_in_canonical_form_is_not_read_back_either(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """JSON read from any text is the data its canonical text reads back as: the same bytes, parsed once."""
    expected = _generate(corpus_snapshot("github"))
    data = json.loads(expected["snapshot.json"])
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")  # the same content in another text
    snapshot = read_snapshot(path)
    counts = calls(monkeypatch)
    assert _generate(snapshot) == expected
    assert counts["from_json"] == 0


def canonicalised_tools(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the tools made canonical from now on."""
    names: list[str] = []
    real = model._canonical_tool

    def counted(tool: dict[str, object]) -> dict[str, object]:
        names.append(str(tool.get("name")))
        return real(tool)

    monkeypatch.setattr(model, "_canonical_tool", counted)
    return names


def test_a_canonical_file_is_recognised_tool_by_tool(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _generate(corpus_snapshot("github"))  # its snapshot text records each tool's text as canonical
    path = tmp_path / "snapshot.json"
    path.write_bytes(expected["snapshot.json"])
    names = canonicalised_tools(monkeypatch)
    snapshot = read_snapshot(path, item_texts=item_texts)
    assert names == []  # every tool's text known: none made canonical again
    assert snapshot.canonical_text() == expected["snapshot.json"].decode()
    assert snapshot.canonical() is snapshot
    assert snapshot == read_snapshot(path)  # the same snapshot the usual way
    assert _generate(snapshot) == expected

    # One tool changed: only it is made canonical (and checked by writing it again).
    data = json.loads(expected["snapshot.json"])
    data["tools"][3]["description"] = "changed"
    changed = Snapshot.from_json(data)
    path.write_text(changed.to_text(), encoding="utf-8")
    names.clear()
    again = read_snapshot(path, item_texts=item_texts)
    assert names == [data["tools"][3]["name"]]
    assert again.canonical_text() == changed.to_text()
    assert again == changed
    assert _generate(again) == _generate(changed)


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda text: text.replace('"description": ', '"description":  ', 1), id="whitespace"),
        pytest.param(lambda text: text.rstrip("\n"), id="no-final-newline"),
        pytest.param(lambda text: text.replace('"formatVersion": 2', '"formatVersion": 1'), id="version-1"),
        pytest.param(lambda text: text.replace('"tools": [', '"extra": 1,\n  "tools": ['), id="unknown-key"),
    ],
)
def test_a_file_that_is_not_canonical_is_read_the_usual_way(cache: Path, tmp_path: Path, edit: object) -> None:
    expected = _generate(corpus_snapshot("github"))
    text = edit(expected["snapshot.json"].decode())  # type: ignore[operator]
    path = tmp_path / "snapshot.json"
    path.write_text(text, encoding="utf-8", newline="")
    snapshot = read_snapshot(path, item_texts=item_texts)
    assert snapshot.canonical_text() is None
    assert snapshot == read_snapshot(path)
    assert _generate(snapshot) == expected


def test_tools_out_of_order_or_reordered_keys_are_not_taken_as_canonical(cache: Path, tmp_path: Path) -> None:
    expected = _generate(corpus_snapshot("github"))
    data = json.loads(expected["snapshot.json"])
    path = tmp_path / "snapshot.json"
    swapped = {**data, "tools": [data["tools"][1], data["tools"][0], *data["tools"][2:]]}
    path.write_text(json.dumps(swapped, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert read_snapshot(path, item_texts=item_texts).canonical_text() is None
    # A tool's keys in another order: its text is new, checked, and found not canonical.
    reordered = dict(reversed(list(data["tools"][2].items())))
    path.write_text(
        json.dumps({**data, "tools": [*data["tools"][:2], reordered, *data["tools"][3:]]}, indent=2, ensure_ascii=False)
        + "\n",
        encoding="utf-8",
    )
    snapshot = read_snapshot(path, item_texts=item_texts)
    assert snapshot.canonical_text() is None
    assert snapshot.tools[2] == data["tools"][2] and list(snapshot.tools[2]) == list(data["tools"][2])
    assert _generate(snapshot) == expected


def test_the_input_hash_is_the_same_however_the_snapshot_was_read(cache: Path, tmp_path: Path) -> None:
    """It is taken over the snapshot's content: a file recognised tool by tool takes the digests of the tools it has
    seen from the cache and encodes the others, and gives the hash of any other reading of the same content."""
    live = corpus_snapshot("github")
    expected = input_hash(live, "github_client")
    path = tmp_path / "snapshot.json"
    path.write_text(live.to_text(), encoding="utf-8")
    _generate(read_snapshot(path))  # records each tool's text as canonical
    recognised = read_snapshot(path, item_texts=item_texts)
    assert recognised.canonical_text() is not None
    assert input_hash(recognised, "github_client") == expected
    assert input_hash(read_snapshot(path), "github_client") == expected
    path.write_text(json.dumps(json.loads(live.to_text()), indent=1), encoding="utf-8")  # another text
    assert input_hash(read_snapshot(path, item_texts=item_texts), "github_client") == expected


def test_a_changed_tool_in_a_recognised_file_changes_the_input_hash(cache: Path, tmp_path: Path) -> None:
    live = corpus_snapshot("github")
    path = tmp_path / "snapshot.json"
    path.write_text(live.to_text(), encoding="utf-8")
    _generate(read_snapshot(path))  # records each tool's text as canonical
    data = json.loads(live.to_text())
    data["tools"][3]["description"] = "Changed."
    changed = Snapshot.from_json(data)
    path.write_text(changed.to_text(), encoding="utf-8")
    recognised = read_snapshot(path, item_texts=item_texts)
    assert recognised.canonical_text() is not None  # read tool by tool: one tool new
    assert input_hash(recognised, "github_client") == input_hash(changed, "github_client")
    assert input_hash(recognised, "github_client") != input_hash(live, "github_client")
    again = read_snapshot(path, item_texts=item_texts)  # now every tool's digest comes from the cache
    assert input_hash(again, "github_client") == input_hash(changed, "github_client")
