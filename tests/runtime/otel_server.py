"""The runtime tests' server plus `echo_meta`, which answers the `_meta` its request carried (`python otel_server.py`)."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from rt_server import build_server as build_rt_server


def build_server() -> MCPServer:
    server = build_rt_server()

    @server.tool()
    def echo_meta(ctx: Context) -> dict[str, Any]:
        """Return the request's `_meta` as received (the W3C trace context lands there)."""
        meta = ctx.request_context.meta
        return dict(meta) if meta else {}

    return server


if __name__ == "__main__":
    build_server().run()
