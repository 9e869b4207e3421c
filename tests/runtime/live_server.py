"""A stdio MCP server whose listing changes at run time, and that can crash mid-call (`python live_server.py`).

`grow` adds the tool `extra` and `shrink` removes `echo`, each sending `notifications/tools/list_changed`;
`crash(code)` writes a line to stderr and exits with `code` before answering.
"""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import Context, MCPServer


def build_server() -> MCPServer:
    server = MCPServer("live-demo", version="1.0.0")

    @server.tool()
    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    @server.tool()
    async def grow(ctx: Context) -> str:
        """Add the tool `extra` and tell the client."""

        def extra(n: int) -> int:
            """An extra tool."""
            return n + 1

        server.add_tool(extra, name="extra")
        await ctx.session.send_tool_list_changed()
        return "grown"

    @server.tool()
    async def shrink(ctx: Context) -> str:
        """Remove `echo` and tell the client."""
        server.remove_tool("echo")
        await ctx.session.send_tool_list_changed()
        return "shrunk"

    @server.tool()
    def crash(code: int) -> str:
        """Exit with `code` before answering."""
        print(f"live-server: crashing with code {code}", file=sys.stderr, flush=True)
        os._exit(code)

    return server


if __name__ == "__main__":
    build_server().run()
