"""Sessions that survive real servers: a lost session renewed however the server says it, connecting through
faults, and the server's own answers left as they are.

Through the fault-injecting proxy (tests/servers/fault_proxy.py) in front of the counting server
(tests/runtime/faults_server.py), with the exact answers real stacks give (see the session table in
docs/how-to/failures-and-retries.md): the Python SDK's 404 -32600, the TypeScript SDK's 404 -32001 and the 400
"No valid session ID provided" of server-everything and the TypeScript SDK's examples. Gateways that answer 404
(after forwarding, or without) cost at most one renewal per call and never run a tool twice; the server's run
counts and the proxy's `initialize` count say so. The real server-everything over streamable HTTP, killed and
started again on its port. Last, the standing GET stream's backoff and a connection still watched after a
reconnect that failed.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import anyio
import pytest
from auth_helpers import free_port
from faults_server import build_server
from servers import install
from servers.fault_proxy import FaultProxy, drop_after, drop_before, hold, status, status_after
from servers.helpers import HOST, serve_app
from test_runtime_faults import SERVER, fast, pkg

pytestmark = pytest.mark.anyio

__all__ = ["pkg"]  # the generated faults client, shared with test_runtime_faults


def rpc_error(code: int, message: str) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}})


PYTHON_SDK_404 = status(404, body=rpc_error(-32600, "Session not found"), content_type="application/json")
TYPESCRIPT_404 = status(404, body=rpc_error(-32001, "Session not found"), content_type="application/json")
EVERYTHING_400 = status(
    400, body=rpc_error(-32000, "Bad Request: No valid session ID provided"), content_type="application/json"
)


class Served:
    def __init__(self, runs: Counter[str], proxy: FaultProxy, gate: threading.Event) -> None:
        self.runs, self.proxy, self.gate = runs, proxy, gate


@pytest.fixture(params=["sse", "json"])
def served(request: pytest.FixtureRequest) -> Iterator[Served]:
    runs: Counter[str] = Counter()
    gate = threading.Event()
    app = build_server(runs, gate).streamable_http_app(host=HOST, json_response=request.param == "json")
    with serve_app(app) as base, FaultProxy(base + "/mcp") as proxy:
        yield Served(runs, proxy, gate)
        gate.set()


@pytest.mark.parametrize(
    "answer", [PYTHON_SDK_404, TYPESCRIPT_404, EVERYTHING_400], ids=["404-32600", "404-32001", "400"]
)
async def test_a_lost_session_is_renewed_and_the_refused_call_sent_again_even_when_unsafe(
    pkg: ModuleType, served: Served, answer: object
) -> None:
    proxy = served.proxy
    async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=fast(pkg)) as client:
        assert await client.bump(key="warm") == 1
        proxy.expire_sessions(answer)  # type: ignore[arg-type]
        assert await client.bump(key="a") == 1  # not processed: sent again on the new session, once
        assert await client.read_value(key="a") == 1
    assert served.runs["bump:a"] == 1
    assert proxy.reached("initialize") == 2
    assert [entry.fault for entry in proxy.log if entry.tool == "bump"][-2:][0].startswith("expired(")


async def test_a_400_on_a_session_that_still_answers_is_the_servers_answer(pkg: ModuleType, served: Served) -> None:
    proxy = served.proxy
    async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=fast(pkg)) as client:
        proxy.plan(EVERYTHING_400, tool="bump")
        with pytest.raises(pkg.ServerRequestError) as caught:
            await client.bump(key="b")
        assert caught.value.code == -32000 and "No valid session ID" in str(caught.value)
        assert not isinstance(caught.value, pkg.RequestTimeoutError | pkg.ConnectionClosedError)
        assert await client.bump(key="b") == 1  # the session goes on
    assert served.runs["bump:b"] == 1
    assert proxy.reached("initialize") == 1  # the session answered a ping: it was not gone


async def test_a_400_that_still_fails_on_the_new_session_is_the_servers_answer(pkg: ModuleType, served: Served) -> None:
    proxy = served.proxy
    async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=fast(pkg)) as client:
        proxy.gateway(EVERYTHING_400)
        with pytest.raises(pkg.ServerRequestError) as caught:
            await client.read_value(key="b")
        assert caught.value.code == -32000 and "No valid session ID" in str(caught.value)
        proxy.gateway(None)
        assert await client.bump(key="b") == 1  # the session goes on
    assert served.runs["bump:b"] == 1
    assert proxy.reached("initialize") == 2  # one renewal, not a loop


@pytest.mark.parametrize("scope", ["tools/call", None], ids=["calls", "every-request"])
async def test_behind_a_gateway_that_forwards_and_answers_404_an_unsafe_tool_runs_once(
    pkg: ModuleType, served: Served, scope: str | None
) -> None:
    proxy = served.proxy
    async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=fast(pkg)) as client:
        assert await client.bump(key="warm") == 1
        proxy.gateway(status_after(404), method=scope)  # the server ran it; the gateway answers 404
        with pytest.raises(pkg.OutcomeUnknownError) as caught:
            await client.bump(key="g")
        assert caught.value.tool == "bump" and "404" in str(caught.value) and "may have run" in str(caught.value)
        assert served.runs["bump:g"] == 1
        proxy.gateway(None)
        assert await client.bump(key="after") == 1
    # A session that answers a ping was not lost; one that does not is renewed once, not per 404.
    assert proxy.reached("initialize") == (1 if scope else 2)


async def test_a_gateway_answering_every_request_404_costs_one_renewal_per_call(
    pkg: ModuleType, served: Served
) -> None:
    proxy = served.proxy
    async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=fast(pkg)) as client:
        proxy.gateway(status(404))  # never forwarded
        with pytest.raises(pkg.OutcomeUnknownError) as unsafe:
            await client.bump(key="n")
        assert "404" in str(unsafe.value)
        assert proxy.reached("initialize") == 2
        with pytest.raises(pkg.HttpStatusError) as safe:
            await client.read_value(key="n")
        assert safe.value.status == 404
        assert proxy.reached("initialize") == 3
        proxy.gateway(None)
        assert await client.bump(key="n") == 1
    assert served.runs["bump:n"] == 1
    assert proxy.reached("tools/call") == 1


async def test_concurrent_calls_behind_a_404_gateway_share_one_renewal(pkg: ModuleType, served: Served) -> None:
    proxy = served.proxy
    failed: list[BaseException] = []

    async def call(index: int) -> None:
        try:
            await client.bump(key=f"c{index}")
        except pkg.OutcomeUnknownError as error:
            failed.append(error)

    async with pkg.AsyncClient.http(
        proxy.endpoint, transport="http", timeout=30, retries=fast(pkg), drift_check=False
    ) as client:
        proxy.gateway(status_after(404))
        with anyio.fail_after(30):
            async with anyio.create_task_group() as group:
                for index in range(6):
                    group.start_soon(call, index)
    assert len(failed) == 6
    assert all(served.runs[f"bump:c{index}"] == 1 for index in range(6))
    assert proxy.reached("initialize") == 2


async def test_a_notification_a_gateway_never_answers_does_not_stall_the_session(
    pkg: ModuleType, served: Served
) -> None:
    """The SDK sends a session's messages one after the other: a `notifications/initialized` POST held forever
    would hold up every later request (the drift check's `tools/list`, then every call)."""
    proxy = served.proxy
    proxy.plan(hold(), method="notifications/initialized")
    with anyio.fail_after(60):  # a hang guard: without the fix the client never got past connecting, nor closed
        async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=fast(pkg)) as client:
            assert await client.bump(key="held") == 1
    assert [entry.fault for entry in proxy.trace if entry.method == "notifications/initialized"] == ["hold"]


async def test_connecting_behind_a_404_gateway_costs_one_renewal(pkg: ModuleType, served: Served) -> None:
    proxy = served.proxy
    proxy.gateway(status(404))  # the handshake carries no session id: it goes through; the drift check does not
    async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=fast(pkg)) as client:
        assert proxy.reached("initialize") == 1
        with pytest.raises(pkg.HttpStatusError) as caught:
            await client.read_value(key="k")
        assert caught.value.status == 404
    assert proxy.reached("initialize") == 2
    assert proxy.reached("tools/call") == 0


async def test_a_session_expiring_under_calls_in_flight_is_renewed_once_and_cuts_none(
    pkg: ModuleType, served: Served
) -> None:
    proxy, runs = served.proxy, served.runs
    heard = anyio.Event()
    held: dict[str, str] = {}
    fresh: dict[str, int] = {}

    async def hold(key: str) -> None:
        held[key] = await client.hold(key=key)

    async def bump(key: str) -> None:
        fresh[key] = await client.bump(key=key)

    async with pkg.AsyncClient.http(
        proxy.endpoint,
        transport="http",
        timeout=30,
        retries=fast(pkg),
        on_change=lambda _kind: heard.set(),
        drift_check=False,
    ) as client:
        with anyio.fail_after(30):
            async with anyio.create_task_group() as group:
                for index in range(4):
                    group.start_soon(hold, f"h{index}")
                while sum(runs[f"hold:h{index}"] for index in range(4)) < 4:
                    await anyio.sleep(0.05)  # all four reached the server and wait on the gate
                proxy.expire_sessions(PYTHON_SDK_404)
                async with anyio.create_task_group() as later:
                    for index in range(6):
                        later.start_soon(bump, f"b{index}")
                served.gate.set()  # the held calls answer on the old session's exchanges
            assert await client.announce() == "announced"
            await heard.wait()  # the notification came on the new session's GET stream
    assert held == {f"h{index}": f"h{index}" for index in range(4)}
    assert fresh == {f"b{index}": 1 for index in range(6)}
    assert all(runs[f"hold:h{index}"] == 1 for index in range(4))
    assert proxy.reached("initialize") == 2  # six refusals, one new session


@pytest.mark.parametrize(
    "fault",
    [lambda: status(503, retry_after=0), lambda: status(429, retry_after=1), drop_before, drop_after],
    ids=["503", "429", "dropped", "dropped-after"],
)
async def test_connect_goes_through_a_fault_on_initialize(pkg: ModuleType, served: Served, fault: object) -> None:
    proxy = served.proxy
    proxy.plan(fault(), method="initialize")  # type: ignore[operator]
    started = time.monotonic()
    async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=fast(pkg)) as client:
        assert await client.bump(key="c") == 1
    assert proxy.pending == 0
    if proxy.log[0].fault == "status(429)":
        assert time.monotonic() - started >= 0.95  # the Retry-After floor, not the 10 ms backoff


async def test_connect_through_a_reset_connection_and_a_server_that_stays_down(pkg: ModuleType, served: Served) -> None:
    proxy = served.proxy
    proxy.reset_connections(1)
    async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=fast(pkg)) as client:
        assert await client.bump(key="r") == 1
    proxy.pause()
    with pytest.raises(pkg.ConnectError, match="connection refused"):
        async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=3, retries=fast(pkg)):
            pass
    proxy.resume()
    with pytest.raises(pkg.ConnectError, match="HTTP 503"):  # retries spent: the last cause is named
        proxy.plan(*[status(503, retry_after=0)] * 3, method="initialize")
        async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=fast(pkg, max_retries=2)):
            pass


async def test_a_bare_503_after_forwarding_may_have_run_and_an_unsafe_call_is_not_repeated(
    pkg: ModuleType, served: Served
) -> None:
    proxy = served.proxy
    async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=fast(pkg)) as client:
        proxy.plan(status_after(503), tool="bump")  # a gateway's "upstream reset": no Retry-After
        with pytest.raises(pkg.OutcomeUnknownError):
            await client.bump(key="g")
        proxy.plan(status_after(503), tool="read_value")
        assert await client.read_value(key="g") == 1  # safe to repeat: sent again
    assert served.runs["bump:g"] == 1
    assert served.runs["read_value:g"] == 2


async def test_a_503_carrying_the_servers_own_error_is_that_error(pkg: ModuleType, served: Served) -> None:
    proxy = served.proxy
    own = status(
        503, retry_after=1, body=rpc_error(-32000, "Overloaded, come back later"), content_type="application/json"
    )
    async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=fast(pkg)) as client:
        proxy.plan(own, tool="read_value")
        with pytest.raises(pkg.ServerRequestError) as caught:
            await client.read_value(key="o")
        assert caught.value.code == -32000 and "Overloaded" in str(caught.value)
    assert proxy.pending == 0 and proxy.reached("tools/call", "read_value") == 0


async def test_a_servers_32000_error_reaches_the_caller_sent_once_over_http(pkg: ModuleType, served: Served) -> None:
    async with pkg.AsyncClient.http(served.proxy.endpoint, transport="http", timeout=20, retries=fast(pkg)) as client:
        with pytest.raises(pkg.ServerRequestError) as caught:
            await client.limited(key="h")
        assert not isinstance(caught.value, pkg.ConnectionClosedError)
        assert caught.value.code == -32000 and "Rate limit exceeded" in str(caught.value)
    assert served.runs["limited:h"] == 1
    assert served.proxy.reached("initialize") == 1


async def test_a_servers_32000_error_reaches_the_caller_sent_once_over_stdio(pkg: ModuleType) -> None:
    async with pkg.AsyncClient.stdio(sys.executable, [str(SERVER)], timeout=30, stderr="discard") as client:
        first = await client.pid()
        with pytest.raises(pkg.ServerRequestError) as caught:
            await client.limited(key="s")
        assert caught.value.code == -32000 and "Rate limit exceeded" in str(caught.value)
        assert not isinstance(caught.value, pkg.ConnectionClosedError)
        assert await client.pid() == first  # the server was not started again


async def test_repeatable_holds_by_python_name(pkg: ModuleType, served: Served) -> None:
    proxy = served.proxy
    policy = fast(pkg, repeatable={"get_user": False})  # wire name: get-user
    async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=policy) as client:
        proxy.plan(drop_after(), tool="get-user")
        with pytest.raises(pkg.OutcomeUnknownError):
            await client.get_user(key="u")
        proxy.plan(drop_after(), tool="get-user")
        assert await client.with_options(retries=fast(pkg)).get_user(key="u") == "u"  # read-only: repeated
    assert served.runs["get-user:u"] == 3


def _start_everything(port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [install.node_executable(), str(install.ENTRY_POINT), "streamableHttp"],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


async def _wait_listening(port: int) -> None:
    with anyio.fail_after(30):
        while True:
            try:
                stream = await anyio.connect_tcp(HOST, port)
            except OSError:
                await anyio.sleep(0.1)
                continue
            await stream.aclose()
            return


async def test_server_everything_killed_and_restarted_on_its_port_gets_a_new_session(
    everything: ModuleType, everything_command: list[str]
) -> None:
    """Its HTTP front answers an unknown session with 400 "No valid session ID provided"."""
    port = free_port()
    url = f"http://{HOST}:{port}/mcp"
    server = _start_everything(port)
    try:
        await _wait_listening(port)
        async with everything.AsyncClient.http(url, transport="http", timeout=30, drift_check=False) as client:
            assert "before" in str((await client.echo(message="before")).text)
            server.send_signal(signal.SIGKILL)
            server.wait(30)
            server = _start_everything(port)
            await _wait_listening(port)
            with anyio.fail_after(60):
                assert "after" in str((await client.echo(message="after")).text)  # read-only
                toggled = await client.toggle_simulated_logging()  # not safe to repeat: it was refused, not run
            assert not toggled.is_error
    finally:
        server.kill()
        server.wait(30)


async def test_a_get_stream_closed_right_after_opening_is_reopened_with_backoff(
    pkg: ModuleType, served: Served, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    proxy = served.proxy
    proxy.cut_streams()  # every GET stream ends as soon as its head came
    async with pkg.AsyncClient.http(
        proxy.endpoint, transport="http", timeout=20, retries=fast(pkg), drift_check=False
    ) as client:
        with anyio.fail_after(60):
            while proxy.reached("GET") < 4:  # three pauses show the doubling (the cap: the test below)
                await anyio.sleep(0.1)
        assert await client.bump(key="s") == 1
    pauses = [float(found) for found in re.findall(r"reopening in ([0-9.]+) s", caplog.text)]
    assert pauses[:3] == [0.5, 1.0, 2.0]


def test_the_get_streams_backoff_doubles_up_to_its_cap_and_resets_after_a_stream_that_lived() -> None:
    from mcp_codegen_runtime.connection.resilient_http import StreamBackoff

    backoff = StreamBackoff()
    assert [backoff.next_pause(0.0, None) for _ in range(8)] == [0.5, 1, 2, 4, 8, 16, 30, 30]
    assert backoff.next_pause(30.0, None) == 0.5  # it stayed open as long as the wait before it
    assert backoff.next_pause(0.0, 3000) == 3.0  # never shorter than the server's `retry`


async def test_a_failed_reconnect_leaves_the_connection_watched(pkg: ModuleType, tmp_path: Path) -> None:
    """The connection tells the client when it ends (`on_close`), also after a reconnect that failed."""
    script, away = tmp_path / "faults_server.py", tmp_path / "away.py"
    shutil.copy(SERVER, script)
    async with pkg.AsyncClient.stdio(
        sys.executable, [str(script)], timeout=30, stderr="discard", retries=fast(pkg), drift_check=False
    ) as client:
        script.rename(away)
        with pytest.raises(pkg.ConnectError):
            await client.reconnect()
        away.rename(script)
        await client.reconnect()
        assert await client.bump(key="w") == 1
    assert client.closed  # the connection's end reached the client
    with pytest.raises(pkg.ConnectionClosedError, match="the client was closed"):
        await client.bump(key="w")
