"""A low-level MCP server with 2025-11-25 tasks, for the runtime's task tests (`python task_server.py` for stdio).

The SDK serves no task requests of its own, so this server does them by hand: a middleware answers a
task-augmented `tools/call` with `CreateTaskResult` (the SDK's result check admits only `CallToolResult`),
and `tasks/get`, `tasks/result`, `tasks/cancel`, `tasks/list` are request handlers. A task's state is a
function of the time since it was created (no background work), so tasks outlive the connection that
made them and any connection to the same server process can read them (a `"stepped"` task's state is a
function of the `tasks/get` requests it has answered instead).

Tools (`crunch` requires a task, `quick` allows one, `plain` forbids them):
- `crunch(n, mode)`: three steps of 0.15 s ("step k of 3"), then the result `{"total": 2n}`.
  `mode="fail"` fails after the first step (`isError` result), `"server-cancel"` is cancelled by the server
  after it, `"ask"` asks the client for a label (`input_required`, the question goes out through the
  waiting `tasks/result`, as the spec says) and puts it in `note`, `"slow"` works for a minute, `"long"`
  takes seven times as long as `"complete"`, and `"stepped"` passes a step only when a later `tasks/get`
  comes (the client has had the report of that step), so a test of status updates sees every step
  however loaded the machine: its `tasks/result` waits for someone to poll.
- `quick(x)`: `{"total": x}` at once, as a task when asked.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import CallNext, ServerRequestContext
from mcp.shared.exceptions import MCPError

STEP = 0.15
RESULT_SCHEMA = {
    "type": "object",
    "properties": {"total": {"type": "integer"}, "note": {"type": "string"}},
    "required": ["total"],
}
RELATED = "io.modelcontextprotocol/related-task"


def _iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).isoformat().replace("+00:00", "Z")


@dataclass
class Job:
    task_id: str
    tool: str
    arguments: dict[str, Any]
    created: float
    ttl_ms: int | None
    cancelled_at: float | None = None
    answered_at: float | None = None
    answer: str | None = None
    asking: bool = False
    updated: float = field(default=0.0)
    #: `tasks/get` requests answered (what moves a `"stepped"` task on).
    gets: int = 0

    def state(self, now: float) -> tuple[str, str | None]:
        """(status, message) at `now`."""
        if self.cancelled_at is not None:
            return "cancelled", "cancelled by the client"
        mode = self.arguments.get("mode", "complete")
        # "long": steps seven times as long (about 3 s in all), for timeouts longer than one request's.
        elapsed = (now - self.created) / (7 if mode == "long" else 1)
        if self.tool == "quick":
            return "completed", "done"
        if mode == "slow":
            return "working", "working slowly"
        if mode == "stepped":
            # The n-th `tasks/get` reports step n; the one after step 3 finds it completed.
            if self.gets >= 4:
                return "completed", "step 3 of 3"
            return "working", f"step {max(self.gets, 1)} of 3"
        if elapsed < STEP:
            return "working", "step 1 of 3"
        if mode == "fail":
            return "failed", "crunch failed"
        if mode == "server-cancel":
            return "cancelled", "cancelled by the server"
        if mode == "ask":
            if self.answered_at is None:
                return "input_required", "waiting for a label"
            elapsed = STEP + now - self.answered_at
        if elapsed < 2 * STEP:
            return "working", "step 2 of 3"
        if elapsed < 3 * STEP:
            return "working", "step 3 of 3"
        return "completed", "step 3 of 3"

    def result(self) -> dict[str, Any]:
        if self.tool == "quick":
            total = int(self.arguments.get("x", 0))
            return _tool_result({"total": total})
        if self.arguments.get("mode") == "fail":
            return {"content": [{"type": "text", "text": "crunch failed: too much"}], "isError": True}
        value: dict[str, Any] = {"total": 2 * int(self.arguments.get("n", 0))}
        if self.answer is not None:
            value["note"] = self.answer
        return _tool_result(value)


def _tool_result(value: dict[str, Any]) -> dict[str, Any]:
    import json

    return {"content": [{"type": "text", "text": json.dumps(value)}], "structuredContent": value}


class TaskStore:
    """Every task of the server process, whichever connection made it."""

    def __init__(self) -> None:
        self.jobs: dict[str, Job] = {}

    def find(self, task_id: str) -> Job:
        job = self.jobs.get(task_id)
        now = time.time()
        if job is not None and job.ttl_ms is not None and now > job.created + job.ttl_ms / 1000:
            del self.jobs[task_id]
            job = None
        if job is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Task not found: {task_id}")
        return job

    def wire(self, job: Job) -> dict[str, Any]:
        now = time.time()
        status, message = job.state(now)
        task: dict[str, Any] = {
            "taskId": job.task_id,
            "status": status,
            "createdAt": _iso(job.created),
            "lastUpdatedAt": _iso(now),
            "ttl": job.ttl_ms,
            "pollInterval": 50,
        }
        if message is not None:
            task["statusMessage"] = message
        return task


class TaskServer(Server[Any]):
    def get_capabilities(self, *args: Any, **kwargs: Any) -> types.ServerCapabilities:
        capabilities = super().get_capabilities(*args, **kwargs)
        tasks = types.ServerTasksCapability(
            list=types.TasksListCapability(),
            cancel=types.TasksCancelCapability(),
            requests=types.ServerTasksRequestsCapability(tools=types.TasksToolsCapability(call=types.TasksCallCapability())),
        )
        return capabilities.model_copy(update={"tasks": tasks})


def build_server(store: TaskStore | None = None) -> Server[Any]:
    tasks = store if store is not None else TaskStore()
    tools = [
        types.Tool(
            name="crunch",
            description="Crunch a number, as a task.",
            input_schema={
                "type": "object",
                "properties": {
                    "n": {"type": "integer"},
                    "mode": {"type": "string", "enum": ["complete", "fail", "server-cancel", "ask", "slow", "long", "stepped"]},
                },
                "required": ["n"],
            },
            output_schema=RESULT_SCHEMA,
            execution=types.ToolExecution(task_support="required"),
        ),
        types.Tool(
            name="quick",
            description="Answer at once; a task when asked.",
            input_schema={"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
            output_schema=RESULT_SCHEMA,
            execution=types.ToolExecution(task_support="optional"),
        ),
    ]

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name == "crunch":
            raise MCPError(code=types.METHOD_NOT_FOUND, message="Tool crunch requires task augmentation")
        x = int((params.arguments or {}).get("x", 0))
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=str(x))], structured_content={"total": x}
        )

    async def task_middleware(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        params = ctx.params or {}
        if ctx.method != "tools/call" or not isinstance(params.get("task"), dict):
            return await call_next(ctx)
        job = Job(
            task_id=uuid.uuid4().hex,
            tool=params["name"],
            arguments=dict(params.get("arguments") or {}),
            created=time.time(),
            ttl_ms=params["task"].get("ttl"),
        )
        tasks.jobs[job.task_id] = job
        return {"task": tasks.wire(job)}

    async def get_task(ctx: Any, params: types.GetTaskRequestParams) -> dict[str, Any]:
        job = tasks.find(params.task_id)
        job.gets += 1
        return tasks.wire(job)

    async def task_result(ctx: ServerRequestContext[Any, Any], params: types.GetTaskPayloadRequestParams) -> dict[str, Any]:
        job = tasks.find(params.task_id)
        while True:
            status, _message = job.state(time.time())
            if status == "input_required" and not job.asking:
                job.asking = True
                answer = await ctx.session.elicit_form(
                    "Which label?",
                    {"type": "object", "properties": {"label": {"type": "string"}}, "required": ["label"]},
                )
                job.answer = str((answer.content or {}).get("label")) if answer.action == "accept" else "none"
                job.answered_at = time.time()
                continue
            if status in ("completed", "failed"):
                return {**job.result(), "_meta": {RELATED: {"taskId": job.task_id}}}
            if status == "cancelled":
                raise MCPError(code=types.INTERNAL_ERROR, message=f"Task {job.task_id} has no result stored")
            await anyio.sleep(0.02)

    async def cancel_task(ctx: Any, params: types.CancelTaskRequestParams) -> dict[str, Any]:
        job = tasks.find(params.task_id)
        status, _message = job.state(time.time())
        if status in ("completed", "failed", "cancelled"):
            raise MCPError(code=types.INVALID_PARAMS, message=f"Cannot cancel task in terminal status: {status}")
        job.cancelled_at = time.time()
        return tasks.wire(job)

    async def list_tasks(ctx: Any, params: types.PaginatedRequestParams) -> dict[str, Any]:
        # Two tasks a page: the client has to follow nextCursor.
        ids = sorted(tasks.jobs, key=lambda task_id: tasks.jobs[task_id].created)
        start = int(params.cursor or 0)
        page: dict[str, Any] = {"tasks": [tasks.wire(tasks.jobs[task_id]) for task_id in ids[start : start + 2]]}
        if start + 2 < len(ids):
            page["nextCursor"] = str(start + 2)
        return page

    server = TaskServer("tasky", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)
    server.middleware.append(task_middleware)
    server.add_request_handler("tasks/get", types.GetTaskRequestParams, get_task)
    server.add_request_handler("tasks/result", types.GetTaskPayloadRequestParams, task_result)
    server.add_request_handler("tasks/cancel", types.CancelTaskRequestParams, cancel_task)
    server.add_request_handler("tasks/list", types.PaginatedRequestParams, list_tasks)
    return server


async def _main() -> None:
    from mcp.server.stdio import stdio_server

    server = build_server()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_main)
