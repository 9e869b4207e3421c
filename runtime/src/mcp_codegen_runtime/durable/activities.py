"""The worker's side: one Temporal activity per tool and per listing, over one connected client per worker.

`tool_activities(client_class, connect)` makes them (a package's `temporal.activities()` calls it). Each tool's
activity takes the tool's arguments model and returns what the client's typed method returns (a `ToolResult`
travels as its `CallToolResult`). The client is opened by the first activity that needs it and closed by
`Activities.aclose()` (or leaving `async with`), so a worker holds one connection, whatever its concurrency.

While a call runs, the activity heartbeats (at a third of its `heartbeat_timeout`): a worker that dies is
noticed at that timeout, and a cancellation from the workflow reaches the call. A tool that runs as an MCP task
heartbeats the task's id and status, cancels the task on the server when the activity is cancelled, and, on a
later attempt after a lost worker, follows the task the earlier attempt started instead of starting another.
The client's own retries (of requests that never reached the server) stay inside the activity.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from datetime import timedelta
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from ..calls.errors import (
    AuthRequiredError,
    ConnectError,
    ConnectionClosedError,
    McpClientError,
    RequestTimeoutError,
)
from ..calls.results import ToolResult
from ..calls.specs import ToolSpec
from .names import LISTINGS, listing_activity, tool_activity

__all__ = ["Activities", "SharedClient", "tool_activities"]

#: `connect=`: makes the connection (`AsyncClient.connect`, `lambda: AsyncClient.http(url)`, ...).
Connect = Callable[[], AbstractAsyncContextManager[Any]]

#: How often an activity without a `heartbeat_timeout` heartbeats (it still carries cancellations).
_IDLE_HEARTBEAT = 10.0
#: How long cancelling a task on the server may take once its activity was cancelled.
_CANCEL_TIMEOUT = 5.0


class SharedClient:
    """One connected client for the activities of a worker: opened on first use, closed by `aclose()`.

    The connection is entered and left by a task of its own: the SDK's task groups must be left by the task
    that entered them, and activities come and go. A failed connect is tried again by the next activity.
    """

    def __init__(self, connect: Connect) -> None:
        self._connect = connect
        self._lock: asyncio.Lock | None = None
        self._ready: asyncio.Future[Any] | None = None
        self._stop: asyncio.Event | None = None
        self._keeper: asyncio.Task[None] | None = None

    async def client(self) -> Any:
        """The connected client, connecting first if no activity did yet (or the last connect failed)."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            ready = self._ready
            if ready is None or (ready.done() and _failed(ready)):
                ready = self._ready = asyncio.get_running_loop().create_future()
                self._stop = asyncio.Event()
                self._keeper = asyncio.create_task(self._keep(ready, self._stop))
        return await asyncio.shield(ready)

    async def _keep(self, ready: asyncio.Future[Any], stop: asyncio.Event) -> None:
        try:
            async with self._connect() as client:
                ready.set_result(client)
                await stop.wait()
        except BaseException as error:
            if ready.done():
                raise
            ready.set_exception(error)

    async def aclose(self) -> None:
        """Close the connection (idempotent); the next activity would open a new one."""
        keeper, stop = self._keeper, self._stop
        self._keeper = self._stop = self._ready = None
        if keeper is None or stop is None:
            return
        stop.set()
        with contextlib.suppress(Exception):
            await keeper


def _failed(future: asyncio.Future[Any]) -> bool:
    return future.cancelled() or future.exception() is not None


class Activities(list[Callable[..., Any]]):
    """The activities of one package, for `Worker(activities=...)`; they share one client.

    `async with activities(...) as acts:` (or `await acts.aclose()` when the worker is done) closes it.
    """

    def __init__(
        self, items: Sequence[Callable[..., Any]], shared: SharedClient
    ) -> None:
        super().__init__(items)
        self.shared = shared

    async def aclose(self) -> None:
        """Close the connected client the activities share."""
        await self.shared.aclose()

    async def __aenter__(self) -> Activities:
        return self

    async def __aexit__(self, *_exc_info: object) -> None:
        await self.aclose()


def tool_activities(
    client_class: Any, server_key: str, connect: Connect | None = None
) -> Activities:
    """The activities of a package's tools and listings (`client_class`: its `AsyncClient`, `server_key`: the
    name its activities are named with, `names.tool_activity`); `connect` makes the connection, by default
    `client_class.connect()` (the recorded launch, secrets read from the environment).
    """
    shared = SharedClient(connect if connect is not None else client_class.connect)
    tools: dict[str, ToolSpec[Any, Any]] = dict(client_class._tools)
    made = [_tool_activity(server_key, spec, shared) for spec in tools.values()]
    made += [_listing_activity(server_key, kind, shared) for kind in LISTINGS]
    return Activities(made, shared)


def _tool_activity(
    server_key: str, spec: ToolSpec[Any, Any], shared: SharedClient
) -> Callable[..., Any]:
    async def call(arguments: Any) -> Any:
        # Left out: what equals the model's default, which is the schema's (the server applies it) or None
        # for "not sent" (a pydantic payload carries every field, set or not).
        values = arguments.model_dump(exclude_defaults=True)
        # Heartbeating from the start: connecting (on first use) counts as running.
        async with _heartbeats() as pulse:
            try:
                client = await shared.client()
                if spec.task_support != "forbidden" and client._runs_as_task(
                    spec.task_support
                ):
                    result = await _run_as_task(client, spec, values, pulse)
                else:
                    result = await client.call_spec(spec, values)
            except McpClientError as error:
                raise _failure(error) from error
        return result.raw if isinstance(result, ToolResult) else result

    call.__annotations__ = {"arguments": spec.arguments_model, "return": Any}
    call.__name__ = call.__qualname__ = f"call_{spec.python_name}"
    return activity.defn(name=tool_activity(server_key, spec.name))(call)


def _listing_activity(
    server_key: str, kind: str, shared: SharedClient
) -> Callable[..., Any]:
    async def listing() -> Any:
        try:
            client = await shared.client()
            # Every page, inside this one activity.
            return await getattr(client, f"list_{kind}")()
        except McpClientError as error:
            raise _failure(error) from error

    listing.__name__ = listing.__qualname__ = f"list_{kind}"
    return activity.defn(name=listing_activity(server_key, kind))(listing)


class _Pulse:
    """What the activity heartbeats: nothing, or a task's id, status and message."""

    details: tuple[object, ...] = ()

    def beat(self, *details: object) -> None:
        self.details = details
        activity.heartbeat(*details)


@contextlib.asynccontextmanager
async def _heartbeats() -> AsyncGenerator[_Pulse, None]:
    """Heartbeat the activity while the body runs (at a third of its heartbeat timeout)."""
    pulse = _Pulse()
    timeout: timedelta | None = activity.info().heartbeat_timeout
    every = timeout.total_seconds() / 3 if timeout else _IDLE_HEARTBEAT

    async def keep_beating() -> None:
        while True:  # the first after `every`: a quick call sends no heartbeat at all
            await asyncio.sleep(every)
            activity.heartbeat(*pulse.details)

    beating = asyncio.create_task(keep_beating())
    try:
        yield pulse
    finally:
        beating.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await beating


async def _run_as_task(
    client: Any, spec: ToolSpec[Any, Any], values: dict[str, Any], pulse: _Pulse
) -> Any:
    """The tool as an MCP task: started (or, after a lost worker, the earlier attempt's followed), its status
    heartbeated, cancelled on the server when the activity is."""
    earlier = activity.info().heartbeat_details
    if earlier and isinstance(earlier[0], str) and earlier[0]:
        task = client.tasks.resume(earlier[0], spec.name)
    else:
        task = await client.tasks._start(spec, values)
        if not task.id:  # the server answered at once, without a task
            return await task.result()
    pulse.beat(task.id)

    async def relay_status() -> None:
        with contextlib.suppress(McpClientError):
            async for state in task.updates():
                pulse.beat(task.id, state.status, state.message)

    watching = asyncio.create_task(relay_status())
    try:
        return await task.result()
    except asyncio.CancelledError:
        await _cancel_on_server(task)
        raise
    finally:
        watching.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watching


async def _cancel_on_server(task: Any) -> None:
    """`tasks/cancel` for a cancelled activity's task, shielded from the cancellation, best effort."""
    import anyio

    with anyio.CancelScope(shield=True), anyio.move_on_after(_CANCEL_TIMEOUT):
        with contextlib.suppress(McpClientError):
            await task.cancel()


def _failure(error: McpClientError) -> ApplicationError:
    """The client's error as the activity's failure, its class name as the type.

    The tool's own answer (`ToolError`), refused arguments or results, and the server's JSON-RPC errors are
    final: retrying sends the same thing again. A call that may have run (`OutcomeUnknownError`, a request that
    timed out) and a connection lost before the call are retryable: the workflow's retry policy (one attempt for
    a tool not safe to repeat) decides.
    """
    retryable = isinstance(
        error, ConnectionClosedError | RequestTimeoutError | ConnectError
    ) and not isinstance(error, AuthRequiredError)
    return ApplicationError(
        str(error), type=type(error).__name__, non_retryable=not retryable
    )
