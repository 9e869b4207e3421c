"""Where a stdio server's stderr goes (`stderr=`), and what the client tells the server about itself."""

from __future__ import annotations

import io
import logging
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import mcp_types
import pytest
from fakepkg import AsyncClient, Client
from mcp import Client as McpClient
from rt_helpers import HERE, PYTHON
from rt_server import build_server

from mcp_codegen_runtime import ConnectError
from mcp_codegen_runtime.client.toolkit import ToolkitBase

pytestmark = pytest.mark.anyio

SCRIPT = str(HERE / "stderr_server.py")
BIG = 20_000  # lines of stderr: far more than a pipe holds, so an undrained pipe would block the server


async def test_stderr_to_a_text_file_object() -> None:
    sink = io.StringIO()
    async with AsyncClient.stdio(PYTHON, [SCRIPT], stderr=sink, timeout=30) as client:
        assert (await client.call_raw("shout", {"text": "hello from the server", "times": 2})).text == "2"
    assert "stderr-server: starting\n" in sink.getvalue()
    assert sink.getvalue().count("hello from the server\n") == 2


async def test_stderr_to_a_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "server.log"
    with path.open("wb") as sink:
        async with AsyncClient.stdio(PYTHON, [SCRIPT], stderr=sink, timeout=30) as client:
            await client.call_raw("shout", {"text": "bytes äre fine"})
    assert "bytes äre fine\n" in path.read_text("utf-8")


async def test_stderr_to_a_logger(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("tests.stderr_server")
    with caplog.at_level(logging.INFO, logger="tests.stderr_server"):
        async with AsyncClient.stdio(PYTHON, [SCRIPT], stderr=logger, timeout=30) as client:
            await client.call_raw("shout", {"text": "one line, one record"})
    lines = [r.getMessage() for r in caplog.records if r.name == "tests.stderr_server"]
    assert "stderr-server: starting" in lines and "one line, one record" in lines
    assert all(r.levelno == logging.INFO for r in caplog.records if r.name == "tests.stderr_server")


async def test_stderr_discarded_is_still_drained(capfd: pytest.CaptureFixture[str]) -> None:
    async with AsyncClient.stdio(PYTHON, [SCRIPT], stderr="discard", timeout=60) as client:
        result = await client.call_raw("shout", {"text": "x" * 20, "times": BIG})
        assert result.text == str(BIG)
    captured = capfd.readouterr()
    assert "stderr-server" not in captured.err and "xxxx" not in captured.err


async def test_stderr_goes_to_the_package_logger_by_default(
    capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    # The logger `<package>.server` of the client's package (fakepkg's), not the shared runtime's.
    with caplog.at_level(logging.INFO, logger="fakepkg.server"):
        async with AsyncClient.stdio(PYTHON, [SCRIPT], timeout=30) as client:
            await client.call_raw("shout", {"text": "to the log, not the terminal"})
    assert "to the log, not the terminal" not in capfd.readouterr().err
    lines = [(r.getMessage(), r.levelno) for r in caplog.records if r.name == "fakepkg.server"]
    assert ("to the log, not the terminal", logging.INFO) in lines


async def test_stderr_inherited_when_asked(capfd: pytest.CaptureFixture[str]) -> None:
    async with AsyncClient.stdio(PYTHON, [SCRIPT], stderr="inherit", timeout=30) as client:
        await client.call_raw("shout", {"text": "to the terminal"})
    assert "to the terminal" in capfd.readouterr().err


async def test_connect_errors_show_whole_stderr_lines() -> None:
    path = "/opt/servers/" + "/".join(f"segment{i:02d}" for i in range(40)) + "/dist/index.js"
    with pytest.raises(ConnectError) as caught:
        async with AsyncClient.stdio(
            PYTHON, [SCRIPT, path], env={"STDERR_SERVER_FAIL": "1"}, stderr="discard", timeout=30
        ):
            pytest.fail("connected")
    message = str(caught.value)
    assert f"stderr-server: Cannot find module '{path}'" in message  # not cut in the middle of the path
    assert "…" not in message


async def test_connect_errors_show_the_last_stderr_lines_without_secrets() -> None:
    env = {"STDERR_SERVER_FAIL": "1", "STDERR_SERVER_TOKEN": "tok-9f8e7d6c"}
    with pytest.raises(ConnectError) as caught:
        async with AsyncClient.stdio(PYTHON, [SCRIPT], env=env, stderr="discard", timeout=30):
            pytest.fail("connected")
    message = str(caught.value)
    assert "exited with code 3 before completing initialization" in message
    assert "last stderr lines: stderr-server: cannot open the database | stderr-server: token was ***" in message
    assert "tok-9f8e7d6c" not in message and "\n" not in message


async def test_a_wrong_stderr_target_is_refused_before_starting() -> None:
    with pytest.raises(TypeError, match="stderr must be None, 'inherit', 'discard', a logging.Logger or an open file"):
        async with AsyncClient.stdio(PYTHON, [SCRIPT], stderr=42, timeout=30):  # type: ignore[arg-type]
            pytest.fail("connected")


def test_blocking_client_stderr() -> None:
    sink = io.StringIO()
    with Client.stdio(PYTHON, [SCRIPT], stderr=sink, timeout=30) as client:
        client.call_raw("shout", {"text": "from the blocking client"})
    assert "from the blocking client" in sink.getvalue()


def _launched() -> type[AsyncClient]:
    class Launched(AsyncClient):
        _launch: ClassVar[Mapping[str, Any] | None] = {"transport": "stdio", "command": PYTHON, "args": [SCRIPT]}

    return Launched


async def test_connect_and_toolkit_stderr() -> None:
    sink = io.StringIO()
    async with _launched().connect(stderr=sink, timeout=30) as client:
        await client.call_raw("shout", {"text": "via connect()"})
    assert "via connect()" in sink.getvalue()

    class Kit(ToolkitBase):
        CLIENTS: ClassVar[Mapping[str, type[Any]]] = {"one": _launched(), "two": _launched()}

    kit_sink = io.StringIO()
    async with Kit(stderr=kit_sink, timeout=30) as kit:
        assert {name: status.state for name, status in kit.status().items()} == {"one": "connected", "two": "connected"}
        await kit["two"].call_raw("shout", {"text": "via the toolkit"})
    assert kit_sink.getvalue().count("stderr-server: starting") == 2
    assert "via the toolkit" in kit_sink.getvalue()


# ------------------------------------------------------------------------------------------- clientInfo


async def test_client_info_defaults_to_the_package_name() -> None:
    assert AsyncClient.default_client_info() == ("fakepkg", "0.0.0")  # not installed as a distribution
    async with AsyncClient.stdio(PYTHON, [SCRIPT], stderr="discard", timeout=30) as client:
        assert (await client.call_raw("who")).text == "fakepkg 0.0.0"


async def test_client_info_given_as_a_pair_or_an_implementation() -> None:
    async with AsyncClient.stdio(
        PYTHON, [SCRIPT], stderr="discard", client_info=("my-agent", "2.5.0"), timeout=30
    ) as client:
        assert (await client.call_raw("who")).text == "my-agent 2.5.0"
    info = mcp_types.Implementation(name="impl-agent", version="9")
    with Client.stdio(PYTHON, [SCRIPT], stderr="discard", client_info=info, timeout=30) as blocking:
        assert blocking.call_raw("who").text == "impl-agent 9"


async def test_a_generated_package_sends_its_own_name(tmp_path: Path) -> None:
    from helpers import generate_into, imported_package, snapshot_of

    generate_into(tmp_path, snapshot_of([{"name": "who", "inputSchema": {"type": "object"}}]), "who_client")
    with imported_package(tmp_path / "who_client") as package:
        assert package.AsyncClient.default_client_info() == ("who_client", "0.0.0")
        async with package.AsyncClient.stdio(PYTHON, [SCRIPT], stderr="discard", timeout=30) as client:
            assert (await client.call_raw("who")).text == "who_client 0.0.0"


# ---------------------------------------------------------------------------------- from_session


def test_blocking_client_from_a_session_factory() -> None:
    server = build_server()
    with Client.from_session(lambda: McpClient(server, mode="legacy", cache=None)) as client:
        assert client.add(a=40, b=2) == 42


def test_blocking_client_from_an_async_factory() -> None:
    with Client.from_async(lambda: AsyncClient.in_process(build_server())) as client:
        assert client.add(a=1, b=2) == 3


if sys.platform == "win32":  # pragma: no cover
    pytest.skip("the stderr relay tests need POSIX", allow_module_level=True)
