"""A small, deterministic MCP server ("demo") that the README, the examples and the tests use.

Run it with ``python -m mcp_codegen.demo`` (stdio), ``--http --port N`` (streamable HTTP at ``/mcp``)
or ``--sse --port N`` (legacy SSE at ``/sse``); build an in-process instance with
:func:`mcp_codegen.demo.server.build_server`.
"""
