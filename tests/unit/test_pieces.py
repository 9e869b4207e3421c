"""The client and specs modules made of per-tool pieces are, byte for byte, the modules formatted whole; each
tool's IR and pieces come from the cache on a warm run, and a bad cache entry only costs time."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from helpers import corpus_names, corpus_snapshot, snapshot_of

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate import pieces
from mcp_codegen.generate.cache import SUFFIX, encode_entry, read_entry
from mcp_codegen.generate.formatting import format_python
from mcp_codegen.generate.pieces import SLOT, Piece, PieceFile
from mcp_codegen.generate.pipeline import generate_files
from mcp_codegen.inputs.options import GenerateOptions
from mcp_codegen.snapshot.model import Snapshot

EXAMPLES = sorted(Path(__file__).resolve().parents[2].joinpath("generated_examples").rglob("snapshot.json"))


def _generate(snapshot: Snapshot, formatter: str = "ruff") -> dict[str, bytes]:
    options = GenerateOptions(formatter=formatter)
    return generate_files(snapshot, package_name="client", diagnostics=Diagnostics(), options=options)


def _formatted_whole(snapshot: Snapshot, formatter: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """The package as it was made before pieces: every file rendered whole and formatted whole."""
    with monkeypatch.context() as patch:
        patch.setenv("MCP_CODEGEN_NO_CACHE", "1")
        patch.setattr(PieceFile, "slots_match", lambda self: False)
        return _generate(snapshot, formatter)


def _snapshots() -> list[Snapshot]:
    examples = [Snapshot.from_text(path.read_text(encoding="utf-8")) for path in EXAMPLES]
    return [corpus_snapshot(name) for name in ("github", "playwright", "cyanheads-git")] + examples


@pytest.mark.parametrize("formatter", ["ruff", "black", "none"])
def test_pieces_give_the_bytes_of_whole_files(formatter: str, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert {"github", "playwright", "cyanheads-git"} <= set(corpus_names())
    for snapshot in _snapshots() if formatter == "ruff" else _snapshots()[:2]:
        whole = _formatted_whole(snapshot, formatter, monkeypatch)
        assert _generate(snapshot, formatter) == whole  # cold: every piece rendered and formatted
        assert _generate(snapshot, formatter) == whole  # warm: every piece from the cache


def test_a_warm_run_renders_no_piece(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = corpus_snapshot("github")
    first = _generate(snapshot)
    rendered: list[str] = []
    real = Piece.__init__

    def recording(self: Piece, group: str, name: str, indent: int, render: object, suffix: str = ".py") -> None:
        real(self, group, name, indent, lambda: rendered.append(name) or render(), suffix)  # type: ignore[operator]

    monkeypatch.setattr(Piece, "__init__", recording)
    assert _generate(snapshot) == first
    assert rendered == []


def test_server_text_that_looks_like_a_slot_changes_nothing(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mimic = f"x\n{SLOT}\n    {SLOT}"
    snapshot = snapshot_of(
        [{"name": "echo", "description": mimic, "inputSchema": {"type": "object", "properties": {"m": {"type": "string", "description": mimic}}}}],
        serverInfo={"name": mimic, "version": f"1\n    {SLOT}"},
        instructions=mimic,
    )  # fmt: skip
    files = _generate(snapshot)
    assert files == _formatted_whole(snapshot, "ruff", monkeypatch)
    client = files["client.py"].decode()
    ast.parse(client)
    assert client.count("async def echo(") == 1 and client.count("    def echo(") == 1


def test_a_piece_that_mimics_the_separator_is_formatted_alone(cache: Path) -> None:
    text = f'value = """\n{SLOT}\n"""'
    skeleton = f"import os\n\n{pieces.slot_line(0)}\n\n{pieces.slot_line(0)}\n"
    file = PieceFile(
        skeleton,
        (Piece("g1", "a", 0, lambda: text), Piece("g2", "a", 0, lambda: "other   =  os.sep")),
        lambda: f"import os\n\n{text}\n\nother   =  os.sep\n",
    )
    expected = format_python({"m.py": file.whole()})["m.py"]
    assert format_python({"m.py": file})["m.py"] == expected
    assert "other = os.sep" in expected and "import os" in expected


def test_imports_only_the_pieces_use_are_kept_and_unused_ones_dropped(cache: Path) -> None:
    skeleton = f"import os\nimport sys\n\n\nclass C:\n    x = 1\n\n{pieces.slot_line(4)}\n"
    method = "    def f(self, sys: int) -> str:\n        return os.sep"
    file = PieceFile(
        skeleton, (Piece("g", "m", 4, lambda: method),), lambda: skeleton.replace(pieces.slot_line(4), method)
    )
    formatted = format_python({"m.py": file})["m.py"]
    assert "import os" in formatted and "import sys" not in formatted  # `sys` is only a parameter there
    assert formatted == format_python({"m.py": file.whole()})["m.py"]


@pytest.mark.parametrize("damage", ["whole entries", "one tool's results"])
def test_bad_cache_entries_only_cost_time(damage: str, cache: Path) -> None:
    snapshot = corpus_snapshot("github")
    first = _generate(snapshot)
    entries = sorted(cache.glob(f"tool-ir/*/*{SUFFIX}")) + sorted(cache.glob(f"formatted-pieces-ruff/*/*{SUFFIX}"))
    assert len(entries) == 2  # one per server and kind
    for index, path in enumerate(entries):
        if damage == "whole entries":
            path.write_bytes([encode_entry([]), b"{"][index])  # an entry of another shape; no marshal data
            continue
        entry = read_entry(path)
        results = entry["results"]
        # The IR: one per tool; the formatted pieces: each tool's, and its code API stub pieces (code_api_pieces).
        assert len(results) == len(snapshot.tools) if index == 0 else len(results) > len(snapshot.tools)
        for number, key in enumerate(sorted(results)):
            results[key] = [{"tool": {}}, [], {"pieces": {"x": 1}, "names": {}}, None][number % 4]
        path.write_bytes(encode_entry(entry))
    assert _generate(snapshot) == first


def test_field_rename_notes_name_the_fields_the_models_have(cache: Path) -> None:
    status = {"type": "object", "properties": {"isClean": {"type": "boolean"}}}
    tools = [
        {"name": name, "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "properties": {"status": status}}}
        for name in ("first", "second")
    ]  # fmt: skip
    diagnostics = Diagnostics()
    files = generate_files(snapshot_of(tools), package_name="client", diagnostics=diagnostics)
    notes = [d.message for d in diagnostics if d.location.endswith(".isClean")]
    assert len(notes) == 2 and all(note.startswith("field renamed to is_clean (") for note in notes)
    for module in ("first", "second"):
        assert "is_clean: " in files[f"models/{module}.py"].decode()


def test_joined_pieces_split_back() -> None:
    texts = ["    def a(self) -> None:\n        pass", "    def b(self) -> None:\n        return None"]
    assert pieces.split_joined(pieces.joined(texts, 4), 4, 2) == texts
    assert pieces.split_joined(pieces.joined(texts, 4), 4, 3) is None
