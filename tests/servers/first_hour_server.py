"""A low-level MCP server that fails the way real servers did in a new user's first hour (issue 57).

    python first_hour_server.py [--fail LISTING]... [--hang LISTING]... [--hold FILE [--hold-at LISTING]]

- `--fail resources|templates|prompts|tools`: that listing answers a JSON-RPC error, as google-drive-mcp's
  `resources/list` did without its OAuth keys;
- `--hang LISTING`: that listing never answers (a timeout of that one request);
- `--hold FILE`: the server reads nothing (so answers no `initialize`) until FILE exists: a server slower than
  `--timeout`, released by the test when it sees what it waits for (no timing in the test); with `--hold-at
  LISTING`, that listing is what waits for FILE;
- the tool `list_contexts` declares an output schema and answers `{"success": false, "error": ...}`, as
  kubectl-mcp-server's does without a kubeconfig: a structured result that breaks its schema while saying why;
- the tools carry the annotations the generated README's example call is chosen by: `add_asset` (not read-only,
  not destructive), `delete_everything` (destructive), `list_contexts` (read-only).

`build_server(fail=..., hang=...)` is the same server, to run in-process.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Collection
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.shared.exceptions import MCPError

KUBECONFIG_ERROR = "no kubeconfig found at /home/user/.kube/config: set KUBECONFIG"
OAUTH_ERROR = "Google OAuth keys are missing: set GDRIVE_OAUTH_PATH"

TOOLS = [
    types.Tool(
        name="add_asset",
        description="Add an asset to the watchlist.",
        input_schema={"type": "object", "properties": {"symbol": {"type": "string"}}, "required": ["symbol"]},
        annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=False),
    ),
    types.Tool(
        name="delete_everything",
        description="Delete every asset.",
        input_schema={"type": "object", "properties": {}},
        annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=True),
    ),
    types.Tool(
        name="list_contexts",
        description="List the kubeconfig contexts.",
        input_schema={"type": "object", "properties": {}},
        output_schema={
            "type": "object",
            "properties": {
                "contexts": {"type": "array", "items": {"type": "string"}},
                "current": {"type": "string"},
                "count": {"type": "integer"},
            },
            "required": ["contexts", "current", "count"],
        },
        annotations=types.ToolAnnotations(read_only_hint=True),
    ),
]


def build_server(
    *, fail: Collection[str] = (), hang: Collection[str] = (), hold: tuple[str, str] | None = None
) -> Server[Any]:
    async def trouble(listing: str) -> None:
        if listing in fail:
            raise MCPError(code=types.INTERNAL_ERROR, message=OAUTH_ERROR)
        if listing in hang:
            await anyio.sleep_forever()
        while hold is not None and hold[0] == listing and not os.path.exists(hold[1]):
            await anyio.sleep(0.05)  # released by the test

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        await trouble("tools")
        return types.ListToolsResult(tools=TOOLS)

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        await trouble("resources")
        return types.ListResourcesResult(
            resources=[types.Resource(uri="drive://recent", name="recent", description="Recent files.")]
        )

    async def list_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        await trouble("templates")
        return types.ListResourceTemplatesResult(
            resource_templates=[types.ResourceTemplate(uri_template="drive://files/{file_id}", name="file")]
        )

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        await trouble("prompts")
        return types.ListPromptsResult(prompts=[types.Prompt(name="summarize", description="Summarize a file.")])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name == "list_contexts":
            answer = {"success": False, "error": KUBECONFIG_ERROR}
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=KUBECONFIG_ERROR)], structured_content=answer
            )
        return types.CallToolResult(content=[types.TextContent(type="text", text="done")])

    return Server(
        "first-hour",
        version="2.0.1",
        on_list_tools=list_tools,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_list_prompts=list_prompts,
        on_call_tool=call_tool,
    )


async def _main(fail: list[str], hang: list[str], hold: tuple[str, str] | None) -> None:
    from mcp.server.stdio import stdio_server

    server = build_server(fail=fail, hang=hang, hold=hold)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--fail", action="append", default=[])
    parser.add_argument("--hang", action="append", default=[])
    parser.add_argument("--hold")
    parser.add_argument("--hold-at", default="initialize")
    options = parser.parse_args()
    while options.hold is not None and options.hold_at == "initialize" and not os.path.exists(options.hold):
        time.sleep(0.05)  # the test releases the server; it never waits on this
    held = (options.hold_at, options.hold) if options.hold is not None else None
    anyio.run(_main, options.fail, options.hang, held)
