"""The fake server against the 13 real listings in tests/corpus: exact listings, valid results, rejected input.

For each listing: snapshot -> `FakeServer` in process -> snapshot again gives the same canonical snapshot,
and the drift check finds nothing; every tool answers a synthesised result that validates against its
output schema; arguments that break the input schema are rejected the way real servers report it.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import jsonschema
import mcp_types
import pytest
from helpers import corpus_names, corpus_snapshot
from mcp import Client
from mcp.shared.message import SessionMessage

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.drift import diff_snapshots, exit_code
from mcp_codegen.snapshot.fetch import snapshot_server
from mcp_codegen.snapshot.model import Snapshot
from mcp_codegen_runtime.serving.data import synthesise
from mcp_codegen_runtime.serving.fake import FakeServer

pytestmark = pytest.mark.anyio


def _comparable(snapshot: Snapshot) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(snapshot.to_text())
    data.pop("launch", None)
    # In memory, `serverInfo` reaches the snapshot through the SDK's `Implementation` model (vendor keys
    # such as hello-world's `debug` are dropped by the client side, not by the fake).
    info = mcp_types.Implementation.model_validate(data["serverInfo"])
    data["serverInfo"] = info.model_dump(mode="json", by_alias=True, exclude_none=True)
    return data


@pytest.mark.parametrize("name", corpus_names())
@pytest.mark.parametrize("page_size", [None, 2])
async def test_snapshot_of_the_fake_is_the_snapshot(name: str, page_size: int | None) -> None:
    original = corpus_snapshot(name)
    fake = FakeServer(original.as_json(), page_size=page_size)
    again = await snapshot_server(fake, diagnostics=Diagnostics())
    assert _comparable(again) == _comparable(original)
    report = diff_snapshots(original, again)
    assert exit_code(report) == 0, report.findings  # what `mcp-codegen check` fails on by default
    # Nothing at all changes, but for serverInfo vendor keys the in-memory transport drops (see above).
    implementation = set(mcp_types.Implementation.model_fields) | {"websiteUrl"}
    lost = [f for f in report.findings if f.location.startswith("server.serverInfo.")]
    assert all(f.location.rpartition(".")[2] not in implementation for f in lost)
    assert len(report.findings) == len(lost)


async def test_initialize_answer_is_the_snapshots_raw_server_info_and_capabilities() -> None:
    """Over JSON-RPC streams (what stdio and HTTP run), vendor keys in serverInfo reach the client too."""
    original = corpus_snapshot("hello-world")
    assert original.server_info.get("debug") is True
    fake = FakeServer(original.as_json())
    to_server, server_reads = anyio.create_memory_object_stream[Any](4)
    server_writes, from_server = anyio.create_memory_object_stream[Any](4)
    async with anyio.create_task_group() as group:
        group.start_soon(fake.run, server_reads, server_writes, fake.create_initialization_options())
        request = mcp_types.JSONRPCRequest(
            jsonrpc="2.0",
            id=1,
            method="initialize",
            params={"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
        )
        await to_server.send(SessionMessage(request))
        answer = (await from_server.receive()).message.model_dump(by_alias=True, exclude_none=True)
        group.cancel_scope.cancel()
    assert answer["result"]["serverInfo"] == original.server_info
    assert answer["result"]["capabilities"] == original.capabilities
    assert answer["result"]["protocolVersion"] == original.protocol_version


def _invalid_arguments(schema: dict[str, Any]) -> dict[str, Any] | None:
    """Arguments that break `schema`: a required property left out, or a property of the wrong type."""
    required = schema.get("required") or []
    if required:
        return {}
    for key, sub in (schema.get("properties") or {}).items():
        kind = sub.get("type") if isinstance(sub, dict) else None
        if kind in ("string", "array", "object", "boolean"):
            return {key: 12345}
        if kind in ("integer", "number"):
            return {key: "not a number"}
    return None


@pytest.mark.parametrize("name", corpus_names())
async def test_every_tool_answers_a_schema_valid_result_and_rejects_bad_arguments(name: str) -> None:
    original = corpus_snapshot(name)
    fake = FakeServer(original.as_json())
    rejected = 0
    async with Client(fake, mode="legacy", cache=None) as client:
        for tool in original.tools:
            schema = tool.get("inputSchema") or {}
            arguments = synthesise(schema)
            jsonschema.validate(arguments, schema)
            result = await client.session.call_tool(tool["name"], arguments)
            assert not result.is_error, (tool["name"], result.content)
            output = tool.get("outputSchema")
            if output is not None:
                jsonschema.validate(result.structured_content, output)
            else:
                assert result.content and result.content[0].type == "text"
            bad = _invalid_arguments(schema)
            if bad is None or jsonschema.Draft202012Validator(schema).is_valid(bad):
                continue
            refused = await client.session.call_tool(tool["name"], bad)
            assert refused.is_error, tool["name"]
            assert refused.content[0].text.startswith("Input validation error"), refused.content
            rejected += 1
    assert [call.name for call in fake.calls if not call.is_error] == [t["name"] for t in original.tools]
    assert rejected == sum(1 for call in fake.calls if call.is_error)
    if original.tools:
        assert rejected > 0 or all(_invalid_arguments(t.get("inputSchema") or {}) is None for t in original.tools)


async def test_synthesised_results_are_deterministic() -> None:
    original = corpus_snapshot("everything")
    results = []
    for _ in range(2):
        fake = FakeServer(original.as_json())
        async with Client(fake, mode="legacy", cache=None) as client:
            answers = []
            for tool in original.tools:
                result = await client.session.call_tool(tool["name"], synthesise(tool.get("inputSchema") or {}))
                answers.append(result.model_dump(mode="json", by_alias=True, exclude_none=True))
            results.append(answers)
    assert results[0] == results[1]
