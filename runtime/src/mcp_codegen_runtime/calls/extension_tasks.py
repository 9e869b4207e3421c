"""The 2026-07-28 tasks extension as a `TaskProtocol`: what typed calls and `client.tasks` handles use there.

`SessionTasks` (calls.tasks) speaks the 2025-11-25 generation; `ExtensionTasks` gives the same five
operations on a session that declared `io.modelcontextprotocol/tasks` (calls.task_extension), so a
handle, a resumed id and a typed call of a task tool work the same on either generation. Requests go
through the client's send function (its retries, options and error translation). The extension has no
`tasks/result`: `result()` follows the task with `task_extension.follow` (the one loop, shared with a
`tools/call` the server ran as a task), answering its input requests with the session's
elicitation/sampling/roots handlers (`tasks/update`) as they come; and no `tasks/list` (`can_list` is
False). On both paths a task that failed is an error result and a cancelled one raises
`TaskCancelledError`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .errors import (
    ServerRequestError,
    TaskNotFoundError,
    UnsupportedByServerError,
)
from .tasks import SendFunction, TaskState, idempotent_cancel

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
        return task_extension.started(answer)

    async def get(self, task_id: str, *, timeout: float | None = None) -> TaskState:
        from . import task_extension

        return await task_extension.get(
            self._session, task_id, send=self._sender(timeout)
        )

    async def result(
        self, task_id: str, *, timeout: float | None = None
    ) -> mcp_types.CallToolResult:
        """Follow the task to its end (`task_extension.follow`, the one loop): its result when completed,
        an error result (`isError`, as a tool's failure) when it failed, `TaskCancelledError` when
        cancelled. `timeout` bounds each request.
        """
        import mcp_types

        from . import task_extension

        if timeout is not None and math.isinf(timeout):
            timeout = None  # each poll is a request of its own: the connection's timeout bounds it
        try:
            return await task_extension.follow(
                self._session, task_id, send=self._sender(timeout)
            )
        except task_extension.TaskFailedError as failure:
            return mcp_types.CallToolResult(
                content=[mcp_types.TextContent(type="text", text=str(failure))],
                is_error=True,
            )

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
