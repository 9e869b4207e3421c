"""Typed tool calls as Temporal activities, on a real Temporal dev server and a streamable-HTTP MCP server.

Workers run in processes of their own (worker.py), so a test can kill one with SIGKILL while a tool runs; the
MCP server (durable_server.py) logs every run, so the tests count what ran on the server. A tool that holds
blocks until the test has killed its worker; the tests wait on the log, never on a clock. The workflows'
execution timeouts are hang guards only.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
import uuid
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from durable_server import Log
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.exceptions import ApplicationError
from temporalio.worker import Replayer

pytestmark = pytest.mark.anyio

#: The `start_worker` fixture: a worker process on a task queue, once polling.
StartWorker = Callable[[str], "subprocess.Popen[str]"]

#: Hang guard for one workflow.
WORKFLOW_TIMEOUT = timedelta(minutes=2)


async def _client(address: str) -> Client:
    return await Client.connect(address, data_converter=pydantic_data_converter)


def _wait_until_logged(log: Log, tool: str, key: str, event: str, count: int = 1) -> None:
    """Wait until the server logged `count` such events (a hang guard of a minute, no budget)."""
    deadline = time.monotonic() + 60
    while log.count(tool, key, event) < count:
        assert time.monotonic() < deadline, f"the server never logged {tool} {key} {event}"
        time.sleep(0.05)


async def _heartbeat_details(client: Client, handle: WorkflowHandle[Any, Any]) -> list[Any]:
    """The heartbeat details of the workflow's running activity once they hold a task's id, status and message."""
    deadline = time.monotonic() + 60
    while True:
        described = await handle.describe()
        for pending in described.raw_description.pending_activities:
            payloads = list(pending.heartbeat_details.payloads)
            if len(payloads) == 3:
                return client.data_converter.payload_converter.from_payloads(payloads)
        assert time.monotonic() < deadline, "the task's status was never heartbeated"
        await asyncio.sleep(0.1)


def _queue() -> str:
    return f"q-{uuid.uuid4().hex[:8]}"


async def test_a_workflow_gets_typed_results_and_its_history_replays_without_calling_tools(
    temporal_address: str, start_worker: StartWorker, durable_client: ModuleType, run_log: Path
) -> None:
    import durable_workflows

    queue = _queue()
    start_worker(queue)
    client = await _client(temporal_address)
    handle = await client.start_workflow(
        durable_workflows.EndToEnd.run, "alpha", id=f"e2e-{queue}", task_queue=queue,
        execution_timeout=WORKFLOW_TIMEOUT,
    )  # fmt: skip
    summary = await handle.result()
    models = durable_client.models
    assert isinstance(summary, durable_workflows.Summary)
    assert summary.lookup == models.LookupResult(key="alpha", runs=1)
    assert summary.charge == models.ChargeResult(account="alpha", cents=250)
    assert summary.crunch == models.CrunchResult(total=42)
    assert summary.result_types == ["LookupResult", "ChargeResult", "CrunchResult"]
    assert summary.tools == ["charge", "crunch", "lookup"]
    log = Log(run_log)
    ran = run_log.read_text(encoding="utf-8")
    assert (log.count("lookup", "alpha", "end"), log.count("charge", "alpha", "end")) == (1, 1)
    assert log.count("crunch", "21", "end") == 1

    history = await handle.fetch_history()
    replayer = Replayer(workflows=durable_workflows.WORKFLOWS, data_converter=pydantic_data_converter)
    replayed = await replayer.replay_workflow(history)
    assert replayed.replay_failure is None
    assert run_log.read_text(encoding="utf-8") == ran  # no tool ran again


async def _killed_mid_call(
    address: str, start_worker: StartWorker, run: Any, key: str, tool: str, log: Log
) -> WorkflowHandle[Any, Any]:
    """Start the workflow `run(key)` on a worker, SIGKILL that worker once `tool` started on the server (it holds
    there), and start a second worker on the same task queue; the workflow's handle."""
    queue = _queue()
    first = start_worker(queue)
    client = await _client(address)
    handle = await client.start_workflow(
        run, key, id=f"{tool}-{queue}", task_queue=queue, execution_timeout=WORKFLOW_TIMEOUT
    )
    _wait_until_logged(log, tool, key, "start")
    first.kill()  # SIGKILL, mid-call
    first.wait()
    start_worker(queue)
    return handle


async def test_a_read_only_tool_whose_worker_is_killed_runs_again_on_another_worker(
    temporal_address: str, start_worker: StartWorker, durable_client: ModuleType, run_log: Path
) -> None:
    import durable_workflows

    log = Log(run_log)
    handle = await _killed_mid_call(
        temporal_address, start_worker, durable_workflows.LookupOnce.run, "hold-read", "lookup", log
    )
    result = await handle.result()
    assert result == durable_client.models.LookupResult(key="hold-read", runs=2)
    assert log.count("lookup", "hold-read", "start") == 2


async def test_a_non_idempotent_tool_whose_worker_is_killed_runs_once_and_the_workflow_is_told_it_may_have_run(
    temporal_address: str, start_worker: StartWorker, durable_client: ModuleType, run_log: Path
) -> None:
    import durable_workflows

    log = Log(run_log)
    handle = await _killed_mid_call(
        temporal_address, start_worker, durable_workflows.ChargeOnce.run, "hold-charge", "charge", log
    )
    with pytest.raises(WorkflowFailureError) as caught:  # the second worker goes on; the charge is not sent again
        await handle.result()
    failure = caught.value.cause
    assert isinstance(failure, ApplicationError)
    assert failure.type == durable_client.temporal.ToolMayHaveRunError(".", tool=".").type == "ToolMayHaveRunError"
    assert failure.non_retryable
    assert "may have run" in failure.message and "'charge'" in failure.message
    assert log.count("charge", "hold-charge", "start") == 1


async def test_a_task_tool_cancelled_from_the_workflow_is_cancelled_on_the_server(
    temporal_address: str, start_worker: StartWorker, durable_client: ModuleType, run_log: Path
) -> None:
    import durable_workflows

    queue = _queue()
    start_worker(queue)
    client = await _client(temporal_address)
    handle = await client.start_workflow(
        durable_workflows.CancelCrunch.run, 7, id=f"cancel-{queue}", task_queue=queue,
        execution_timeout=WORKFLOW_TIMEOUT,
    )  # fmt: skip
    log = Log(run_log)
    _wait_until_logged(log, "crunch", "7", "start")
    task_id, status, message = await _heartbeat_details(client, handle)
    assert task_id and (status, message) == ("working", "crunching 7")
    await handle.signal(durable_workflows.CancelCrunch.cancel)
    assert (await handle.result()).startswith("cancelled")
    assert log.count("crunch", "7", "cancel") == 1
    assert log.count("crunch", "7", "end") == 0


async def _may_have_run_failure(handle: WorkflowHandle[Any, Any]) -> ApplicationError:
    """The workflow's failure, which must be `ToolMayHaveRunError` for `charge`."""
    with pytest.raises(WorkflowFailureError) as caught:
        await handle.result()
    failure = caught.value.cause
    assert isinstance(failure, ApplicationError), repr(failure)
    assert (failure.type, failure.non_retryable) == ("ToolMayHaveRunError", True), repr(failure)
    assert "'charge'" in failure.message
    return failure


async def test_a_schedule_to_close_timeout_after_the_send_reaches_the_workflow_as_may_have_run(
    temporal_address: str, start_worker: StartWorker, run_log: Path
) -> None:
    import durable_workflows

    queue = _queue()
    start_worker(queue)
    client = await _client(temporal_address)
    handle = await client.start_workflow(
        durable_workflows.ChargeWithinDeadline.run, "hold-deadline", id=f"deadline-{queue}", task_queue=queue,
        execution_timeout=WORKFLOW_TIMEOUT,
    )  # fmt: skip
    log = Log(run_log)
    _wait_until_logged(log, "charge", "hold-deadline", "start")  # sent: it holds there until the deadline
    failure = await _may_have_run_failure(handle)
    assert "schedule" in failure.message.lower(), failure.message  # the timeout named
    assert log.count("charge", "hold-deadline", "start") == 1


async def test_a_schedule_to_close_timeout_before_any_worker_took_the_call_is_not_may_have_run(
    temporal_address: str, start_worker: StartWorker, run_log: Path
) -> None:
    import durable_workflows

    queue = _queue()
    start_worker(queue)  # runs the workflow; nothing polls the queue its activity is sent to
    client = await _client(temporal_address)
    result = await client.execute_workflow(
        durable_workflows.ChargeUnclaimed.run, "unclaimed", id=f"unclaimed-{queue}", task_queue=queue,
        execution_timeout=WORKFLOW_TIMEOUT,
    )  # fmt: skip
    assert result == "ActivityError: TimeoutError"
    assert Log(run_log).count("charge", "unclaimed", "start") == 0


def _attempts(history: Any, activity_type: str) -> list[tuple[int, str]]:
    """The (attempt, worker identity) of each started attempt of `activity_type` recorded in `history`."""
    scheduled = {
        event.event_id: event.activity_task_scheduled_event_attributes.activity_type.name
        for event in history.events
        if event.HasField("activity_task_scheduled_event_attributes")
    }
    return [
        (event.activity_task_started_event_attributes.attempt, event.activity_task_started_event_attributes.identity)
        for event in history.events
        if event.HasField("activity_task_started_event_attributes")
        and scheduled[event.activity_task_started_event_attributes.scheduled_event_id] == activity_type
    ]


async def test_a_task_tool_whose_worker_is_killed_is_followed_on_another_worker_not_started_again(
    temporal_address: str, start_worker: StartWorker, durable_client: ModuleType, run_log: Path
) -> None:
    import durable_workflows

    queue = _queue()
    first = start_worker(queue)
    client = await _client(temporal_address)
    handle = await client.start_workflow(
        durable_workflows.FollowCrunch.run, 11, id=f"follow-{queue}", task_queue=queue,
        execution_timeout=WORKFLOW_TIMEOUT,
    )  # fmt: skip
    log = Log(run_log)
    _wait_until_logged(log, "crunch", "11", "start")
    task_id, status, _message = await _heartbeat_details(client, handle)  # the server has the task's id
    assert task_id and status == "working"
    first.kill()  # SIGKILL, while the activity waits for the task's result
    first.wait()
    second = start_worker(queue)
    (run_log.parent / "release-11").touch()  # the task completes once followed (or at once, if already)
    assert await handle.result() == durable_client.models.CrunchResult(total=22)
    assert log.count("crunch", "11", "start") == 1  # one task created on the server
    attempts = _attempts(await handle.fetch_history(), f"mcp:{durable_client.temporal.SERVER_KEY}:tool:crunch")
    [(attempt, identity)] = attempts  # the recorded (last) attempt: a retry (a loaded machine may need two) ...
    assert attempt >= 2 and identity.startswith(f"{second.pid}@"), attempts  # ... on the second worker


async def test_activities_registered_under_another_server_key_serve_workflows_naming_it(
    temporal_address: str, start_worker: StartWorker, durable_client: ModuleType, run_log: Path
) -> None:
    import durable_workflows

    queue = _queue()
    start_worker(queue, durable_workflows.RENAMED)
    client = await _client(temporal_address)
    result = await client.execute_workflow(
        durable_workflows.RenamedLookup.run, "renamed", id=f"renamed-{queue}", task_queue=queue,
        execution_timeout=WORKFLOW_TIMEOUT,
    )  # fmt: skip
    assert result == durable_client.models.LookupResult(key="renamed", runs=1)
    history = await client.get_workflow_handle(f"renamed-{queue}").fetch_history()
    assert len(_attempts(history, f"mcp:{durable_workflows.RENAMED}:tool:lookup")) == 1
