"""MCP 2025-11-25 tasks through a generated client, against tests/runtime/task_server.py over streamable HTTP.

The package is generated from the server's own snapshot (its `crunch` tool lists `taskSupport: "required"`,
`quick` `"optional"`). Every status path: completed, failed, cancelled by the server and by the client,
input_required (the question reaches the client's elicitation handler while `tasks/result` waits), an
expired task and an unknown id; handles, resuming from another connection and another process, listing
(paged), timeouts that cancel the task, and the blocking twin. Bounds on durations are hang guards.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from helpers import imported_package
from servers.helpers import serve_app
from task_server import TaskStore, build_server

from mcp_codegen.cli import cli

pytestmark = pytest.mark.anyio

SERVER = Path(__file__).resolve().parent / "task_server.py"


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("tasks")
    snapshot = root / "snapshot.json"
    arguments = ["snapshot", "--stdio", f"{sys.executable} {SERVER}", "-o", str(snapshot), "-q"]
    assert cli.main(args=arguments, standalone_mode=False) in (None, 0)
    target = root / "tasky"
    assert cli.main(args=["generate", "--snapshot", str(snapshot), "-o", str(target), "-q"], standalone_mode=False) in (
        None,
        0,
    )
    with imported_package(target) as package:
        yield package


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    """One server process (thread) for the module: tasks outlive the connections that made them."""
    app = build_server(TaskStore()).streamable_http_app(host="127.0.0.1")
    with serve_app(app) as base:
        yield base + "/mcp"


def _connect(pkg: ModuleType, url: str, **options: Any) -> Any:
    return pkg.AsyncClient.http(url, transport="http", **{"timeout": 20, **options})


async def test_a_required_task_tool_returns_what_a_plain_call_would(pkg: ModuleType, url: str) -> None:
    seen: list[tuple[float, float | None, str | None]] = []
    async with _connect(pkg, url) as client:
        assert pkg.specs.crunch.task_support == "required"
        # "stepped": no step passes before a later poll, so every one is seen however slow the machine.
        result = await client.with_options(on_progress=lambda p, t, m: seen.append((p, t, m))).crunch(
            n=21, mode="stepped"
        )
        assert isinstance(result, pkg.models.CrunchResult)
        assert result.total == 42
        assert await client.call("crunch", {"n": 1}) == pkg.models.CrunchResult(total=2)
    assert seen[0] == (1, None, "step 1 of 3")
    assert [message for _, _, message in seen][:3] == ["step 1 of 3", "step 2 of 3", "step 3 of 3"]
    assert [progress for progress, _, _ in seen] == list(range(1, len(seen) + 1))


async def test_an_optional_task_tool_runs_plainly_unless_started_as_a_task(pkg: ModuleType, url: str) -> None:
    async with _connect(pkg, url) as client:
        assert pkg.specs.quick.task_support == "optional"
        assert (await client.quick(x=3)).total == 3
        task = await client.tasks.start("quick", {"x": 5})
        assert isinstance(task.id, str) and task.id
        assert (await task.result()).total == 5
        assert (await task.status()).status == "completed"


async def test_input_required_asks_the_elicitation_handler_while_the_result_waits(pkg: ModuleType, url: str) -> None:
    asked: list[str] = []

    async def label(request: Any) -> Any:
        asked.append(request.message)
        return pkg.Accept({"label": "blue"})

    async with _connect(pkg, url, elicitation=label) as client:
        result = await client.crunch(n=1, mode="ask")
    assert asked == ["Which label?"]
    assert (result.total, result.note) == (2, "blue")


async def test_a_failed_task_raises_tool_error(pkg: ModuleType, url: str) -> None:
    async with _connect(pkg, url) as client:
        with pytest.raises(pkg.ToolError, match="crunch failed: too much"):
            await client.crunch(n=1, mode="fail")
        task = await client.tasks.start("crunch", {"n": 1, "mode": "fail"})
        assert (await task.wait()).status == "failed"
        with pytest.raises(pkg.ToolError):
            await task.result()


async def test_a_task_the_server_cancels_raises_task_cancelled_error(pkg: ModuleType, url: str) -> None:
    async with _connect(pkg, url) as client:
        with pytest.raises(pkg.TaskCancelledError, match="cancelled by the server") as raised:
            await client.crunch(n=1, mode="server-cancel")
    assert raised.value.tool == "crunch"
    assert isinstance(raised.value, pkg.McpClientError)


async def test_the_handle_path_start_status_cancel(pkg: ModuleType, url: str) -> None:
    async with _connect(pkg, url) as client:
        task = await client.tasks.start("crunch", {"n": 3, "mode": "slow"}, ttl=60)
        state = await task.status()
        assert (state.task_id, state.status, state.ttl) == (task.id, "working", 60.0)
        assert state.poll_interval == 0.05
        cancelled = await task.cancel()
        assert cancelled.status == "cancelled"
        assert (await task.cancel()).status == "cancelled"  # cancelling twice is cancelling once
        with pytest.raises(pkg.TaskCancelledError) as raised:
            await task.result()
        assert raised.value.task_id == task.id


async def test_updates_and_wait_follow_the_status(pkg: ModuleType, url: str) -> None:
    async with _connect(pkg, url) as client:
        task = await client.tasks.start("crunch", {"n": 2, "mode": "ask"})
        state = await task.wait("input_required", timeout=10)
        assert (state.status, state.message) == ("input_required", "waiting for a label")
        await task.cancel()
        states = [state async for state in task.updates()]
        assert [state.status for state in states] == ["cancelled"]
        task = await client.tasks.start("crunch", {"n": 2, "mode": "stepped"})
        statuses = [state.status async for state in task.updates()]
        assert statuses[-1] == "completed" and statuses[0] == "working"
        with pytest.raises(pkg.RequestTimeoutError):
            await (await client.tasks.start("crunch", {"n": 1, "mode": "slow"})).wait(timeout=0.2)


async def test_a_timeout_covers_the_whole_wait_and_cancels_the_task(pkg: ModuleType, url: str) -> None:
    async with _connect(pkg, url) as client:
        # 3 s: the task is made well within it on a loaded machine, and then works for a minute.
        with anyio.fail_after(30):
            with pytest.raises(pkg.RequestTimeoutError, match="timed out after 3 s; it was cancelled"):
                await client.with_options(timeout=3).crunch(n=1, mode="slow")
        slow = [state for state in await client.tasks.list() if state.message == "cancelled by the client"]
        assert slow, "the timed-out task was cancelled on the server"
        assert (await client.crunch(n=1)).total == 2  # the session stays usable


async def test_the_connectors_timeout_bounds_each_request_not_the_task(pkg: ModuleType, url: str) -> None:
    """`timeout=1.5` at connect is each request's limit; a task of about 3 s still completes."""
    async with _connect(pkg, url, timeout=1.5) as client:
        assert (await client.crunch(n=4, mode="long")).total == 8
        with pytest.raises(pkg.RequestTimeoutError, match="after 1 s"):
            await client.with_options(timeout=1).crunch(n=4, mode="long")


async def test_cancelling_the_caller_cancels_the_task(pkg: ModuleType, url: str) -> None:
    async with _connect(pkg, url) as client:
        before = {state.task_id for state in await client.tasks.list()}

        async def new_tasks() -> list[Any]:
            return [state for state in await client.tasks.list() if state.task_id not in before]

        with anyio.fail_after(30):
            async with anyio.create_task_group() as group:
                group.start_soon(lambda: client.crunch(n=1, mode="slow"))
                while not await new_tasks():
                    await anyio.sleep(0.05)
                group.cancel_scope.cancel()  # the caller, once its task runs on the server
        created = await new_tasks()
        assert [state.status for state in created] == ["cancelled"]


async def test_agent_tools_wait_for_the_task_within_their_timeout(pkg: ModuleType, url: str) -> None:
    """An agent tool of a task tool returns the task's result to the model; its timeout bounds the whole
    wait, comes back as an error output (nothing raised) and cancels the task."""
    async with _connect(pkg, url) as client:
        crunch = client.tools(include="crunch")["crunch"]
        output = await crunch.run({"n": 3})
        assert not output.is_error and output.structured == {"total": 6}
        before = {state.task_id for state in await client.tasks.list()}
        with anyio.fail_after(30):  # 3 s: the task is made well within it, then works for a minute
            late = await crunch.run({"n": 1, "mode": "slow"}, timeout=3)
        assert late.is_error and isinstance(late.error, pkg.RequestTimeoutError)
        created = [state for state in await client.tasks.list() if state.task_id not in before]
        assert [state.status for state in created] == ["cancelled"]


async def test_a_handle_result_timeout_leaves_the_task_running(pkg: ModuleType, url: str) -> None:
    async with _connect(pkg, url) as client:
        task = await client.tasks.start("crunch", {"n": 1, "mode": "slow"})
        with pytest.raises(pkg.RequestTimeoutError, match="goes on on the server"):
            await task.result(timeout=0.2)
        assert (await task.status()).status == "working"
        await task.cancel()


async def test_unknown_and_expired_task_ids_raise_task_not_found(pkg: ModuleType, url: str) -> None:
    async with _connect(pkg, url) as client:
        unknown = client.tasks.resume("no-such-task", "crunch")
        for attempt in (unknown.status, unknown.result, unknown.cancel):
            with pytest.raises(pkg.TaskNotFoundError) as raised:
                await attempt()
            assert raised.value.task_id == "no-such-task"
            assert isinstance(raised.value, pkg.ServerRequestError)
        task = await client.tasks.start("crunch", {"n": 1, "mode": "slow"}, ttl=0.3)
        await anyio.sleep(0.5)
        with pytest.raises(pkg.TaskNotFoundError, match="no task"):
            await task.status()


async def test_a_task_resumed_on_another_connection(pkg: ModuleType, url: str) -> None:
    async with _connect(pkg, url) as first:
        task_id = (await first.tasks.start("crunch", {"n": 8})).id
    async with _connect(pkg, url) as second:
        typed = second.tasks.resume(task_id, tool="crunch")
        assert (await typed.result()).total == 16
        untyped = second.tasks.resume(task_id)
        raw = await untyped.result()
        assert isinstance(raw, pkg.ToolResult)
        assert raw.structured == {"total": 16}
        assert task_id in {state.task_id for state in await second.tasks.list()}  # several pages


async def test_a_task_started_in_another_process(pkg: ModuleType, url: str) -> None:
    package_dir = Path(pkg.__file__).parent
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(package_dir.parent)!r})
        import {pkg.__name__} as pkg
        with pkg.Client.http({url!r}, transport="http", timeout=20) as client:
            print(client.tasks.start("crunch", {{"n": 50}}).id)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    task_id = done.stdout.strip()
    async with _connect(pkg, url) as client:
        assert (await client.tasks.resume(task_id, "crunch").result()).total == 100


def test_the_blocking_twin(pkg: ModuleType, url: str) -> None:
    seen: list[str | None] = []
    with pkg.Client.http(url, transport="http", timeout=20) as client:
        assert client.with_options(on_progress=lambda p, t, m: seen.append(m)).crunch(n=5, mode="stepped").total == 10
        task = client.tasks.start("crunch", {"n": 6})
        assert isinstance(task.id, str) and task.tool == "crunch"
        assert [state.status for state in task.updates()][-1] == "completed"
        assert task.wait().status == "completed"
        assert task.result().total == 12
        assert client.tasks.resume(task.id, "crunch").status().status == "completed"
        slow = client.tasks.start("crunch", {"n": 1, "mode": "slow"})
        assert slow.cancel().status == "cancelled"
        with pytest.raises(pkg.TaskCancelledError):
            slow.result()
        with pytest.raises(pkg.RequestTimeoutError):
            client.with_options(timeout=0.3).crunch(n=1, mode="slow")
        assert any(state.task_id == task.id for state in client.tasks.list())
    assert seen[:3] == ["step 1 of 3", "step 2 of 3", "step 3 of 3"]


async def test_listing_needs_the_servers_capability(pkg: ModuleType) -> None:
    """A server without `tasks.list` (here: a plain MCPServer) gets UnsupportedByServerError, nothing sent."""
    from mcp import Client as McpClient
    from mcp.server.mcpserver import MCPServer

    async with McpClient(MCPServer("plain"), mode="legacy", cache=None) as session:
        client = pkg.AsyncClient.from_session(session)
        with pytest.raises(pkg.UnsupportedByServerError, match="does not list tasks"):
            await client.tasks.list()


def test_task_state_from_the_wire_and_the_poll_delay(tmp_path: Path) -> None:
    import json

    import mcp_types

    from mcp_codegen_runtime import SnapshotData, TaskState, ToolSpec
    from mcp_codegen_runtime.calls.tasks import MAX_POLL, MIN_POLL, poll_delay

    wire = mcp_types.Task(
        task_id="t1",
        status="input_required",
        status_message="waiting",
        created_at="2026-11-27T10:00:00Z",
        last_updated_at="2026-11-27T10:00:01Z",
        ttl=60000,
        poll_interval=1500,
    )
    state = TaskState.from_task(wire)
    assert state == TaskState("t1", "input_required", "waiting", 1.5, 60.0, "2026-11-27T10:00:00Z", "2026-11-27T10:00:01Z")
    assert not state.terminal and TaskState("t1", "failed").terminal
    assert poll_delay(state) == 1.5
    assert poll_delay(TaskState("t", "working")) == 1.0  # no suggestion
    assert poll_delay(TaskState("t", "working", poll_interval=0.0001)) == MIN_POLL
    assert poll_delay(TaskState("t", "working", poll_interval=600)) == MAX_POLL

    tools = [
        {"name": "a", "inputSchema": {"type": "object"}},
        {"name": "b", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}},
        {"name": "c", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "sometimes"}},
    ]
    (tmp_path / "snapshot.json").write_text(json.dumps({"tools": tools}))
    snapshot = SnapshotData(tmp_path)

    def spec(name: str) -> ToolSpec[Any, Any]:
        return ToolSpec(
            name=name,
            python_name=name,
            models_module="m",
            arguments_class="A",
            result_class=None,
            unwrap_result=False,
            snapshot=snapshot,
        )

    assert [spec(name).task_support for name in "abc"] == ["forbidden", "optional", "forbidden"]
