"""Connectors: stdio and HTTP connections, the recorded launch spec, and one-line connect errors."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

import anyio
import pytest
from fakepkg import AsyncClient
from rt_helpers import PYTHON, SERVER_SCRIPT, auth_app
from rt_server import build_server
from servers.helpers import HOST, serve_app, serve_sse

from mcp_codegen_runtime import ConnectError, ConnectionClosedError, OutcomeUnknownError

pytestmark = pytest.mark.anyio

TOKEN = "s3cret-token-value"


@pytest.fixture(scope="module")
def auth_url() -> Iterator[str]:
    """The test server over streamable HTTP, answering 401 without `Authorization: Bearer <TOKEN>`."""
    app = build_server().streamable_http_app(streamable_http_path="/mcp", host=HOST)
    with serve_app(auth_app(app, "Authorization", f"Bearer {TOKEN}")) as base:
        yield base + "/mcp"


@pytest.fixture(scope="module")
def sse_url() -> Iterator[str]:
    with serve_sse(build_server()) as url:
        yield url


def launch_client(launch: Mapping[str, Any] | None) -> type[AsyncClient]:
    class Launched(AsyncClient):
        _launch: ClassVar[Mapping[str, Any] | None] = launch

    return Launched


async def test_stdio_crash_mid_call_may_have_run_and_the_next_call_starts_the_server_again() -> None:
    async with AsyncClient.stdio(PYTHON, [SERVER_SCRIPT], timeout=30) as client:
        assert await client.add(a=1, b=2) == 3
        with pytest.raises(OutcomeUnknownError) as crashed:
            await client.crash()
        assert crashed.value.tool == "crash" and "may have run it" in str(crashed.value)
        assert "exited with code 1" in str(crashed.value)
        assert client.closed  # the connection is gone until a request needs it
        assert await client.add(a=2, b=2) == 4  # a new server process
        assert not client.closed


async def test_stdio_crash_with_retries_off_fails_later_calls_fast(tmp_path: Path) -> None:
    launches = tmp_path / "launches"
    counted = (  # the test server, counting its launches
        f"open({str(launches)!r}, 'a').write('x\\n'); import runpy; "
        f"runpy.run_path({SERVER_SCRIPT!r}, run_name='__main__')"
    )
    async with AsyncClient.stdio(PYTHON, ["-c", counted], timeout=30, retries=0) as client:
        assert await client.add(a=1, b=2) == 3
        with pytest.raises(OutcomeUnknownError):
            await client.crash()
        for _ in range(3):
            with pytest.raises(ConnectionClosedError) as later:
                await client.add(a=1, b=2)
            assert type(later.value) is ConnectionClosedError
        assert launches.read_text().splitlines() == ["x"]  # fails fast: no server started again
        assert client.closed


async def test_body_exceptions_leave_unwrapped() -> None:
    with pytest.raises(ValueError) as caught:
        async with AsyncClient.stdio(PYTHON, [SERVER_SCRIPT], timeout=30) as client:
            assert await client.add(a=2, b=2) == 4
            raise ValueError("from the body")
    assert type(caught.value) is ValueError and str(caught.value) == "from the body"


async def test_cancelling_the_body_closes_the_connection() -> None:
    with anyio.CancelScope() as scope:
        async with AsyncClient.stdio(PYTHON, [SERVER_SCRIPT], timeout=30) as client:
            started = time.monotonic()
            scope.deadline = anyio.current_time() + 0.5
            await client.slow(seconds=60)
    assert scope.cancelled_caught
    assert time.monotonic() - started < 10
    assert client.closed


async def test_aclose_inside_the_block() -> None:
    async with AsyncClient.stdio(PYTHON, [SERVER_SCRIPT], timeout=30) as client:
        await client.aclose()
        with pytest.raises(ConnectionClosedError):
            await client.add(a=1, b=1)


@pytest.mark.parametrize(
    ("command", "args", "expected"),
    [
        ("surely-not-a-command-4711", [], "command not found: surely-not-a-command-4711"),
        (PYTHON, ["-c", "import sys; sys.exit(3)"], "exited with code 3 before completing initialization"),
        (PYTHON, ["-c", "import time; time.sleep(60)"], "timed out after 1 s"),
        (
            PYTHON,
            ["-c", "print('Welcome to my server!')"],
            "exited with code 0 before completing initialization; it wrote non-JSON to stdout: 'Welcome to my server!'",
        ),
    ],
    ids=["not-found", "exit-code", "silent", "stdout-banner"],
)
async def test_stdio_connect_errors_are_one_line(command: str, args: list[str], expected: str) -> None:
    started = time.monotonic()
    with pytest.raises(ConnectError) as caught:
        async with AsyncClient.stdio(command, args, timeout=1):
            pytest.fail("connected")
    message = str(caught.value)
    assert type(caught.value) is ConnectError
    assert expected in message and "\n" not in message
    assert time.monotonic() - started < 10


async def test_cancelled_while_connecting() -> None:
    started = time.monotonic()
    with anyio.move_on_after(0.5) as scope:
        async with AsyncClient.stdio(PYTHON, ["-c", "import time; time.sleep(60)"], timeout=30):
            pytest.fail("connected")
    assert scope.cancelled_caught
    assert time.monotonic() - started < 10


async def test_http_with_headers(auth_url: str) -> None:
    async with AsyncClient.http(auth_url, headers={"Authorization": f"Bearer {TOKEN}"}, transport="http") as client:
        assert await client.add(a=20, b=22) == 42
        with pytest.raises(ValueError):
            raise ValueError("plain")


async def test_http_401_is_reported_without_the_secret(auth_url: str) -> None:
    with pytest.raises(ConnectError) as caught:
        async with AsyncClient.http(auth_url, headers={"Authorization": "Bearer wrong-value"}):
            pytest.fail("connected")
    message = str(caught.value)
    assert type(caught.value) is ConnectError
    assert "HTTP 401" in message and "Authorization" in message
    assert "wrong-value" not in message and "\n" not in message


async def test_http_connection_refused() -> None:
    with pytest.raises(ConnectError) as caught:
        async with AsyncClient.http("http://127.0.0.1:1/mcp", timeout=5):
            pytest.fail("connected")
    assert "connection refused" in str(caught.value)


async def test_sse_explicit_and_auto_fallback(sse_url: str) -> None:
    async with AsyncClient.http(sse_url, transport="sse") as client:
        assert await client.add(a=1, b=1) == 2
    async with AsyncClient.http(sse_url) as client:  # streamable HTTP is refused, SSE works
        assert await client.describe(b=None) == "None"


async def test_connect_stdio_launch_passes_recorded_env_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RT_TEST_TOKEN", "from-environment")
    monkeypatch.delenv("RT_TEST_MISSING", raising=False)
    client_class = launch_client(
        {
            "transport": "stdio",
            "command": PYTHON,
            "args": [SERVER_SCRIPT],
            "envNames": ["RT_TEST_TOKEN", "RT_TEST_MISSING"],
            "cwd": None,
        }
    )
    async with client_class.connect(timeout=30) as client:
        assert await client.env_value(name="RT_TEST_TOKEN") == "from-environment"
        assert await client.env_value(name="RT_TEST_MISSING") is None  # missing: skipped
    async with client_class.connect(env={"RT_TEST_TOKEN": "explicit"}, timeout=30) as client:
        assert await client.env_value(name="RT_TEST_TOKEN") == "explicit"


async def test_connect_http_launch_expands_header_templates(auth_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    client_class = launch_client(
        {
            "transport": "http",
            "url": auth_url,
            "headers": [{"name": "Authorization", "template": "Bearer ${RT_TEST_API_TOKEN}"}, {"name": "X-Other"}],
        }
    )
    monkeypatch.delenv("RT_TEST_API_TOKEN", raising=False)
    with pytest.raises(ConnectError) as missing:
        async with client_class.connect():
            pytest.fail("connected")
    assert "RT_TEST_API_TOKEN" in str(missing.value)
    # An explicit header wins over the template (whose variable is still missing).
    async with client_class.connect(headers={"Authorization": f"Bearer {TOKEN}"}) as client:
        assert await client.add(a=1, b=2) == 3
    monkeypatch.setenv("RT_TEST_API_TOKEN", TOKEN)
    async with client_class.connect() as client:
        assert await client.add(a=2, b=2) == 4
    monkeypatch.setenv("RT_TEST_API_TOKEN", "wrong")
    with pytest.raises(ConnectError) as rejected:
        async with client_class.connect():
            pytest.fail("connected")
    assert "HTTP 401" in str(rejected.value) and "Authorization" in str(rejected.value)
    assert "wrong" not in str(rejected.value).replace("Authorization", "")


async def test_connect_without_launch_spec() -> None:
    with pytest.raises(ConnectError) as caught:
        async with launch_client(None).connect():
            pytest.fail("connected")
    assert str(caught.value) == "this client was generated from a snapshot without a launch spec"
