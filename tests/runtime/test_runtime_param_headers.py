"""`x-mcp-header` on a 2026-07-28 server over streamable HTTP: a call the server rejects with HEADER_MISMATCH
(the client had not listed the tool, so it could not mirror the argument into `Mcp-Param-*`) is sent again once,
after listing the tools, as the spec asks, and as the SDK's own `Client.call_tool` does.
"""

from __future__ import annotations

from typing import Annotated, ClassVar

import pytest
from fakepkg import AsyncClient
from mcp.server.mcpserver import MCPServer
from pydantic import Field
from servers.helpers import serve_http

pytestmark = pytest.mark.anyio


def region_server() -> MCPServer:
    server = MCPServer("regions")

    @server.tool()
    def locate(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})]) -> str:
        """Where the call was routed."""
        return f"routed to {region}"

    return server


class ModernClient(AsyncClient):
    """fakepkg's client as if generated from a 2026-07-28 server: it starts with `server/discover`."""

    _protocol_version: ClassVar[str | None] = "2026-07-28"


async def test_a_call_rejected_for_its_param_headers_is_resent_after_listing() -> None:
    with serve_http(region_server()) as url:
        async with ModernClient.http(url, drift_check=False, timeout=30) as client:
            assert client.protocol_version == "2026-07-28"
            first = await client.call_raw("locate", {"region": "eu-west"})  # never listed: resent once
            second = await client.call_raw("locate", {"region": "us-east"})  # listed by then: sent once
    assert not first.is_error and "routed to eu-west" in first.text
    assert not second.is_error and "routed to us-east" in second.text
