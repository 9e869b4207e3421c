"""mcp-codegen: typed Python client packages generated from MCP servers."""

# One version for the generator and its runtime (released in lockstep): the runtime's.
from mcp_codegen_runtime._version import __version__

__all__ = ["__version__"]
