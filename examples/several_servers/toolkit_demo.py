"""Both servers through one Toolkit: status, a typed call, agent tool names, reconnect, health.

Run `mcp-codegen generate` in this folder first (it writes mcp_clients/).
"""

from __future__ import annotations

import anyio
from mcp_clients import Toolkit  # type: ignore[import-not-found]


async def main() -> None:
    async with Toolkit(timeout=60) as kit:
        for status in kit.status().values():
            print(status)
        now = await kit["time"].get_current_time(timezone="Europe/Paris")
        print("time in Paris:", now.datetime)
        print("agent tools:", ", ".join(tool.name for tool in kit.tools()))
        print("reconnected:", await kit.reconnect("memory"))
        print("health:", ", ".join(str(s) for s in (await kit.health(timeout=5)).values()))


if __name__ == "__main__":
    anyio.run(main)
