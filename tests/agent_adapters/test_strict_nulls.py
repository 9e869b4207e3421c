"""Strict-mode nulls mean "not sent" on every path that runs a model's tool call (issue 30, point 7).

The mapping is read from the tool's own schema, so it holds whichever `tools()` call (or none)
produced the definitions the model saw.
"""

from __future__ import annotations

import json
from types import ModuleType

import anyio
from mcp.server.mcpserver import MCPServer

_PARIS = {"city": "Paris", "units": None}


def _openai_call(name: str, arguments: object) -> dict[str, object]:
    return {"id": "c1", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def test_blocking_client_maps_strict_nulls(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    with demo_pkg.Client.in_process(demo_server) as client:
        definitions = client.tools().to_openai(strict=True)
        assert any(d["function"]["name"] == "get_weather" for d in definitions)
        messages = client.handle_openai_tool_calls([_openai_call("get_weather", _PARIS)])
        content = messages[0]["content"]
        assert not content.startswith("Error"), content
        assert json.loads(content)["units"] == "celsius"  # the server's default: "not sent"


def test_async_client_maps_strict_nulls_after_another_tools_call(
    demo_pkg: ModuleType, demo_server: MCPServer
) -> None:
    async def main() -> None:
        async with demo_pkg.AsyncClient.in_process(demo_server) as client:
            client.tools().to_openai(strict=True)
            client.tools()  # a later tools() that was never converted
            messages = await client.handle_openai_tool_calls([_openai_call("get_weather", _PARIS)])
            assert json.loads(messages[0]["content"])["units"] == "celsius"
            # A tool whose definitions were never handed out at all.
            fresh = demo_pkg.AsyncClient.toolset_for(client)["get_weather"]
            output = await fresh.run(_PARIS)
            assert not output.is_error, output.text

    anyio.run(main)


def test_nulls_the_schema_admits_are_kept_and_required_nulls_refused(
    demo_pkg: ModuleType, demo_server: MCPServer
) -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": ["string", "null"]},
            "b": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "c": {"type": "integer"},
            "d": {},
            "e": {"$ref": "#/$defs/E"},
            "f": {"enum": ["x", None]},
        },
        "required": ["c"],
        "$defs": {"E": {"type": "string"}},
    }
    from mcp_codegen_runtime.agents.strict import drop_optional_nulls

    answer = {"a": None, "b": None, "c": None, "d": None, "e": None, "f": None}
    assert drop_optional_nulls(answer, schema) == {"a": None, "b": None, "c": None, "d": None, "f": None}
    with demo_pkg.Client.in_process(demo_server) as client:
        output = client.tools()["get_weather"].run_sync({"city": None})
        assert output.is_error and "city" in output.text
