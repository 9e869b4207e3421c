"""Tools that run as MCP tasks through a `Toolkit` (several servers as one): a server's typed call and its agent
tools wait for the task, and `kit[name].tasks` holds task handles, in an eager and in a lazy toolkit.

Against tests/runtime/task_server.py (2025-11-25 tasks: `crunch` requires a task) over streamable HTTP, one
server process (thread) for the module, so a task started through one toolkit is resumed through another;
the package is generated from the server's own snapshot.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import anyio
import pytest
from helpers import imported_package
from servers.helpers import serve_app
from task_server import TaskStore, build_server

from mcp_codegen.cli import cli
from mcp_codegen_runtime.client.toolkit import ToolkitBase

pytestmark = pytest.mark.anyio

SERVER = Path(__file__).resolve().parent / "task_server.py"


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("kit-tasks")
    snapshot = root / "snapshot.json"
    arguments = ["snapshot", "--stdio", f"{sys.executable} {SERVER}", "-o", str(snapshot), "-q"]
    assert cli.main(args=arguments, standalone_mode=False) in (None, 0)
    target = root / "kit_tasky"
    generated = cli.main(args=["generate", "--snapshot", str(snapshot), "-o", str(target), "-q"], standalone_mode=False)
    assert generated in (None, 0)
    with imported_package(target) as package:
        yield package


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    app = build_server(TaskStore()).streamable_http_app(host="127.0.0.1")
    with serve_app(app) as base:
        yield base + "/mcp"


def _kit(pkg: ModuleType, url: str, *, lazy: bool = False) -> Any:
    class Kit(ToolkitBase):
        CLIENTS: ClassVar[dict[str, Any]] = {"tasky": pkg.AsyncClient}

    return Kit(connectors={"tasky": lambda: pkg.AsyncClient.http(url, transport="http", timeout=20)}, lazy=lazy)


async def test_a_servers_typed_call_and_agent_tools_wait_for_the_task(pkg: ModuleType, url: str) -> None:
    seen: list[str | None] = []
    async with _kit(pkg, url) as kit:
        with anyio.fail_after(20):
            client = kit["tasky"]
            result = await client.with_options(on_progress=lambda p, t, m: seen.append(m)).crunch(n=21, mode="stepped")
            assert result.total == 42
            tool = kit.tools()["mcp__tasky__crunch"]
            assert (await tool.call({"n": 4})).total == 8
            output = await tool.run({"n": 5})
            assert not output.is_error and '"total": 10' in output.text
            # an agent sees a cancelled task as an error output, not an exception
            cancelled = await tool.run({"n": 1, "mode": "server-cancel"})
            assert cancelled.is_error and "cancelled by the server" in cancelled.text
    assert seen[:3] == ["step 1 of 3", "step 2 of 3", "step 3 of 3"]


async def test_task_handles_through_a_toolkit_and_resumed_through_another(pkg: ModuleType, url: str) -> None:
    async with _kit(pkg, url) as kit:
        with anyio.fail_after(20):
            task = await kit["tasky"].tasks.start("crunch", {"n": 8, "mode": "long"})
            assert (await task.status()).status == "working"
            slow = await kit["tasky"].tasks.start("crunch", {"n": 1, "mode": "slow"})
            assert (await slow.cancel()).status == "cancelled"
    async with _kit(pkg, url) as other:
        with anyio.fail_after(20):
            assert (await other["tasky"].tasks.resume(task.id, "crunch").result()).total == 16
            listed = {state.task_id: state.status for state in await other["tasky"].tasks.list()}
            assert listed[task.id] == "completed" and listed[slow.id] == "cancelled"


async def test_a_lazy_toolkit_connects_on_the_first_task_use(pkg: ModuleType, url: str) -> None:
    async with _kit(pkg, url, lazy=True) as kit:
        assert kit.status()["tasky"].state == "not connected yet"
        with anyio.fail_after(20):
            task = await kit["tasky"].tasks.start("crunch", {"n": 3})  # connects, then starts it
            assert kit.status()["tasky"].state == "connected"
            assert (await kit["tasky"].tasks.resume(task.id, "crunch").result()).total == 6
    async with _kit(pkg, url, lazy=True) as kit:
        with pytest.raises(TypeError, match=r"\(await kit.connected\('tasky'\)\).tasks.resume"):
            kit["tasky"].tasks.resume(task.id)  # a handle needs the client: said, not a coroutine
        with anyio.fail_after(20):
            resumed = (await kit.connected("tasky")).tasks.resume(task.id, "crunch")
            assert (await resumed.result()).total == 6
    async with _kit(pkg, url, lazy=True) as kit:
        with anyio.fail_after(20):
            assert (await kit["tasky"].crunch(n=2)).total == 4  # a typed call of a task tool, lazily
