"""An in-process MCP server that answers each tool call with a structured result chosen by the caller.

    server = result_server({"tool": output_schema, ...}, results)   # results: list of JSON objects
    client.call("tool", {"result": 3})   # answered with structuredContent=results[3] (and its JSON as text)

It is the SDK's low-level `Server`, which checks neither arguments nor results: whatever `results[i]` holds is
sent as the tool's `structuredContent`, valid against the tool's `outputSchema` or not.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import mcp_types as types
from mcp.server import Server, ServerRequestContext

#: Every tool's input schema: the index of the result to answer with.
INPUT_SCHEMA = {"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]}


def result_server(output_schemas: Mapping[str, dict[str, Any]], results: Sequence[dict[str, Any]]) -> Server[Any]:
    listed = [
        types.Tool.model_validate({"name": name, "inputSchema": INPUT_SCHEMA, "outputSchema": schema})
        for name, schema in output_schemas.items()
    ]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        result = results[int((params.arguments or {})["result"])]
        return types.CallToolResult(content=[types.TextContent(text=json.dumps(result))], structured_content=result)

    return Server("suite-results", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)
