"""A stdio MCP server that writes to stderr, and reports the clientInfo it was sent (`python stderr_server.py`).

It writes `stderr-server: starting` on start; the `shout` tool writes its text (repeated) to stderr; with
STDERR_SERVER_FAIL set it writes two lines (the second holds $STDERR_SERVER_TOKEN), a third naming
its first argument when given, and exits with code 3 before initializing.
"""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import Context, MCPServer


def build_server() -> MCPServer:
    server = MCPServer("stderr-demo", version="0.1.0")

    @server.tool()
    def shout(text: str, times: int = 1) -> int:
        """Write `text` to stderr `times` times; returns how many lines were written."""
        for _ in range(times):
            print(text, file=sys.stderr, flush=True)
        return times

    @server.tool()
    def who(ctx: Context) -> str:
        """The client's name and version, as sent at initialize."""
        params = ctx.session.client_params
        info = params.client_info if params is not None else None
        return f"{info.name} {info.version}" if info is not None else "unknown"

    return server


if __name__ == "__main__":
    if os.environ.get("STDERR_SERVER_FAIL"):
        print("stderr-server: cannot open the database", file=sys.stderr)
        print(f"stderr-server: token was {os.environ.get('STDERR_SERVER_TOKEN')}", file=sys.stderr, flush=True)
        if sys.argv[1:]:  # a long line, as a Node server that cannot import a module writes
            print(f"stderr-server: Cannot find module '{sys.argv[1]}'", file=sys.stderr, flush=True)
        sys.exit(3)
    print("stderr-server: starting", file=sys.stderr, flush=True)
    build_server().run()
