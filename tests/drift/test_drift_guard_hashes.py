"""The per-tool fingerprints behind the connect-time guard (`runtime/drift.py`): what the generator embeds in
`specs.TOOL_HASHES` and what the client computes from the live listing must agree, and only they."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import anyio
import mcp_types
import pytest
from drift_support import all_sources, source, tool

from mcp_codegen_runtime.calls.drift import DriftSummary, check_drift, compare, fingerprints_of, tool_fingerprint


def _documented(input_schema: Any, output_schema: Any) -> str:
    """The formula in the module's docstring, written out independently (a schema without a type is read as
    the object schema MCP requires, as the generator and the listing read it)."""
    schemas = [
        {"type": "object", **schema} if isinstance(schema, dict) and "type" not in schema else schema
        for schema in (input_schema, output_schema)
    ]
    text = json.dumps(schemas, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def test_the_fingerprint_is_the_documented_formula() -> None:
    add = tool(source("demo"), "add")
    assert tool_fingerprint(add["inputSchema"], add.get("outputSchema")) == _documented(
        add["inputSchema"], add.get("outputSchema")
    )
    assert tool_fingerprint({"title": "é"}, None) == _documented({"title": "é"}, None)


def test_a_known_value_never_changes() -> None:
    # Frozen: generated packages embed these; changing the formula makes every shipped guard cry drift.
    assert tool_fingerprint({"type": "object"}, None) == _documented({"type": "object"}, None)
    assert tool_fingerprint({"type": "object"}, None) == "c6ec2a89dc85c40f"


def test_key_order_does_not_matter_but_content_does() -> None:
    schema = tool(source("demo"), "add")["inputSchema"]
    reordered = dict(reversed(list(json.loads(json.dumps(schema)).items())))
    assert tool_fingerprint(reordered, None) == tool_fingerprint(schema, None)
    changed = json.loads(json.dumps(schema))
    changed["properties"]["a"]["type"] = "number"
    assert tool_fingerprint(changed, None) != tool_fingerprint(schema, None)
    assert tool_fingerprint(schema, {"type": "object"}) != tool_fingerprint(schema, None)


@pytest.mark.parametrize("name", all_sources())
def test_embedded_fingerprints_match_a_live_listing_parsed_by_the_sdk(name: str) -> None:
    """The generator hashes wire dicts; the guard hashes what `session.list_tools()` returns."""
    data = source(name)
    embedded = fingerprints_of({item["name"]: item for item in data["tools"]})
    parsed = mcp_types.ListToolsResult.model_validate({"tools": data["tools"]})
    live = {item.name: tool_fingerprint(item.input_schema, item.output_schema) for item in parsed.tools}
    assert embedded == live
    assert not compare(embedded, live).drifted


def test_compare_names_what_drifted() -> None:
    expected = {"add": "1", "forecast": "2", "echo": "3"}
    summary = compare(expected, {"add": "1", "forecast": "changed", "ping": "4"})
    assert summary == DriftSummary(removed=("echo",), changed=("forecast",), added=("ping",))
    assert summary.describe() == "removed: echo; schema changed: forecast; new on the server: ping"
    assert not compare(expected, {**expected, "ping": "4"}).drifted  # a new tool breaks no caller


class _PagedSession:
    """Answers `list_tools` in pages of two, like a server with a cursor."""

    def __init__(self, tools: list[dict[str, Any]]) -> None:
        self.tools = tools
        self.requests = 0

    async def list_tools(self, *, params: mcp_types.PaginatedRequestParams) -> mcp_types.ListToolsResult:
        self.requests += 1
        start = int(params.cursor or 0)
        rest = self.tools[start + 2 :]
        return mcp_types.ListToolsResult.model_validate(
            {"tools": self.tools[start : start + 2], "nextCursor": str(start + 2) if rest else None}
        )


def test_the_guard_reads_every_page() -> None:
    tools = source("everything")["tools"]
    session = _PagedSession(tools)
    expected = fingerprints_of({item["name"]: item for item in tools})
    summary = anyio.run(lambda: check_drift(session, expected, strict=True))  # type: ignore[arg-type]
    assert summary is not None and not summary.drifted and not summary.added
    assert session.requests == (len(tools) + 1) // 2


def test_where_a_remote_ref_points_does_not_change_the_fingerprint() -> None:
    # A non-local $ref is typed as any value, so its target (here: a per-run port) never changes the package.
    def schema(ref: str) -> dict[str, object]:
        return {"type": "object", "properties": {"user": {"$ref": ref}}}

    assert tool_fingerprint(schema("http://127.0.0.1:5001/u.json"), None) == tool_fingerprint(
        schema("http://127.0.0.1:6002/u.json"), None
    )
    assert tool_fingerprint(schema("#/$defs/A"), None) != tool_fingerprint(schema("#/$defs/B"), None)
    assert tool_fingerprint(schema("http://a/u.json"), None) != tool_fingerprint(
        {"type": "object", "properties": {"user": {"type": "string"}}}, None
    )
