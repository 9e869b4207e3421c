"""A stdio MCP echo server for fidelity checks: lists raw tool schemas, answers each call with the arguments it got.

    python echo_server.py TOOLS_JSON [ARRIVALS_LOG]

TOOLS_JSON is a file whose `tools` list holds raw tool dicts (a snapshot file will do); `tools/list` returns them
as they are. Every `tools/call` is answered with one text block: the call's `arguments` exactly as they arrived,
read from the raw JSON-RPC line with the standard library (so `1` and `1.0` keep their form and the SDK's own
parsing re-encodes nothing) and written back with `json.dumps`. Each raw `tools/call` line is also appended to
ARRIVALS_LOG, when given, before the call is served: a caller can tell that nothing reached the server.
The server is the SDK's low-level `Server`, which does not validate arguments itself.
"""

from __future__ import annotations

import io
import json
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server


class _TeeLines(io.TextIOBase):
    """A text stream over stdin that keeps the raw line of every `tools/call` request, by request id."""

    def __init__(self, inner: io.TextIOBase, log_path: str | None) -> None:
        self._inner = inner
        self._log = open(log_path, "a", encoding="utf-8") if log_path else None  # noqa: SIM115 - open while serving
        self._lock = threading.Lock()
        self.calls: dict[str, str] = {}

    def readable(self) -> bool:
        return True

    def readline(self, size: int | None = -1) -> str:
        line = self._inner.readline()
        if '"tools/call"' in line:
            try:
                message = json.loads(line)
            except ValueError:
                return line
            if isinstance(message, dict) and message.get("method") == "tools/call":
                with self._lock:
                    self.calls[json.dumps(message.get("id"))] = line
                    if self._log is not None:
                        self._log.write(line if line.endswith("\n") else line + "\n")
                        self._log.flush()
        return line


def build(tools: list[dict[str, Any]], tee: _TeeLines) -> Server[Any]:
    listed = [types.Tool.model_validate(tool) for tool in tools]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        with tee._lock:
            line = tee.calls.pop(json.dumps(ctx.request_id), None)
        if line is None:
            return types.CallToolResult(content=[types.TextContent(text="raw line not found")], is_error=True)
        arguments = json.loads(line)["params"].get("arguments")
        return types.CallToolResult(content=[types.TextContent(text=json.dumps(arguments))])

    return Server("fidelity-echo", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def _main(tools_path: str, log_path: str | None) -> None:
    tools = json.loads(Path(tools_path).read_text(encoding="utf-8"))["tools"]
    stdin_text = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    tee = _TeeLines(stdin_text, log_path)
    server = build(tools, tee)
    async with stdio_server(stdin=anyio.wrap_file(tee)) as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_main, sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
