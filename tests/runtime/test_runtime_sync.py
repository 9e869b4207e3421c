"""The blocking client: from plain code, from threads, and from inside a running event loop."""

from __future__ import annotations

import asyncio
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakepkg import Client
from fakepkg.models.get_weather import GetWeatherResult
from rt_helpers import HERE, PYTHON, SERVER_SCRIPT, in_memory
from rt_server import build_server

from mcp_codegen_runtime import ConnectError, ConnectionClosedError, ResourceResult, ToolError, ToolResult

SRC = str(HERE.parents[1] / "src")


@pytest.fixture(scope="module")
def stdio_client() -> Iterator[Client]:
    with Client.stdio(PYTHON, [SERVER_SCRIPT], timeout=30) as client:
        yield client


def test_typed_calls_over_stdio(stdio_client: Client) -> None:
    weather = stdio_client.get_weather(city="Rome", units="f")
    assert type(weather) is GetWeatherResult and weather.units == "f"
    assert stdio_client.add(a=2, b=3) == 5
    assert stdio_client.describe() == "7" and stdio_client.describe(b=None) == "None"
    assert stdio_client.call("search", {"query": "s", "maxResults": 1}) == ["s-0"]
    assert isinstance(stdio_client.call("greet_plain", {"name": "x"}), ToolResult)
    assert stdio_client.server_info is not None and stdio_client.server_info.name == "rt-demo"


def test_errors_pass_through_unchanged(stdio_client: Client) -> None:
    with pytest.raises(ToolError) as caught:
        stdio_client.fail(message="sync failure")
    assert type(caught.value) is ToolError and "sync failure" in str(caught.value)


def test_namespaces_and_listings(stdio_client: Client) -> None:
    config = stdio_client.resources.app_config()
    assert type(config) is ResourceResult and config.text == '{"debug": true}'
    assert stdio_client.resources.user_profile(user_id="7").text == "profile of 7"
    assert "(short)" in stdio_client.prompts.review(code="x").text
    assert "add" in {tool.name for tool in stdio_client.list_tools()}
    assert [prompt.name for prompt in stdio_client.list_prompts()] == ["review"]
    assert stdio_client.read_resource("config://app") == config


def test_many_threads_share_one_client(stdio_client: Client) -> None:
    results: dict[int, int] = {}
    errors: list[BaseException] = []

    def work(index: int) -> None:
        try:
            results[index] = stdio_client.add(a=index, b=1)
        except BaseException as error:  # noqa: BLE001 # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(index,)) for index in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not errors
    assert results == {index: index + 1 for index in range(16)}


def test_called_from_inside_a_running_event_loop(stdio_client: Client) -> None:
    async def notebook_cell() -> int:
        # A plain (blocking) call made while this thread's event loop runs, as in Jupyter.
        return stdio_client.add(a=40, b=2)

    assert asyncio.run(asyncio.wait_for(notebook_cell(), 30)) == 42


def test_connect_from_inside_a_running_event_loop() -> None:
    async def notebook_cell() -> str:
        with Client.stdio(PYTHON, [SERVER_SCRIPT], timeout=30) as client:
            return client.describe(b=5)

    assert asyncio.run(notebook_cell()) == "5"


def test_from_async_in_memory_open_and_close() -> None:
    client = Client.from_async(in_memory).open()
    try:
        assert client.add(a=1, b=1) == 2
        assert isinstance(client.resources.app_config(), ResourceResult)
    finally:
        client.close()
    client.close()  # idempotent
    assert client.closed
    with pytest.raises(ConnectionClosedError):
        client.add(a=1, b=1)


def test_in_process_server() -> None:
    with Client.in_process(build_server()) as client:
        assert client.add(a=4, b=4) == 8
        assert client.prompts.review(code="c").messages


def test_connect_and_call_from_a_plain_thread() -> None:
    outcome: list[object] = []

    def work() -> None:
        with Client.in_process(build_server()) as client:
            outcome.append(client.add(a=5, b=6))

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(30)
    assert outcome == [11]


def test_sync_connect_errors() -> None:
    started = time.monotonic()
    with pytest.raises(ConnectError) as caught, Client.stdio("surely-not-a-command-4711"):
        pytest.fail("connected")
    assert type(caught.value) is ConnectError and "command not found" in str(caught.value)
    assert time.monotonic() - started < 10
    with pytest.raises(ConnectError) as no_launch, Client.connect():
        pytest.fail("connected")
    assert "without a launch spec" in str(no_launch.value)


def test_body_exception_and_crash_over_sync() -> None:
    with pytest.raises(KeyError), Client.stdio(PYTHON, [SERVER_SCRIPT], timeout=30) as client:
        with pytest.raises(ConnectionClosedError):
            client.crash()  # OutcomeUnknownError: it may have run
        assert client.add(a=1, b=1) == 2  # on a new server process
        raise KeyError("body")


def test_an_unclosed_client_does_not_keep_the_process_alive(tmp_path: Path) -> None:
    script = tmp_path / "forgetful.py"
    script.write_text(
        "import sys\n"
        f"sys.path[:0] = [{SRC!r}, {str(HERE)!r}]\n"
        "from fakepkg import Client\n"
        f"client = Client.stdio({PYTHON!r}, [{SERVER_SCRIPT!r}], timeout=30).open()\n"
        "print(client.add(a=1, b=2), flush=True)\n"
    )
    started = time.monotonic()
    done = subprocess.run([PYTHON, str(script)], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "3"
    assert time.monotonic() - started < 30
