"""The 2026-07-28 tasks extension as a `TaskProtocol`: what typed calls and `client.tasks` handles use there.

`SessionTasks` (calls.tasks) speaks the 2025-11-25 generation; `ExtensionTasks` gives the same five
operations on a session that declared `io.modelcontextprotocol/tasks` (calls.task_extension), so a
handle, a resumed id and a typed call of a task tool work the same on either generation. Requests go
through the client's send function (its retries, options and error translation). The extension has no
`tasks/result`: `result()` polls `tasks/get` at the server's interval, answering the task's input
requests with the session's elicitation/sampling/roots handlers (`tasks/update`) as they come; and no
`tasks/list` (`can_list` is False).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .errors import (
    ServerRequestError,
    TaskCancelledError,
    TaskNotFoundError,
    UnsupportedByServerError,
)
from .tasks import SendFunction, TaskState, idempotent_cancel, poll_delay

if TYPE_CHECKING:
    import mcp_types
    from mcp import ClientSession

    from . import task_extension

__all__ = ["ExtensionTasks"]


class ExtensionTasks:
    """The extension's task requests on one session, sent with `send` (the client's retries and options)."""

    __slots__ = ("_send", "_session")

    def __init__(self, session: ClientSession, send: SendFunction) -> None:
        self._session = session
        self._send = send

    @property
    def can_list(self) -> bool:
        """Always False: the extension has no `tasks/list`."""
        return False

    async def start(
        self,
        tool: str,
        arguments: Mapping[str, object],
        *,
        ttl: float | None = None,
        timeout: float | None = None,
    ) -> TaskState | mcp_types.CallToolResult:
        """Call `tool`; the session declares the extension, so the server may answer with a task (`ttl` is
        the server's to choose in this generation: the request has no field for it)."""
        import mcp_types

        from . import task_extension

        request = mcp_types.CallToolRequest(
            params=mcp_types.CallToolRequestParams(name=tool, arguments=dict(arguments))
        )
        # The client's send path answers an input request of the call itself (`InputRequiredResult`).
        send = self._sender(timeout)
        answer = await send(request, task_extension.TaskOrResult)
        started = task_extension.started(answer)
        if isinstance(started, mcp_types.CallToolResult):
            return started
        return _neutral(started)

    async def get(self, task_id: str, *, timeout: float | None = None) -> TaskState:
        return _neutral(await self._detailed(task_id, timeout))

    async def result(
        self, task_id: str, *, timeout: float | None = None
    ) -> mcp_types.CallToolResult:
        """Poll until the task ends: its result when completed, an error result (`isError`, as a tool's
        failure) when it failed, `TaskCancelledError` when cancelled. `timeout` bounds each request.
        """
        import anyio
        import mcp_types

        from . import task_extension
        from .input_required import answer_input_requests

        if timeout is not None and math.isinf(timeout):
            timeout = None  # each poll is a request of its own: the connection's timeout bounds it
        answered: set[str] = set()
        while True:
            state = await self._detailed(task_id, timeout)
            if state.status == "completed" and state.result is not None:
                return state.result
            if state.status in ("completed", "failed"):
                error = state.error
                why = error.message if error is not None else "no result"
                return mcp_types.CallToolResult(
                    content=[mcp_types.TextContent(type="text", text=why)],
                    is_error=True,
                )
            if state.status == "cancelled":
                why = f": {state.message}" if state.message else ""
                raise TaskCancelledError(
                    f"task {task_id!r} was cancelled{why}", task_id=task_id
                )
            fresh = {
                key: asked
                for key, asked in (state.input_requests or {}).items()
                if key not in answered
            }
            if not fresh:
                await anyio.sleep(poll_delay(_neutral(state)))
                continue
            # Answered at once, then read again: the task goes on without a poll interval's wait.
            responses = await answer_input_requests(self._session, fresh)
            await task_extension.update(
                self._session, task_id, responses, send=self._sender(timeout)
            )
            answered.update(fresh)

    async def cancel(self, task_id: str, *, timeout: float | None = None) -> TaskState:
        """Ask the server to stop the task, then read its state (one that already ended keeps its status)."""
        from . import task_extension

        async def cancel() -> TaskState:
            await task_extension.cancel(
                self._session, task_id, send=self._sender(timeout)
            )
            return await self.get(task_id, timeout=timeout)

        return await idempotent_cancel(
            cancel, lambda: self.get(task_id, timeout=timeout)
        )

    async def list(self, *, timeout: float | None = None) -> list[TaskState]:
        raise UnsupportedByServerError(
            "the tasks extension (io.modelcontextprotocol/tasks) does not list tasks"
        )

    async def _detailed(
        self, task_id: str, timeout: float | None
    ) -> task_extension.TaskState:
        from . import task_extension

        return await task_extension.get(
            self._session, task_id, send=self._sender(timeout)
        )

    def _sender(self, timeout: float | None) -> task_extension.Send:
        """`task_extension`'s send function: the client's, naming the tool of a `tools/call` (whether
        a retry is safe), with an unknown task id raised as `TaskNotFoundError`."""

        async def send(request: Any, result_type: Any) -> Any:
            method: str = request.method
            params = request.params
            task_id: str | None = getattr(params, "task_id", None)
            tool: str | None = params.name if method == "tools/call" else None
            try:
                return await self._send(request, result_type, timeout, method, tool)
            except ServerRequestError as error:
                # The extension answers an unknown, expired or foreign task id with invalid params.
                if task_id is None or error.code != -32602:
                    raise
                raise TaskNotFoundError(
                    error.code,
                    error.message,
                    error.data,
                    method=method,
                    task_id=task_id,
                ) from None

        return send


def _neutral(state: task_extension.TaskState) -> TaskState:
    """The protocol-neutral `TaskState` (calls.tasks) of the extension's."""
    created, updated = state.created_at, state.last_updated_at
    return TaskState(
        task_id=state.task_id,
        status=state.status,
        message=state.message,
        poll_interval=state.poll_interval,
        ttl=state.ttl,
        created_at=created.isoformat() if created is not None else None,
        last_updated_at=updated.isoformat() if updated is not None else None,
    )
