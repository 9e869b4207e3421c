"""A real server of the 2026-07-28 tasks extension (io.modelcontextprotocol/tasks): FastMCP 4.1 with fastmcp-tasks.

Docket (the task backend) runs in memory, with its worker in the server's process. Tools:

- `crunch` (`task=True`: optional): a task when the request declares the extension; returns a pydantic model.
- `export_all` (`mode="required"`): refused (-32021) unless the request declares the extension.
- `slow_count` (required): counts to `steps` at 0.1 s a step; `WORK[run]` records the steps done and
  whether the work was stopped (cancelled) or finished. A `run` in `HELD` does not finish before a test
  takes it out.
- `confirm` (required): asks for input while it runs (an `elicitation/create` answered through `tasks/update`;
  background tasks take input with the guard pattern: the tool returns `InputRequiredResult`, and runs again
  with `ctx.input_responses` once the client answers).
- `explode` (required): fails with its `reason`.
- `echo` (no task support): always answers at once.

Serve it in-process with `serve()` (streamable HTTP on 127.0.0.1), or run this file (stdio, or `http PORT`).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import mcp_types
from fastmcp import Context, FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.utilities.tasks import TaskConfig
from fastmcp_tasks import TasksExtension
from pydantic import BaseModel

#: Polls every 0.1 s (FastMCP's default is 5 s).
POLL = timedelta(milliseconds=100)

#: `slow_count`'s runs by their `run` argument: {"steps": int, "stopped": bool, "finished": bool}.
WORK: dict[str, dict[str, Any]] = {}

#: `slow_count` runs kept from finishing (after their steps) until a test discards them.
HELD: set[str] = set()


class Report(BaseModel):
    dataset: str
    rows: int


def build() -> FastMCP:
    mcp = FastMCP("tasky", version="1.0.0")
    mcp.add_extension(TasksExtension(url="memory://"))

    @mcp.tool(task=TaskConfig(mode="optional", poll_interval=POLL))
    async def crunch(dataset: str) -> Report:
        """Crunch a dataset (a task when the client asks for one)."""
        await asyncio.sleep(0.05)
        return Report(dataset=dataset, rows=len(dataset) * 10)

    @mcp.tool(task=TaskConfig(mode="required", poll_interval=POLL))
    async def export_all(fmt: str = "csv") -> str:
        """Export everything (only as a task)."""
        await asyncio.sleep(0.05)
        return f"exported as {fmt}"

    @mcp.tool(task=TaskConfig(mode="required", poll_interval=POLL))
    async def slow_count(run: str, steps: int = 100) -> int:
        """Count to `steps`, 0.1 s a step (only as a task)."""
        record = WORK.setdefault(run, {"steps": 0, "stopped": False, "finished": False})
        try:
            for _ in range(steps):
                await asyncio.sleep(0.1)
                record["steps"] += 1
            while run in HELD:
                await asyncio.sleep(0.05)
        except asyncio.CancelledError:
            record["stopped"] = True
            raise
        record["finished"] = True
        return steps

    @mcp.tool(task=TaskConfig(mode="required", poll_interval=POLL))
    async def confirm(item: str, ctx: Context) -> str:
        """Ask the user to confirm `item` while the task runs."""
        answer = (ctx.input_responses or {}).get("confirm")
        if not isinstance(answer, mcp_types.ElicitResult):
            ask = mcp_types.ElicitRequest(
                params=mcp_types.ElicitRequestFormParams(
                    message=f"Really export {item}?",
                    requested_schema={
                        "type": "object",
                        "properties": {"ok": {"type": "boolean"}},
                        "required": ["ok"],
                    },
                )
            )
            return mcp_types.InputRequiredResult(input_requests={"confirm": ask})  # type: ignore[return-value]
        return f"{item}: {answer.action} {answer.content}"

    @mcp.tool(task=TaskConfig(mode="required", poll_interval=POLL))
    async def explode(reason: str) -> str:
        """Fail with `reason` (only as a task)."""
        await asyncio.sleep(0.05)
        raise ToolError(reason)

    @mcp.tool
    def echo(text: str) -> str:
        """Echo `text` (never a task)."""
        return text

    return mcp


@contextlib.contextmanager
def serve() -> Iterator[str]:
    """Serve a new server over streamable HTTP on 127.0.0.1 in this process; yield its `/mcp` URL."""
    from servers.helpers import serve_app

    app = build().http_app(path="/mcp")
    with serve_app(app) as base:
        yield base + "/mcp"


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        build().run(transport="http", host="127.0.0.1", port=int(sys.argv[2]), show_banner=False)
    else:
        build().run(show_banner=False)
