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


def test_task_tools_get_a_typed_method_in_client_tasks_that_shadows_nothing() -> None:
    """`client.tasks.<tool>()` exists for the tools that may run as tasks only; a tool named like a member of
    the namespace (`start`, `resume`, `list`) gets a name of its own there, and its docstring names it."""
    snapshot = snapshot_of(
        [
            _tool("must", {"taskSupport": "required"}),
            _tool("start", {"taskSupport": "optional"}),
            _tool("plain", None),
        ]
    )
    files = generate_files(snapshot, package_name="tasky", diagnostics=Diagnostics())
    client = next(data for path, data in files.items() if str(path) == "client.py")
    client = client.decode() if isinstance(client, bytes) else client
    tasks = client[client.index("class AsyncTasks(AsyncTasksBase):") : client.index("class AsyncPrompts")]
    assert "async def must(self, *, q: str | NotSent = NOT_SENT) -> Task[ToolResult]:" in tasks
    assert "async def start_(self, *, q: str | NotSent = NOT_SENT) -> Task[ToolResult]:" in tasks
    assert "def plain(" not in tasks
    assert "`client.tasks.start_()` returns a handle to follow" in client
    sync_tasks = client[client.index("class Tasks(SyncTasksBase):") : client.index("class Prompts")]
    assert "def must(self, *, q: str | NotSent = NOT_SENT) -> SyncTask[ToolResult]:" in sync_tasks


def test_a_package_without_task_tools_has_no_tasks_namespace_of_its_own() -> None:
    files = generate_files(snapshot_of([_tool("plain", None)]), package_name="plainpkg", diagnostics=Diagnostics())
    client = next(data for path, data in files.items() if str(path) == "client.py")
    client = client.decode() if isinstance(client, bytes) else client
    assert "class AsyncTasks" not in client and "AsyncTasksBase" not in client and "def tasks" not in client
