"""Per-call options (`with_options`): progress, timeouts that reset on progress, caps, and cancellation reaching the server.

The server is the SDK's MCPServer in memory (`progress_server`); its `slow` tool records when its handler is
cancelled, which happens only when the client sends `notifications/cancelled` (the session stays open).
Timing assertions are generous bounds: a call must end well before the operation would have.
"""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from fakepkg import AsyncClient, Client
from mcp import Client as McpClient
from progress_server import Record, build_progress_server

from mcp_codegen_runtime import CallOptions, RequestTimeoutError

pytestmark = pytest.mark.anyio

Progress = tuple[float, "float | None", "str | None"]


async def settled(seen: list[Any], count: int) -> None:
    """Wait (10 s at most) until `count` progress callbacks ran: each runs as a task of its own."""
    with anyio.move_on_after(10):
        while len(seen) < count:
            await anyio.sleep(0.01)


def settled_blocking(seen: list[Any], count: int) -> None:
    """`settled` for the blocking client, whose callbacks run on its loop thread."""
    deadline = time.monotonic() + 10
    while len(seen) < count and time.monotonic() < deadline:
        time.sleep(0.01)


@asynccontextmanager
async def progress_client() -> AsyncIterator[tuple[AsyncClient, Record]]:
    record = Record()
    async with McpClient(build_progress_server(record), mode="legacy", cache=None) as session:
        yield AsyncClient.from_session(session), record


async def test_progress_reaches_the_callback_in_order_with_total_and_message() -> None:
    seen: list[Progress] = []

    def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with progress_client() as (client, _):
        assert await client.with_options(on_progress=on_progress).slow(seconds=0.5) == "done"
        await settled(seen, 5)
    assert seen == [(step, 5.0, f"step {step}") for step in range(1, 6)]


async def test_coroutine_progress_callbacks_are_awaited_and_call_takes_options() -> None:
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        await anyio.sleep(0)
        seen.append(progress)

    async with progress_client() as (client, _):
        assert await client.with_options(on_progress=on_progress).call("slow", {"seconds": 0.3}) == "done"
        await settled(seen, 3)
    assert seen == [1.0, 2.0, 3.0]


async def test_timeout_raises_and_cancels_the_request_on_the_server() -> None:
    async with progress_client() as (client, record):
        started = time.monotonic()
        with pytest.raises(RequestTimeoutError):
            await client.with_options(timeout=0.3).slow(seconds=60)
        assert time.monotonic() - started < 30
        assert await record.wait_cancelled_async() == ["slow(60)"]
        assert await client.add(a=1, b=2) == 3  # the session is still usable


async def test_a_methods_own_timeout_wins_over_the_views() -> None:
    async with progress_client() as (client, record):
        started = time.monotonic()
        with pytest.raises(RequestTimeoutError):
            await client.with_options(timeout=600).call("slow", {"seconds": 60}, timeout=0.3)
        assert time.monotonic() - started < 30
        assert await record.wait_cancelled_async() == ["slow(60)"]


async def test_view_timeout_overrides_the_connectors_timeout() -> None:
    record = Record()
    async with AsyncClient.in_process(build_progress_server(record), timeout=0.3, drift_check=False) as client:
        with pytest.raises(RequestTimeoutError):
            await client.slow(seconds=1)  # the connector's timeout applies to plain calls
        assert await client.with_options(timeout=60).slow(seconds=1) == "done"


async def test_reset_on_progress_lets_a_longer_call_finish() -> None:
    seen: list[Progress] = []

    def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with progress_client() as (client, record):
        # Progress comes every 0.1 s; the call takes 3 s, three times the timeout.
        view = client.with_options(timeout=1.0, reset_timeout_on_progress=True, on_progress=on_progress)
        assert await view.slow(seconds=3) == "done"
        assert len(seen) >= 25
        # The same timeout without the reset ends the call.
        with pytest.raises(RequestTimeoutError):
            await client.with_options(timeout=1.0).slow(seconds=3)
        assert await record.wait_cancelled_async() == ["slow(3)"]


async def test_max_timeout_stops_a_call_that_keeps_reporting_progress() -> None:
    async with progress_client() as (client, record):
        view = client.with_options(timeout=2.0, reset_timeout_on_progress=True, max_timeout=1.5)
        started = time.monotonic()
        with pytest.raises(RequestTimeoutError, match="max_timeout 1.5 s"):
            await view.slow(seconds=60)
        assert time.monotonic() - started < 30
        assert await record.wait_cancelled_async() == ["slow(60)"]


async def test_reset_timeout_fires_when_progress_stops() -> None:
    async with progress_client() as (client, record):
        view = client.with_options(timeout=0.5, reset_timeout_on_progress=True)
        with pytest.raises(RequestTimeoutError, match="no progress for 0.5 s"):
            await view.read_resource("config://app")  # never reports progress
        assert await record.wait_cancelled_async() == ["config://app"]


async def test_cancelling_the_awaiting_task_cancels_the_request_on_the_server() -> None:
    async with progress_client() as (client, record):
        first = anyio.Event()

        def on_progress(progress: float, total: float | None, message: str | None) -> None:
            first.set()

        async with anyio.create_task_group() as group:

            async def call() -> None:
                await client.with_options(on_progress=on_progress).slow(seconds=60)

            group.start_soon(call)
            with anyio.fail_after(30):
                await first.wait()
            group.cancel_scope.cancel()
        assert await record.wait_cancelled_async() == ["slow(60)"]


async def test_cancelling_a_plain_call_cancels_it_on_the_server_too() -> None:
    async with progress_client() as (client, record):

        async def cancel_once_started(scope: anyio.CancelScope) -> None:
            while "slow(60)" not in record.started:  # the request reached its handler
                await anyio.sleep(0.01)
            scope.cancel()

        with anyio.fail_after(30), anyio.CancelScope() as scope:
            async with anyio.create_task_group() as group:
                group.start_soon(cancel_once_started, scope)
                await client.slow(seconds=60)
        assert scope.cancelled_caught
        assert await record.wait_cancelled_async() == ["slow(60)"]


async def test_prompts_and_resources_take_the_views_options() -> None:
    async with progress_client() as (client, record):
        view = client.with_options(timeout=0.3)
        with pytest.raises(RequestTimeoutError):
            await view.prompts.review(code="x")
        with pytest.raises(RequestTimeoutError):
            await view.resources.app_config()
        await record.wait_cancelled_async()
        with anyio.fail_after(10):
            while len(record.cancelled) < 2:
                await anyio.sleep(0.05)
        assert sorted(record.cancelled) == ["config://app", "review"]


async def test_a_view_is_the_same_client_with_options() -> None:
    async with progress_client() as (client, _):
        calls: list[str] = []
        view = client.with_options(timeout=5)
        client.on_call(lambda call: calls.append(call.tool))  # added to the client after the view was made
        assert type(view) is AsyncClient
        assert view.session is client.session
        assert await view.add(a=1, b=1) == 2
        assert calls == ["add"]
        chained = view.with_options(max_timeout=9)
        assert chained._call_options == CallOptions(timeout=5.0, max_timeout=9.0)
        assert client._call_options is None
        await client.aclose()
        assert view.closed and chained.closed


def test_invalid_options_are_refused() -> None:
    client = AsyncClient.__new__(AsyncClient)
    client._call_options = None
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        client.with_options(timeout=0)
    with pytest.raises(ValueError, match="max_timeout"):
        client.with_options(max_timeout=-1)
    with pytest.raises(TypeError):
        client.with_options(timeout="5")  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------ the blocking twin


def test_blocking_client_with_options() -> None:
    record = Record()
    seen: list[tuple[float, bool]] = []
    caller = threading.get_ident()

    def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, threading.get_ident() != caller))

    with Client.in_process(build_progress_server(record), drift_check=False) as client:
        view = client.with_options(on_progress=on_progress, timeout=1.0, reset_timeout_on_progress=True)
        assert type(view) is Client
        assert view.slow(seconds=0.3) == "done"
        settled_blocking(seen, 3)
        assert seen == [(1.0, True), (2.0, True), (3.0, True)]  # on the client's loop thread
        started = time.monotonic()
        with pytest.raises(RequestTimeoutError):
            client.with_options(timeout=0.3).slow(seconds=60)
        assert time.monotonic() - started < 30
        assert record.wait_cancelled() == ["slow(60)"]
        with pytest.raises(RequestTimeoutError):
            client.with_options(timeout=0.3).prompts.review(code="x")
        assert client.add(a=2, b=3) == 5
    assert view.closed


async def test_agent_tools_of_a_view_use_its_options() -> None:
    seen: list[float] = []
    async with progress_client() as (client, record):
        view = client.with_options(timeout=0.3, on_progress=lambda progress, total, message: seen.append(progress))
        tool = view.tools(include="slow")["slow"]
        with pytest.raises(RequestTimeoutError):
            await tool.call({"seconds": 60})
        assert await record.wait_cancelled_async() == ["slow(60)"]
        assert seen  # progress of the agent call reached the view's callback


def test_with_options_is_a_reserved_member_name() -> None:
    """A tool named `with_options` must not shadow the method: the generator renames it."""
    from mcp_codegen.generate.class_members import class_members

    assert "with_options" in class_members().client


async def test_reset_on_progress_resets_the_connectors_timeout() -> None:
    record = Record()
    async with AsyncClient.in_process(build_progress_server(record), timeout=1.0, drift_check=False) as client:
        assert await client.with_options(reset_timeout_on_progress=True).slow(seconds=3) == "done"
        with pytest.raises(RequestTimeoutError):
            await client.slow(seconds=3)
        with pytest.raises(RequestTimeoutError, match="no progress for 1 s"):  # the reset timeout is still 1 s
            await client.with_options(reset_timeout_on_progress=True).resources.app_config()
