"""Per-call options against a real third-party server: npm server-everything's long-running tool over stdio.

`trigger-long-running-operation(duration, steps)` sleeps `duration / steps` seconds between steps and sends a
progress notification after each. The typed method gets progress, a timeout that fires, a timeout that resets on
progress, an absolute cap, and cancellation, through a package generated now from the committed snapshot.
Bounds here are generous multiples of the server's step time: they guard against hangs, they time nothing.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import anyio
import pytest

pytestmark = pytest.mark.anyio





def _stdio(package: ModuleType, command: list[str], **options: Any) -> Any:
    return package.AsyncClient.stdio(command[0], command[1:], stderr="discard", timeout=30, **options)


async def test_progress_of_the_long_running_tool(everything: ModuleType, everything_command: list[str]) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with _stdio(everything, everything_command) as client:
        result = await client.with_options(on_progress=on_progress).trigger_long_running_operation(
            duration=0.6, steps=3
        )
    assert "Long running operation completed" in result.text
    assert [(progress, total) for progress, total, _message in seen] == [(1, 3), (2, 3), (3, 3)]


async def test_timeout_fires_and_the_session_stays_usable(
    everything: ModuleType, everything_command: list[str]
) -> None:
    async with _stdio(everything, everything_command) as client:
        with pytest.raises(everything.RequestTimeoutError):
            await client.with_options(timeout=0.5).trigger_long_running_operation(duration=20, steps=2)
        assert (await client.get_sum(a=1, b=2)).text == "The sum of 1 and 2 is 3."


async def test_timeout_resets_on_progress(everything: ModuleType, everything_command: list[str]) -> None:
    """Steps of 0.3 s under an idle timeout of 3 s: the whole 6 s call finishes, as progress keeps arriving."""
    steps: list[float] = []
    async with _stdio(everything, everything_command) as client:
        patient = client.with_options(
            timeout=3, reset_timeout_on_progress=True, on_progress=lambda p, t, m: steps.append(p)
        )
        result = await patient.trigger_long_running_operation(duration=6, steps=20)
    assert "completed" in result.text
    assert len(steps) == 20


async def test_max_timeout_caps_a_call_that_keeps_reporting(
    everything: ModuleType, everything_command: list[str]
) -> None:
    async with _stdio(everything, everything_command) as client:
        capped = client.with_options(timeout=5, reset_timeout_on_progress=True, max_timeout=1)
        with pytest.raises(everything.RequestTimeoutError, match="max_timeout"):
            await capped.trigger_long_running_operation(duration=30, steps=60)


async def test_cancelling_the_task_ends_the_call(everything: ModuleType, everything_command: list[str]) -> None:
    started = anyio.Event()

    def on_progress(progress: float, total: float | None, message: str | None) -> None:
        started.set()

    async with _stdio(everything, everything_command) as client:
        view = client.with_options(on_progress=on_progress)
        with anyio.fail_after(30):  # a bound on a hang
            async with anyio.create_task_group() as group:
                group.start_soon(lambda: view.trigger_long_running_operation(duration=60, steps=120))
                await started.wait()
                group.cancel_scope.cancel()
        assert (await client.echo(message="still here")).text.endswith("still here")


async def test_resource_subscriptions_deliver_updates(everything: ModuleType, everything_command: list[str]) -> None:
    uri = "demo://resource/static/document/architecture.md"
    updated: list[str] = []
    arrived = anyio.Event()

    def on_resource_updated(changed: str) -> None:
        updated.append(changed)
        arrived.set()

    async with _stdio(everything, everything_command, on_resource_updated=on_resource_updated) as client:
        await client.resources.subscribe(uri)
        await client.toggle_subscriber_updates()
        with anyio.fail_after(30):  # the server sends updates every few seconds: a bound on a hang
            await arrived.wait()
        await client.resources.unsubscribe(uri)
    assert uri in updated


async def test_subscribing_needs_the_servers_capability(everything: ModuleType) -> None:
    from mcp_codegen.demo.server import build_server

    async with everything.AsyncClient.in_process(build_server(), drift_check=False) as client:
        with pytest.raises(everything.ServerRequestError, match="does not offer resource subscriptions"):
            await client.resources.subscribe("notes://ideas")
