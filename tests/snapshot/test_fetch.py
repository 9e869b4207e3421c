"""take_snapshot / snapshot_server against real servers: in-process, stdio children, HTTP on loopback.

No protocol mocks. Off-spec listings come from a low-level `Server` whose middleware answers the list
methods with hand-written raw pages (the SDK's own server-side validation would refuse to send them).
"""

from __future__ import annotations

import json
import os
import socket
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from servers.helpers import serve_app, serve_http, serve_sse
from starlette.types import ASGIApp, Receive, Scope, Send

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.errors import ServerError
from mcp_codegen.inputs.launch import HttpLaunch, StdioLaunch
from mcp_codegen.snapshot.fetch import snapshot_server, take_snapshot

pytestmark = pytest.mark.anyio

PYTHON = sys.executable
Pages = list[dict[str, Any]]


# --------------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------------


def raw_server(
    name: str = "raw",
    *,
    tools: Pages | None = None,
    resources: Pages | None = None,
    templates: Pages | None = None,
    prompts: Pages | None = None,
    not_found: tuple[str, ...] = (),
    calls: list[str] | None = None,
) -> Server[Any]:
    """A low-level server whose list methods answer with raw pages (cursor "page-N" -> pages[N]).

    A listing given as `None` is not declared as a capability; methods in `not_found` are declared but
    answer -32601. A server middleware that does not call `call_next` owns its result: the SDK neither
    validates nor sieves it, so off-spec items and vendor keys reach the wire as written.
    """

    async def unreachable(ctx: Any, params: Any) -> Any:
        raise AssertionError("answered by the middleware")

    def handler(pages: Pages | None) -> Any:
        return unreachable if pages is not None else None

    server: Server[Any] = Server(
        name,
        version="9.9.9",
        instructions="raw pages",
        on_list_tools=handler(tools),
        on_list_resources=handler(resources),
        on_list_resource_templates=handler(templates),
        on_list_prompts=handler(prompts),
    )
    by_method = {
        "tools/list": tools,
        "resources/list": resources,
        "resources/templates/list": templates,
        "prompts/list": prompts,
    }

    async def middleware(ctx: Any, call_next: Any) -> Any:
        if calls is not None:
            calls.append(ctx.method)
        if ctx.method in not_found:
            raise MCPError(code=types.METHOD_NOT_FOUND, message="Method not found")
        pages = by_method.get(ctx.method)
        if pages is None:
            return await call_next(ctx)
        cursor = (ctx.params or {}).get("cursor")
        return pages[0 if cursor is None else int(str(cursor).removeprefix("page-"))]

    server.middleware.append(middleware)
    return server


def paged(key: str, items: list[Any], *, per_page: int) -> Pages:
    """`items` split into raw pages chained by "page-N" cursors."""
    chunks = [items[i : i + per_page] for i in range(0, len(items), per_page)] or [[]]
    pages: Pages = []
    for number, chunk in enumerate(chunks):
        page: dict[str, Any] = {key: chunk}
        if number + 1 < len(chunks):
            page["nextCursor"] = f"page-{number + 1}"
        pages.append(page)
    return pages


def demo_mcpserver() -> MCPServer:
    server = MCPServer("demo", version="1.2.3", instructions="Use the tools.")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @server.tool()
    def echo(text: str) -> str:
        return text

    @server.resource("config://app")
    def config() -> str:
        return "{}"

    @server.resource("users://{user_id}/profile")
    def profile(user_id: str) -> str:
        return user_id

    @server.prompt()
    def greet(name: str) -> str:
        return f"Hello {name}"

    return server


@pytest.fixture
def script(tmp_path: Path) -> Callable[[str, str], Path]:
    """`script(name, source)` writes a Python script into tmp_path and returns its path."""

    def write(name: str, source: str) -> Path:
        path = tmp_path / f"{name}.py"
        path.write_text(textwrap.dedent(source))
        return path

    return write


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def process_gone(pid: int) -> bool:
    """Neither running nor a zombie (signal 0 reaches zombies as well)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def require_header(app: ASGIApp, name: str, value: str) -> ASGIApp:
    """ASGI middleware: 401 unless the request carries `name: value`."""
    wanted = (name.lower().encode(), value.encode())

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and wanted not in scope["headers"]:
            await send({"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"unauthorized"})
            return
        await app(scope, receive, send)

    return guarded


def status_app(status: int) -> ASGIApp:
    """Answers every HTTP request with `status`."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                event = (await receive())["type"]
                if event == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif event == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"no"})

    return app


async def snapshot_error(launch: StdioLaunch | HttpLaunch, *, timeout: float = 10.0) -> str:
    with pytest.raises(ServerError) as caught:
        await take_snapshot(launch, timeout=timeout, diagnostics=Diagnostics())
    message = str(caught.value)
    assert "\n" not in message and "Traceback" not in message
    return message


# --------------------------------------------------------------------------------------------------
# In-process servers
# --------------------------------------------------------------------------------------------------


async def test_mcpserver_in_process() -> None:
    diagnostics = Diagnostics()
    snapshot = await snapshot_server(demo_mcpserver(), diagnostics=diagnostics)

    assert snapshot.server_info["name"] == "demo" and snapshot.server_info["version"] == "1.2.3"
    assert snapshot.protocol_version
    assert snapshot.instructions == "Use the tools."
    assert {"tools", "resources", "prompts"} <= set(snapshot.capabilities)
    assert snapshot.launch is None
    assert [t["name"] for t in snapshot.tools] == ["add", "echo"]
    add = snapshot.tools[0]
    assert add["inputSchema"]["required"] == ["a", "b"] and add["description"] == "Add two numbers."
    assert "outputSchema" in add  # wire camelCase keys, as sent
    assert [r["uri"] for r in snapshot.resources] == ["config://app"]
    assert [t["uriTemplate"] for t in snapshot.resource_templates] == ["users://{user_id}/profile"]
    assert [p["name"] for p in snapshot.prompts] == ["greet"]
    assert list(diagnostics) == []


async def test_off_spec_tools_are_kept_raw_and_bad_items_left_out() -> None:
    good = {
        "name": "good",
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "x-widget": "search"}}},
        "annotations": {"readOnlyHint": True, "x-vendor-hint": "cheap"},
        "x-vendor": {"cost": 3},
    }
    empty_schema = {"name": "empty", "inputSchema": {}}
    no_type = {"name": "no_type", "inputSchema": {"properties": {"a": {"type": "integer"}}}}
    string_schema = {"name": "string_schema", "inputSchema": {"type": "string"}}
    listing = [empty_schema, 42, good, {"description": "nameless"}, no_type, {"name": 7}, string_schema, "str"]
    server = raw_server(tools=[{"tools": listing}])

    diagnostics = Diagnostics()
    snapshot = await snapshot_server(server, diagnostics=diagnostics)

    assert [t["name"] for t in snapshot.tools] == ["empty", "good", "no_type", "string_schema"]
    by_name = {t["name"]: t for t in snapshot.tools}
    assert by_name["good"] == good  # vendor keys everywhere, exactly as sent
    assert by_name["empty"] == empty_schema and by_name["no_type"] == no_type
    assert by_name["string_schema"] == string_schema
    assert [(d.location, d.message) for d in diagnostics] == [
        ("tools[1]", "left out: not an object (got a number)"),
        ("tools[3]", "left out: has no 'name'"),
        ("tools[5]", "left out: has a non-string 'name'"),
        ("tools[7]", "left out: not an object (got a string)"),
    ]
    assert snapshot.server_info["name"] == "raw" and snapshot.instructions == "raw pages"
    assert set(snapshot.capabilities) >= {"tools"}


async def test_pagination_over_three_pages_for_every_listing() -> None:
    tools = [{"name": f"tool_{i}", "inputSchema": {"type": "object"}} for i in range(7)]
    resources = [{"name": f"r{i}", "uri": f"mem://{i}"} for i in range(5)] + [{"name": "no uri"}]
    templates = [{"name": f"t{i}", "uriTemplate": f"mem://{{id}}/{i}"} for i in range(3)]
    prompts = [{"name": f"p{i}"} for i in range(4)]
    calls: list[str] = []
    server = raw_server(
        tools=paged("tools", tools, per_page=3),
        resources=paged("resources", resources, per_page=2),
        templates=paged("resourceTemplates", templates, per_page=1),
        prompts=paged("prompts", prompts, per_page=2),
        calls=calls,
    )

    diagnostics = Diagnostics()
    snapshot = await snapshot_server(server, diagnostics=diagnostics)

    assert [t["name"] for t in snapshot.tools] == [f"tool_{i}" for i in range(7)]
    assert [r["uri"] for r in snapshot.resources] == [f"mem://{i}" for i in range(5)]
    assert len(snapshot.resource_templates) == 3 and len(snapshot.prompts) == 4
    assert [(d.location, d.message) for d in diagnostics] == [("resources[5]", "left out: has no 'uri'")]
    assert calls.count("tools/list") == 3 and calls.count("resources/list") == 3
    assert calls.count("resources/templates/list") == 3 and calls.count("prompts/list") == 2


async def test_undeclared_capabilities_are_not_listed() -> None:
    calls: list[str] = []
    server = raw_server(tools=[{"tools": [{"name": "only", "inputSchema": {"type": "object"}}]}], calls=calls)
    snapshot = await snapshot_server(server, diagnostics=Diagnostics())
    assert [t["name"] for t in snapshot.tools] == ["only"]
    assert snapshot.resources == () and snapshot.resource_templates == () and snapshot.prompts == ()
    assert [c for c in calls if c.endswith("/list")] == ["tools/list"]


async def test_method_not_found_on_a_declared_listing_is_empty_with_a_warning() -> None:
    server = raw_server(tools=[{"tools": []}], prompts=[{"prompts": []}], not_found=("prompts/list",))
    diagnostics = Diagnostics()
    snapshot = await snapshot_server(server, diagnostics=diagnostics)
    assert snapshot.prompts == ()
    assert [d.location for d in diagnostics] == ["prompts"]
    assert "prompts/list" in diagnostics.items[0].message


async def test_a_repeated_cursor_stops_the_listing() -> None:
    pages: Pages = [
        {"tools": [{"name": "a", "inputSchema": {"type": "object"}}], "nextCursor": "page-1"},
        {"tools": [{"name": "b", "inputSchema": {"type": "object"}}], "nextCursor": "page-1"},
    ]
    with pytest.raises(ServerError, match=r"tools/list: the server sent cursor 'page-1' again on page 2"):
        await snapshot_server(raw_server(tools=pages), diagnostics=Diagnostics())


async def test_a_result_without_its_list_is_a_server_error() -> None:
    with pytest.raises(ServerError, match=r"invalid tools/list result: 'tools' is not a list"):
        await snapshot_server(raw_server(tools=[{"items": []}]), diagnostics=Diagnostics())


async def test_a_json_rpc_error_on_a_listing_is_a_server_error() -> None:
    async def failing(ctx: Any, params: Any) -> types.ListToolsResult:
        raise MCPError(code=types.INVALID_PARAMS, message="bad cursor")

    server: Server[Any] = Server("failing", on_list_tools=failing)
    with pytest.raises(ServerError) as caught:
        await snapshot_server(server, diagnostics=Diagnostics())
    assert str(caught.value) == "the server answered with an error during tools/list: bad cursor (JSON-RPC -32602)"


async def test_a_listing_that_never_answers_times_out() -> None:
    async def slow(ctx: Any, params: Any) -> types.ListToolsResult:
        await anyio.sleep(30)
        raise AssertionError("unreachable")

    server: Server[Any] = Server("slow", on_list_tools=slow)
    started = time.monotonic()
    with pytest.raises(ServerError) as caught:
        await snapshot_server(server, timeout=0.5, diagnostics=Diagnostics())
    assert str(caught.value) == (
        "timed out after 0.5 s waiting for tools/list; a server slow to list needs a longer --timeout, e.g. --timeout 60"
    )
    assert time.monotonic() - started < 5


# --------------------------------------------------------------------------------------------------
# stdio
# --------------------------------------------------------------------------------------------------


async def test_stdio_server_snapshot_and_launch_record(script: Callable[[str, str], Path], tmp_path: Path) -> None:
    path = script(
        "srv",
        """
        import os
        from mcp.server.mcpserver import MCPServer

        server = MCPServer("stdio-demo", version="0.1.0")

        @server.tool(description="region " + os.environ["REGION"])
        def ping() -> str:
            return "pong"

        server.run()
        """,
    )
    launch = StdioLaunch(PYTHON, (str(path),), env={"REGION": "eu-west", "API_TOKEN": "tok-123456"}, cwd=str(tmp_path))
    lines: list[str] = []
    diagnostics = Diagnostics()
    snapshot = await take_snapshot(launch, timeout=20, diagnostics=diagnostics, progress=lines.append)

    assert [t["name"] for t in snapshot.tools] == ["ping"]
    assert snapshot.tools[0]["description"] == "region eu-west"  # env reached the child
    assert snapshot.server_info == {"name": "stdio-demo", "version": "0.1.0"}
    assert snapshot.launch is not None
    assert snapshot.launch.as_json() == {
        "transport": "stdio",
        "command": PYTHON,
        "args": [str(path)],
        "env": {"REGION": "eu-west"},  # a setting: recorded as written (issue 57)
        "envNames": ["API_TOKEN"],  # a secret: by name
        "cwd": str(tmp_path),
    }
    assert "tok-123456" not in snapshot.to_text()
    assert lines[0] == f"starting {PYTHON} {path}"
    assert "listing tools" in lines and any(line.startswith("connected to stdio-demo 0.1.0") for line in lines)
    assert not any("tok-123456" in line for line in lines)
    assert list(diagnostics) == []


async def test_stdio_server_exiting_during_initialize(script: Callable[[str, str], Path]) -> None:
    path = script(
        "exit3",
        """
        import os, sys
        for i in range(8):
            print(f"log line {i}", file=sys.stderr)
        print("fatal: token " + os.environ["API_TOKEN"] + " was rejected", file=sys.stderr)
        sys.exit(3)
        """,
    )
    message = await snapshot_error(StdioLaunch(PYTHON, (str(path),), env={"API_TOKEN": "sekrit-token-42"}))
    assert message == (
        "server exited with code 3 during initialize; last stderr lines: "
        "log line 4 | log line 5 | log line 6 | log line 7 | fatal: token *** was rejected"
    )


async def test_stdio_server_writing_garbage_to_stdout(script: Callable[[str, str], Path]) -> None:
    path = script(
        "garbage",
        """
        import sys
        print("Welcome to my server! \\x1b[1mv2\\x1b[0m", flush=True)
        print("{not json", flush=True)
        sys.stdin.readline()
        """,
    )
    message = await snapshot_error(StdioLaunch(PYTHON, (str(path),)))
    assert message == (
        "server exited with code 0 during initialize; it wrote non-JSON to stdout: 'Welcome to my server! v2'"
    )


async def test_stdio_server_that_never_answers_times_out_and_is_killed(
    script: Callable[[str, str], Path], tmp_path: Path
) -> None:
    pid_file = tmp_path / "pid"
    path = script(
        "silent",
        f"""
        import os, signal, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # only SIGKILL ends it
        open({str(pid_file)!r}, "w").write(str(os.getpid()))
        time.sleep(60)
        """,
    )
    started = time.monotonic()
    message = await snapshot_error(StdioLaunch(PYTHON, (str(path),)), timeout=2)
    assert (
        message
        == "timed out after 2 s while initializing; a server slow to start needs a longer --timeout, e.g. --timeout 60"
    )
    assert time.monotonic() - started < 8
    assert process_gone(int(pid_file.read_text()))


async def test_cancelling_a_snapshot_kills_the_child_and_propagates(
    script: Callable[[str, str], Path], tmp_path: Path
) -> None:
    pid_file = tmp_path / "pid"
    path = script(
        "silent",
        f"""
        import os, time
        open({str(pid_file)!r}, "w").write(str(os.getpid()))
        time.sleep(60)
        """,
    )
    with anyio.move_on_after(1.0) as scope:  # what Ctrl-C does to the task: cancel it
        await take_snapshot(StdioLaunch(PYTHON, (str(path),)), timeout=30, diagnostics=Diagnostics())
    assert scope.cancelled_caught  # the cancellation came through, not a ServerError
    assert process_gone(int(pid_file.read_text()))


async def test_stdio_command_not_found() -> None:
    message = await snapshot_error(StdioLaunch("mcp-codegen-no-such-command", ("--x",)))
    assert message == "command not found: mcp-codegen-no-such-command"


async def test_stdio_missing_working_directory(tmp_path: Path) -> None:
    message = await snapshot_error(StdioLaunch(PYTHON, ("-c", "pass"), cwd=str(tmp_path / "nope")))
    assert message == f"working directory does not exist: {tmp_path / 'nope'}"


HANDWRITTEN_SERVER = """
    import json, sys

    INIT = {init}
    TOOLS = [
        {{"name": "raw", "inputSchema": {{}}, "x-vendor": {{"tier": "gold"}}}},
        {{"name": "typed", "inputSchema": {{"type": "object"}}, "annotations": {{"x-cost": 1}}}},
    ]
    print("starting up...", flush=True)  # a stray log line on stdout
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue
        if message["method"] == "initialize":
            result = INIT
        elif message["method"] == "tools/list":
            result = {{"tools": TOOLS}}
        else:
            print(json.dumps({{"jsonrpc": "2.0", "id": message["id"], "error": {{"code": -32601, "message": "nope"}}}}))
            continue
        print(json.dumps({{"jsonrpc": "2.0", "id": message["id"], "result": result}}), flush=True)
"""


async def test_handwritten_stdio_server_keeps_raw_server_info_and_tools(script: Callable[[str, str], Path]) -> None:
    init = {
        "protocolVersion": "2025-06-18",
        "capabilities": {"tools": {"listChanged": True}, "x-experimental": {"on": True}},
        "serverInfo": {"name": "handmade", "version": "0.0.1", "x-build": "abc123"},
        "instructions": "Be nice.",
    }
    path = script("handmade", HANDWRITTEN_SERVER.format(init=repr(init)))
    diagnostics = Diagnostics()
    snapshot = await take_snapshot(StdioLaunch(PYTHON, (str(path),)), timeout=10, diagnostics=diagnostics)

    assert snapshot.server_info == init["serverInfo"]  # the vendor key survives: raw, not the SDK model
    assert snapshot.capabilities == init["capabilities"]
    assert snapshot.protocol_version == "2025-06-18" and snapshot.instructions == "Be nice."
    assert [t["name"] for t in snapshot.tools] == ["raw", "typed"]
    assert snapshot.tools[0] == {"name": "raw", "inputSchema": {}, "x-vendor": {"tier": "gold"}}
    assert snapshot.tools[1]["annotations"] == {"x-cost": 1}
    assert [(d.location, d.message) for d in diagnostics] == [
        ("server", "wrote 1 non-JSON line(s) to stdout, skipped (first: 'starting up...')")
    ]


async def test_an_invalid_initialize_result_is_a_server_error(script: Callable[[str, str], Path]) -> None:
    path = script("noinfo", HANDWRITTEN_SERVER.format(init=repr({"protocolVersion": "2025-06-18", "capabilities": {}})))
    message = await snapshot_error(StdioLaunch(PYTHON, (str(path),)))
    assert message == "the server sent an invalid result during initialize (serverInfo: Field required)"


async def test_stdio_server_dying_mid_listing(script: Callable[[str, str], Path]) -> None:
    path = script(
        "dies",
        """
        import os, sys
        import anyio
        from mcp.server import Server
        from mcp.server.stdio import stdio_server

        async def list_tools(ctx, params):
            print("out of memory while listing", file=sys.stderr, flush=True)
            os._exit(5)

        server = Server("dies", version="1", on_list_tools=list_tools)

        async def main():
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())

        anyio.run(main)
        """,
    )
    message = await snapshot_error(StdioLaunch(PYTHON, (str(path),)), timeout=20)
    assert message == "server exited with code 5 during tools/list; last stderr lines: out of memory while listing"


# --------------------------------------------------------------------------------------------------
# HTTP
# --------------------------------------------------------------------------------------------------


async def test_streamable_http_snapshot() -> None:
    with serve_http(demo_mcpserver()) as url:
        lines: list[str] = []
        snapshot = await take_snapshot(
            HttpLaunch(url=url + "?api_key=k-999999"), timeout=10, diagnostics=Diagnostics(), progress=lines.append
        )
    assert [t["name"] for t in snapshot.tools] == ["add", "echo"]
    assert snapshot.server_info["name"] == "demo"
    assert snapshot.launch is not None
    assert snapshot.launch.as_json() == {"transport": "http", "url": url + "?api_key=REDACTED"}
    assert lines[0] == f"connecting to {url}?api_key=REDACTED (streamable HTTP)"
    assert not any("k-999999" in line for line in lines)


async def test_http_401_names_the_headers_but_never_their_values() -> None:
    app = require_header(demo_mcpserver().streamable_http_app(host="127.0.0.1"), "Authorization", "Bearer right-one")
    with serve_app(app) as base:
        url = base + "/mcp"
        wrong = HttpLaunch(url=url, headers={"Authorization": "Bearer wrong-secret-1", "X-Team": "team-secret-2"})
        message = await snapshot_error(wrong)
        assert message == f"authentication failed (HTTP 401) at {url}; headers sent: Authorization, X-Team"
        assert "secret" not in message

        message = await snapshot_error(HttpLaunch(url=url))
        assert message == f"authentication failed (HTTP 401) at {url}; no headers were sent (add one with -H)"

        right = HttpLaunch(
            url=url,
            headers={"Authorization": "Bearer right-one"},
            header_templates={"Authorization": "Bearer ${TOKEN}"},
        )
        snapshot = await take_snapshot(right, timeout=10, diagnostics=Diagnostics())
    assert snapshot.launch is not None
    assert snapshot.launch.as_json()["headers"] == [{"name": "Authorization", "template": "Bearer ${TOKEN}"}]
    assert "right-one" not in snapshot.to_text()


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (404, "HTTP 404 (Not Found) from {url} during initialize; is this the server's MCP endpoint?"),
        (500, "HTTP 500 (Internal Server Error) from {url} during initialize"),
    ],
)
async def test_http_error_statuses(status: int, expected: str) -> None:
    with serve_app(status_app(status)) as base:
        url = base + "/mcp"
        message = await snapshot_error(HttpLaunch(url=url, transport="http"))
    assert message == expected.format(url=url)


async def test_auto_reports_both_attempts_when_nothing_answers() -> None:
    with serve_app(status_app(404)) as base:
        url = base + "/mcp"
        message = await snapshot_error(HttpLaunch(url=url))
    assert message == (
        f"HTTP 404 (Not Found) from {url} during initialize; is this the server's MCP endpoint? "
        "(the legacy SSE fallback got the same answer)"
    )


async def test_connection_refused() -> None:
    url = f"http://127.0.0.1:{closed_port()}/mcp"
    message = await snapshot_error(HttpLaunch(url=url))
    assert message == f"cannot connect to {url}: connection refused"


async def test_auto_falls_back_to_legacy_sse() -> None:
    with serve_sse(demo_mcpserver()) as url:
        lines: list[str] = []
        snapshot = await take_snapshot(
            HttpLaunch(url=url), timeout=10, diagnostics=Diagnostics(), progress=lines.append
        )
        forced = await take_snapshot(HttpLaunch(url=url, transport="sse"), timeout=10, diagnostics=Diagnostics())
    assert [t["name"] for t in snapshot.tools] == ["add", "echo"]
    assert snapshot.launch is not None and snapshot.launch.as_json() == {"transport": "sse", "url": url}
    assert lines[:3] == [
        f"connecting to {url} (streamable HTTP)",
        f"{url} does not speak streamable HTTP (HTTP 405); trying legacy SSE",
        f"connecting to {url} (legacy SSE)",
    ]
    assert forced.launch is not None and forced.launch.transport == "sse"
    assert json.loads(forced.to_text())["tools"] == json.loads(snapshot.to_text())["tools"]


async def test_forced_streamable_http_does_not_fall_back() -> None:
    with serve_sse(demo_mcpserver()) as url:
        message = await snapshot_error(HttpLaunch(url=url, transport="http"))
    assert message == f"HTTP 405 (Method Not Allowed) from {url} during initialize"


async def test_raw_listing_over_http_keeps_off_spec_tools() -> None:
    tools = [{"name": "empty", "inputSchema": {}, "x-vendor": 1}, {"name": "ok", "inputSchema": {"type": "object"}}]
    with serve_http(raw_server(tools=paged("tools", tools, per_page=1))) as url:
        snapshot = await take_snapshot(HttpLaunch(url=url), timeout=10, diagnostics=Diagnostics())
    assert list(snapshot.tools) == tools
    assert snapshot.server_info == {"name": "raw", "version": "9.9.9"}


async def test_http_server_that_never_answers_times_out() -> None:
    async def silent(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            while (await receive())["type"] != "http.disconnect":
                pass

    with serve_app(silent) as base:
        started = time.monotonic()
        message = await snapshot_error(HttpLaunch(url=base + "/mcp"), timeout=1)
    assert (
        message
        == "timed out after 1 s while initializing; a server slow to start needs a longer --timeout, e.g. --timeout 60"
    )
    assert time.monotonic() - started < 5


async def test_http_answer_that_is_not_json_rpc() -> None:
    async def html(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await send(
                {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]}
            )
            await send({"type": "http.response.body", "body": b"<html>hello</html>"})

    with serve_app(html) as base:
        message = await snapshot_error(HttpLaunch(url=base + "/mcp"))
    assert message == "the server sent something that is not JSON-RPC during initialize"
