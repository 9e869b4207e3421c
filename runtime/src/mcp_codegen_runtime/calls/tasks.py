"""The task protocol of MCP 2025-11-25 (SEP-1686): start a task-augmented `tools/call`, follow it, read
its result, cancel it, list tasks.

A tool listing `execution.taskSupport` (`"optional"` or `"required"`) may be called as a task: the
`tools/call` carries `task: {ttl}` and the server answers `CreateTaskResult` at once; the client asks
`tasks/get` for the status (at the server's `pollInterval`), `tasks/result` for the final
`CallToolResult` (it waits until the task ends; requests the server makes for the task, such as
elicitation, arrive while it waits and reach the client's handlers like any server request),
`tasks/cancel` to stop it and `tasks/list` for the tasks the server keeps.

`TaskProtocol` is the shape every generation of tasks implements (the 2026-07-28 extension
`io.modelcontextprotocol/tasks` has the same five operations); `SessionTasks` is the 2025-11-25 one.
Requests go through a send function given by the client, so its retries and options apply.

Status changes are learnt by polling `tasks/get`: the SDK leaves `notifications/tasks/status` out of the
notifications a session parses, so a server's optional status notifications are not relied on.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, cast

from .errors import ServerRequestError, TaskCancelledError, TaskNotFoundError

if TYPE_CHECKING:
    import mcp_types
    from mcp import ClientSession
    from pydantic import BaseModel

__all__ = [
    "TERMINAL",
    "SessionTasks",
    "TaskCancelledError",
    "TaskNotFoundError",
    "TaskProtocol",
    "TaskState",
    "TaskStatus",
    "TaskSupport",
    "idempotent_cancel",
    "poll_delay",
]

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
#: What a tool lists as `execution.taskSupport`; absent means "forbidden".
TaskSupport = Literal["forbidden", "optional", "required"]
#: The statuses a task never leaves.
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled"})

#: The wait between two `tasks/get` when the server suggests none, and the bounds of its suggestion.
DEFAULT_POLL = 1.0
MIN_POLL = 0.05
MAX_POLL = 5.0

_ResultT = TypeVar("_ResultT", bound="BaseModel")

#: `send(request, result_type, timeout, method, tool)`: how the client sends a request (retries, options).
SendFunction = Callable[[Any, Any, "float | None", str, "str | None"], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class TaskState:
    """What the server says about a task at one moment (`tasks/get`, or the answer that created it).

    `poll_interval` (how often the server suggests asking) and `ttl` (how long it keeps the task after
    creation; None: without limit) are in seconds; the timestamps are ISO 8601 as the server wrote them.
    The 2026-07-28 extension's `tasks/get` also carries, when done, the `result` (completed) or the
    `error` (failed), and while `input_required` the `input_requests` (key -> elicitation, sampling or
    roots request) to answer with `tasks/update`.
    """

    task_id: str
    status: TaskStatus
    message: str | None = None
    poll_interval: float | None = None
    ttl: float | None = None
    created_at: str | None = None
    last_updated_at: str | None = None
    result: mcp_types.CallToolResult | None = None
    error: mcp_types.ErrorData | None = None
    input_requests: Mapping[str, Any] | None = None

    @property
    def done(self) -> bool:
        """Same as `terminal`."""
        return self.status in TERMINAL

    @property
    def terminal(self) -> bool:
        """Whether the task has ended (completed, failed or cancelled)."""
        return self.status in TERMINAL

    @classmethod
    def from_task(cls, task: mcp_types.Task) -> TaskState:
        return cls(
            task_id=task.task_id,
            status=task.status,
            message=task.status_message,
            poll_interval=_seconds(task.poll_interval),
            ttl=_seconds(task.ttl),
            created_at=task.created_at,
            last_updated_at=task.last_updated_at,
        )


def _seconds(milliseconds: int | None) -> float | None:
    return None if milliseconds is None else milliseconds / 1000


def poll_delay(state: TaskState) -> float:
    """Seconds to wait before asking about `state`'s task again: the server's suggestion, bounded."""
    suggested = state.poll_interval
    if suggested is None or not suggested > 0:
        return DEFAULT_POLL
    return min(MAX_POLL, max(MIN_POLL, suggested))


class TaskProtocol(Protocol):
    """The operations of a task protocol; each generation (2025-11-25 core, 2026-07-28 extension) has one.

    `start` answers a `CallToolResult` when the server ran the call at once without making a task.
    Every method raises `TaskNotFoundError` for a task id the server does not know.
    """

    @property
    def can_list(self) -> bool:
        """Whether the server lists tasks."""
        ...

    async def start(
        self,
        tool: str,
        arguments: Mapping[str, object],
        *,
        ttl: float | None = None,
        timeout: float | None = None,
    ) -> TaskState | mcp_types.CallToolResult: ...

    async def get(self, task_id: str, *, timeout: float | None = None) -> TaskState: ...

    async def result(
        self, task_id: str, *, timeout: float | None = None
    ) -> mcp_types.CallToolResult: ...

    async def cancel(
        self, task_id: str, *, timeout: float | None = None
    ) -> TaskState: ...

    async def list(self, *, timeout: float | None = None) -> list[TaskState]: ...


async def idempotent_cancel(
    cancel: Callable[[], Awaitable[TaskState]], get: Callable[[], Awaitable[TaskState]]
) -> TaskState:
    """`cancel()`, except that a task that already ended (which servers refuse to cancel: "Cannot cancel
    task in terminal status") keeps its state, read with `get()`: cancelling is idempotent here.
    """
    try:
        return await cancel()
    except TaskNotFoundError:
        raise
    except ServerRequestError:
        state = await get()
        if state.terminal:
            return state
        raise


def _not_found(error: ServerRequestError) -> bool:
    """Whether a JSON-RPC error answer to a `tasks/*` request means the task id is unknown.

    The spec gives no code of its own: servers answer invalid params (-32602) saying the task was
    not found (the TypeScript SDK: "Task not found", "Failed to retrieve task: Task not found").
    """
    return error.code == -32602 and "not found" in error.message.lower()


class SessionTasks:
    """The 2025-11-25 task requests on one session, sent with `send` (the client's retries and options)."""

    __slots__ = ("_send", "_session")

    def __init__(self, session: ClientSession, send: SendFunction) -> None:
        self._session = session
        self._send = send

    @property
    def can_list(self) -> bool:
        """Whether the server declared `tasks.list` in its capabilities."""
        return _capability(self._session, "list")

    async def start(
        self,
        tool: str,
        arguments: Mapping[str, object],
        *,
        ttl: float | None = None,
        timeout: float | None = None,
    ) -> TaskState | mcp_types.CallToolResult:
        import mcp_types

        request = mcp_types.CallToolRequest(
            params=mcp_types.CallToolRequestParams(
                name=tool,
                arguments=dict(arguments),
                task=mcp_types.TaskMetadata(
                    ttl=None if ttl is None else round(ttl * 1000)
                ),
            )
        )
        answer = await self._send(request, TASK_ANSWER, timeout, "tools/call", tool)
        if isinstance(answer, mcp_types.CreateTaskResult):
            return TaskState.from_task(answer.task)
        return cast("mcp_types.CallToolResult", answer)

    async def get(self, task_id: str, *, timeout: float | None = None) -> TaskState:
        import mcp_types

        request = mcp_types.GetTaskRequest(
            params=mcp_types.GetTaskRequestParams(task_id=task_id)
        )
        answer = await self._task_request(
            request, mcp_types.GetTaskResult, timeout, "tasks/get", task_id
        )
        return TaskState.from_task(answer)

    async def result(
        self, task_id: str, *, timeout: float | None = None
    ) -> mcp_types.CallToolResult:
        import mcp_types

        request = mcp_types.GetTaskPayloadRequest(
            params=mcp_types.GetTaskPayloadRequestParams(task_id=task_id)
        )
        return await self._task_request(
            request, mcp_types.CallToolResult, timeout, "tasks/result", task_id
        )

    async def cancel(self, task_id: str, *, timeout: float | None = None) -> TaskState:
        """Cancel the task; a task that already ended is left as it is (its state is returned)."""
        import mcp_types

        request = mcp_types.CancelTaskRequest(
            params=mcp_types.CancelTaskRequestParams(task_id=task_id)
        )

        async def cancel() -> TaskState:
            answer = await self._task_request(
                request, mcp_types.CancelTaskResult, timeout, "tasks/cancel", task_id
            )
            return TaskState.from_task(answer)

        return await idempotent_cancel(
            cancel, lambda: self.get(task_id, timeout=timeout)
        )

    async def list(self, *, timeout: float | None = None) -> list[TaskState]:
        import mcp_types

        found: list[TaskState] = []
        cursor: str | None = None
        seen: set[str] = set()
        while True:
            params = (
                mcp_types.PaginatedRequestParams(cursor=cursor)
                if cursor is not None
                else None
            )
            page = await self._task_request(
                mcp_types.ListTasksRequest(params=params),
                mcp_types.ListTasksResult,
                timeout,
                "tasks/list",
                None,
            )
            found.extend(TaskState.from_task(task) for task in page.tasks)
            cursor = page.next_cursor
            if not cursor or cursor in seen:
                return found
            seen.add(cursor)

    async def _task_request(
        self,
        request: Any,
        result_type: type[_ResultT],
        timeout: float | None,
        method: str,
        task_id: str | None,
    ) -> _ResultT:
        try:
            answer: _ResultT = await self._send(
                request, result_type, timeout, method, None
            )
        except ServerRequestError as error:
            if task_id is not None and _not_found(error):
                raise TaskNotFoundError(
                    error.code,
                    error.message,
                    error.data,
                    method=method,
                    task_id=task_id,
                ) from None
            raise
        return answer


def _capability(session: ClientSession, name: str) -> bool:
    capabilities = session.server_capabilities
    tasks = capabilities.tasks if capabilities is not None else None
    return tasks is not None and getattr(tasks, name, None) is not None


class _TaskAnswer:
    """The result type of a task-augmented `tools/call`: `CreateTaskResult`, or a plain `CallToolResult`
    when the server ran the call at once (`answer` parses the raw result; see `send_unvalidated`).
    """

    __slots__ = ()

    @staticmethod
    def answer(
        raw: Mapping[str, Any],
    ) -> mcp_types.CreateTaskResult | mcp_types.CallToolResult:
        import mcp_types

        if isinstance(raw.get("task"), dict) and "content" not in raw:
            return mcp_types.CreateTaskResult.model_validate(raw, by_name=False)
        return mcp_types.CallToolResult.model_validate(raw, by_name=False)


#: Passed as the result type of a task-augmented `tools/call` (the client's send path sends it with
#: `send_unvalidated`: the SDK checks a `tools/call` answer against `CallToolResult` only).
TASK_ANSWER: Any = _TaskAnswer


class UnvalidatedSession:
    """A session whose `send_request` skips the SDK's check of the answer against the method's result
    type, for a task-augmented `tools/call` (answered by `CreateTaskResult`, which the SDK's 2025-11-25
    table does not admit). Everything else is the session's own: stamping, timeout, progress, cancel.
    Uses the SDK's private `_stamp` and `_dispatcher` (pinned by tests/runtime/test_sdk_private_pins.py).
    """

    __slots__ = ("_read_timeout", "_session")

    def __init__(self, session: ClientSession, read_timeout: float | None) -> None:
        self._session = session
        #: The client's own read timeout (`ClientCore._read_timeout`): the timeout of a request without one.
        self._read_timeout = read_timeout

    async def send_request(
        self,
        request: Any,
        result_type: Any,
        request_read_timeout_seconds: float | None = None,
        metadata: Any = None,
        progress_callback: Any = None,
    ) -> Any:
        session: Any = self._session
        data: dict[str, Any] = request.model_dump(
            by_alias=True, mode="json", exclude_none=True
        )
        options: dict[str, Any] = {}
        session._stamp(data, options)
        timeout = (
            request_read_timeout_seconds
            if request_read_timeout_seconds is not None
            else self._read_timeout
        )
        if timeout is not None and not math.isinf(timeout):
            options["timeout"] = timeout
        if progress_callback is not None:
            options["on_progress"] = progress_callback
        raw = await session._dispatcher.send_raw_request(
            data["method"], data.get("params"), options
        )
        return cast("type[_TaskAnswer]", result_type).answer(raw)
