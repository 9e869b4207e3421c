"""The server's property order survives the snapshot and shapes signatures, models and agent schemas."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest
from helpers import generate_into, imported_package, snapshot_of

from mcp_codegen.demo.server import build_server
from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.drift import diff_snapshots
from mcp_codegen.errors import SnapshotFormatError
from mcp_codegen.snapshot.fetch import snapshot_server
from mcp_codegen.snapshot.model import FORMAT_VERSION, Snapshot
from mcp_codegen_runtime.calls.drift import tool_fingerprint

NESTED = {
    "type": "object",
    "properties": {
        "zeta": {"type": "string"},
        "alpha": {"type": "integer"},
        "mid": {"type": "object", "properties": {"y": {"type": "string"}, "b": {"type": "string"}}},
    },
}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["title", "body"],
    "properties": {
        "title": {"type": "string", "description": "first"},
        "body": {"type": "string"},
        "author": {"type": "string"},
        "nested": NESTED,
        "listed": {"type": "array", "items": {"$ref": "#/$defs/Row"}},
        # A property named like the keyword: its value is a schema (keys sorted), not an ordered map.
        "properties": {"type": "string", "title": "t", "description": "d"},
    },
    "$defs": {"Row": {"type": "object", "properties": {"second": {"type": "string"}, "first": {"type": "string"}}}},
}


def tool(schema: dict[str, Any] = SCHEMA) -> dict[str, Any]:
    return {"name": "draft", "description": "d", "inputSchema": schema}


def test_snapshot_keeps_property_order_and_sorts_everything_else() -> None:
    text = snapshot_of([tool()]).to_text()
    data = json.loads(text)
    assert data["formatVersion"] == FORMAT_VERSION == 2
    schema = data["tools"][0]["inputSchema"]
    assert list(schema) == ["$defs", "properties", "required", "type"]
    assert list(schema["properties"]) == ["title", "body", "author", "nested", "listed", "properties"]
    assert list(schema["properties"]["nested"]["properties"]) == ["zeta", "alpha", "mid"]
    assert list(schema["properties"]["nested"]["properties"]["mid"]["properties"]) == ["y", "b"]
    assert list(schema["$defs"]["Row"]["properties"]) == ["second", "first"]
    assert list(schema["properties"]["properties"]) == ["description", "title", "type"]
    assert list(schema["properties"]["title"]) == ["description", "type"]
    # Byte-deterministic: reading the file back writes the same bytes.
    assert Snapshot.from_text(text).to_text() == text


def test_same_listing_in_any_key_order_but_properties_gives_the_same_bytes() -> None:
    def reverse_keys(value: Any, ordered: bool = False) -> Any:
        if isinstance(value, dict):
            keys = list(value) if ordered else list(reversed(list(value)))
            return {key: reverse_keys(value[key], key == "properties" and not ordered) for key in keys}
        return value

    assert snapshot_of([tool(reverse_keys(SCHEMA))]).to_text() == snapshot_of([tool()]).to_text()


def test_version_1_snapshots_still_read() -> None:
    data = json.loads(snapshot_of([tool()]).to_text())
    data["formatVersion"] = 1
    assert Snapshot.from_json(data).tools == snapshot_of([tool()]).tools
    for version in (0, 4, "2", True):
        with pytest.raises(SnapshotFormatError, match="formatVersion"):
            Snapshot.from_json({**data, "formatVersion": version})


def test_drift_is_blind_to_a_pure_reordering() -> None:
    reordered = json.loads(json.dumps(SCHEMA))
    reordered["properties"] = dict(reversed(list(SCHEMA["properties"].items())))
    reordered["$defs"]["Row"]["properties"] = {"first": {"type": "string"}, "second": {"type": "string"}}
    before, after = snapshot_of([tool()]), snapshot_of([tool(reordered)])
    assert before.to_text() != after.to_text()
    assert diff_snapshots(before, after).findings == ()
    # The client's connect-time guard hashes schemas order-blind too (its frozen values must not move).
    assert tool_fingerprint(SCHEMA, None) == tool_fingerprint(reordered, None)


@pytest.mark.anyio
async def test_generated_signatures_models_and_agent_schemas_follow_the_server(tmp_path: Path) -> None:
    snapshot = await snapshot_server(build_server(), diagnostics=Diagnostics())
    generate_into(tmp_path, snapshot, "demo_order")
    with imported_package(tmp_path / "demo_order") as package:
        # The demo server declares draft_note(title, body, author, tags=None, priority="normal").
        order = ["title", "body", "author", "tags", "priority"]
        assert list(inspect.signature(package.Client.draft_note).parameters)[1:] == order
        assert list(inspect.signature(package.AsyncClient.draft_note).parameters)[1:] == order
        spec = package.specs.TOOLS["draft_note"]
        assert list(spec.input_schema["properties"]) == order
        assert list(spec.arguments_model.model_fields) == order
        note_fields = list(spec.result_model.model_fields)
        assert note_fields.index("title") < note_fields.index("body")


def test_required_parameters_come_first_in_server_order(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {"b_opt": {"type": "string"}, "z_req": {"type": "string"}, "a_req": {"type": "string"}},
        "required": ["a_req", "z_req"],
    }
    generate_into(tmp_path, snapshot_of([{"name": "t", "inputSchema": schema}]), "order_pkg")
    with imported_package(tmp_path / "order_pkg") as package:
        assert list(inspect.signature(package.Client.t).parameters)[1:] == ["z_req", "a_req", "b_opt"]
