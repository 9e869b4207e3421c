"""A stdio MCP server whose one tool answers with the arguments it was started with (to see what a launch passed)."""

import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("argv-server", version="1.0.0")


@server.tool()
def argv() -> str:
    """The command-line arguments this server was started with, space-separated."""
    return " ".join(sys.argv[1:])


if __name__ == "__main__":
    server.run()
