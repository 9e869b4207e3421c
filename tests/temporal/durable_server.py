"""An MCP server over streamable HTTP for the Temporal tests, each tool run written to a log file.

`python durable_server.py LOG` serves on 127.0.0.1 (a free port) and prints its URL. Tools, one of each safety:
- `lookup(key)` (readOnlyHint): `{"key": key, "runs": n}`. The first run of a key starting with "hold" waits
  for good (until the server exits): the test kills the worker that called it.
- `charge(account, cents)` (neither read-only nor idempotent): `{"account": ..., "cents": ...}`; an account
  starting with "hold" waits for good.
- `crunch(n, mode)` (`taskSupport: "required"`): a 2025-11-25 task, completed with `{"total": 2n}` after two
  short steps; with `mode="hold"`, working until cancelled; with `mode="release"`, working until a file
  `release-<n>` exists beside LOG (the test writes it once it has killed the worker following the task).

Each run appends `<tool> <key> <event>` to LOG (`start`, `end`, `cancel`), so tests count runs on the server
(a task's `start` is its creation).
The SDK serves no task requests itself: a middleware answers a task-augmented `tools/call` with the task,
and `tasks/get`, `tasks/result`, `tasks/cancel` are request handlers (as in tests/runtime/task_server.py).
"""

from __future__ import annotations

import json
import sys
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import CallNext, ServerRequestContext
from mcp.shared.exceptions import MCPError

STEP = 0.2
RELATED = "io.modelcontextprotocol/related-task"


class Log:
    """The run log: one line per event, appended and flushed at once."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.Lock()

    def write(self, tool: str, key: str, event: str) -> None:
        with self.lock, self.path.open("a", encoding="utf-8") as file:
            file.write(f"{tool} {key} {event}\n")

    def count(self, tool: str, key: str, event: str) -> int:
        lines = self.path.read_text(encoding="utf-8").splitlines() if self.path.exists() else []
        return lines.count(f"{tool} {key} {event}")


def _iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).isoformat().replace("+00:00", "Z")


def _structured(value: dict[str, Any]) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(value))], structured_content=value
    )


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


TOOLS = [
    types.Tool(
        name="lookup",
        description="Look a key up (read-only).",
        input_schema=_object({"key": {"type": "string"}}, ["key"]),
        output_schema=_object({"key": {"type": "string"}, "runs": {"type": "integer"}}, ["key", "runs"]),
        annotations=types.ToolAnnotations(read_only_hint=True),
    ),
    types.Tool(
        name="charge",
        description="Charge an account (not safe to repeat).",
        input_schema=_object({"account": {"type": "string"}, "cents": {"type": "integer"}}, ["account", "cents"]),
        output_schema=_object({"account": {"type": "string"}, "cents": {"type": "integer"}}, ["account", "cents"]),
        annotations=types.ToolAnnotations(read_only_hint=False, idempotent_hint=False, destructive_hint=True),
    ),
    types.Tool(
        name="crunch",
        description="Crunch a number, as a task.",
        input_schema=_object(
            {"n": {"type": "integer"}, "mode": {"type": "string", "enum": ["complete", "hold", "release"]}}, ["n"]
        ),
        output_schema=_object({"total": {"type": "integer"}}, ["total"]),
        execution=types.ToolExecution(task_support="required"),
        annotations=types.ToolAnnotations(read_only_hint=False),
    ),
]


class Job:
    def __init__(self, n: int, mode: str, ttl: int | None, release: Path) -> None:
        self.task_id = uuid.uuid4().hex
        self.n, self.mode, self.ttl = n, mode, ttl
        self.release = release
        self.created = time.time()
        self.cancelled = False

    def status(self) -> str:
        if self.cancelled:
            return "cancelled"
        if self.mode == "hold" or (self.mode == "release" and not self.release.exists()):
            return "working"
        if time.time() - self.created < 2 * STEP:
            return "working"
        return "completed"

    def wire(self) -> dict[str, Any]:
        return {
            "taskId": self.task_id,
            "status": self.status(),
            "statusMessage": f"crunching {self.n}",
            "createdAt": _iso(self.created),
            "lastUpdatedAt": _iso(time.time()),
            "ttl": self.ttl,
            "pollInterval": 100,
        }


class DurableServer(Server[Any]):
    def get_capabilities(self, *args: Any, **kwargs: Any) -> types.ServerCapabilities:
        capabilities = super().get_capabilities(*args, **kwargs)
        tasks = types.ServerTasksCapability(
            cancel=types.TasksCancelCapability(),
            requests=types.ServerTasksRequestsCapability(
                tools=types.TasksToolsCapability(call=types.TasksCallCapability())
            ),
        )
        return capabilities.model_copy(update={"tasks": tasks})


def build_server(log: Log) -> Server[Any]:
    jobs: dict[str, Job] = {}
    runs: dict[str, int] = {}

    def find(task_id: str) -> Job:
        job = jobs.get(task_id)
        if job is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Task not found: {task_id}")
        return job

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=TOOLS)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        if params.name == "lookup":
            key = str(arguments["key"])
            runs[key] = runs.get(key, 0) + 1
            log.write("lookup", key, "start")
            if key.startswith("hold") and runs[key] == 1:
                await anyio.sleep_forever()
            log.write("lookup", key, "end")
            return _structured({"key": key, "runs": runs[key]})
        if params.name == "charge":
            account = str(arguments["account"])
            log.write("charge", account, "start")
            if account.startswith("hold"):
                await anyio.sleep_forever()
            log.write("charge", account, "end")
            return _structured({"account": account, "cents": int(arguments["cents"])})
        raise MCPError(code=types.METHOD_NOT_FOUND, message=f"Tool {params.name} requires task augmentation")

    async def task_middleware(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        params = ctx.params or {}
        if ctx.method != "tools/call" or not isinstance(params.get("task"), dict):
            return await call_next(ctx)
        arguments = dict(params.get("arguments") or {})
        n, mode = int(arguments.get("n", 0)), str(arguments.get("mode", "complete"))
        job = Job(n, mode, params["task"].get("ttl"), log.path.with_name(f"release-{n}"))
        jobs[job.task_id] = job
        log.write("crunch", str(job.n), "start")
        return {"task": job.wire()}

    async def get_task(ctx: Any, params: types.GetTaskRequestParams) -> dict[str, Any]:
        return find(params.task_id).wire()

    async def task_result(ctx: Any, params: types.GetTaskPayloadRequestParams) -> dict[str, Any]:
        job = find(params.task_id)
        while job.status() == "working":
            await anyio.sleep(0.05)
        if job.status() == "cancelled":
            raise MCPError(code=types.INTERNAL_ERROR, message=f"Task {job.task_id} was cancelled")
        log.write("crunch", str(job.n), "end")
        result = _structured({"total": 2 * job.n}).model_dump(by_alias=True, exclude_none=True)
        return {**result, "_meta": {RELATED: {"taskId": job.task_id}}}

    async def cancel_task(ctx: Any, params: types.CancelTaskRequestParams) -> dict[str, Any]:
        job = find(params.task_id)
        if job.status() != "working":
            raise MCPError(code=types.INVALID_PARAMS, message=f"Cannot cancel task in terminal status: {job.status()}")
        job.cancelled = True
        log.write("crunch", str(job.n), "cancel")
        return job.wire()

    server = DurableServer("durable", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)
    server.middleware.append(task_middleware)
    server.add_request_handler("tasks/get", types.GetTaskRequestParams, get_task)
    server.add_request_handler("tasks/result", types.GetTaskPayloadRequestParams, task_result)
    server.add_request_handler("tasks/cancel", types.CancelTaskRequestParams, cancel_task)
    return server


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from servers.helpers import serve_app

    log = Log(Path(sys.argv[1]))
    app = build_server(log).streamable_http_app(host="127.0.0.1")
    with serve_app(app) as base:
        print(f"{base}/mcp", flush=True)
        sys.stdin.read()  # until the test closes stdin (or ends the process)


if __name__ == "__main__":
    main()
