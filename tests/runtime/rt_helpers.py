"""Shared helpers of the runtime tests (module name kept unique: tests/ directories are not packages)."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, ClassVar

import mcp_types as types
from fakepkg import AsyncClient
from fakepkg.models.mismatch import MismatchArguments, MismatchResult, WrappedArguments
from mcp import Client as McpClient
from mcp.server import Server
from mcp.server.mcpserver import MCPServer
from rt_server import build_server

from mcp_codegen_runtime import AsyncClientBase, SnapshotData, ToolSpec

HERE = Path(__file__).resolve().parent
SERVER_SCRIPT = str(HERE / "rt_server.py")
PYTHON = sys.executable


@asynccontextmanager
async def in_memory(server: MCPServer | Server[Any] | None = None) -> AsyncIterator[AsyncClient]:
    """A fakepkg AsyncClient over an in-memory session with the test server (or `server`)."""
    async with McpClient(server if server is not None else build_server(), mode="legacy", cache=None) as session:
        yield AsyncClient.from_session(session)


def auth_app(inner: Callable[..., Awaitable[None]], header: str, value: str) -> Callable[..., Awaitable[None]]:
    """Wrap an ASGI app: HTTP requests without `header: value` get a 401."""
    wanted = value.encode()
    key = header.lower().encode()

    async def app(scope: Mapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(key) != wanted:
            await send({"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"unauthorized"})
            return
        await inner(scope, receive, send)

    return app


MISMATCH_OUTPUT = {
    "type": "object",
    "properties": {"count": {"type": "integer"}, "label": {"type": "string"}},
    "required": ["count", "label"],
}
WRAPPED_OUTPUT = {"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]}


def lowlevel_server() -> Server[Any]:
    """A low-level server whose results do not always match the output schemas it advertises."""

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        # Two pages: the client has to follow nextCursor.
        schema = {"type": "object", "properties": {"mode": {"type": "string"}}, "required": ["mode"]}
        if params is None or params.cursor is None:
            return types.ListToolsResult(
                tools=[types.Tool(name="mismatch", input_schema=schema, output_schema=MISMATCH_OUTPUT)],
                next_cursor="page-2",
            )
        return types.ListToolsResult(
            tools=[types.Tool(name="wrapped", input_schema=schema, output_schema=WRAPPED_OUTPUT)]
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        mode = (params.arguments or {}).get("mode")
        if mode == "structured-only":  # no text block: models get the structured content as JSON
            value = {"result": 42} if params.name == "wrapped" else {"count": 3, "label": "three"}
            return types.CallToolResult(content=[], structured_content=value)
        if params.name == "wrapped":
            # An older server: the value only as text, no structuredContent.
            return types.CallToolResult(content=[types.TextContent(type="text", text="42")])
        if mode == "wrong":
            return types.CallToolResult(
                content=[types.TextContent(type="text", text="many")],
                structured_content={"count": "many", "label": "x"},
            )
        if mode == "text-json":
            return types.CallToolResult(content=[types.TextContent(type="text", text='{"count": 2, "label": "two"}')])
        if mode == "text-garbage":
            return types.CallToolResult(content=[types.TextContent(type="text", text="not json")])
        return types.CallToolResult(
            content=[types.TextContent(type="text", text="ok")], structured_content={"count": 1, "label": "one"}
        )

    return Server("low", on_list_tools=list_tools, on_call_tool=call_tool)


# The typed client of `lowlevel_server()`, with the listing it was made from.
LOWLEVEL_SNAPSHOT = SnapshotData(Path(__file__).with_name("lowlevel_snapshot.json"))
MISMATCH: ToolSpec[MismatchArguments, MismatchResult] = ToolSpec(
    name="mismatch",
    python_name="mismatch",
    models_module="fakepkg.models.mismatch",
    arguments_class="MismatchArguments",
    result_class="MismatchResult",
    unwrap_result=False,
    snapshot=LOWLEVEL_SNAPSHOT,
)
WRAPPED: ToolSpec[WrappedArguments, int] = ToolSpec(
    name="wrapped",
    python_name="wrapped",
    models_module="fakepkg.models.mismatch",
    arguments_class="WrappedArguments",
    result_class="WrappedResult",
    unwrap_result=True,
    snapshot=LOWLEVEL_SNAPSHOT,
)


class LowClient(AsyncClientBase):
    _tools: ClassVar[Mapping[str, ToolSpec[Any, Any]]] = {"mismatch": MISMATCH, "wrapped": WRAPPED}

    async def mismatch(self, *, mode: str) -> MismatchResult:
        return await self._call_tool(MISMATCH, {"mode": mode})

    async def wrapped(self, *, mode: str) -> int:
        return await self._call_tool(WRAPPED, {"mode": mode})
