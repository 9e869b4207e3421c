"""An in-memory MCP server for the per-call options tests: a `slow` tool that reports progress and records cancellation.

Its tools, prompt and resource have the names and signatures of `rt_server`'s, so the fakepkg client's typed
methods call them.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field

import anyio
from mcp.server.mcpserver import Context, MCPServer

#: Seconds between two progress notifications of `slow`.
STEP = 0.1


@dataclass
class Record:
    """What the server saw: the calls whose handler started, and those cancelled (by a `notifications/cancelled`)."""

    started: list[str] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)
    # A thread event: the blocking client's server runs on the client's own loop thread.
    cancelled_event: threading.Event = field(default_factory=threading.Event)

    def cancel(self, what: str) -> None:
        self.cancelled.append(what)
        self.cancelled_event.set()

    def wait_cancelled(self, timeout: float = 10) -> list[str]:
        """The cancelled calls, once there is one (empty after `timeout` seconds without)."""
        self.cancelled_event.wait(timeout)
        return self.cancelled

    async def wait_cancelled_async(self, timeout: float = 10) -> list[str]:
        return await anyio.to_thread.run_sync(self.wait_cancelled, timeout)


def build_progress_server(record: Record) -> MCPServer:
    server = MCPServer("progress-demo", version="1.0.0")

    @server.tool()
    async def slow(seconds: float, ctx: Context) -> str:
        """Works for `seconds`, reporting progress every STEP seconds."""
        steps = math.ceil(seconds / STEP)
        record.started.append(f"slow({seconds:g})")
        try:
            for step in range(1, steps + 1):
                await anyio.sleep(STEP)
                await ctx.report_progress(step, steps, f"step {step}")
        except anyio.get_cancelled_exc_class():
            record.cancel(f"slow({seconds:g})")
            raise
        return "done"

    @server.tool()
    def add(a: int, b: int) -> int:
        return a + b

    @server.resource("config://app", mime_type="application/json")
    async def app_config() -> str:
        try:
            await anyio.sleep(60)
        except anyio.get_cancelled_exc_class():
            record.cancel("config://app")
            raise
        return "{}"

    @server.prompt()
    async def review(code: str, style: str = "short") -> str:
        try:
            await anyio.sleep(60)
        except anyio.get_cancelled_exc_class():
            record.cancel("review")
            raise
        return code

    return server
