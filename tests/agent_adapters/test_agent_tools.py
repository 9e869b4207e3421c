"""The framework-neutral agent tool: definitions, strict schemas, model-facing results, hooks, limits.

Against real servers: the demo server (in memory) and the npm server-everything (stdio).
"""

from __future__ import annotations

import concurrent.futures
import json
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer

import mcp_codegen_runtime
from mcp_codegen_runtime.agents import NotStrictError, strict_json_schema
from mcp_codegen_runtime.calls.tracing import ToolCall

pytestmark = pytest.mark.anyio


def _snapshot_tools(pkg: ModuleType) -> dict[str, dict[str, Any]]:
    data = json.loads((Path(pkg.__file__).parent / "snapshot.json").read_text())
    return {tool["name"]: tool for tool in data["tools"]}


@pytest.mark.parametrize("which", ["demo_pkg", "everything_pkg"])
def test_definitions_carry_the_servers_exact_schema(which: str, request: pytest.FixtureRequest) -> None:
    pkg: ModuleType = request.getfixturevalue(which)
    listed = _snapshot_tools(pkg)
    tools = mcp_codegen_runtime.ToolSet.from_specs(pkg.TOOLS.values())
    assert len(tools) == len(listed)
    for tool in tools.values():
        schema = listed[tool.wire_name]["inputSchema"]
        assert tool.input_schema == schema
        openai = tool.to_openai()
        assert openai["function"]["parameters"] == schema
        assert "strict" not in openai["function"]
        assert tool.to_openai_responses()["parameters"] == schema
        assert tool.to_openai_responses()["strict"] is False
        anthropic = tool.to_anthropic()
        assert anthropic["input_schema"] == schema
        assert anthropic["name"] == tool.name
        assert anthropic.get("description") == listed[tool.wire_name].get("description")
        assert tool.annotations == listed[tool.wire_name].get("annotations")
        assert tool.arguments_model.__name__.endswith("Arguments")
        assert not tool.bound
        with pytest.raises(RuntimeError, match="not bound"):
            anyio.run(tool.run, {})


def test_strict_variant_and_mapping_back(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    async def main() -> None:
        async with demo_pkg.AsyncClient.in_process(demo_server) as client:
            tools = client.tools()
            draft = tools["draft_note"]
            definition = draft.to_openai(strict=True)["function"]
            assert definition["strict"] is True
            params = definition["parameters"]
            assert params["additionalProperties"] is False
            assert sorted(params["required"]) == ["author", "body", "priority", "tags", "title"]
            assert "null" in params["properties"]["priority"]["type"]
            author = params["$defs"]["Author"]
            assert author["required"] == ["name", "email"] and author["additionalProperties"] is False
            # The model answers in the strict dialect: nulls for what it leaves out.
            answer = {
                "author": {"name": "Ada", "email": None},
                "body": "b",
                "title": "Hi",
                "priority": None,
                "tags": None,
            }
            # A null where the schema cannot take one is "not sent"; one it admits (`tags`, `email`
            # are `... | None` in the server's schema) is a value and stays.
            assert draft.arguments_from_model(answer) == {
                "author": {"name": "Ada", "email": None},
                "body": "b",
                "title": "Hi",
                "tags": None,
            }
            out = await draft.run(json.dumps(answer))
            assert not out.is_error, out.text
            assert out.structured["priority"] == "normal"  # the server's default: "not sent"
            # The client-level handler maps them the same way (read from the schema).
            messages = await client.handle_openai_tool_calls(
                [{"id": "c1", "type": "function", "function": {"name": "draft_note", "arguments": json.dumps(answer)}}]
            )
            assert json.loads(messages[0]["content"])["author"] == {"name": "Ada", "email": None}
            # So does a tool never handed out strict; `strict=False` keeps nulls literally.
            listing = tools["list_notes"]
            out = await listing.run({"limit": None})
            assert not out.is_error, out.text
            out = await listing.run({"limit": None}, strict=False)
            assert out.is_error and "limit" in out.text

    anyio.run(main)


def test_tools_that_cannot_be_strict_say_why() -> None:
    free_form = {"type": "object", "properties": {"meta": {"type": "object"}}}
    with pytest.raises(NotStrictError, match="meta: an object without listed properties"):
        strict_json_schema(free_form)
    with pytest.raises(NotStrictError, match="free-form keys"):
        strict_json_schema(
            {"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}}}}
        )
    with pytest.raises(NotStrictError, match="'not'"):
        strict_json_schema({"type": "object", "properties": {"x": {"not": {"type": "string"}}}})
    assert strict_json_schema({"type": "object"}) == {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }


def test_strict_auto_falls_back_and_strict_true_raises(everything_pkg: ModuleType) -> None:
    tools = mcp_codegen_runtime.ToolSet.from_specs(everything_pkg.TOOLS.values())
    for tool in tools.values():
        auto = tool.to_openai(strict="auto")["function"]
        if tool.strict_error is None:
            assert auto["strict"] is True
            assert auto["parameters"]["additionalProperties"] is False
        else:
            assert "strict" not in auto
            with pytest.raises(NotStrictError):
                tool.to_openai(strict=True)
    gzip = tools["gzip-file-as-resource"].strict_schema
    assert gzip is not None and "format" not in gzip["properties"]["data"]  # "uri" is no strict format


def test_results_for_models(everything_pkg: ModuleType, everything_command: list[str]) -> None:
    async def main() -> None:
        async with everything_pkg.AsyncClient.stdio(everything_command[0], everything_command[1:]) as client:
            tools = client.tools()
            image = await tools["get-tiny-image"].run({})
            assert image.has_media and not image.is_error
            assert any(part.kind == "image" and part.mime_type == "image/png" for part in image.parts)
            assert "[image: image/png, " in image.text
            blocks = image.to_anthropic_content()
            assert any(b["type"] == "image" and b["source"]["media_type"] == "image/png" for b in blocks)
            structured = await tools["get-structured-content"].run({"location": "Chicago"})
            assert json.loads(structured.text) == structured.structured
            summed = await tools["get-sum"].run({"a": 2, "b": 40})
            assert "42" in summed.text
            links = await tools["get-resource-links"].run({"count": 2})
            assert "[resource link:" in links.text
            # Anthropic: all three in one go, in order, images as image blocks.
            results = await client.handle_anthropic_tool_use(
                [
                    {"type": "text", "text": "let me look"},
                    {"type": "tool_use", "id": "t1", "name": "get-tiny-image", "input": {}},
                    {"type": "tool_use", "id": "t2", "name": "get-sum", "input": {"a": 1, "b": "x"}},
                    {"type": "tool_use", "id": "t3", "name": "no-such-tool", "input": {}},
                ]
            )
            assert [r["tool_use_id"] for r in results] == ["t1", "t2", "t3"]
            assert any(b["type"] == "image" for b in results[0]["content"])
            assert "is_error" not in results[0]
            assert results[1]["is_error"] is True and "invalid arguments" in results[1]["content"][0]["text"]
            assert results[2]["is_error"] is True and "unknown tool" in results[2]["content"][0]["text"]

    anyio.run(main)


def test_is_error_results_reach_the_model_as_errors(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    async def main() -> None:
        async with demo_pkg.AsyncClient.in_process(demo_server) as client:
            client.tools()
            [message] = await client.handle_openai_tool_calls(
                [{"id": "c1", "function": {"name": "get_note", "arguments": '{"note_id": "nope"}'}}]
            )
            assert message["content"].startswith("Error: ") and "nope" in message["content"]
            [item] = await client.handle_openai_responses_calls(
                [{"type": "function_call", "call_id": "r1", "name": "get_note", "arguments": "{not json"}]
            )
            assert item["type"] == "function_call_output" and item["call_id"] == "r1"
            assert item["output"].startswith("Error: ") and "JSON" in item["output"]

    anyio.run(main)


def test_hooks_and_trace_recorder(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    seen_async: list[ToolCall] = []

    async def async_hook(call: ToolCall) -> None:
        await anyio.sleep(0)
        seen_async.append(call)

    def broken_hook(call: ToolCall) -> None:
        raise RuntimeError("observer bug")

    async def main() -> Any:
        async with demo_pkg.AsyncClient.in_process(demo_server) as client:
            recorder = mcp_codegen_runtime.TraceRecorder().attach(client)
            remove_async = client.on_call(async_hook)
            client.on_call(broken_hook)  # logged, never raised
            assert await client.add(a=2, b=3) == 5
            await client.call("search-notes", {"query": "milk"})
            with pytest.raises(demo_pkg.ToolError):
                await client.get_note(note_id="nope")
            await client.call_raw("get_note", {"note_id": "welcome"})
            tools = client.tools(prefix="demo_")
            await tools["demo_get_weather"].run({"city": "Oslo"})
            remove_async()
            await client.add(a=1, b=1)
            return recorder

    recorder = anyio.run(main)
    calls = recorder.calls
    assert [c.tool for c in calls] == ["add", "search-notes", "get_note", "get_note", "get_weather", "add"]
    assert [c.source for c in calls] == ["client", "client", "client", "raw", "agent", "client"]
    assert calls[0].arguments == {"a": 2, "b": 3} and calls[0].result == 5 and calls[0].ok
    assert isinstance(calls[2].error, demo_pkg.ToolError) and not calls[2].ok
    assert calls[4].agent_name == "demo_get_weather" and calls[4].arguments == {"city": "Oslo"}
    assert all(c.duration >= 0 for c in calls)
    assert len(seen_async) == 5
    transcript = recorder.transcript()
    lines = transcript.splitlines()
    assert len(lines) == 6
    assert lines[0].startswith("1. add(a=2, b=3) -> 5")
    assert "!! ToolError" in lines[2]
    assert lines[4].startswith('5. demo_get_weather (get_weather)(city="Oslo") -> ')
    data = json.loads(recorder.to_json())
    assert data[0]["result"] == 5 and data[2]["error"]["type"] == "ToolError"
    assert data[4]["result"]["structuredContent"]["city"] == "Oslo"


def test_parallel_calls_run_concurrently_with_a_timeout(
    everything_pkg: ModuleType, everything_command: list[str]
) -> None:
    async def main() -> None:
        async with everything_pkg.AsyncClient.stdio(everything_command[0], everything_command[1:]) as client:
            client.tools()
            call = {"name": "trigger-long-running-operation", "arguments": '{"duration": 1, "steps": 1}'}
            started = time.perf_counter()
            messages = await client.handle_openai_tool_calls([{"id": f"c{i}", "function": call} for i in range(3)])
            elapsed = time.perf_counter() - started
            assert [m["tool_call_id"] for m in messages] == ["c0", "c1", "c2"]
            assert all(not m["content"].startswith("Error") for m in messages), messages
            assert elapsed < 2.5, elapsed  # three 1 s operations at once, not one after another
            slow = {"name": "trigger-long-running-operation", "arguments": '{"duration": 5, "steps": 1}'}
            started = time.perf_counter()
            [timed_out] = await client.handle_openai_tool_calls([{"id": "t", "function": slow}], timeout=0.5)
            assert time.perf_counter() - started < 3
            assert timed_out["content"] == "Error: the tool call timed out after 0.5 s"
            tools = client.tools(timeout=0.3)
            out = await tools["trigger-long-running-operation"].run({"duration": 3, "steps": 1})
            assert out.is_error and "timed out" in out.text
            assert await client.get_sum(a=1, b=2) is not None  # the session is still usable

    anyio.run(main)


def test_runtime_selection_prefix_and_namespace(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    async def main() -> None:
        async with demo_pkg.AsyncClient.in_process(demo_server) as client:
            assert client.tools(include="get_*").names == ["get_note", "get_weather"]
            assert client.tools(exclude=["get_*", "search_notes"]).names == [
                "add",
                "draft_note",
                "forecast",
                "list_notes",
            ]
            assert client.tools(include="search-notes", prefix="nb_").names == ["nb_search-notes"]
            namespaced = client.tools(include=["add", "search*"], namespace=True)
            assert namespaced.names == ["mcp__demo__add", "mcp__demo__search-notes"]
            assert client.tools(include="add", namespace="calc").names == ["mcp__calc__add"]
            assert await namespaced["mcp__demo__add"](a=20, b=22) == 42
            assert (await namespaced["mcp__demo__add"].call({"a": 1, "b": 2})) == 3
            described = client.tools(include="add", descriptions={"add": "Sum two numbers."})
            assert described["add"].to_anthropic()["description"] == "Sum two numbers."
            [message] = await client.handle_openai_tool_calls(
                [{"id": "n", "function": {"name": "mcp__demo__add", "arguments": '{"a": 4, "b": 5}'}}]
            )
            assert message["content"] == "9"
            type(client)._tool_prefix = "gen_"  # what --tool-prefix sets in the generated class
            try:
                assert client.tools(include="add").names == ["gen_add"]
                assert client.tools(include="add", prefix="").names == ["add"]
            finally:
                del type(client)._tool_prefix

    anyio.run(main)


def test_sync_client_tools_from_many_threads(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    with demo_pkg.Client.in_process(demo_server) as client:
        recorder = mcp_codegen_runtime.TraceRecorder().attach(client)
        tools = client.tools()
        add = tools["add"]
        assert add.call_sync({"a": 1, "b": 2}) == 3
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            outputs = list(pool.map(lambda i: add.run_sync({"a": i, "b": 1}).text, range(40)))
        assert outputs == [str(i + 1) for i in range(40)]
        # From another event loop: awaited on the client's own loop thread.
        assert anyio.run(add.call, {"a": 5, "b": 5}) == 10
        out = anyio.run(tools["get_weather"].run, {"city": "Rome"})
        assert json.loads(out.text)["city"] == "Rome"
        messages = client.handle_openai_tool_calls(
            [{"id": "s", "function": {"name": "add", "arguments": '{"a": 1, "b": 1}'}}]
        )
        assert messages == [{"role": "tool", "tool_call_id": "s", "content": "2"}]
        assert len(recorder) == 1 + 40 + 1 + 1 + 1


def test_a_toolset_is_a_mapping_of_names_to_agent_tools(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    from collections.abc import Mapping

    async def main() -> None:
        async with demo_pkg.AsyncClient.in_process(demo_server) as client:
            tools = client.tools(include=["add", "search-notes"], prefix="nb_")
            assert isinstance(tools, Mapping)
            assert list(tools) == list(tools.keys()) == tools.names == ["nb_add", "nb_search-notes"]
            assert [tool.wire_name for tool in tools.values()] == ["add", "search-notes"]
            assert dict(tools.items()) == {"nb_add": tools["nb_add"], "nb_search-notes": tools["nb_search-notes"]}
            assert len(tools) == 2
            # Lookups also find a tool by its wire or Python name; anything else is missing.
            assert tools["add"] is tools["nb_add"] and tools["search_notes"] is tools["nb_search-notes"]
            assert "nb_add" in tools and "search-notes" in tools and "get_weather" not in tools and 0 not in tools
            assert tools.get("nope") is None
            with pytest.raises(KeyError):
                tools["get_weather"]
            assert await tools["nb_add"](a=2, b=3) == 5
            assert [d["function"]["name"] for d in tools.to_openai()] == ["nb_add", "nb_search-notes"]
            rebound = tools.bind(client, timeout=5)
            assert list(rebound) == list(tools) and all(tool.timeout == 5 for tool in rebound.values())
            with pytest.raises(ValueError, match="distinct"):
                mcp_codegen_runtime.ToolSet([tools["nb_add"], tools["nb_add"]])

    anyio.run(main)
