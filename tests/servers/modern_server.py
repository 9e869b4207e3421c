"""A server that speaks only MCP 2026-07-28 (no `initialize`), over stdio: the SDK's server in its modern loop.

`ask_name` answers with an `InputRequiredResult` (an elicitation) until the client retries with the answer.
Run as `python tests/servers/modern_server.py`.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.runner import _serve_modern_stream  # the SDK's modern-only serving loop (no public switch)
from mcp.server.stdio import stdio_server

_TOOLS = [
    types.Tool(
        name="echo",
        description="Echo the text back.",
        input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    ),
    types.Tool(
        name="ask_name",
        description="Ask the user for a name (multi-round input), then greet.",
        input_schema={"type": "object", "properties": {}},
    ),
]


async def _list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=_TOOLS)


async def _call_tool(
    ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult | types.InputRequiredResult:
    if params.name == "echo":
        text = str((params.arguments or {}).get("text", ""))
        return types.CallToolResult(content=[types.TextContent(text=text)])
    answer = (params.input_responses or {}).get("name")
    if answer is None:
        return types.InputRequiredResult(
            input_requests={
                "name": types.ElicitRequest(
                    params=types.ElicitRequestFormParams(
                        message="Your name?",
                        requested_schema={
                            "type": "object",
                            "properties": {"name": {"type": "string", "default": "Ada"}},
                        },
                    )
                )
            },
            request_state="round-1",
        )
    content = (
        answer.model_dump(mode="json", by_alias=True, exclude_none=True) if hasattr(answer, "model_dump") else answer
    )
    return types.CallToolResult(content=[types.TextContent(text=f"hello {content}")])


def build() -> Server[Any]:
    return Server(
        "modern-only",
        version="3.0.0",
        instructions="Speaks 2026-07-28 only.",
        on_list_tools=_list_tools,
        on_call_tool=_call_tool,
    )


async def _main() -> None:
    server = build()
    async with stdio_server() as (read, write), server.lifespan(server) as state:
        await _serve_modern_stream(server, read, write, lifespan_state=state, raise_exceptions=False)


if __name__ == "__main__":
    anyio.run(_main)
