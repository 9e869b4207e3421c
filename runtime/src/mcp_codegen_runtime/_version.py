"""The one version number of mcp-codegen-runtime and mcp-client-codegen, released in lockstep.

Read by both distributions' build (hatch's version source) and by `mcp_codegen.__version__`.
"""

__version__ = "0.2.0"
