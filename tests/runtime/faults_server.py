"""An MCP server that counts what it runs, for the retry tests (`python faults_server.py` serves it over stdio).

`bump(key)` changes state (no annotations: not safe to repeat), `read_value(key)` is read-only and idempotent,
`put(key, value)` idempotent only, `fail()` reports an error result, `limited(key)` answers a JSON-RPC error
-32000 of its own (a rate limit), `get-user(key)` is read-only with a wire name that is not a Python name,
`hold(key)` (not safe to repeat) waits until the test opens `gate`, `pid()` names the process, `nap(seconds)` sleeps
first (`napping()` counts the naps sleeping now), `crash()`
exits the process mid-call, `announce()` sends `notifications/tools/list_changed`. `runs` counts
every call that reached a handler, by tool and key, so a test can tell what ran and how often.
"""

from __future__ import annotations

import os
import threading
from collections import Counter

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp.types import ToolAnnotations


def build_server(runs: Counter[str] | None = None, gate: threading.Event | None = None) -> MCPServer:
    counted: Counter[str] = runs if runs is not None else Counter()
    opened = gate if gate is not None else threading.Event()
    values: dict[str, int] = {}
    server = MCPServer("faults-demo", version="1.0.0")

    @server.tool()
    def bump(key: str) -> int:
        """Add one to the counter `key` and return it."""
        counted[f"bump:{key}"] += 1
        values[key] = values.get(key, 0) + 1
        return values[key]

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
    def read_value(key: str) -> int:
        """The counter `key`."""
        counted[f"read_value:{key}"] += 1
        return values.get(key, 0)

    @server.tool(annotations=ToolAnnotations(idempotent_hint=True))
    def put(key: str, value: int) -> int:
        """Set the counter `key`."""
        counted[f"put:{key}"] += 1
        values[key] = value
        return value

    @server.tool()
    def fail(key: str) -> str:
        """Always reports an error."""
        counted[f"fail:{key}"] += 1
        raise ToolError(f"failed on purpose: {key}")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def pid() -> int:
        """This server's process id."""
        return os.getpid()

    sleeping: Counter[str] = Counter()

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    async def nap(seconds: float) -> int:
        """Sleep, then name this server's process."""
        import anyio

        sleeping["nap"] += 1
        try:
            await anyio.sleep(seconds)
        finally:
            sleeping["nap"] -= 1
        return os.getpid()

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def napping() -> int:
        """How many `nap` calls are sleeping now."""
        return sleeping["nap"]

    @server.tool(annotations=ToolAnnotations(idempotent_hint=True))
    async def announce(ctx: Context) -> str:
        """Tell the client the tool list changed (a notification on the standing GET stream over HTTP)."""
        await ctx.session.send_tool_list_changed()
        return "announced"

    @server.tool()
    def limited(key: str) -> str:
        """Refuses every call with the server's own JSON-RPC error -32000."""
        counted[f"limited:{key}"] += 1
        raise MCPError(-32000, "Rate limit exceeded for this API key")

    @server.tool(name="get-user", annotations=ToolAnnotations(read_only_hint=True))
    def get_user(key: str) -> str:
        """Read-only, named with a dash on the wire."""
        counted[f"get-user:{key}"] += 1
        return key

    @server.tool()
    async def hold(key: str) -> str:
        """Count the call, then wait until the test opens the gate."""
        import anyio

        counted[f"hold:{key}"] += 1
        await anyio.to_thread.run_sync(opened.wait)
        return key

    @server.tool()
    def crash() -> str:
        """Exit the server process before answering."""
        os._exit(3)

    return server


if __name__ == "__main__":
    build_server().run()
