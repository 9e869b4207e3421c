"""A stdio MCP server that will not start without its settings (as backlog-mcp-server will not without
BACKLOG_DOMAIN), and whose one tool answers with the value of a variable it was given."""

import os
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("env-server", version="1.0.0")


@server.tool()
def env_value(name: str) -> str:
    """The value of the environment variable `name` in this server, or `<unset>`."""
    return os.environ.get(name, "<unset>")


if __name__ == "__main__":
    if not os.environ.get("BACKLOG_DOMAIN"):
        sys.exit("BACKLOG_DOMAIN is not set: the server cannot start")
    server.run()
