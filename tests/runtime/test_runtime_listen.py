"""`client.listen()`: the 2026-07-28 change stream (`subscriptions/listen`) on a real in-process MCPServer.

The server's tools publish list changes and resource updates with the SDK's own `ctx.notify_*`; the client
(fakepkg's, over the SDK's in-memory transport) receives them as typed events, async and blocking. A
session negotiated at an older version gets `UnsupportedByServerError`, naming the version.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import pytest
from fakepkg import AsyncClient
from fakepkg import Client as SyncClient
from mcp import Client as McpClient
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.subscriptions import ResourceUpdated, ToolsListChanged

from mcp_codegen_runtime import UnsupportedByServerError

pytestmark = pytest.mark.anyio


def changing_server() -> MCPServer:
    server = MCPServer("changing")

    @server.tool()
    async def grow(ctx: Context) -> str:
        """Announce a tools list change."""
        await ctx.notify_tools_changed()
        return "grown"

    @server.tool()
    async def touch(uri: str, ctx: Context) -> str:
        """Announce that the resource at `uri` changed."""
        await ctx.notify_resource_updated(uri)
        return "touched"

    return server


@asynccontextmanager
async def connected(mode: str) -> AsyncIterator[AsyncClient]:
    async with McpClient(changing_server(), mode=mode, cache=None) as session:  # type: ignore[arg-type]
        yield AsyncClient.from_session(session)


async def test_listen_yields_the_events_asked_for() -> None:
    async with connected("2026-07-28") as client:
        async with client.listen(tools=True, resource_uris=["memo://a"]) as events:
            await client.call_raw("grow")
            await client.call_raw("touch", {"uri": "memo://b"})  # not asked for: never delivered
            await client.call_raw("touch", {"uri": "memo://a"})
            received = []
            with anyio.fail_after(10):  # a hang guard, not a timing assertion
                async for event in events:
                    received.append(event)
                    if len(received) == 2:
                        break
        assert received == [ToolsListChanged(), ResourceUpdated(uri="memo://a")]


async def test_listen_on_an_older_session_names_the_version() -> None:
    async with connected("legacy") as client:
        with pytest.raises(UnsupportedByServerError, match="2026-07-28.*negotiated 2025-11-25"):
            async with client.listen(tools=True):
                pass


def test_blocking_listen_iterates_on_the_clients_thread() -> None:
    with SyncClient.from_session(lambda: McpClient(changing_server(), mode="2026-07-28", cache=None)) as client:
        with client.listen(tools=True) as events:
            client.call_raw("grow")
            assert next(iter(events)) == ToolsListChanged()
