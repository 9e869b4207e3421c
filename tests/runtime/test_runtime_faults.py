"""Failures in transit through a fault-injecting proxy (tests/servers/fault_proxy.py) in front of a real server.

The server (tests/runtime/faults_server.py, streamable HTTP on 127.0.0.1, JSON and SSE answers) counts every
call that reached a handler, so each test can say what ran and how often: what was not processed is retried
for every request, what may have run only for read-only or idempotent tools (or those `Retries.repeatable`
names), and a call that may have run and is not safe to repeat raises `OutcomeUnknownError` and is never sent
twice. A failed request never ends the session. Bounds on durations are hang guards or the lower bound a
`Retry-After` sets, never speed assertions.
"""

from __future__ import annotations

import json
import logging
import random
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
from faults_server import build_server
from helpers import imported_package
from servers.fault_proxy import (
    FaultProxy,
    drop_after,
    drop_before,
    drop_mid,
    reset,
    status,
    status_after,
)
from servers.helpers import HOST, serve_app

from mcp_codegen.cli import cli

pytestmark = pytest.mark.anyio

SERVER = Path(__file__).resolve().parent / "faults_server.py"
#: Short waits, so the tests spend their time on calls, not on backoff.
FAST = {"initial_delay": 0.01, "max_delay": 0.05}


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("faults")
    snapshot = root / "snapshot.json"
    arguments = ["snapshot", "--stdio", f"{sys.executable} {SERVER}", "-o", str(snapshot), "-q"]
    assert cli.main(args=arguments, standalone_mode=False) in (None, 0)
    target = root / "faults_client"
    arguments = ["generate", "--snapshot", str(snapshot), "-o", str(target), "-q", "--cli"]
    assert cli.main(args=arguments, standalone_mode=False) in (None, 0)
    with imported_package(target) as package:
        yield package


class Served:
    """The counting server behind the proxy: `runs` says what reached a handler."""

    def __init__(self, runs: Counter[str], proxy: FaultProxy) -> None:
        self.runs = runs
        self.proxy = proxy


@pytest.fixture(params=["sse", "json"])
def served(request: pytest.FixtureRequest) -> Iterator[Served]:
    runs: Counter[str] = Counter()
    app = build_server(runs).streamable_http_app(host=HOST, json_response=request.param == "json")
    with serve_app(app) as base, FaultProxy(base + "/mcp") as proxy:
        yield Served(runs, proxy)


def fast(pkg: ModuleType, **overrides: object) -> object:
    return pkg.Retries(**{**FAST, **overrides})


async def test_429_and_503_are_retried_for_every_tool_and_retry_after_is_waited(
    pkg: ModuleType, served: Served
) -> None:
    proxy = served.proxy
    async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=fast(pkg)) as client:
        proxy.plan(status(503, retry_after=0), status(503, retry_after=0), tool="bump")
        assert await client.bump(key="a") == 1
        proxy.plan(status(429, retry_after=1), tool="bump")
        started = time.monotonic()
        assert await client.bump(key="a") == 2
        assert time.monotonic() - started >= 0.95  # the Retry-After floor, not the 10 ms backoff
    assert served.runs["bump:a"] == 2  # refused requests never reached the server
    assert [entry.fault for entry in proxy.log] == ["status(503)", "status(503)", None, "status(429)", None]
    assert proxy.reached("initialize") == 1  # one session throughout


async def test_a_call_without_a_fault_costs_no_extra_attempt(pkg: ModuleType, served: Served) -> None:
    async with pkg.AsyncClient.http(served.proxy.endpoint, transport="http", timeout=20) as client:
        for _ in range(5):
            await client.bump(key="once")
    assert served.runs["bump:once"] == 5
    assert served.proxy.reached("tools/call", "bump") == 5


@pytest.mark.parametrize("fault", [drop_after, drop_mid, drop_before, reset, lambda: status_after(502)])
@pytest.mark.parametrize("tool", ["read_value", "put"])  # readOnlyHint + idempotentHint; idempotentHint alone
async def test_a_tool_safe_to_repeat_is_retried_after_any_dropped_connection(
    pkg: ModuleType, served: Served, fault: object, tool: str
) -> None:
    proxy = served.proxy
    async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=fast(pkg)) as client:
        proxy.plan(fault(), fault(), tool=tool)  # type: ignore[operator]
        if tool == "read_value":
            assert await client.read_value(key="r") == 0
        else:
            assert await client.put(key="r", value=3) == 3
        assert await client.bump(key="r2") == 1  # the session is still the same
    assert proxy.reached("initialize") == 1
    assert [entry.fault for entry in proxy.log if entry.tool == tool][-1] is None  # the third try went through


@pytest.mark.parametrize("fault", [drop_after, drop_mid, lambda: status_after(504), lambda: status_after(502)])
async def test_a_tool_that_ran_and_is_not_safe_to_repeat_is_never_sent_twice(
    pkg: ModuleType, served: Served, fault: object
) -> None:
    proxy = served.proxy
    async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=fast(pkg)) as client:
        proxy.plan(fault(), tool="bump")  # type: ignore[operator]
        with pytest.raises(pkg.OutcomeUnknownError) as caught:
            await client.bump(key="b")
        assert isinstance(caught.value, pkg.ConnectionClosedError)
        assert caught.value.tool == "bump" and "may have run it" in str(caught.value)
        assert served.runs["bump:b"] == 1  # it ran, once
        assert await client.bump(key="b") == 2  # the session goes on
        assert not client.closed
    assert served.runs["bump:b"] == 2
    assert proxy.reached("initialize") == 1


async def test_a_request_dropped_before_the_server_saw_it_still_may_have_run_for_the_client(
    pkg: ModuleType, served: Served
) -> None:
    """From the client's side a written request whose connection dropped is ambiguous: never repeated."""
    proxy = served.proxy
    async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=fast(pkg)) as client:
        proxy.plan(drop_before(), tool="bump")
        with pytest.raises(pkg.OutcomeUnknownError):
            await client.bump(key="c")
        assert await client.bump(key="c") == 1
    assert served.runs["bump:c"] == 1


async def test_repeatable_overrides_the_annotations_both_ways(pkg: ModuleType, served: Served) -> None:
    proxy = served.proxy
    safe = fast(pkg, repeatable={"bump": True, "read_value": False})
    async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=safe) as client:
        proxy.plan(drop_after(), tool="bump")
        assert await client.bump(key="d") == 2  # the user said so: it ran twice
        proxy.plan(drop_after(), tool="read_value")
        with pytest.raises(pkg.OutcomeUnknownError):
            await client.read_value(key="d")
    assert served.runs["bump:d"] == 2


async def test_errors_and_refusals_are_never_retried(pkg: ModuleType, served: Served) -> None:
    proxy = served.proxy
    async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=fast(pkg)) as client:
        with pytest.raises(pkg.ToolError):
            await client.fail(key="e")
        assert served.runs["fail:e"] == 1
        for code in (400, 403, 500):
            proxy.plan(status(code), tool="read_value")
            with pytest.raises(pkg.HttpStatusError) as caught:
                await client.read_value(key="e")
            assert caught.value.status == code
        with pytest.raises(pkg.ArgumentsValidationError):
            await client.call("bump", {"key": 1})
    assert proxy.reached("tools/call", "read_value") == 0  # the refused ones were never forwarded
    assert [entry.fault for entry in proxy.log if entry.tool == "read_value"] == [
        "status(400)",
        "status(403)",
        "status(500)",
    ]


async def test_a_404_to_a_request_with_a_session_means_a_new_session_whatever_its_body(
    pkg: ModuleType, served: Served
) -> None:
    """The spec's rule is on the status: a 404 for a request that carried `Mcp-Session-Id` (where the session
    refuses a ping too: see test_runtime_sessions for a 404 that is not about the session)."""
    proxy = served.proxy
    unknown = '{"jsonrpc": "2.0", "id": null, "error": {"code": -32601, "message": "Method not found"}}'
    async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=fast(pkg)) as client:
        proxy.expire_sessions(status(404, body=unknown, content_type="application/json"))
        assert await client.read_value(key="n") == 0
        proxy.expire_sessions(status(404))  # a bare 404 too
        assert await client.read_value(key="n") == 0
    assert proxy.reached("initialize") == 3


async def test_retries_0_turns_retrying_off_and_a_spent_budget_keeps_the_status(
    pkg: ModuleType, served: Served
) -> None:
    proxy = served.proxy
    async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=0) as client:
        proxy.plan(status(503, retry_after=0), tool="read_value")
        with pytest.raises(pkg.HttpStatusError) as caught:
            await client.read_value(key="f")
        assert caught.value.status == 503
        proxy.plan(*[status(429, retry_after=0)] * 3, tool="read_value")
        with pytest.raises(pkg.HttpStatusError):
            await client.with_options(retries=pkg.Retries(max_retries=2, **FAST)).read_value(key="f")
        assert proxy.pending == 0  # the first try and two retries
        assert await client.read_value(key="f") == 0


async def test_a_retry_never_outlives_the_call_timeout(pkg: ModuleType, served: Served) -> None:
    proxy = served.proxy
    async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20) as client:
        proxy.plan(status(503, retry_after=30), tool="read_value")
        # A 30 s wait would end past the call's 20 s: not made, so the status comes back long before
        # either (waiting out the Retry-After, or the call's time, would trip the 10 s guard).
        with anyio.fail_after(10), pytest.raises(pkg.HttpStatusError):
            await client.with_options(timeout=20).read_value(key="g")
        assert [entry.fault for entry in proxy.log if entry.tool == "read_value"] == ["status(503)"]  # no retry
        # 3 s apart, a retry fits in 5 s and the next does not: the call gives up with the status
        # about 2 s before its end, so a slow round trip on a loaded machine never reaches the deadline.
        proxy.plan(*[status(503, retry_after=3)] * 50, tool="read_value")
        with anyio.fail_after(10), pytest.raises(pkg.HttpStatusError):
            await client.with_options(timeout=5, retries=50).read_value(key="g")
        assert proxy.pending > 0  # the call's time ended the retries, not the 50 allowed
        proxy.clear()


async def test_every_request_kind_is_retried_listings_reads_prompts_and_raw_calls(
    pkg: ModuleType, served: Served
) -> None:
    proxy = served.proxy
    async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=fast(pkg)) as client:
        proxy.plan(drop_after(), method="tools/list")
        assert {tool.name for tool in await client.list_tools()} >= {"bump", "read_value"}
        proxy.plan(drop_after(), method="ping")
        await client.ping()
        proxy.plan(status(503, retry_after=0), tool="bump")
        assert (await client.call_raw("bump", {"key": "h"})).structured == {"result": 1}
        proxy.plan(drop_after(), tool="read_value")
        assert await client.call("read_value", {"key": "h"}) == 1
        proxy.plan(drop_after(), tool="bump")
        with pytest.raises(pkg.OutcomeUnknownError):
            await client.call_raw("bump", {"key": "h"})
    assert served.runs["bump:h"] == 2


async def test_agent_tools_are_retried_the_same_way(pkg: ModuleType, served: Served) -> None:
    proxy = served.proxy
    async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=fast(pkg)) as client:
        tools = client.tools()
        proxy.plan(status(503, retry_after=0), drop_after(), tool="read_value")
        assert await tools["read_value"].call({"key": "i"}) == 0
        proxy.plan(drop_after(), tool="bump")
        with pytest.raises(pkg.OutcomeUnknownError):
            await tools["bump"].call({"key": "i"})
    assert served.runs["bump:i"] == 1


def test_the_blocking_client_retries_too(pkg: ModuleType, served: Served) -> None:
    proxy = served.proxy
    with pkg.Client.http(proxy.endpoint, transport="http", timeout=20, retries=fast(pkg)) as client:
        proxy.plan(status(503, retry_after=0), tool="bump")
        assert client.bump(key="j") == 1
        proxy.plan(drop_after(), tool="read_value")
        assert client.read_value(key="j") == 1
        proxy.plan(drop_after(), tool="bump")
        with pytest.raises(pkg.OutcomeUnknownError):
            client.bump(key="j")
        assert client.bump(key="j") == 3
    assert served.runs["bump:j"] == 3


async def test_each_retry_is_logged_on_one_line(
    pkg: ModuleType, served: Served, caplog: pytest.LogCaptureFixture
) -> None:
    proxy = served.proxy
    caplog.set_level(logging.INFO)
    async with pkg.AsyncClient.http(proxy.endpoint, transport="http", timeout=20, retries=fast(pkg)) as client:
        proxy.plan(status(503, retry_after=0), tool="read_value")
        await client.read_value(key="k")
    lines = [record.getMessage() for record in caplog.records if "retrying" in record.getMessage()]
    assert len(lines) == 1
    assert lines[0].startswith("retrying tools/call request for tool 'read_value' (retry 1 of 5) after HTTP 503")
    assert "\n" not in lines[0]


async def test_a_restarted_http_server_takes_a_call_sent_while_it_was_down_and_runs_it_once(
    pkg: ModuleType,
) -> None:
    runs: Counter[str] = Counter()
    with serve_app(build_server(runs).streamable_http_app(host=HOST)) as base:
        port = int(base.rsplit(":", 1)[1])
        connection = pkg.AsyncClient.http(base + "/mcp", transport="http", timeout=30)
        client = await connection.__aenter__()
        try:
            assert await client.bump(key="restart") == 1
        except BaseException:
            await connection.__aexit__(None, None, None)
            raise
    # Down now; back on the same port in 1.5 s, with none of its sessions.
    back = threading.Event()
    stop = threading.Event()

    def serve_again() -> None:
        time.sleep(1.5)
        with serve_app(build_server(runs).streamable_http_app(host=HOST), port=port):
            back.set()
            stop.wait(60)

    thread = threading.Thread(target=serve_again, daemon=True)
    thread.start()
    try:
        with anyio.fail_after(30):
            assert await client.bump(key="restart") == 1  # the new server's counter: it ran there once
        assert back.is_set()
        assert runs["bump:restart"] == 2  # once on each server
    finally:
        stop.set()
        await connection.__aexit__(None, None, None)
        thread.join(15)


def _exited(pid: int) -> bool:
    """Whether process `pid` has exited (gone, or a zombie its parent has yet to reap)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z"
    except FileNotFoundError:
        return True


async def test_a_stdio_server_that_exited_between_calls_is_started_again(pkg: ModuleType) -> None:
    import os
    import signal

    async with pkg.AsyncClient.stdio(sys.executable, [str(SERVER)], timeout=30, stderr="discard") as client:
        first = await client.pid()
        os.kill(first, signal.SIGKILL)
        with anyio.fail_after(30):
            while not _exited(first):
                await anyio.sleep(0.05)
            # One turn of the event loop after the exit: the client's reader meets the end of the pipe
            # (a zombie's pipes are closed) before the call below is sent.
            await anyio.sleep(0.05)
            assert await client.bump(key="s") == 1  # not processed by the dead one: sent to a new process
            second = await client.pid()
        assert second != first


async def test_calls_in_flight_when_a_stdio_server_dies_share_one_new_process(pkg: ModuleType) -> None:
    import os
    import signal

    async with pkg.AsyncClient.stdio(sys.executable, [str(SERVER)], timeout=30, stderr="discard") as client:
        first = await client.pid()
        pids: list[int] = []

        async def napping() -> None:
            pids.append(await client.nap(seconds=5))

        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:
                for _ in range(5):
                    group.start_soon(napping)
                while await client.napping() < 5:
                    await anyio.sleep(0.05)
                os.kill(first, signal.SIGKILL)  # all five are in flight: read-only, so each is sent again
        assert len(pids) == 5 and len(set(pids)) == 1 and pids[0] != first
        assert await client.pid() == pids[0]


async def test_a_randomized_run_of_1000_calls_never_repeats_an_unsafe_call(pkg: ModuleType) -> None:
    """Chaos on every tools/call, and the session expiring three times mid-run (as the Python SDK, the
    TypeScript SDK and server-everything say it); each `bump` uses its own key, so the server's counts show
    any repeat."""
    runs: Counter[str] = Counter()
    faults = [
        status(503, retry_after=0),
        status(429, retry_after=0),
        drop_before(),
        drop_after(),
        drop_mid(),
        status_after(502),
        status_after(504),
    ]
    rng = random.Random(7)
    timeout = 10.0
    outcomes: Counter[str] = Counter()
    bumped: dict[str, str] = {}
    longest = 0.0
    with serve_app(build_server(runs).streamable_http_app(host=HOST, json_response=True)) as base:
        with FaultProxy(base + "/mcp") as proxy:
            proxy.chaos(0.3, faults, seed=11)
            async with pkg.AsyncClient.http(
                proxy.endpoint, transport="http", timeout=timeout, retries=fast(pkg, max_retries=8)
            ) as client:

                async def one(index: int) -> None:
                    nonlocal longest
                    tool = rng.choice(["bump", "read_value", "put"])
                    started = time.monotonic()
                    try:
                        if tool == "bump":
                            await client.bump(key=f"k{index}")
                        elif tool == "read_value":
                            await client.read_value(key=f"k{index}")
                        else:
                            await client.put(key=f"k{index}", value=index)
                        outcomes[f"{tool}:ok"] += 1
                        if tool == "bump":
                            bumped[f"bump:k{index}"] = "ok"
                    except pkg.OutcomeUnknownError:
                        assert tool == "bump", f"{tool} is safe to repeat"
                        outcomes[f"{tool}:unknown"] += 1
                    longest = max(longest, time.monotonic() - started)

                expiries = {25: 404, 50: 400, 75: 404}
                for batch in range(100):
                    async with anyio.create_task_group() as group:
                        for index in range(batch * 10, batch * 10 + 10):
                            group.start_soon(one, index)
                        if batch in expiries:  # with this batch's calls starting or in flight
                            await anyio.sleep(0)
                            message = "Session not found" if expiries[batch] == 404 else "No valid session ID"
                            body = json.dumps({"jsonrpc": "2.0", "error": {"code": -32000, "message": message}})
                            proxy.expire_sessions(status(expiries[batch], body=body, content_type="application/json"))
    bumps = {key: count for key, count in runs.items() if key.startswith("bump:")}
    assert max(bumps.values()) == 1  # no unsafe call ran twice
    for key, outcome in bumped.items():
        if outcome == "ok":
            assert runs[key] == 1, key  # answered: it ran exactly once
    # Every call whose faults all said "not processed" (429, 503) succeeded: only a call that met a
    # maybe-processed fault may end unknown.
    maybe = {"drop_before", "drop_after", "drop_mid", "status_after(502)", "status_after(504)"}
    hit = Counter(entry.tool for entry in proxy.log if entry.fault in maybe)
    assert outcomes["bump:unknown"] <= hit["bump"]  # no call failed without a fault of its own
    assert any(str(entry.fault).startswith("expired(") for entry in proxy.log)  # refused, then succeeded
    assert outcomes["read_value:ok"] + outcomes["put:ok"] + outcomes["bump:ok"] + outcomes["bump:unknown"] == 1000
    assert outcomes["bump:unknown"] > 0 and outcomes["bump:ok"] > 0  # both paths were exercised
    assert longest < timeout + 1  # no call outlived its timeout (one second for the event loop's slack)
    assert proxy.reached("initialize") == 1 + len(expiries)  # one new session for each expiry, however many learnt it


def test_the_command_line_retries_and_says_when_a_call_may_have_run(pkg: ModuleType, served: Served) -> None:
    from cli.test_generated_cli import run_cli

    package = Path(pkg.__file__).parent

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return run_cli(package, *args)

    served.proxy.plan(status(503, retry_after=0), tool="bump")
    ok = run("--url", served.proxy.endpoint, "bump", "--key", "cli")
    assert ok.returncode == 0, ok.stderr
    assert served.runs["bump:cli"] == 1
    served.proxy.plan(status(503, retry_after=0), tool="bump")
    refused = run("--url", served.proxy.endpoint, "--retries", "0", "bump", "--key", "cli")
    assert refused.returncode == 3 and "503" in refused.stderr, refused.stderr
    crashed = run("--stdio", f"{sys.executable} {SERVER}", "crash")
    assert crashed.returncode == 5, crashed.stderr
    assert "may have run it" in crashed.stderr and len(crashed.stderr.strip().splitlines()) == 1


async def test_the_standing_get_stream_comes_back_after_the_server_was_unreachable(pkg: ModuleType) -> None:
    """The SDK's transport gives the GET stream up after two tries a second apart; this one keeps trying."""
    runs: Counter[str] = Counter()
    heard = anyio.Event()

    def on_change(_event: object) -> None:
        heard.set()

    app = build_server(runs).streamable_http_app(host=HOST, json_response=True)
    with serve_app(app) as base, FaultProxy(base + "/mcp") as proxy:
        async with pkg.AsyncClient.http(
            proxy.endpoint, transport="http", timeout=20, on_change=on_change, drift_check=False
        ) as client:
            with anyio.fail_after(10):
                while proxy.reached("GET") < 1:
                    await anyio.sleep(0.05)
            proxy.pause()  # the GET stream breaks and every reconnect is refused, for 4 s
            await anyio.sleep(4)
            opened = proxy.reached("GET")
            proxy.resume()
            with anyio.fail_after(20):
                while proxy.reached("GET") == opened:
                    await anyio.sleep(0.05)
                assert await client.announce() == "announced"
                await heard.wait()  # the notification came on the reopened stream
