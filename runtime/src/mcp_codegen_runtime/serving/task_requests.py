"""The fake's side of MCP tasks: a task-augmented `tools/call` started in the background, and the
`tasks/get`, `tasks/result`, `tasks/cancel` and `tasks/list` requests that follow it (the tasks
themselves live in `serving.tasks`, imported on the first task only).

`FakeTaskRequests` is a base of `FakeServer` (`serving.fake`), which sets the attributes declared here.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, cast

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError

from .answers import FakeAnswers
from .hooks import FakeCall
from .listing import page_of

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

    from .tasks import FakeTask, TaskStore

__all__ = ["FakeTaskRequests", "fake_lifespan", "task_support"]

#: Where the fake's lifespan state keeps the task group its MCP tasks run in.
_TASK_GROUP = "mcp_codegen.fake.tasks"

_JsonObject = dict[str, Any]


@asynccontextmanager
async def fake_lifespan(_server: object) -> AsyncGenerator[dict[str, Any]]:
    """The fake's lifespan (each `run()`, or once for the HTTP app): a task group for the tool calls
    that run as MCP tasks (see `serving.tasks`), cancelled when the server stops."""
    async with anyio.create_task_group() as group:
        try:
            yield {_TASK_GROUP: group}
        finally:
            group.cancel_scope.cancel()


def task_support(tool: Mapping[str, Any]) -> str:
    """A listed tool's `execution.taskSupport` ("forbidden" when absent or unknown)."""
    execution = tool.get("execution")
    if isinstance(execution, dict):
        support = cast("_JsonObject", execution).get("taskSupport")
        if support in ("optional", "required"):
            return cast(str, support)
    return "forbidden"


class FakeTaskRequests(FakeAnswers):
    """Tool calls run as MCP tasks, and the task requests' handlers."""

    # Set by `FakeServer.__init__` (documented there).
    page_size: int | None
    task_poll_interval: float
    _tasks: TaskStore | None
    _serving_tasks: bool

    @property
    def tasks(self) -> TaskStore:
        """The tasks tool calls ran as (MCP 2025-11-25 tasks), by id: `fake.tasks[task_id].status`."""
        store = self._tasks
        if store is None:
            from .tasks import TaskStore

            store = self._tasks = TaskStore()
        return store

    def serve_tasks(self) -> None:
        """Answer `tasks/get`, `tasks/result`, `tasks/cancel` and `tasks/list` (done at construction
        when a listed tool may run as a task or the snapshot declares `tasks`; idempotent).
        """
        if self._serving_tasks:
            return
        self._serving_tasks = True
        self.add_request_handler(
            "tasks/get", types.GetTaskRequestParams, self._on_get_task
        )
        self.add_request_handler(
            "tasks/result", types.GetTaskPayloadRequestParams, self._on_task_result
        )
        self.add_request_handler(
            "tasks/cancel", types.CancelTaskRequestParams, self._on_cancel_task
        )
        self.add_request_handler(
            "tasks/list", types.PaginatedRequestParams, self._on_list_tasks
        )

    def _runs_as_task(self, name: str, tool: Mapping[str, Any]) -> bool:
        """Whether a call of `name` the client asks to run as a task is made one: as its hook's `task`
        says, else as the listing does (`taskSupport` optional or required)."""
        hook = self.tool_hooks.get(name)
        if hook is not None and hook.task is not None:
            return hook.task
        return task_support(tool) != "forbidden"

    def _start_task(
        self, ctx: ServerRequestContext[Any], params: Mapping[str, Any]
    ) -> _JsonObject | None:
        """`CreateTaskResult` for a task-augmented `tools/call`, its handler started in the background;
        None to answer the call as a plain one (not a task tool, or no task group to run it in).
        """
        name = params.get("name")
        tool = self.listed["tools"].get(name) if isinstance(name, str) else None
        if (
            tool is None
            or not isinstance(name, str)
            or not self._runs_as_task(name, tool)
        ):
            return None
        state: object = ctx.lifespan_context
        group: Any = (
            cast("_JsonObject", state).get(_TASK_GROUP)
            if isinstance(state, dict)
            else None
        )
        if group is None:
            return None
        self.serve_tasks()
        arguments = params.get("arguments")
        task = self.tasks.create(
            name,
            dict(cast("_JsonObject", arguments)) if isinstance(arguments, dict) else {},
            cast("_JsonObject", params["task"]).get("ttl"),
            round(self.task_poll_interval * 1000),
        )

        async def work() -> types.CallToolResult:
            return await self._call(ctx, name, task.arguments, task)

        group.start_soon(task.run, work, self._task_ended)
        return {"task": task.wire()}

    def _task_ended(self, task: FakeTask) -> None:
        """Record a task that was cancelled or ended with a JSON-RPC error in `calls`."""
        if task.status == "cancelled":
            error = f"cancelled: {task.message}"
        elif task.error is not None:
            error = task.error.message
        else:
            return
        self.calls.append(
            FakeCall("tool", task.tool, task.arguments, None, error, task.task_id)
        )

    async def _on_get_task(
        self, ctx: ServerRequestContext[Any], params: types.GetTaskRequestParams
    ) -> _JsonObject:
        return self.tasks.find(params.task_id).wire()

    async def _on_task_result(
        self, ctx: ServerRequestContext[Any], params: types.GetTaskPayloadRequestParams
    ) -> _JsonObject:
        task = self.tasks.find(params.task_id)
        return await task.outcome(ctx.session, ctx.request_id)

    async def _on_cancel_task(
        self, ctx: ServerRequestContext[Any], params: types.CancelTaskRequestParams
    ) -> _JsonObject:
        task = self.tasks.find(params.task_id)
        if task.terminal:
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"Cannot cancel task in terminal status: {task.status}",
            )
        task.cancel("cancelled by the client")
        return task.wire()

    async def _on_list_tasks(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams
    ) -> _JsonObject:
        page = page_of(
            "tasks",
            [task.wire() for task in self.tasks.all()],
            params.cursor,
            self.page_size,
        )
        return page
