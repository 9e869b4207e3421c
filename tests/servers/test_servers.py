"""The shared server fixtures and helpers work with the raw SDK (no code of the generator involved)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import anyio
import prewarmed
import pytest
from mcp import Client, StdioServerParameters, types
from mcp.client.sse import sse_client
from mcp.server import Server, ServerRequestContext
from mcp.server.mcpserver import MCPServer

from mcp_codegen.demo.server import INSTRUCTIONS, NAME, VERSION, build_server
from servers import install
from servers.helpers import serve_http, serve_sse

pytestmark = pytest.mark.anyio

CONNECT_TIMEOUT = 30.0
SESSION_TIMEOUT = 90.0

DEMO_TOOLS = {"get_weather", "add", "list_notes", "draft_note", "search-notes", "get_note", "forecast"}
DEMO_PROMPTS = {"summarize_note", "plan_trip"}


@asynccontextmanager
async def connect(target: Any) -> AsyncIterator[Client]:
    """A raw SDK client (legacy handshake, no response cache); the whole session is bounded in time.

    (The SDK has no timeout on initialize: a silent server would hang the test.)
    """
    with anyio.fail_after(SESSION_TIMEOUT):
        async with Client(target, mode="legacy", cache=None, read_timeout_seconds=CONNECT_TIMEOUT) as client:
            yield client


async def assert_is_demo(client: Client) -> None:
    """The full surface of the demo server is there, and `add` works."""
    tools = await client.list_tools()
    assert {tool.name for tool in tools.tools} == DEMO_TOOLS
    assert tools.next_cursor is None
    resources = await client.list_resources()
    assert [resource.uri for resource in resources.resources] == ["config://app"]
    templates = await client.list_resource_templates()
    assert [template.uri_template for template in templates.resource_templates] == ["notes://{note_id}"]
    prompts = await client.list_prompts()
    assert {prompt.name for prompt in prompts.prompts} == DEMO_PROMPTS

    result = await client.call_tool("add", {"a": 2, "b": 3})
    assert not result.is_error
    assert result.structured_content == {"result": 5}


def stdio_params(command: list[str]) -> StdioServerParameters:
    return StdioServerParameters(command=command[0], args=command[1:])


# --------------------------------------------------------------------------------------------------
# The demo server over each transport
# --------------------------------------------------------------------------------------------------


async def test_demo_in_memory(demo_server: MCPServer) -> None:
    async with connect(demo_server) as client:
        await assert_is_demo(client)


async def test_demo_server_fixture_is_fresh(demo_server: MCPServer) -> None:
    assert isinstance(demo_server, MCPServer)
    assert build_server() is not build_server()


async def test_demo_stdio(demo_stdio_command: list[str]) -> None:
    assert demo_stdio_command == prewarmed.command(["-m", "mcp_codegen.demo"])
    async with connect(stdio_params(demo_stdio_command)) as client:
        await assert_is_demo(client)


async def test_demo_http(demo_http_url: str) -> None:
    assert demo_http_url.startswith("http://127.0.0.1:") and demo_http_url.endswith("/mcp")
    async with connect(demo_http_url) as client:
        await assert_is_demo(client)
    # The session-scoped server serves any number of clients.
    async with connect(demo_http_url) as client:
        result = await client.call_tool("add", {"a": -1, "b": 1})
        assert result.structured_content == {"result": 0}


async def test_serve_sse_demo() -> None:
    with serve_sse(build_server()) as url:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/sse")
        async with connect(sse_client(url)) as client:
            await assert_is_demo(client)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def run_demo_process(flag: str) -> Iterator[str]:
    """`python -m mcp_codegen.demo --http|--sse --port N` as a child process; yields its URL once it listens."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcp_codegen.demo", flag, "--port", str(port)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + CONNECT_TIMEOUT
        while True:
            if proc.poll() is not None:
                raise AssertionError(f"demo server exited with {proc.returncode}: {proc.stderr.read()!r}")  # type: ignore[union-attr]
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if time.monotonic() > deadline:
                raise AssertionError(f"demo server did not listen on port {port} within {CONNECT_TIMEOUT} s")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}" + ("/mcp" if flag == "--http" else "/sse")
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        assert proc.stderr is not None
        proc.stderr.close()


@pytest.mark.parametrize("flag", ["--http", "--sse"])
async def test_demo_main_network_transports(flag: str) -> None:
    with run_demo_process(flag) as url:
        target = url if flag == "--http" else sse_client(url)
        async with connect(target) as client:
            await assert_is_demo(client)


# --------------------------------------------------------------------------------------------------
# The helpers with a low-level server
# --------------------------------------------------------------------------------------------------


def build_lowlevel_server() -> Server[Any]:
    """A hand-written low-level server with one tool, `shout`."""

    async def on_list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        tool = types.Tool(
            name="shout",
            description="Upper-cases text.",
            input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        )
        return types.ListToolsResult(tools=[tool])

    async def on_call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        text = str((params.arguments or {}).get("text", ""))
        return types.CallToolResult(content=[types.TextContent(type="text", text=text.upper())])

    return Server("lowlevel", version="0.1.0", on_list_tools=on_list_tools, on_call_tool=on_call_tool)


@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_helpers_serve_lowlevel_server(transport: str) -> None:
    serve = serve_http if transport == "http" else serve_sse
    with serve(build_lowlevel_server()) as url:
        target = url if transport == "http" else sse_client(url)
        async with connect(target) as client:
            tools = await client.list_tools()
            assert [tool.name for tool in tools.tools] == ["shout"]
            result = await client.call_tool("shout", {"text": "hi"})
            assert result.content == [types.TextContent(type="text", text="HI")]


async def test_serve_http_twice_same_server() -> None:
    server = build_server()
    for _ in range(2):
        with serve_http(server) as url:
            async with connect(url) as client:
                assert (await client.call_tool("add", {"a": 1, "b": 1})).structured_content == {"result": 2}


# --------------------------------------------------------------------------------------------------
# The demo server's behaviour (what the generated example client relies on)
# --------------------------------------------------------------------------------------------------


async def test_demo_server_info_and_outputs(demo_server: MCPServer) -> None:
    async with connect(demo_server) as client:
        assert client.server_info is not None
        assert (client.server_info.name, client.server_info.version) == (NAME, VERSION)
        assert client.instructions == INSTRUCTIONS
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert tools["forecast"].output_schema is None
        assert tools["add"].output_schema == {
            "properties": {"result": {"title": "Result", "type": "integer"}},
            "required": ["result"],
            "title": "addOutput",
            "type": "object",
        }
        assert tools["get_weather"].annotations is not None and tools["get_weather"].annotations.read_only_hint
        assert tools["get_weather"].input_schema["properties"]["units"]["enum"] == ["celsius", "fahrenheit"]
        assert tools["draft_note"].input_schema["properties"]["author"]["$ref"] == "#/$defs/Author"
        assert tools["list_notes"].input_schema["properties"]["tag"]["anyOf"] == [{"type": "string"}, {"type": "null"}]

        weather = await client.call_tool("get_weather", {"city": "Paris"})
        again = await client.call_tool("get_weather", {"city": "Paris"})
        assert weather.structured_content == again.structured_content
        assert weather.structured_content is not None and weather.structured_content["units"] == "celsius"

        notes = await client.call_tool("list_notes", {})
        assert notes.structured_content is not None
        assert [note["id"] for note in notes.structured_content["result"]] == ["welcome", "groceries", "ideas"]

        hits = await client.call_tool("search-notes", {"query": "weather", "limit": 1})
        assert hits.structured_content is not None and hits.structured_content["total"] == 3
        assert len(hits.structured_content["notes"]) == 1

        draft = await client.call_tool(
            "draft_note", {"title": "Hello, World!", "body": "hi", "author": {"name": "Bo"}, "tags": None}
        )
        assert draft.structured_content is not None and draft.structured_content["id"] == "hello-world"

        missing = await client.call_tool("get_note", {"note_id": "nope"})
        assert missing.is_error
        assert isinstance(missing.content[0], types.TextContent) and "No note with id 'nope'" in missing.content[0].text

        text = await client.call_tool("forecast", {"city": "Oslo", "days": 2})
        assert not text.is_error and text.structured_content is None
        assert isinstance(text.content[0], types.TextContent) and text.content[0].text.startswith("Forecast for Oslo:")

        config = await client.read_resource("config://app")
        assert isinstance(config.contents[0], types.TextResourceContents)
        assert json.loads(config.contents[0].text)["name"] == NAME
        note = await client.read_resource("notes://ideas")
        assert isinstance(note.contents[0], types.TextResourceContents) and note.contents[0].text.startswith("# Ideas")

        prompts = {prompt.name: prompt for prompt in (await client.list_prompts()).prompts}
        arguments = prompts["summarize_note"].arguments or []
        assert [(arg.name, arg.required) for arg in arguments] == [("note_id", True), ("style", False)]
        prompt = await client.get_prompt("plan_trip", {"city": "Rome"})
        assert [message.role for message in prompt.messages] == ["user", "assistant", "user"]


# --------------------------------------------------------------------------------------------------
# The third-party server (npm)
# --------------------------------------------------------------------------------------------------


async def test_everything_echo(everything_command: list[str]) -> None:
    assert everything_command[-1] == "stdio"
    async with connect(stdio_params(everything_command)) as client:
        tools = await client.list_tools()
        assert "echo" in {tool.name for tool in tools.tools}
        result = await client.call_tool("echo", {"message": "hello"})
        assert not result.is_error
        assert isinstance(result.content[0], types.TextContent) and "hello" in result.content[0].text


def test_install_script_prints_entry_point(everything_command: list[str]) -> None:
    completed = subprocess.run(
        [sys.executable, str(install.HERE / "install.py")], capture_output=True, text=True, timeout=120, check=False
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == str(install.ENTRY_POINT)
    assert install.installed_version() == install.pinned_version() == "2026.8.31"
