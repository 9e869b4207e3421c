"""A method's docstring says when the server runs its tool as an MCP task (`execution.taskSupport`)."""

from __future__ import annotations

from typing import Any

from helpers import snapshot_of

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.pipeline import generate_files

SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}}


def _tool(name: str, execution: Any) -> dict[str, Any]:
    tool: dict[str, Any] = {"name": name, "description": f"The {name} tool.", "inputSchema": SCHEMA}
    if execution is not None:
        tool["execution"] = execution
    return tool


def test_required_and_optional_task_tools_say_so_and_others_do_not() -> None:
    snapshot = snapshot_of(
        [
            _tool("must", {"taskSupport": "required"}),
            _tool("may", {"taskSupport": "optional"}),
            _tool("never", {"taskSupport": "forbidden"}),
            _tool("plain", None),
            _tool("odd", {"taskSupport": 3}),
        ]
    )
    files = generate_files(snapshot, package_name="tasky", diagnostics=Diagnostics())
    client = next(data for path, data in files.items() if str(path) == "client.py")
    client = client.decode() if isinstance(client, bytes) else client

    def doc(name: str) -> str:
        start = client.index(f"async def {name}(")
        return client[start : client.index('"""', client.index('"""', start) + 3)]

    assert "Runs as an MCP task: the call waits for the task's result" in doc("must")
    assert "The server may run it as an MCP task" in doc("may")
    for name in ("never", "plain", "odd"):
        assert "MCP task" not in doc(name), name
