"""Live updates and resilient sessions against a real stdio server (tests/runtime/live_server.py).

A package is generated from the server's snapshot (taken with the CLI); its client hears
`notifications/tools/list_changed` (re-lists, checks drift, calls `on_change`), fails at once with
`OutcomeUnknownError` when the server dies mid-call (exit code and stderr in the message, the call never
replayed), starts the server again for the next call, and `reconnect()` does so on demand. Bounds are hang
guards, not timing assertions.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import anyio
import pytest
from helpers import imported_package

from mcp_codegen.cli import cli
from mcp_codegen_runtime.server_requests import ListChanged

pytestmark = pytest.mark.anyio

SERVER = Path(__file__).resolve().parent / "live_server.py"


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("live")
    snapshot = root / "snapshot.json"
    arguments = ["snapshot", "--stdio", f"{sys.executable} {SERVER}", "-o", str(snapshot), "-q"]
    assert cli.main(args=arguments, standalone_mode=False) in (None, 0)
    target = root / "live_client"
    arguments = ["generate", "--snapshot", str(snapshot), "-o", str(target), "-q"]
    assert cli.main(args=arguments, standalone_mode=False) in (None, 0)
    with imported_package(target) as package:
        yield package


async def test_list_changed_relists_checks_drift_and_calls_on_change(live: ModuleType) -> None:
    events: list[ListChanged] = []
    arrived = anyio.Event()

    async def on_change(event: ListChanged) -> None:
        events.append(event)
        arrived.set()

    async with live.AsyncClient.connect(timeout=30, stderr="discard", on_change=on_change) as client:
        assert await client.grow() == "grown"
        with anyio.fail_after(30):
            await arrived.wait()
        grown = events[-1]
        assert grown.kind == "tools"
        assert "extra" in {tool.name for tool in grown.items}
        assert grown.drift is not None and "extra" in str(grown.drift)

        arrived = anyio.Event()
        assert await client.shrink() == "shrunk"
        with anyio.fail_after(30):
            await arrived.wait()
        shrunk = events[-1]
        assert "echo" not in {tool.name for tool in shrunk.items}
        assert shrunk.drift is not None and "echo" in str(shrunk.drift)


async def test_a_failing_on_change_handler_does_not_end_the_session(live: ModuleType) -> None:
    called = anyio.Event()

    def broken(event: ListChanged) -> None:
        called.set()
        raise RuntimeError("the user's handler is broken")

    async with live.AsyncClient.connect(timeout=30, stderr="discard", on_change=broken) as client:
        await client.grow()
        with anyio.fail_after(30):
            await called.wait()
        assert await client.echo(text="still here") == "still here"


async def test_a_server_dying_mid_call_fails_the_call_at_once_and_the_next_call_restarts_it(live: ModuleType) -> None:
    async with live.AsyncClient.connect(timeout=60, stderr="discard") as client:
        with anyio.fail_after(30), pytest.raises(live.OutcomeUnknownError) as caught:
            await client.crash(code=7)
        assert client.closed
        assert await client.echo(text="after the crash") == "after the crash"  # a new process, by itself
        assert not client.closed
        await client.reconnect()  # and on demand
        assert await client.echo(text="back") == "back"
        assert await client.with_options(timeout=10).echo(text="view") == "view"  # views use the new session
    message = str(caught.value)
    assert "may have run it" in message
    assert "live_server.py" in message or "python" in message
    assert "exited with code 7" in message and "live-server: crashing with code 7" in message


def test_the_blocking_client_reconnects_too(live: ModuleType) -> None:
    with live.Client.connect(timeout=60, stderr="discard") as client:
        with pytest.raises(live.OutcomeUnknownError):
            client.crash(code=3)
        assert client.echo(text="sync") == "sync"
        client.reconnect()
        assert client.echo(text="again") == "again"


async def test_reconnect_reports_a_server_that_cannot_be_started(live: ModuleType, tmp_path: Path) -> None:
    moved = tmp_path / "gone.py"
    moved.write_text(SERVER.read_text(encoding="utf-8"), encoding="utf-8")
    async with live.AsyncClient.stdio(sys.executable, [str(moved)], timeout=30, stderr="discard") as client:
        moved.unlink()
        with pytest.raises(live.OutcomeUnknownError):
            await client.crash(code=1)
        with pytest.raises(live.ConnectError, match="cannot reconnect"):
            await client.reconnect()
        assert client.closed
        with anyio.fail_after(30), pytest.raises(live.ConnectionClosedError, match="reconnecting failed"):
            await client.with_options(retries=1).echo(text="no server")


# --------------------------------------------------------------------------------------------------
# Streamable HTTP: a restarted server no longer knows the session (HTTP 404), as an expired one
# --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    snapshot = Path(__file__).resolve().parents[2] / "generated_examples" / "demo_client" / "snapshot.json"
    target = tmp_path_factory.mktemp("live-http") / "live_demo_client"
    arguments = ["generate", "--snapshot", str(snapshot), "-o", str(target), "-q"]
    assert cli.main(args=arguments, standalone_mode=False) in (None, 0)
    with imported_package(target) as package:
        yield package


async def test_a_restarted_http_server_gets_a_new_session(demo: ModuleType) -> None:
    from servers.helpers import HOST, serve_app

    from mcp_codegen.demo.server import build_server

    with serve_app(build_server().streamable_http_app(host=HOST)) as base:
        port = int(base.rsplit(":", 1)[1])
        client_context = demo.AsyncClient.http(base + "/mcp", timeout=20, transport="http")
        client = await client_context.__aenter__()
        try:
            assert await client.add(a=1, b=2) == 3
        except BaseException:
            await client_context.__aexit__(None, None, None)
            raise
    try:
        with serve_app(
            build_server().streamable_http_app(host=HOST), port=port
        ):  # the same address, a new process state
            assert await client.add(a=5, b=5) == 10
            assert not client.closed
    finally:
        await client_context.__aexit__(None, None, None)
