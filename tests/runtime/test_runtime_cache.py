"""The response cache (2026-07-28 `ttlMs` hints) on a real in-process MCPServer that counts what reaches it.

The server marks its tool listing and resource reads fresh for an hour (`cache_hints`); each read handler
counts its calls, so a served entry shows as a count that did not move. Covered: a read served until
`cache_mode="refresh"` or `"bypass"`, a listing evicted by a `listen()` event or (on an older session, cached
under `default_ttl_ms`) by `notifications/tools/list_changed`, but not by a silent change, `cache=False`, a legacy session (hints ignored), the drift
check (always asks the server) and the blocking twin.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

import anyio
import pytest
from fakepkg import AsyncClient
from fakepkg import Client as SyncClient
from mcp.client.caching import CacheConfig, InMemoryResponseCacheStore
from mcp.server.caching import CacheHint
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.subscriptions import ToolsListChanged

pytestmark = pytest.mark.anyio

HOUR_MS = 3_600_000


class Counted:
    """A server whose reads count their calls, and a tool that adds tools (announced or not)."""

    def __init__(self) -> None:
        self.reads = 0
        self.server = MCPServer(
            "counted",
            cache_hints={
                "tools/list": CacheHint(ttl_ms=HOUR_MS),
                "resources/read": CacheHint(ttl_ms=HOUR_MS),
            },
        )

        @self.server.resource("memo://count")
        def count() -> str:
            """How often the resource was read."""
            self.reads += 1
            return str(self.reads)

        @self.server.tool()
        async def grow(name: str, announce: bool, ctx: Context) -> str:
            """Add a tool called `name`; `announce` tells listen() streams (2026-07-28) and an older
            session (notifications/tools/list_changed)."""

            def added() -> str:
                return name

            self.server.add_tool(added, name=name)
            if announce:
                await ctx.notify_tools_changed()
                if ctx.session.protocol_version != "2026-07-28":
                    await ctx.session.send_tool_list_changed()
            return name


class ModernClient(AsyncClient):
    """fakepkg's client as if generated from a 2026-07-28 server: it connects with `server/discover`."""

    _protocol_version: ClassVar[str | None] = "2026-07-28"


class ModernSyncClient(SyncClient):
    _async_class: ClassVar[type[AsyncClient]] = ModernClient


async def _reads(client: AsyncClient) -> str:
    return (await client.read_resource("memo://count")).text


async def test_a_read_is_served_until_refreshed_or_bypassed() -> None:
    counted = Counted()
    async with ModernClient.in_process(counted.server, drift_check=False) as client:
        assert client.protocol_version == "2026-07-28"
        assert [await _reads(client), await _reads(client)] == ["1", "1"]
        assert await _reads(client.with_options(cache_mode="refresh")) == "2"
        assert await _reads(client) == "2"  # the refreshed entry
        assert await _reads(client.with_options(cache_mode="bypass")) == "3"
        assert await _reads(client) == "2"  # a bypass stores nothing
    assert counted.reads == 3


async def test_a_request_asking_for_progress_reaches_the_server() -> None:
    counted = Counted()
    async with ModernClient.in_process(counted.server, drift_check=False) as client:
        await _reads(client)
        assert await _reads(client.with_options(on_progress=lambda *_: None)) == "2"
        assert await _reads(client) == "2"


async def test_a_listing_is_evicted_by_list_changed_and_not_before() -> None:
    # A 2026-07-28 server sends list changes only on a listen() stream (below); an older one sends the
    # notification, and its answers are cached under `default_ttl_ms`.
    counted = Counted()
    config = CacheConfig(default_ttl_ms=HOUR_MS)
    async with AsyncClient.in_process(counted.server, drift_check=False, cache=config) as client:
        first = {tool.name for tool in await client.list_tools()}
        await client.call_raw("grow", {"name": "quiet", "announce": False})
        assert {tool.name for tool in await client.list_tools()} == first  # fresh for an hour
        await client.call_raw("grow", {"name": "loud", "announce": True})
        with anyio.fail_after(10):  # a hang guard: eviction runs as the notification arrives
            while "loud" not in {tool.name for tool in await client.list_tools()}:
                await anyio.sleep(0.01)
        assert {"quiet", "loud"} <= {tool.name for tool in await client.list_tools()}


async def test_a_listen_event_evicts_before_it_is_seen() -> None:
    counted = Counted()
    async with ModernClient.in_process(counted.server, drift_check=False) as client:
        await client.list_tools()
        async with client.listen(tools=True) as events:
            await client.call_raw("grow", {"name": "heard", "announce": True})
            with anyio.fail_after(10):
                assert await anext(aiter(events)) == ToolsListChanged()
            assert "heard" in {tool.name for tool in await client.list_tools()}


async def test_the_cache_can_be_turned_off() -> None:
    counted = Counted()
    async with ModernClient.in_process(counted.server, drift_check=False, cache=False) as client:
        assert [await _reads(client), await _reads(client)] == ["1", "2"]


async def test_a_legacy_session_ignores_the_hints() -> None:
    counted = Counted()
    async with AsyncClient.in_process(counted.server, drift_check=False) as client:
        assert client.protocol_version != "2026-07-28"
        assert [await _reads(client), await _reads(client)] == ["1", "2"]


async def test_a_default_ttl_caches_answers_without_a_hint() -> None:
    counted = Counted()
    config = CacheConfig(default_ttl_ms=HOUR_MS)
    async with AsyncClient.in_process(counted.server, drift_check=False, cache=config) as client:
        assert [await _reads(client), await _reads(client)] == ["1", "1"]


async def test_a_shared_store_needs_a_target_for_a_server_without_a_url() -> None:
    config = CacheConfig(store=InMemoryResponseCacheStore(), partition="alice")
    with pytest.raises(ValueError, match="target_id"):
        ModernClient.in_process(Counted().server, cache=config)
    shared = CacheConfig(store=config.store, partition="alice", target_id="counted")
    counted = Counted()
    for _ in range(2):  # two connections, one store: the second is served the first one's entry
        async with ModernClient.in_process(counted.server, drift_check=False, cache=shared) as client:
            assert await _reads(client) == "1"


async def test_the_drift_check_always_asks_the_server() -> None:
    counted = Counted()

    class Pinned(ModernClient):
        _tool_hashes: ClassVar[dict[str, str] | None] = {}

    async with Pinned.in_process(counted.server, drift_check=False) as client:
        await client.list_tools()  # cached for an hour
        await client.call_raw("grow", {"name": "silent", "announce": False})
        drift = await client.check_drift()
    assert drift is not None and "silent" in drift.added


def _blocking_reads() -> Iterator[str]:
    counted = Counted()
    with ModernSyncClient.in_process(counted.server, drift_check=False) as client:
        yield client.read_resource("memo://count").text
        yield client.read_resource("memo://count").text
        yield client.with_options(cache_mode="refresh").read_resource("memo://count").text


def test_the_blocking_twin_takes_the_same_options() -> None:
    assert list(_blocking_reads()) == ["1", "1", "2"]
