"""mcp-codegen: typed Python client packages generated from MCP servers."""

__version__ = "0.1.0"
