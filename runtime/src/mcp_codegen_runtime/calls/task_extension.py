"""Tasks of the 2026-07-28 extension `io.modelcontextprotocol/tasks` (SEP-2663): start, read, answer, cancel, follow.

On a 2026-07-28 connection a client that declares the extension lets the server run a `tools/call` as a
task: the server answers `resultType: "task"` (a task id, a status, a poll interval) instead of the
result, or the plain result when it chose not to make a task. The client then polls `tasks/get`, whose
answer carries the status and, as the task goes, the input it waits for (`input_required`), the
result (`completed`) or the error (`failed`); it answers input with `tasks/update` and stops the work
with `tasks/cancel`. A task id is all it takes: another connection to the same server reads it too.

The extension is declared the way the SDK declares any client extension: the session is built with it
(`mcp.Client(..., extensions=[TasksExtension()])`, or the runtime's connectors), and the SDK puts the
session's capabilities, the extension among them, in every 2026-07-28 request's `_meta`. A request
of a session that did not declare it is refused (-32021); this module says so in its error.

Every request goes through `send(request, result_type)`: pass the client's send path (its retries and
options apply) or leave it out to send on the session directly. Input requests are answered with the
session's elicitation/sampling/roots handlers, as `calls.input_required` answers them in a tool call.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, cast

from mcp.client.extension import ClientExtension
from mcp_types import (
    CallToolRequest,
    CallToolRequestParams,
    CallToolResult,
    ErrorData,
    InputRequest,
    InputResponses,
    Request,
    RequestParams,
    Result,
    TextContent,
)
from pydantic import ConfigDict, Field, field_validator

from .errors import TaskCancelledError
from .tasks import TaskState, TaskStatus, poll_delay

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp_types import RequestParamsMeta

__all__ = [
    "MISSING_CAPABILITY",
    "TASKS_EXTENSION",
    "TaskExtensionError",
    "TaskFailedError",
    "TaskOrResult",
    "TaskState",
    "TaskStatus",
    "TasksExtension",
    "call_tool_through_task",
    "cancel",
    "follow",
    "get",
    "start",
    "started",
    "update",
]

#: The extension's identifier, under `capabilities.extensions` of the client and of the server.
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
#: The error a server answers a request with when the request does not declare a client capability it needs.
MISSING_CAPABILITY = -32021


#: Sends one request and returns its result validated as `result_type` (a model class or a TypeAdapter).
Send = Callable[[Any, Any], Awaitable[Any]]

#: How long a cancelled call waits for its `tasks/cancel` to be answered, in seconds.
_CANCEL_GRACE = 5.0


class TasksExtension(ClientExtension):
    """The client half of `io.modelcontextprotocol/tasks`: pass it to `mcp.Client(extensions=[...])`.

    It only advertises the extension (no settings, no result claim): this module reads the task
    results itself, with `start()`. Declared, it lets the server run any task-capable tool as a task.
    """

    identifier = TASKS_EXTENSION


class TaskExtensionError(Exception):
    """A tasks request the server refused: an unknown or expired task id, or the extension not declared."""

    def __init__(self, message: str, *, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


class TaskFailedError(Exception):
    """`follow()`: the task ended `failed` (its JSON-RPC `error`), or completed without a result."""

    def __init__(self, state: TaskState) -> None:
        error = state.error
        if error is not None:
            text = f"task {state.task_id} failed: {error.message} (error {error.code})"
        elif state.status == "completed":
            text = f"task {state.task_id} completed without a result"
        else:
            text = f"task {state.task_id} failed"
        super().__init__(text)
        self.state = state


def _cancelled(state: TaskState) -> TaskCancelledError:
    why = f": {state.message}" if state.message else ""
    return TaskCancelledError(
        f"task {state.task_id!r} was cancelled{why}", task_id=state.task_id
    )


# --- Wire models (the extension's schema, dist/core/v2 of @modelcontextprotocol/ext-tasks) ---------------


class _TaskFields(Result):
    model_config = ConfigDict(extra="allow")

    task_id: str
    status: TaskStatus
    status_message: str | None = None
    created_at: str | None = None
    last_updated_at: str | None = None
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None


class _CreatedTask(_TaskFields):
    """A `tools/call` answered with a task (`CreateTaskResult`)."""

    result_type: Literal["task"] = "task"


class _DetailedTask(_TaskFields):
    """The answer of `tasks/get`."""

    result: dict[str, Any] | None = None
    error: ErrorData | None = None
    input_requests: dict[str, InputRequest] | None = None


class _TaskIdParams(RequestParams):
    task_id: str


class _UpdateParams(_TaskIdParams):
    input_responses: InputResponses


class _GetTask(Request[_TaskIdParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: _TaskIdParams
    #: The wire key mirrored into the `Mcp-Name` header (SEP-2663 routes tasks by their id).
    name_param = "taskId"


class _UpdateTask(Request[_UpdateParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    params: _UpdateParams
    name_param = "taskId"


class _CancelTask(Request[_TaskIdParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: _TaskIdParams
    name_param = "taskId"


class TaskOrResult(Result):
    """The result type of a `tools/call` that may start a task: a task, or the plain result (`started`)."""

    model_config = ConfigDict(extra="allow")

    result_type: str = Field(default="complete")

    @field_validator("result_type")
    @classmethod
    def _not_input_required(cls, value: str) -> str:
        if (
            value == "input_required"
        ):  # that one is `InputRequiredResult`, answered before
            raise ValueError("an input_required result")
        return value


# --- Requests ----------------------------------------------------------------------------------------------


def _sender(session: ClientSession, send: Send | None) -> Send:
    if send is not None:
        return send

    async def direct(request: Any, result_type: Any) -> Any:
        return await session.send_request(request, result_type)

    return direct


def _explained(error: Exception, task_id: str | None = None) -> Exception:
    """A refusal of a tasks request as `TaskExtensionError` with what to do; other errors as they are."""
    code = getattr(error, "code", None)
    if not isinstance(code, int) or type(error).__name__ != "MCPError":
        return error
    message = str(getattr(error, "message", "") or error)
    if code == MISSING_CAPABILITY:
        return TaskExtensionError(
            f"{message} (declare the extension on the session: "
            f"mcp.Client(..., extensions=[TasksExtension()]))",
            code=code,
        )
    if code == -32601:
        return TaskExtensionError(
            f"the server does not support the tasks extension ({TASKS_EXTENSION}): {message}",
            code=code,
        )
    if task_id is not None and code == -32602:
        return TaskExtensionError(
            f"no task {task_id!r} on this server (unknown, expired, or not yours): {message}",
            code=code,
        )
    return error


def _state(wire: _TaskFields) -> TaskState:
    detailed = wire if isinstance(wire, _DetailedTask) else None
    result = None
    if detailed is not None and detailed.result is not None:
        result = CallToolResult.model_validate(detailed.result, by_name=False)
    return TaskState(
        task_id=wire.task_id,
        status=wire.status,
        message=wire.status_message,
        poll_interval=(
            wire.poll_interval_ms / 1000 if wire.poll_interval_ms is not None else None
        ),
        ttl=wire.ttl_ms / 1000 if wire.ttl_ms is not None else None,
        created_at=wire.created_at,
        last_updated_at=wire.last_updated_at,
        result=result,
        error=detailed.error if detailed is not None else None,
        input_requests=detailed.input_requests if detailed is not None else None,
    )


async def start(
    session: ClientSession,
    name: str,
    arguments: Mapping[str, Any] | None = None,
    *,
    send: Send | None = None,
    meta: Mapping[str, Any] | None = None,
) -> TaskState | CallToolResult:
    """Call tool `name` inviting the server to run it as a task: the task's first `TaskState`, or the
    plain `CallToolResult` when the server chose to answer at once (a tool that does not run as a task).

    A server that asks for input before deciding (`InputRequiredResult`) is answered with the session's
    handlers first. Raises `TaskExtensionError` when the request did not declare the extension.
    """
    request = CallToolRequest(
        params=CallToolRequestParams(
            name=name,
            arguments=dict(arguments) if arguments is not None else None,
            _meta=cast("RequestParamsMeta", dict(meta)) if meta is not None else None,
        )
    )
    return await _start(session, request, _sender(session, send))


async def _start(
    session: ClientSession, request: CallToolRequest, send: Send
) -> TaskState | CallToolResult:
    from .input_required import resolve_input_required

    try:
        answer = await resolve_input_required(session, request, TaskOrResult, send)
    except Exception as error:
        raise _explained(error) from None
    return started(answer)


def started(answer: TaskOrResult) -> TaskState | CallToolResult:
    """What a `tools/call` answered as `TaskOrResult` is: the task's first state, or the tool's result."""
    raw = answer.model_dump(mode="json", by_alias=True, exclude_none=True)
    if answer.result_type == "task":
        return _state(_CreatedTask.model_validate(raw, by_name=False))
    return CallToolResult.model_validate(raw, by_name=False)


async def call_tool_through_task(
    session: ClientSession,
    request: CallToolRequest,
    send: Send,
    *,
    send_tasks: Send | None = None,
) -> CallToolResult:
    """A `tools/call` on a session that declared the extension: its result, at once or by following the
    task the server made of it (`tasks/*` requests through `send_tasks`, else `send`).

    A task that failed becomes an error result (`isError`), as a tool's failure is; one that was
    cancelled raises `TaskCancelledError`, as on a typed call. Cancelling the call cancels the task
    (`tasks/cancel`).
    """
    import anyio

    started = await _start(session, request, send)
    if isinstance(started, CallToolResult):
        return started
    send_tasks = send_tasks or send
    try:
        return await follow(session, started, send=send_tasks)
    except TaskFailedError as failure:
        return CallToolResult(
            content=[TextContent(type="text", text=str(failure))], is_error=True
        )
    except anyio.get_cancelled_exc_class():
        # The caller gave up on the call (cancelled, or a timeout around it): the task stops too, as a
        # cancelled request's work does.
        with anyio.move_on_after(_CANCEL_GRACE, shield=True):
            try:
                await cancel(session, started.task_id, send=send_tasks)
            except (
                Exception
            ):  # noqa: BLE001 - best effort: the task may have ended meanwhile
                pass
        raise


async def get(
    session: ClientSession, task_id: str, *, send: Send | None = None
) -> TaskState:
    """The task as the server describes it now (`tasks/get`): with its result or error when done, its
    input requests while `input_required`. Raises `TaskExtensionError` for an id the server does not know.
    """
    request = _GetTask(params=_TaskIdParams(task_id=task_id))
    try:
        answer = await _sender(session, send)(request, _DetailedTask)
    except Exception as error:
        raise _explained(error, task_id) from None
    return _state(answer)


async def update(
    session: ClientSession,
    task_id: str,
    input_responses: Mapping[str, Any],
    *,
    send: Send | None = None,
) -> None:
    """Answer a task's input requests (`tasks/update`): request key -> its `ElicitResult`,
    `CreateMessageResult` or `ListRootsResult` (models or their wire dicts)."""
    from pydantic import TypeAdapter

    responses = TypeAdapter(InputResponses).validate_python(
        dict(input_responses), by_name=False
    )
    request = _UpdateTask(
        params=_UpdateParams(task_id=task_id, input_responses=responses)
    )
    try:
        await _sender(session, send)(request, Result)
    except Exception as error:
        raise _explained(error, task_id) from None


async def cancel(
    session: ClientSession, task_id: str, *, send: Send | None = None
) -> None:
    """Ask the server to stop the task (`tasks/cancel`); a later `get()` shows it `cancelled`."""
    request = _CancelTask(params=_TaskIdParams(task_id=task_id))
    try:
        await _sender(session, send)(request, Result)
    except Exception as error:
        raise _explained(error, task_id) from None


async def follow(
    session: ClientSession,
    task: TaskState | str,
    *,
    send: Send | None = None,
    timeout: float | None = None,
    on_status: Callable[[TaskState], object] | None = None,
) -> CallToolResult:
    """Poll the task until it ends and return its `CallToolResult`, answering its input requests with the
    session's elicitation/sampling/roots handlers (`tasks/update`) as they come.

    `on_status(state)` sees each state polled; `send` bounds each request. Raises `TaskFailedError`
    when the task failed, `TaskCancelledError` when it was cancelled, and `TimeoutError` after
    `timeout` seconds (the task keeps running: `cancel()` stops it). The one loop that follows a
    2026-07-28 task: `ExtensionTasks.result()` (typed calls, handles) and a `tools/call` the server ran
    as a task (`call_tool_through_task`) both use it.
    """
    import anyio

    from .input_required import answer_input_requests

    deadline = time.monotonic() + timeout if timeout is not None else math.inf
    state = task if isinstance(task, TaskState) else await get(session, task, send=send)
    answered: set[str] = set()
    while True:
        if on_status is not None:
            on_status(state)
        if state.status == "completed" and state.result is not None:
            return state.result
        if state.status == "cancelled":
            raise _cancelled(state)
        if state.done:
            raise TaskFailedError(state)
        fresh = {
            key: asked
            for key, asked in (state.input_requests or {}).items()
            if key not in answered
        }
        if fresh:
            # Answered at once, then read again: the task goes on without waiting out a poll interval.
            responses = await answer_input_requests(session, fresh)
            await update(session, state.task_id, responses, send=send)
            answered.update(fresh)
        else:
            pause = poll_delay(state)
            if time.monotonic() + pause >= deadline:
                raise TimeoutError(
                    f"task {state.task_id} still {state.status} after {timeout:g} s"
                )
            await anyio.sleep(pause)
        state = await get(session, state.task_id, send=send)
