"""`client.tasks`: tool calls run as MCP tasks, as handles (`Task`) to follow, wait for, cancel or resume.

`follow_task` is what both a handle's `result()` and a typed call of a `taskSupport: "required"` tool
wait with: `tasks/result` at once (the server answers it when the task ends, and sends what it asks
for the task, such as elicitation, meanwhile), and `tasks/get` beside it while someone listens for
status changes.
"""

from __future__ import annotations

import inspect
import logging
import math
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Collection,
    Mapping,
)
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from ..calls.errors import (
    RequestTimeoutError,
    ServerRequestError,
    ToolError,
    UnsupportedByServerError,
)
from ..calls.results import ToolResult
from ..calls.tasks import (
    TaskCancelledError,
    TaskNotFoundError,
    TaskProtocol,
    TaskState,
    TaskStatus,
    poll_delay,
)

if TYPE_CHECKING:
    import mcp_types

    from ..calls.options import ProgressCallback
    from ..calls.specs import ToolSpec
    from .tool_calls import ToolCalls

__all__ = ["AsyncTasksBase", "Task", "cancel_quietly", "follow_task", "status_relay"]

R = TypeVar("R")
_log = logging.getLogger(__name__)

#: `on_status(state)`: called with each new status of a followed task.
StatusCallback = Callable[[TaskState], Awaitable[None]]

#: How long a best-effort `tasks/cancel` (after a timeout or a cancellation) may take.
CANCEL_TIMEOUT = 5.0


def _cancelled(state: TaskState, tool: str | None) -> TaskCancelledError:
    what = f"task {state.task_id!r}" + (f" of tool {tool!r}" if tool else "")
    why = f": {state.message}" if state.message else ""
    return TaskCancelledError(
        f"{what} was cancelled{why}", task_id=state.task_id, tool=tool
    )


async def follow_task(
    protocol: TaskProtocol,
    state: TaskState,
    *,
    tool: str | None,
    on_status: StatusCallback | None = None,
) -> mcp_types.CallToolResult:
    """Wait for the task's `CallToolResult`; `on_status` sees `state` and every later change.

    Raises `TaskCancelledError` when the task was cancelled, the server's error when `tasks/result`
    fails for a task that was not, and `TaskNotFoundError` for a task the server does not know.
    """
    import anyio

    if on_status is not None:
        await on_status(state)
    if state.status == "cancelled":
        raise _cancelled(state, tool)
    task_id = state.task_id
    failure: Exception | None = None
    result: mcp_types.CallToolResult | None = None
    async with anyio.create_task_group() as group:
        if on_status is not None and not state.terminal:
            group.start_soon(_watch, protocol, state, on_status)
        try:
            # No timeout of its own: the caller's deadline (a cancel scope) bounds the whole wait.
            result = await protocol.result(task_id, timeout=math.inf)
        except (
            Exception
        ) as error:  # noqa: BLE001 - raised below, outside the task group
            failure = error
        group.cancel_scope.cancel()
    if result is not None:
        return result
    assert failure is not None
    if not isinstance(failure, ServerRequestError) or isinstance(
        failure, TaskNotFoundError
    ):
        raise failure
    latest = await protocol.get(task_id)
    if latest.status == "cancelled":
        raise _cancelled(latest, tool) from None
    raise failure


async def _watch(
    protocol: TaskProtocol, state: TaskState, on_status: StatusCallback
) -> None:
    """Poll `tasks/get` at the server's interval and report changes, until the task ends. Best effort:
    a failed `tasks/get` ends the watch (the result still comes, or `tasks/result` says what failed).
    """
    try:
        async for current in _changes(protocol, state):
            await on_status(current)
    except Exception:  # noqa: BLE001 - see above
        _log.debug("stopped following the status of a task", exc_info=True)


async def _changes(
    protocol: TaskProtocol, state: TaskState
) -> AsyncIterator[TaskState]:
    """The states after `state` that differ from the one before (status or message), until it ends."""
    import anyio

    last = state
    while not last.terminal:
        await anyio.sleep(poll_delay(last))
        current = await protocol.get(last.task_id)
        if (current.status, current.message) != (last.status, last.message):
            yield current
        last = current


async def cancel_quietly(protocol: TaskProtocol, task_id: str) -> None:
    """`tasks/cancel`, shielded from the caller's cancellation and bounded; failures are logged only."""
    import anyio

    with anyio.CancelScope(shield=True), anyio.move_on_after(CANCEL_TIMEOUT):
        try:
            await protocol.cancel(task_id, timeout=CANCEL_TIMEOUT)
        except (
            Exception
        ):  # noqa: BLE001 - best effort: the task may have ended meanwhile
            _log.info("could not cancel task %r", task_id, exc_info=True)


def status_relay(callback: ProgressCallback | None) -> StatusCallback | None:
    """Status changes as progress: `callback(n, None, message)` for the n-th status seen (the message,
    or the status itself when the server gives none)."""
    if callback is None:
        return None
    seen = 0

    async def relay(state: TaskState) -> None:
        nonlocal seen
        seen += 1
        try:
            outcome = callback(seen, None, state.message or state.status)
            if inspect.isawaitable(outcome):
                await outcome
        except Exception:  # noqa: BLE001 - a failing callback must not end the call
            _log.exception("the on_progress callback failed")

    return relay


async def wait_with_deadline(
    protocol: TaskProtocol,
    state: TaskState,
    *,
    tool: str | None,
    limit: float | None,
    on_status: StatusCallback | None,
    cancel_on_exit: bool,
    deadline: float | None = None,
) -> mcp_types.CallToolResult:
    """`follow_task` within `limit` seconds (or until `deadline` on anyio's clock, when given; `limit`
    then only names the timeout): `RequestTimeoutError` after them. With `cancel_on_exit`, a timeout or
    the caller's cancellation also cancels the task on the server (best effort)."""
    import anyio

    if deadline is None:
        deadline = math.inf if limit is None else anyio.current_time() + limit
    with anyio.CancelScope(deadline=deadline) as scope:
        try:
            return await follow_task(protocol, state, tool=tool, on_status=on_status)
        except anyio.get_cancelled_exc_class():
            if cancel_on_exit:
                await cancel_quietly(protocol, state.task_id)
            raise
    what = f"task {state.task_id!r}" + (f" of tool {tool!r}" if tool else "")
    assert scope.cancelled_caught and limit is not None
    done = "; it was cancelled" if cancel_on_exit else "; it goes on on the server"
    raise RequestTimeoutError(f"{what} timed out after {limit:g} s{done}")


class Task(Generic[R]):
    """A tool call running as an MCP task on the server: `client.tasks.start(...)` or `.resume(id)`.

    `id` is what to keep to resume it later (from another connection or process, while the server
    keeps it). `result()` returns what the tool's typed method returns. A handle never cancels its task
    by itself: a `result(timeout=...)` that times out leaves it running; `cancel()` stops it.
    """

    __slots__ = ("_client", "_immediate", "_spec", "id", "tool")

    #: The task id the server gave ("" when the server ran the call at once, without a task).
    id: str
    #: The tool's wire name, when known.
    tool: str | None

    def __init__(
        self,
        client: ToolCalls,
        task_id: str,
        spec: ToolSpec[Any, Any] | None,
        *,
        tool: str | None = None,
        immediate: mcp_types.CallToolResult | None = None,
    ) -> None:
        self._client = client
        self._spec = spec
        self._immediate = immediate
        self.id = task_id
        self.tool = spec.name if spec is not None else tool

    def _protocol(self) -> TaskProtocol:
        return self._client._task_protocol()  # pyright: ignore[reportPrivateUsage]

    async def status(self) -> TaskState:
        """The task's state now (`tasks/get`)."""
        if self._immediate is not None:
            return TaskState(task_id="", status="completed")
        return await self._protocol().get(self.id)

    async def result(self, *, timeout: float | None = None) -> R:
        """Wait for the task to end and return its result, typed as the tool's method returns it.

        Raises `ToolError` (the tool failed), `TaskCancelledError`, `TaskNotFoundError` (unknown or
        expired id), or `RequestTimeoutError` after `timeout` seconds (the task goes on).
        """
        raw = self._immediate
        if raw is None:
            protocol = self._protocol()
            state = TaskState(task_id=self.id, status="working")
            raw = await wait_with_deadline(
                protocol,
                state,
                tool=self.tool,
                limit=timeout,
                on_status=None,
                cancel_on_exit=False,
            )
        return self._typed(raw)

    def _typed(self, raw: mcp_types.CallToolResult) -> R:
        spec = self._spec
        if spec is not None:
            outcome = self._client._tool_outcome(  # pyright: ignore[reportPrivateUsage]
                spec, raw
            )
            return cast(R, outcome)
        if raw.is_error:
            raise ToolError(ToolResult(raw), tool=self.tool or "?")
        return cast(R, ToolResult(raw))

    async def cancel(self) -> TaskState:
        """Cancel the task (`tasks/cancel`); one that already ended keeps its status. Returns its state."""
        if self._immediate is not None:
            return TaskState(task_id="", status="completed")
        return await self._protocol().cancel(self.id)

    async def updates(self) -> AsyncGenerator[TaskState, None]:
        """The task's states as they change (`tasks/get` at the server's interval): its state now first,
        then each change of status or message, ending after it ends."""
        state = await self.status()
        yield state
        if self._immediate is not None:
            return
        async for current in _changes(self._protocol(), state):
            yield current

    async def wait(
        self,
        until: TaskStatus | Collection[TaskStatus] | None = None,
        *,
        timeout: float | None = None,
    ) -> TaskState:
        """Wait until the task's status is `until` (one status or several; default: any end) or it
        ends, and return that state; `RequestTimeoutError` after `timeout` seconds."""
        wanted: Collection[str] = (
            () if until is None else (until,) if isinstance(until, str) else until
        )
        import anyio

        with anyio.move_on_after(math.inf if timeout is None else timeout):
            async with aclosing(self.updates()) as states:
                async for state in states:
                    if state.status in wanted or state.terminal:
                        return state
        within = f" within {timeout:g} s" if timeout is not None else ""
        raise RequestTimeoutError(
            f"task {self.id!r} did not reach {', '.join(wanted) or 'an end'}{within}"
        )

    def __repr__(self) -> str:
        tool = f" tool={self.tool!r}" if self.tool else ""
        return f"<Task {self.id!r}{tool}>"


class AsyncTasksBase:
    """`client.tasks`: tool calls as MCP tasks (`start`), tasks by id (`resume`), the server's `list`.

    A generated package's `AsyncTasks` adds one typed method per tool that may run as a task.
    """

    __slots__ = ("_client",)

    def __init__(self, client: ToolCalls) -> None:
        self._client = client

    async def start(
        self,
        tool: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        ttl: float | None = None,
        timeout: float | None = None,
    ) -> Task[Any]:
        """Call `tool` (wire or Python name; `arguments` with wire or Python names, checked like the
        typed method's) as a task and return its handle at once.

        `ttl`: seconds the server should keep the task after it was created (it may choose another).
        `timeout` bounds the `tools/call` that creates it. A server that runs the call at once without
        making a task gives a handle whose `result()` is that call's (its `id` is "").
        """
        spec = self._client._tool_spec(tool)  # pyright: ignore[reportPrivateUsage]
        return await self._start(spec, arguments or {}, ttl=ttl, timeout=timeout)

    async def _start(
        self,
        spec: ToolSpec[Any, R],
        arguments: Mapping[str, object],
        *,
        extra: Mapping[str, object] | None = None,
        ttl: float | None = None,
        timeout: float | None = None,
    ) -> Task[R]:
        """`start` for a spec, typed: what a generated `client.tasks.<tool>(...)` method calls (`extra`:
        arguments beyond the listed ones, by wire name, as the typed method takes them).
        """
        client = self._client
        payload = client._wire_arguments(  # pyright: ignore[reportPrivateUsage]
            spec, arguments, extra
        )
        protocol = client._task_protocol()  # pyright: ignore[reportPrivateUsage]
        started = await protocol.start(spec.name, payload, ttl=ttl, timeout=timeout)
        if isinstance(started, TaskState):
            return Task(client, started.task_id, spec)
        return Task(client, "", spec, immediate=started)

    def resume(self, task_id: str, tool: str | None = None) -> Task[Any]:
        """The handle of a task started before (by this client, another connection or process): its
        `result()` is typed as `tool`'s method returns it (wire or Python name), else a `ToolResult`.
        """
        client = self._client
        if tool is None:
            return Task(client, task_id, None)
        spec = client._tool_spec(tool)  # pyright: ignore[reportPrivateUsage]
        return Task(client, task_id, spec)

    async def list(self, *, timeout: float | None = None) -> list[TaskState]:
        """The tasks the server keeps for this client (`tasks/list`, every page).

        Raises `UnsupportedByServerError` when the server does not list tasks."""
        protocol = self._client._task_protocol()  # pyright: ignore[reportPrivateUsage]
        if not protocol.can_list:
            raise UnsupportedByServerError(
                "the server does not list tasks (no tasks.list capability)"
            )
        return await protocol.list(timeout=timeout)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._client!r}>"
