"""The README's argument-model sections kept in the cache are what a run without the cache writes, whatever changed."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from helpers import corpus_names, corpus_snapshot, snapshot_of

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.pipeline import generate_files
from mcp_codegen.snapshot.model import Snapshot


def _readme(snapshot: Snapshot) -> str:
    return generate_files(snapshot, package_name="client", diagnostics=Diagnostics())["README.md"].decode()


def _tools() -> list[dict[str, Any]]:
    return [
        {**tool, "name": f"{name}__{tool['name']}"} for name in corpus_names() for tool in corpus_snapshot(name).tools
    ]


def _nested(description: str, default: object = None) -> dict[str, Any]:
    field: dict[str, Any] = {"type": "string", "description": description}
    if default is not None:
        field["default"] = default
    inner = {"type": "object", "properties": {"deep": field}, "required": []}
    return {"name": "nested", "inputSchema": {"type": "object", "properties": {"item": inner}, "required": ["item"]}}


@pytest.mark.parametrize(
    "change",
    [
        lambda tools: tools.__setitem__(0, _nested("another description")),
        lambda tools: tools.__setitem__(0, _nested("first description", default="x")),
        lambda tools: tools.pop(1),
        lambda tools: tools.insert(0, _nested("first description")),
    ],
    ids=["a field's description", "a field's default", "a tool removed", "a tool added first"],
)
def test_a_changed_listing_reads_as_without_the_cache(
    change: Any, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = [_nested("first description"), *_tools()]
    _readme(snapshot_of(tools))  # the cache filled
    changed = copy.deepcopy(tools)
    change(changed)
    warm = _readme(snapshot_of(changed))
    monkeypatch.setenv("MCP_CODEGEN_NO_CACHE", "1")
    assert warm == _readme(snapshot_of(changed))
    assert "## Argument models" in warm and "- `deep: str | None = ` " not in warm
    assert ("another description" in warm) == ("another" in repr(changed[0]))
