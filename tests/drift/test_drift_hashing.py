"""Per-item hashes for the client's connect-time guard: stable, order-blind, stdlib-only, cheap."""

from __future__ import annotations

import ast
import hashlib
import json
from typing import Any

import pytest
from drift_support import all_sources, snapshot, source, tool

from mcp_codegen.drift.hashing import (
    RUNTIME_SOURCE,
    hash_differences,
    item_hash,
    listing_hashes,
    snapshot_hashes,
)


def _documented(item: Any) -> str:
    """The formula in the docs, written out independently."""
    text = json.dumps(item, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def test_the_hash_is_the_documented_formula() -> None:
    add = tool(source("demo"), "add")
    assert item_hash("tool", add) == _documented(add)
    assert len(item_hash("tool", add)) == 16 and int(item_hash("tool", add), 16) >= 0
    assert item_hash("tool", {"name": "é", "inputSchema": {}}) == _documented({"name": "é", "inputSchema": {}})


def test_a_known_value_never_changes() -> None:
    # Frozen: generated packages embed these hashes; changing the canonicalisation breaks every guard.
    assert item_hash("tool", {"name": "add", "inputSchema": {"type": "object"}}) == "da82aa5e1df52779"


def test_key_order_does_not_matter_but_content_does() -> None:
    add = tool(source("demo"), "add")
    reordered = json.loads(json.dumps(add, sort_keys=True))
    reordered = dict(reversed(list(reordered.items())))
    assert item_hash("tool", reordered) == item_hash("tool", add)
    changed = json.loads(json.dumps(add))
    changed["inputSchema"]["properties"]["a"]["type"] = "number"
    assert item_hash("tool", changed) != item_hash("tool", add)


def test_volatile_resource_fields_are_left_out() -> None:
    plain = {"uri": "file:///a", "name": "a", "annotations": {"audience": ["user"]}}
    volatile = {**plain, "size": 12, "annotations": {"audience": ["user"], "lastModified": "2025-01-01T00:00:00Z"}}
    assert item_hash("resource", volatile) == item_hash("resource", plain)
    assert item_hash("resourceTemplate", {**plain, "size": 3}) == item_hash("resourceTemplate", plain)
    assert item_hash("tool", {**plain, "size": 12}) != item_hash("tool", plain)
    with pytest.raises(ValueError, match="unknown item kind"):
        item_hash("widget", plain)


@pytest.mark.parametrize("name", all_sources())
def test_snapshot_hashes_match_hashes_of_the_raw_listing(name: str) -> None:
    data = source(name)
    expected = snapshot_hashes(snapshot(data))
    live = listing_hashes(
        {section: data[section] for section in ("tools", "prompts", "resources", "resourceTemplates")}
    )
    assert expected == live
    assert hash_differences(expected, live) == []
    assert set(expected["tools"]) == {t["name"] for t in data["tools"]}


def test_hash_differences_names_what_changed() -> None:
    data = source("demo")
    expected = snapshot_hashes(snapshot(data))
    data["tools"].remove(tool(data, "forecast"))
    tool(data, "add")["description"] = "Adds."
    data["tools"].append({"name": "ping", "inputSchema": {"type": "object"}})
    live = listing_hashes({"tools": data["tools"]})
    assert hash_differences(expected, live) == ["tools.add: changed", "tools.forecast: removed", "tools.ping: added"]


def test_the_runtime_module_is_stdlib_only_and_self_contained() -> None:
    text = RUNTIME_SOURCE.read_text(encoding="utf-8")
    imported: set[str] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "no relative imports"
            imported.add((node.module or "").split(".")[0])
    assert imported <= {"__future__", "hashlib", "json", "collections", "typing"}
    namespace: dict[str, Any] = {"__name__": "copied_runtime"}
    exec(compile(text, "copied_runtime.py", "exec"), namespace)  # as if copied into a generated package
    for item in source("everything")["tools"]:
        assert namespace["item_hash"]("tool", item) == item_hash("tool", item)
