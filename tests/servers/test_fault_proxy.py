"""The fault-injecting proxy itself: what a client sees for each fault, and what reaches the upstream."""

from __future__ import annotations

import asyncio
import datetime
import email.utils
import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from servers.fault_proxy import (
    FaultProxy,
    LogEntry,
    delay,
    drop_after,
    drop_before,
    drop_mid,
    hold,
    passthrough,
    reset,
    status,
    status_after,
)
from servers.helpers import HOST, serve_app

TIMEOUT = httpx2.Timeout(10.0)


class Upstream:
    """A tiny JSON-RPC-ish upstream: records every request it sees."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []  # (HTTP method, JSON-RPC method or "")
        self._lock = threading.Lock()
        self.app = Starlette(
            routes=[
                Route("/rpc", self.rpc, methods=["POST"]),
                Route("/sse", self.sse, methods=["POST"]),
                Route("/stream", self.stream, methods=["GET"]),
                Route("/rpc", self.other, methods=["GET", "DELETE"]),
            ]
        )

    def _record(self, http_method: str, rpc_method: str) -> None:
        with self._lock:
            self.seen.append((http_method, rpc_method))

    def count(self, rpc_method: str) -> int:
        with self._lock:
            return sum(1 for _, m in self.seen if m == rpc_method)

    async def rpc(self, request: Request) -> Response:
        message = await request.json()
        self._record("POST", message.get("method", ""))
        return JSONResponse({"jsonrpc": "2.0", "id": message.get("id"), "result": {"echo": message.get("params")}})

    async def sse(self, request: Request) -> Response:
        message = await request.json()
        self._record("POST", message.get("method", ""))
        progress = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}
        result = {"jsonrpc": "2.0", "id": message.get("id"), "result": {"content": [], "pad": "x" * 200}}

        async def events() -> AsyncIterator[bytes]:
            yield f"event: message\ndata: {json.dumps(progress)}\n\n".encode()
            await asyncio.sleep(0.01)
            yield f"event: message\ndata: {json.dumps(result)}\n\n".encode()

        return StreamingResponse(events(), media_type="text/event-stream")

    async def stream(self, request: Request) -> Response:
        self._record("GET", "")

        async def events() -> AsyncIterator[bytes]:
            n = 0
            while True:
                yield f"data: {n}\n\n".encode()
                n += 1
                await asyncio.sleep(0.02)

        return StreamingResponse(events(), media_type="text/event-stream")

    async def other(self, request: Request) -> Response:
        self._record(request.method, "")
        return Response(status_code=204)


@pytest.fixture(scope="module")
def upstream_server() -> Iterator[tuple[Upstream, str]]:
    upstream = Upstream()
    with serve_app(upstream.app) as base:
        yield upstream, base


@pytest.fixture
def upstream(upstream_server: tuple[Upstream, str]) -> Upstream:
    server, _ = upstream_server
    server.seen.clear()
    return server


@pytest.fixture
def proxy(upstream_server: tuple[Upstream, str]) -> Iterator[FaultProxy]:
    with FaultProxy(upstream_server[1]) as running:
        yield running


@pytest.fixture
def client() -> Iterator[httpx2.Client]:
    with httpx2.Client(timeout=TIMEOUT) as http:
        yield http


def rpc(method: str, tool: str | None = None, id: int | None = 1) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if tool is not None:
        message["params"] = {"name": tool, "arguments": {}}
    if id is not None:
        message["id"] = id
    return message


def call(client: httpx2.Client, proxy: FaultProxy, tool: str = "add", path: str = "/rpc") -> httpx2.Response:
    return client.post(proxy.url + path, json=rpc("tools/call", tool))


def test_passthrough_forwards_everything_and_counts(
    proxy: FaultProxy, upstream: Upstream, client: httpx2.Client
) -> None:
    assert proxy.url.startswith(f"http://{HOST}:")
    assert client.post(proxy.url + "/rpc", json=rpc("initialize")).status_code == 200
    assert client.post(proxy.url + "/rpc", json=rpc("notifications/initialized", id=None)).status_code == 200
    for _ in range(3):  # several requests through one httpx client (one connection each)
        response = call(client, proxy)
        assert response.status_code == 200
        assert response.json()["result"]["echo"]["name"] == "add"
    assert client.delete(proxy.url + "/rpc").status_code == 204
    assert proxy.reached("initialize") == 1
    assert proxy.reached("notifications/initialized") == 1
    assert proxy.reached("tools/call") == proxy.reached("tools/call", "add") == 3
    assert proxy.reached("tools/call", "other") == 0
    assert proxy.reached("DELETE") == 1
    assert proxy.log == [LogEntry("tools/call", "add", None)] * 3
    assert upstream.count("tools/call") == 3


def test_status_is_answered_without_forwarding(proxy: FaultProxy, upstream: Upstream, client: httpx2.Client) -> None:
    when = datetime.datetime(2030, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)
    proxy.plan(status(503, retry_after=0), status(429, retry_after=when), status(502), status(408, body="slow"))
    first = call(client, proxy)
    assert (first.status_code, first.headers["retry-after"]) == (503, "0")
    second = call(client, proxy)
    assert second.status_code == 429
    assert email.utils.parsedate_to_datetime(second.headers["retry-after"]) == when
    third = call(client, proxy)
    assert third.status_code == 502 and "retry-after" not in third.headers
    fourth = call(client, proxy)
    assert (fourth.status_code, fourth.text) == (408, "slow")
    assert call(client, proxy).status_code == 200  # the plan is used up
    assert proxy.pending == 0
    assert proxy.reached("tools/call") == upstream.count("tools/call") == 1
    assert [entry.fault for entry in proxy.log] == ["status(503)", "status(429)", "status(502)", "status(408)", None]


def test_status_after_forwards_then_answers_the_status(
    proxy: FaultProxy, upstream: Upstream, client: httpx2.Client
) -> None:
    proxy.plan(status_after(504, retry_after=1))
    response = call(client, proxy)
    assert (response.status_code, response.headers["retry-after"]) == (504, "1")
    assert proxy.reached("tools/call") == upstream.count("tools/call") == 1


def test_hold_forwards_and_answers_nothing_until_the_client_hangs_up(
    proxy: FaultProxy, upstream: Upstream, client: httpx2.Client
) -> None:
    proxy.plan(hold())
    with pytest.raises(httpx2.ReadTimeout):  # the client's own timeout ends it; nothing ever arrives
        client.post(proxy.url + "/rpc", json=rpc("tools/call", "add"), timeout=httpx2.Timeout(10.0, read=0.5))
    assert proxy.reached("tools/call") == upstream.count("tools/call") == 1
    assert proxy.log == [LogEntry("tools/call", "add", "hold")]
    assert call(client, proxy).status_code == 200


def test_trace_lists_every_post_in_order_and_sessions_every_session_id(
    proxy: FaultProxy, client: httpx2.Client
) -> None:
    proxy.plan(status(500), method="ping")
    client.post(proxy.url + "/rpc", json=rpc("initialize"))
    client.post(proxy.url + "/rpc", json=rpc("notifications/initialized", id=None), headers={"mcp-session-id": "s1"})
    client.post(proxy.url + "/rpc", json=rpc("ping"), headers={"mcp-session-id": "s2"})
    call(client, proxy)
    assert proxy.trace == [
        LogEntry("initialize", None, None),
        LogEntry("notifications/initialized", None, None),
        LogEntry("ping", None, "status(500)"),
        LogEntry("tools/call", "add", None),
    ]
    assert proxy.sessions == {"s1", "s2"}
    proxy.clear(counters=True)
    assert proxy.trace == [] and proxy.sessions == {"s1", "s2"}


def test_drop_before_never_reaches_the_upstream(proxy: FaultProxy, upstream: Upstream, client: httpx2.Client) -> None:
    proxy.plan(drop_before())
    with pytest.raises(httpx2.RemoteProtocolError):
        call(client, proxy)
    assert proxy.reached("tools/call") == upstream.count("tools/call") == 0
    assert call(client, proxy).status_code == 200


def test_reset_never_reaches_the_upstream(proxy: FaultProxy, upstream: Upstream, client: httpx2.Client) -> None:
    proxy.plan(reset())
    with pytest.raises((httpx2.ReadError, httpx2.RemoteProtocolError)):
        call(client, proxy)
    assert proxy.reached("tools/call") == upstream.count("tools/call") == 0
    assert proxy.log == [LogEntry("tools/call", "add", "reset")]


def test_reset_connections_before_reading(proxy: FaultProxy, upstream: Upstream, client: httpx2.Client) -> None:
    proxy.reset_connections(1)
    # Any request (nothing is read); depending on timing the client sees a ConnectError, WriteError or ReadError.
    with pytest.raises(httpx2.TransportError):
        client.post(proxy.url + "/rpc", json=rpc("initialize"))
    assert upstream.seen == []
    assert client.post(proxy.url + "/rpc", json=rpc("initialize")).status_code == 200


def test_drop_after_reaches_the_upstream(proxy: FaultProxy, upstream: Upstream, client: httpx2.Client) -> None:
    proxy.plan(drop_after())
    with pytest.raises(httpx2.RemoteProtocolError):
        call(client, proxy)
    assert proxy.reached("tools/call") == upstream.count("tools/call") == 1


def test_drop_mid_sse_delivers_the_first_event_only(
    proxy: FaultProxy, upstream: Upstream, client: httpx2.Client
) -> None:
    proxy.plan(drop_mid())
    received = b""
    with pytest.raises(httpx2.RemoteProtocolError):
        with client.stream("POST", proxy.url + "/sse", json=rpc("tools/call", "add")) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            for chunk in response.iter_bytes():
                received += chunk
    complete, _, cut = received.rpartition(b"\n\n")
    assert b"notifications/progress" in complete and b'"result"' not in complete  # the first event only
    assert cut.startswith(b"event: message") and not cut.endswith(b"}")  # then half of the response event
    assert proxy.reached("tools/call") == upstream.count("tools/call") == 1


def test_drop_mid_plain_body_is_cut_short(proxy: FaultProxy, upstream: Upstream, client: httpx2.Client) -> None:
    proxy.plan(drop_mid())
    with pytest.raises(httpx2.RemoteProtocolError):
        call(client, proxy)
    assert upstream.count("tools/call") == 1


def test_delay_holds_the_request(proxy: FaultProxy, upstream: Upstream, client: httpx2.Client) -> None:
    proxy.plan(delay(0.3), delay(0.3))
    with pytest.raises(httpx2.ReadTimeout):
        client.post(proxy.url + "/rpc", json=rpc("tools/call", "add"), timeout=0.1)
    assert upstream.count("tools/call") == 0  # still held
    started = time.monotonic()
    assert call(client, proxy).status_code == 200
    assert time.monotonic() - started >= 0.3
    assert proxy.log[-1] == LogEntry("tools/call", "add", "delay(0.3)")


def test_plan_matches_method_and_tool(proxy: FaultProxy, upstream: Upstream, client: httpx2.Client) -> None:
    proxy.plan(status(503), tool="b")
    proxy.plan(passthrough(), status(500), method="resources/read")
    assert call(client, proxy, "a").status_code == 200
    assert client.post(proxy.url + "/rpc", json=rpc("initialize")).status_code == 200
    assert client.post(proxy.url + "/rpc", json=rpc("resources/read")).status_code == 200
    assert client.post(proxy.url + "/rpc", json=rpc("resources/read")).status_code == 500
    assert call(client, proxy, "b").status_code == 503
    assert call(client, proxy, "b").status_code == 200
    assert proxy.reached("tools/call", "a") == 1
    assert proxy.reached("tools/call", "b") == 1
    assert proxy.reached("resources/read") == 1
    assert proxy.log == [
        LogEntry("tools/call", "a", None),
        LogEntry("resources/read", None, None),
        LogEntry("resources/read", None, "status(500)"),
        LogEntry("tools/call", "b", "status(503)"),
        LogEntry("tools/call", "b", None),
    ]
    proxy.plan(status(503))
    proxy.clear()
    assert proxy.pending == 0 and call(client, proxy).status_code == 200


def test_chaos_is_seeded(upstream_server: tuple[Upstream, str], client: httpx2.Client) -> None:
    def run(seed: int) -> list[LogEntry]:
        with FaultProxy(upstream_server[1]) as proxy:
            proxy.chaos(0.5, [status(503), drop_before(), drop_after()], seed=seed)
            for _ in range(12):
                try:
                    call(client, proxy)
                except httpx2.TransportError:
                    pass
            return proxy.log

    first, again = run(7), run(7)
    assert first == again
    faults = {entry.fault for entry in first}
    assert None in faults and len(faults) > 2


def test_get_stream_is_piped_through(proxy: FaultProxy, upstream: Upstream, client: httpx2.Client) -> None:
    lines = []
    with client.stream("GET", proxy.url + "/stream") as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("data:"):
                lines.append(line)
            if len(lines) == 3:
                break
    assert lines == ["data: 0", "data: 1", "data: 2"]
    assert proxy.reached("GET") == 1
    assert proxy.log == []


def test_pause_refuses_connections_and_resume_reopens_the_port(
    proxy: FaultProxy, upstream: Upstream, client: httpx2.Client
) -> None:
    port = proxy.port
    proxy.pause()
    with pytest.raises(httpx2.ConnectError):
        call(client, proxy)
    proxy.resume()
    assert proxy.port == port
    assert call(client, proxy).status_code == 200
    assert upstream.count("tools/call") == 1


def test_upstream_down_is_a_502(client: httpx2.Client) -> None:
    with serve_app(Upstream().app) as base:
        pass  # a port nobody listens on any more
    with FaultProxy(base) as proxy:
        assert client.post(proxy.url + "/rpc", json=rpc("initialize")).status_code == 502


@pytest.fixture
def mcp_server() -> Iterator[tuple[FaultProxy, list[int]]]:
    runs: list[int] = []
    server = MCPServer("fault-proxy-test")

    @server.tool()
    def add(a: int, b: int) -> int:
        runs.append(a + b)
        return a + b

    app = server.streamable_http_app(streamable_http_path="/mcp", host=HOST)
    with serve_app(app) as base, FaultProxy(base + "/mcp") as proxy:
        yield proxy, runs


def test_real_mcp_server_through_faults(mcp_server: tuple[FaultProxy, list[int]]) -> None:
    proxy, runs = mcp_server
    headers = {"accept": "application/json, text/event-stream"}
    with httpx2.Client(timeout=TIMEOUT, headers=headers) as http:
        params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
        init = http.post(proxy.endpoint, json={**rpc("initialize", id=0), "params": params})
        assert init.status_code == 200
        http.headers["mcp-session-id"] = init.headers["mcp-session-id"]
        http.headers["mcp-protocol-version"] = "2025-06-18"
        assert http.post(proxy.endpoint, json=rpc("notifications/initialized", id=None)).status_code == 202

        def add(id: int) -> httpx2.Response:
            body = {**rpc("tools/call", "add", id=id), "params": {"name": "add", "arguments": {"a": id, "b": 1}}}
            return http.post(proxy.endpoint, json=body)

        proxy.plan(status(503, retry_after=0), drop_before(), drop_after(), drop_mid(), status_after(502))
        assert add(1).status_code == 503
        with pytest.raises(httpx2.RemoteProtocolError):
            add(2)
        with pytest.raises(httpx2.RemoteProtocolError):
            add(3)
        with pytest.raises(httpx2.RemoteProtocolError):
            add(4)
        assert add(5).status_code == 502
        ok = add(6)
        assert ok.status_code == 200 and '"result"' in ok.text
    assert runs == [4, 5, 6, 7]  # 3+1, 4+1, 5+1, 6+1: the tool ran for drop_after, drop_mid, status_after, ok
    assert proxy.reached("tools/call", "add") == 4
    assert proxy.reached("initialize") == 1


@pytest.mark.anyio
async def test_mcp_client_session_through_the_proxy(mcp_server: tuple[FaultProxy, list[int]]) -> None:
    proxy, runs = mcp_server
    async with Client(proxy.endpoint, mode="legacy", cache=None, read_timeout_seconds=10) as client:
        result = await client.call_tool("add", {"a": 2, "b": 3})
        assert not result.is_error
    assert runs == [5]
    assert proxy.reached("initialize") == 1
    assert proxy.reached("tools/call", "add") == 1
    assert proxy.log == [LogEntry("tools/call", "add", None)]
