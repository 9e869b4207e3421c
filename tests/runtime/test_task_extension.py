"""`calls.task_extension` against a real server of the 2026-07-28 tasks extension (FastMCP + fastmcp-tasks).

The server (tasks_ext_server.py) runs in this process over streamable HTTP; each connection is an SDK
`mcp.Client` in `mode="auto"` (2026-07-28) declaring the extension the SDK's way (`extensions=[...]`).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

import anyio
import mcp_types
import pytest
import tasks_ext_server
from mcp import Client
from tasks_ext_server import Report

from mcp_codegen_runtime.calls import task_extension as tasks
from mcp_codegen_runtime.calls.errors import TaskCancelledError
from mcp_codegen_runtime.calls.task_extension import (
    TaskExtensionError,
    TasksExtension,
    TaskState,
)

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with tasks_ext_server.serve() as served:
        yield served


@asynccontextmanager
async def connect(url: str, *, declare: bool = True, **options: Any) -> AsyncIterator[Client]:
    extensions = [TasksExtension()] if declare else []
    async with Client(
        url, mode="auto", cache=None, read_timeout_seconds=30, extensions=extensions, **options
    ) as client:
        assert client.session.protocol_version == "2026-07-28"
        yield client


def text_of(result: mcp_types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, mcp_types.TextContent)
    return block.text


async def test_a_required_tool_runs_as_a_task_to_its_result(url: str) -> None:
    async with connect(url) as client:
        started = await tasks.start(client.session, "export_all", {"fmt": "json"})
        assert isinstance(started, TaskState)
        assert started.status == "working" and not started.done
        assert started.task_id and started.poll_interval == pytest.approx(0.1)
        assert started.ttl is not None and started.ttl > 0
        assert started.created_at is not None  # ISO 8601, as the server wrote it
        assert datetime.fromisoformat(started.created_at.replace("Z", "+00:00")).tzinfo is not None

        seen: list[str] = []
        result = await tasks.follow(client.session, started, timeout=20, on_status=lambda s: seen.append(s.status))
        assert text_of(result) == "exported as json"
        assert result.structured_content == {"result": "exported as json"}
        assert seen[0] == "working" and seen[-1] == "completed"

        done = await tasks.get(client.session, started.task_id)
        assert done.status == "completed" and done.done
        assert done.result is not None and text_of(done.result) == "exported as json"
        assert done.error is None and done.input_requests is None


async def test_an_optional_tool_is_a_task_when_declared_and_a_plain_result_otherwise(url: str) -> None:
    async with connect(url) as client:
        started = await tasks.start(client.session, "crunch", {"dataset": "abc"})
        assert isinstance(started, TaskState)
        result = await tasks.follow(client.session, started, timeout=20)
        assert Report.model_validate(result.structured_content) == Report(dataset="abc", rows=30)
        # A tool without task support: the server answers at once, and start() hands that answer back.
        plain = await tasks.start(client.session, "echo", {"text": "hi"})
        assert isinstance(plain, mcp_types.CallToolResult)
        assert text_of(plain) == "hi"
    async with connect(url, declare=False) as client:
        undeclared = await tasks.start(client.session, "crunch", {"dataset": "xy"})
        assert isinstance(undeclared, mcp_types.CallToolResult)
        assert Report.model_validate(undeclared.structured_content) == Report(dataset="xy", rows=20)


async def test_a_required_tool_without_the_extension_is_explained(url: str) -> None:
    async with connect(url, declare=False) as client:
        with pytest.raises(TaskExtensionError, match=r"requires the tasks extension.*TasksExtension\(\)") as caught:
            await tasks.start(client.session, "export_all", {})
        assert caught.value.code == tasks.MISSING_CAPABILITY


async def test_cancel_stops_the_work(url: str) -> None:
    run = f"cancel-{time.monotonic_ns()}"
    async with connect(url) as client:
        started = await tasks.start(client.session, "slow_count", {"run": run, "steps": 100})
        assert isinstance(started, TaskState)
        with anyio.fail_after(10):
            while tasks_ext_server.WORK.get(run, {}).get("steps", 0) < 2:
                await anyio.sleep(0.05)
        await tasks.cancel(client.session, started.task_id)

        state = await tasks.get(client.session, started.task_id)
        assert state.status == "cancelled" and state.done
        with anyio.fail_after(30):
            while not tasks_ext_server.WORK[run]["stopped"]:
                await anyio.sleep(0.05)
        steps = tasks_ext_server.WORK[run]["steps"]
        await anyio.sleep(0.5)
        assert tasks_ext_server.WORK[run] == {"steps": steps, "stopped": True, "finished": False}
        assert steps < 100

        with pytest.raises(TaskCancelledError, match="was cancelled") as caught:
            await tasks.follow(client.session, started.task_id, timeout=5)
        assert caught.value.task_id == started.task_id  # typed, as `ExtensionTasks.result()` raises it


async def test_an_unknown_task_id_is_a_clear_error(url: str) -> None:
    async with connect(url) as client:
        with pytest.raises(TaskExtensionError, match=r"no task 'no-such-task' on this server") as caught:
            await tasks.get(client.session, "no-such-task")
        assert caught.value.code == -32602
        with pytest.raises(TaskExtensionError, match="no task 'no-such-task'"):
            await tasks.cancel(client.session, "no-such-task")


async def test_a_task_started_on_one_connection_is_read_on_another(url: str) -> None:
    async with connect(url) as first:
        started = await tasks.start(first.session, "export_all", {"fmt": "xml"})
        assert isinstance(started, TaskState)
    async with connect(url) as second:
        result = await tasks.follow(second.session, started.task_id, timeout=20)
        assert text_of(result) == "exported as xml"


async def test_follow_answers_input_requests_with_the_elicitation_handler(url: str) -> None:
    asked: list[str] = []

    async def elicitation(context: Any, params: mcp_types.ElicitRequestParams) -> mcp_types.ElicitResult:
        asked.append(params.message)
        return mcp_types.ElicitResult(action="accept", content={"ok": True})

    async with connect(url, elicitation_callback=elicitation) as client:
        started = await tasks.start(client.session, "confirm", {"item": "db"})
        assert isinstance(started, TaskState)
        statuses: list[str] = []
        result = await tasks.follow(client.session, started, timeout=20, on_status=lambda s: statuses.append(s.status))
        assert text_of(result) == "db: accept {'ok': True}"
        assert asked == ["Really export db?"]
        assert "input_required" in statuses


async def test_update_answers_the_input_requests_of_get(url: str) -> None:
    async with connect(url) as client:
        started = await tasks.start(client.session, "confirm", {"item": "logs"})
        assert isinstance(started, TaskState)
        with anyio.fail_after(10):
            state = await tasks.get(client.session, started.task_id)
            while state.status != "input_required":
                await anyio.sleep(0.05)
                state = await tasks.get(client.session, started.task_id)
        assert state.input_requests is not None
        [(key, request)] = state.input_requests.items()
        assert isinstance(request, mcp_types.ElicitRequest)
        assert request.params.message == "Really export logs?"

        await tasks.update(client.session, state.task_id, {key: {"action": "decline"}})
        result = await tasks.follow(client.session, state.task_id, timeout=20)
        assert text_of(result) == "logs: decline None"


async def test_requests_go_through_the_given_send_function(url: str) -> None:
    sent: list[str] = []
    async with connect(url) as client:

        async def send(request: Any, result_type: Any) -> Any:
            sent.append(request.method)
            return await client.session.send_request(request, result_type)

        started = await tasks.start(client.session, "export_all", {}, send=send)
        assert isinstance(started, TaskState)
        await tasks.follow(client.session, started, send=send, timeout=20)
    assert sent[0] == "tools/call" and set(sent[1:]) == {"tasks/get"}


async def test_a_tool_error_inside_a_task_is_an_error_result(url: str) -> None:
    async with connect(url) as client:
        started = await tasks.start(client.session, "explode", {"reason": "boom"})
        assert isinstance(started, TaskState)
        result = await tasks.follow(client.session, started, timeout=20)
        assert result.is_error and text_of(result) == "boom"
