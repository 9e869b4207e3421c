"""MCP tasks against a real third-party server: npm server-everything's `simulate-research-query` over stdio.

The tool lists `taskSupport: "required"` (a plain `tools/call` is refused), polls at 1 s and takes four stages
of about 1 s; with `ambiguous=True` it asks for a clarification through `elicitation/create` while the task
waits (only when the client declared elicitation) and writes "Clarification: <answer>" into the report. The
package is generated now from the committed snapshot. Bounds on durations are hang guards.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import anyio
import pytest

pytestmark = pytest.mark.anyio





def _stdio(package: ModuleType, command: list[str], **options: Any) -> Any:
    return package.AsyncClient.stdio(command[0], command[1:], stderr="discard", timeout=30, **options)


async def test_the_typed_method_runs_the_task_and_returns_the_report(
    everything: ModuleType, everything_command: list[str]
) -> None:
    seen: list[tuple[float, float | None, str | None]] = []
    async with _stdio(everything, everything_command) as client:
        with anyio.fail_after(30):
            report = await client.with_options(on_progress=lambda p, t, m: seen.append((p, t, m))).simulate_research_query(
                topic="bees"
            )
    assert isinstance(report, everything.ToolResult)  # what the method returns for a tool without output schema
    assert "# Research Report: bees" in report.text
    assert seen[0] == (1, None, "Gathering sources...")
    stages = {"Gathering sources...", "Analyzing content...", "Synthesizing findings...", "Generating report..."}
    assert len(seen) >= 2 and {message for _, _, message in seen} <= stages  # polled at 1 s: some stages may pass unseen
    assert [progress for progress, _, _ in seen] == list(range(1, len(seen) + 1))
    assert all(total is None for _, total, _ in seen)


async def test_the_elicitation_handler_is_asked_while_the_task_waits(
    everything: ModuleType, everything_command: list[str]
) -> None:
    asked: list[Any] = []

    async def clarify(request: Any) -> Any:
        asked.append(request)
        return everything.Accept({"interpretation": "historical"})

    async with _stdio(everything, everything_command, elicitation=clarify) as client:
        with anyio.fail_after(30):
            report = await client.simulate_research_query(topic="bees", ambiguous=True)
    assert len(asked) == 1 and "bees" in asked[0].message
    assert "**Clarification**: historical" in report.text


async def test_the_handle_path_and_cancel(everything: ModuleType, everything_command: list[str]) -> None:
    async with _stdio(everything, everything_command) as client:
        task = await client.tasks.simulate_research_query(topic="ants")  # the typed method
        assert isinstance(task.id, str) and task.id
        state = await task.status()
        assert state.status == "working" and state.poll_interval == 1.0
        with anyio.fail_after(30):
            assert "# Research Report: ants" in (await task.result()).text
        assert (await task.status()).status == "completed"

        other = await client.tasks.start("simulate-research-query", {"topic": "moths"})
        assert (await other.cancel()).status == "cancelled"
        assert (await other.status()).status == "cancelled"
        with pytest.raises(everything.TaskCancelledError):
            await other.result()
        listed = {state.task_id: state.status for state in await client.tasks.list()}
        assert listed[task.id] == "completed" and listed[other.id] == "cancelled"
        with pytest.raises(everything.TaskNotFoundError):
            await client.tasks.resume("no-such-task").status()


async def test_a_short_timeout_cancels_the_task_on_the_server(
    everything: ModuleType, everything_command: list[str]
) -> None:
    async with _stdio(everything, everything_command) as client:
        with anyio.fail_after(30), pytest.raises(everything.RequestTimeoutError, match="it was cancelled"):
            await client.with_options(timeout=1.5).simulate_research_query(topic="slow")
        (state,) = await client.tasks.list()
        assert state.status == "cancelled"
        assert (await client.tasks.resume(state.task_id).status()).status == "cancelled"
        assert (await client.get_sum(a=1, b=2)).text == "The sum of 1 and 2 is 3."


def test_the_blocking_client(everything: ModuleType, everything_command: list[str]) -> None:
    with everything.Client.stdio(everything_command[0], everything_command[1:], stderr="discard", timeout=30) as client:
        assert "# Research Report: wasps" in client.simulate_research_query(topic="wasps").text
        task = client.tasks.start("simulate_research_query", {"topic": "flies"})
        assert task.wait("completed", timeout=30).status == "completed"
        assert "# Research Report: flies" in task.result().text
