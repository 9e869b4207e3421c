"""`code_api.pyi` from per-tool pieces replayed from the cache is, byte for byte, the stub made and formatted whole.

Each tool's stub text depends on the tools before it through the class names they took and the classes they
wrote: the cases below move names under a recorded tool (a tool added before it that takes its class names, a
tool removed, one changed) and the result must be what a run without the cache writes, whatever the formatter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import corpus_names, corpus_snapshot, snapshot_of

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate import code_api, code_api_pieces
from mcp_codegen.generate.cache import SUFFIX, encode_entry, read_entry
from mcp_codegen.generate.code_api import CODE_API_FILE
from mcp_codegen.generate.pieces import PieceFile
from mcp_codegen.generate.pipeline import generate_files
from mcp_codegen.inputs.options import GenerateOptions
from mcp_codegen.snapshot.model import Snapshot


def _stub(snapshot: Snapshot, formatter: str = "ruff") -> str:
    options = GenerateOptions(formatter=formatter)
    files = generate_files(snapshot, package_name="client", diagnostics=Diagnostics(), options=options)
    return files[CODE_API_FILE].decode()


def _whole(snapshot: Snapshot, monkeypatch: pytest.MonkeyPatch, formatter: str = "ruff") -> str:
    """The stub made and formatted whole, without the cache (as before it came in pieces)."""
    with monkeypatch.context() as patch:
        patch.setenv("MCP_CODEGEN_NO_CACHE", "1")
        patch.setattr(PieceFile, "slots_match", lambda self: False)
        return _stub(snapshot, formatter)


def _object(properties: dict[str, Any], defs: dict[str, Any] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    return {**schema, "$defs": defs} if defs else schema


def _tool(name: str, ref: str, field: str) -> dict[str, Any]:
    """A tool whose argument and result are a `$defs` class named `ref` with one field (named `field`)."""
    defs = {ref: _object({field: {"type": "string"}, "n": {"type": "integer"}})}
    return {
        "name": name,
        "inputSchema": _object({"item": {"$ref": f"#/$defs/{ref}"}}, defs),
        "outputSchema": _object({"item": {"$ref": f"#/$defs/{ref}"}, "items": {"type": "array", "items": {"$ref": f"#/$defs/{ref}"}}}, defs),
    }  # fmt: skip


def _merged(drop: int | None = None, front: list[dict[str, Any]] | None = None) -> Snapshot:
    tools: list[dict[str, Any]] = list(front or [])
    for name in corpus_names():
        tools += [{**tool, "name": f"{name}__{tool['name']}"} for tool in corpus_snapshot(name).tools]
    if drop is not None:
        del tools[drop]
    return snapshot_of(tools)


@pytest.mark.parametrize("formatter", ["ruff", "black", "none"])
def test_pieces_replayed_give_the_stub_made_whole(formatter: str, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = [_tool("b", "Shared", "x"), _tool("c", "Shared", "y"), _tool("d", "Shared", "x")]
    cases = [
        snapshot_of(first),
        snapshot_of([_tool("a", "Shared", "z"), *first]),  # takes `Shared`: the others' names move
        snapshot_of(first[1:]),  # the first `Shared` gone
        snapshot_of([first[0], _tool("c", "Shared", "x"), first[2]]),  # now the same class as b's: reused
        snapshot_of(first),
    ]
    if formatter == "ruff":
        cases += [_merged(), _merged(drop=3), _merged(front=[_tool("zz", "Item", "q")]), _merged()]
    for snapshot in cases:
        assert _stub(snapshot, formatter) == _whole(snapshot, monkeypatch, formatter)


def test_a_warm_run_writes_no_stub_text_and_a_moved_name_is_written_again(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written: list[str] = []
    real = code_api.StubWriter.function

    def recording(self: Any, tool: Any, listing: Any) -> str:
        written.append(tool.wire_name)
        return real(self, tool, listing)

    monkeypatch.setattr(code_api.StubWriter, "function", recording)
    tools = [_tool("b", "Shared", "x"), _tool("c", "Shared", "y")]
    _stub(snapshot_of(tools))
    assert written == ["b", "c"]
    written.clear()
    _stub(snapshot_of(tools))
    assert written == []
    # `a` takes `Shared`, so b's recorded `Shared` no longer holds (and c's `Shared2` neither): both again.
    _stub(snapshot_of([_tool("a", "Other", "z"), *tools]))
    assert written == ["a"]  # `Other` moves nothing
    written.clear()
    _stub(snapshot_of([_tool("a", "Shared", "z"), *tools]))
    assert written == ["a", "b", "c"]


def test_a_rejected_replay_changes_nothing(cache: Path) -> None:
    writer = code_api.StubWriter({"b"} | set(code_api.TYPING_NAMES), Diagnostics())
    recorded = code_api_pieces.RecordedWriter(writer)
    events = [("in", "Thing", False), ("add", "Thing"), ("class", "class Thing(TypedDict): ..."),
              ("set", ("Thing", "x"), "Thing"), ("use", "TypedDict"), ("in", "b", False)]  # fmt: skip
    assert not recorded.replay(events)  # `b` is taken: the last question's answer differs
    assert set(recorded.taken) == {"b"} | set(code_api.TYPING_NAMES)
    assert list(recorded.classes) == [] and dict(recorded.bodies) == {} and set(recorded.used) == set()
    # Steps of another shape end the replay the same way, whatever they would have done.
    for odd in [("set", ("Thing", "x"), 42), ("add", ["x"]), ("class", 42), ("get", "x", None), ("in",), ("?", "x")]:
        assert not recorded.replay([*events[:-1], odd])
        assert set(recorded.taken) == {"b"} | set(code_api.TYPING_NAMES) and list(recorded.classes) == []
        assert dict(recorded.bodies) == {} and set(recorded.used) == set()
    assert recorded.replay(events[:-1])
    assert "Thing" in set(recorded.taken) and list(recorded.classes) == ["class Thing(TypedDict): ..."]


def test_a_tools_notes_are_made_again_when_its_text_is_replayed(cache: Path) -> None:
    loose = {"name": "loose", "inputSchema": _object({"o": _object({"": {"type": "string"}})})}
    snapshot = snapshot_of([loose, _tool("b", "Shared", "x")])
    notes = []
    for _ in range(2):  # made, then replayed
        diagnostics = Diagnostics()
        generate_files(snapshot, package_name="client", diagnostics=diagnostics)
        notes.append([str(item) for item in diagnostics.items if item.code == "code-api-loose-type"])
    assert notes[0] and notes[1] == notes[0]


@pytest.mark.parametrize("damage", ["garbage", "events", "function", "diagnostics"])
def test_bad_cache_entries_only_cost_time(damage: str, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = snapshot_of([_tool("b", "Shared", "x"), _tool("c", "Shared", "y")])
    expected = _stub(snapshot)
    for path in cache.glob(f"code-api/*/*{SUFFIX}"):
        if damage == "garbage":
            path.write_bytes(b"not marshal")
            continue
        entry = read_entry(path)
        for result in entry["results"].values():
            result[damage] = {"events": [("nonsense",)], "diagnostics": [{"level": "?"}]}.get(damage, 42)
        path.write_bytes(encode_entry(entry))
    assert _stub(snapshot) == expected
