"""Server-initiated requests answered by typed handlers: elicitation, sampling, roots and log messages.

Live against the npm server-everything over stdio, through a package generated into tmp from the committed
everything snapshot. The server lists its trigger tools only for the capabilities a client advertised, so its
tool list shows what was advertised. The answers here are built with `mcp_codegen_runtime`'s types while the
package runs its own copy of the runtime: answers are recognised by shape, as with two generated packages.
"""

from __future__ import annotations

import io
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import mcp_types
import pytest
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

import mcp_codegen_runtime
from mcp_codegen_runtime.server_requests import (
    Accept,
    Cancel,
    Completion,
    Decline,
    ElicitationRequest,
    LogMessage,
    Root,
    SamplingRequest,
    SamplingTool,
    ToolUse,
    accept_defaults,
    ask_on_terminal,
    elicited_content,
    root_uri,
)

pytestmark = pytest.mark.anyio

TRIGGERS = {"trigger-sampling-request", "trigger-elicitation-request", "get-roots-list"}

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 1},
        "age": {"type": "integer", "minimum": 0, "default": 30},
        "ok": {"type": "boolean", "default": True},
        "color": {"type": "string", "enum": ["red", "green"], "default": "red"},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
        "score": {"type": "number"},
    },
    "required": ["name"],
}




def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def _stdio(package: ModuleType, command: list[str], **options: Any) -> Any:
    return package.AsyncClient.stdio(command[0], command[1:], stderr="discard", timeout=30, **options)


# ------------------------------------------------------------------------------ answers, offline


def test_accepted_content_gets_the_schema_defaults() -> None:
    assert elicited_content(SCHEMA, {"name": "Ann"}) == {"name": "Ann", "age": 30, "ok": True, "color": "red"}
    # given values win over defaults; tuples become lists; None means "not given"
    assert elicited_content(SCHEMA, {"name": "B", "age": 5, "tags": ("a",), "ok": None}) == {
        "name": "B",
        "age": 5,
        "tags": ["a"],
        "ok": True,
        "color": "red",
    }


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ({}, "'name' is required"),
        ({"name": "A", "age": True}, "'age' must be a integer"),
        ({"name": "A", "age": 1.5}, "'age' must be an integer"),
        ({"name": "A", "age": -1}, "'age' must be at least 0"),
        ({"name": ""}, "'name' must have at least 1 characters"),
        ({"name": "A", "color": "blue"}, "'color' must be one of ['green', 'red']"),
        ({"name": "A", "tags": ["c"]}, "'tags' must only hold values of ['a', 'b']"),
        ({"name": "A", "ok": "yes"}, "'ok' must be a boolean"),
        ({"name": "A", "extra": 1}, "'extra' is not a requested property"),
        ({"name": "A", "score": float("nan")}, "'score' must be finite"),
    ],
)
def test_content_that_does_not_fit_the_schema_is_refused(content: dict[str, Any], problem: str) -> None:
    with pytest.raises(ValueError) as caught:
        elicited_content(SCHEMA, content)
    assert problem in str(caught.value)


def test_accept_defaults_accepts_with_nothing_but_defaults() -> None:
    assert accept_defaults(ElicitationRequest("?", SCHEMA)) == Decline()  # 'name' is required, no default
    answer = accept_defaults(ElicitationRequest("?", {**SCHEMA, "required": ["age"]}))
    assert answer == Accept({})
    assert isinstance(answer, Accept)
    assert accept_defaults(ElicitationRequest("Sign in", mode="url", url="https://example.test/")) == Decline()
    assert elicited_content({"properties": {"x": {"type": "string", "default": "d"}}}, answer.content) == {"x": "d"}


def test_ask_on_terminal_reads_one_line_per_property() -> None:
    # name, age (invalid then valid), ok (empty: default), color, tags, score (empty: left out)
    stdin = io.StringIO("Ann\nold\n41\n\ngreen\na, b\n\n")
    stdout = io.StringIO()
    answer = ask_on_terminal(ElicitationRequest("Who are you?", SCHEMA), stdin=stdin, stdout=stdout)
    assert answer == Accept({"name": "Ann", "age": 41, "color": "green", "tags": ["a", "b"]})
    shown = stdout.getvalue()
    assert shown.startswith("Who are you?\n") and "Name [required]: " in shown
    assert "color [green/red, default red]: " in shown and "invalid literal" in shown


def test_ask_on_terminal_declines_and_cancels() -> None:
    request = ElicitationRequest("?", SCHEMA)
    assert ask_on_terminal(request, stdin=io.StringIO("!decline\n"), stdout=io.StringIO()) == Decline()
    assert ask_on_terminal(request, stdin=io.StringIO("Ann\n"), stdout=io.StringIO()) == Cancel()  # end of input
    url = ElicitationRequest("Sign in", mode="url", url="https://example.test/x")
    assert ask_on_terminal(url, stdin=io.StringIO("y\n"), stdout=io.StringIO()) == Accept()
    assert ask_on_terminal(url, stdin=io.StringIO("n\n"), stdout=io.StringIO()) == Decline()


def test_roots_accept_paths_uris_and_one_string(tmp_path: Path) -> None:
    from mcp_codegen_runtime.server_requests import ServerRequests

    assert ServerRequests(roots="file:///one").roots == (Root("file:///one"),)
    assert ServerRequests(roots=[tmp_path, Root("file:///x", "x")]).roots == (
        Root(tmp_path.resolve().as_uri(), tmp_path.name),
        Root("file:///x", "x"),
    )
    with pytest.raises(TypeError, match="a root is a path"):
        ServerRequests(roots=[3])  # type: ignore[list-item]


def test_paths_become_file_uris(tmp_path: Path) -> None:
    assert root_uri(tmp_path) == tmp_path.resolve().as_uri()
    assert root_uri("file:///srv/x") == "file:///srv/x"
    assert root_uri(str(tmp_path)) == tmp_path.resolve().as_uri()


# ------------------------------------------------------------------------ live: server-everything


async def test_only_the_capabilities_given_are_advertised(
    everything: ModuleType, everything_command: list[str]
) -> None:
    async with _stdio(everything, everything_command) as client:
        assert not TRIGGERS & {tool.name for tool in await client.list_tools()}
    async with _stdio(everything, everything_command, sampling=lambda request: "x") as client:
        names = {tool.name for tool in await client.list_tools()}
    assert TRIGGERS & names == {"trigger-sampling-request"}
    async with _stdio(everything, everything_command, roots=[], elicitation=accept_defaults) as client:
        names = {tool.name for tool in await client.list_tools()}
    assert TRIGGERS & names == {"trigger-elicitation-request", "get-roots-list"}


async def test_sampling_handler_answers_the_server(everything: ModuleType, everything_command: list[str]) -> None:
    seen: list[SamplingRequest] = []

    async def sample(request: SamplingRequest) -> Completion:
        seen.append(request)
        return Completion(f"echo: {request.messages[-1].text}", model="test-model")

    async with _stdio(everything, everything_command, sampling=sample) as client:
        result = await client.call_raw("trigger-sampling-request", {"prompt": "hi there", "maxTokens": 17})
    [request] = seen
    assert request.max_tokens == 17 and request.system_prompt == "You are a helpful test server."
    assert request.messages[0].role == "user" and request.messages[0].text.endswith("hi there")
    assert request.messages[0].content[0]["type"] == "text"
    text = _text(result)
    assert '"model": "test-model"' in text and "echo: " in text and "hi there" in text


async def test_elicitation_accept_sends_content_with_defaults(
    everything: ModuleType, everything_command: list[str]
) -> None:
    seen: list[ElicitationRequest] = []

    def answer(request: ElicitationRequest) -> Accept:
        seen.append(request)
        return Accept({"name": "Ann", "check": True})

    async with _stdio(everything, everything_command, elicitation=answer) as client:
        result = await client.call_raw("trigger-elicitation-request", {})
    [request] = seen
    assert request.mode == "form" and "name" in request.requested_schema["properties"]
    text = _text(result)
    assert "User provided the requested information" in text
    assert '"name": "Ann"' in text and '"firstLine": "It was a dark and stormy night."' in text


@pytest.mark.parametrize(("answer", "expected"), [(Decline(), "declined"), (Cancel(), "cancelled")])
async def test_elicitation_decline_and_cancel(
    everything: ModuleType, everything_command: list[str], answer: object, expected: str
) -> None:
    async def handler(request: ElicitationRequest) -> object:
        return answer

    async with _stdio(everything, everything_command, elicitation=handler) as client:
        result = await client.call_raw("trigger-elicitation-request", {})
    assert expected in _text(result).lower()


@pytest.mark.parametrize(("answer", "expected"), [(Accept(), '"action": "accept"'), (Decline(), '"action": "decline"')])
async def test_url_mode_elicitation(
    everything: ModuleType, everything_command: list[str], answer: object, expected: str
) -> None:
    seen: list[ElicitationRequest] = []

    def handler(request: ElicitationRequest) -> object:
        seen.append(request)
        return answer

    async with _stdio(everything, everything_command, elicitation=handler) as client:
        result = await client.call_raw(
            "trigger-url-elicitation", {"url": "https://example.test/login", "message": "Log in"}
        )
    [request] = seen
    assert (request.mode, request.url, request.message) == ("url", "https://example.test/login", "Log in")
    assert expected in _text(result)


async def test_a_failing_or_invalid_answer_is_an_error_to_the_server_and_the_session_lives_on(
    everything: ModuleType, everything_command: list[str]
) -> None:
    answers: list[object] = [Accept({"name": 5}), RuntimeError("secret detail")]

    def handler(request: ElicitationRequest) -> object:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    async with _stdio(everything, everything_command, elicitation=handler) as client:
        first = await client.call_raw("trigger-elicitation-request", {})
        assert first.is_error and "'name' must be a string" in _text(first)
        second = await client.call_raw("trigger-elicitation-request", {})
        assert second.is_error and "elicitation handler failed" in _text(second)
        assert "secret detail" not in _text(second)
        assert (await client.call_raw("echo", {"message": "still here"})).is_error is False


async def test_roots_are_listed_and_set_roots_notifies_the_server(
    everything: ModuleType, everything_command: list[str], tmp_path: Path
) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    logs: list[LogMessage] = []
    updated = anyio.Event()

    def on_log(message: LogMessage) -> None:
        logs.append(message)
        if "Roots updated: 2 root(s)" in str(message.data):
            updated.set()

    async with _stdio(everything, everything_command, roots=[first], on_log=on_log) as client:
        assert client.roots == (first.resolve().as_uri(),)
        listed = _text(await client.call_raw("get-roots-list", {}))
        assert f"URI: {first.resolve().as_uri()}" in listed and "1 total" in listed
        await client.set_roots([second, Root("file:///srv/data", "data")])
        with anyio.fail_after(30):  # a bound on a hang, not a timing assertion
            await updated.wait()
        listed = _text(await client.call_raw("get-roots-list", {}))
    assert "2 total" in listed and f"URI: {second.resolve().as_uri()}" in listed and "data" in listed
    assert first.resolve().as_uri() not in listed
    assert logs[0].level == "info" and logs[0].logger == "everything-server"


async def test_set_roots_needs_roots_at_connect(everything: ModuleType, everything_command: list[str]) -> None:
    async with _stdio(everything, everything_command, on_log=lambda message: None) as client:
        assert client.roots is None
        with pytest.raises(RuntimeError, match="roots="):
            await client.set_roots(["/tmp"])
        await client.set_log_level("debug")  # accepted by the server


async def test_from_session_with_server_requests(everything: ModuleType, everything_command: list[str]) -> None:
    from mcp import Client as McpClient
    from mcp import StdioServerParameters

    requests = mcp_codegen_runtime.ServerRequests(roots=["file:///a"], elicitation=accept_defaults)
    params = StdioServerParameters(command=everything_command[0], args=everything_command[1:])
    async with McpClient(params, mode="legacy", cache=None, **requests.sdk_options()) as session:
        client = everything.AsyncClient.from_session(session, server_requests=requests)
        assert client.roots == ("file:///a",)
        await client.set_roots(["file:///b"])
        assert "file:///b" in _text(await client.call_raw("get-roots-list", {}))
        elicited = _text(await client.call_raw("trigger-elicitation-request", {}))
    assert "declined" in elicited.lower()  # accept_defaults: 'name' is required and has no default


def test_sync_client_runs_plain_handlers_on_its_loop_thread(
    everything: ModuleType, everything_command: list[str], tmp_path: Path
) -> None:
    threads: set[int] = set()

    def sample(request: SamplingRequest) -> str:
        threads.add(threading.get_ident())
        return "sync answer"

    def elicit(request: ElicitationRequest) -> dict[str, object]:
        threads.add(threading.get_ident())
        return {"name": "Bo"}  # a plain mapping means Accept

    command = everything_command
    with everything.Client.stdio(
        command[0], command[1:], stderr="discard", timeout=30, sampling=sample, elicitation=elicit, roots=[tmp_path]
    ) as client:
        sampled = client.call_raw("trigger-sampling-request", {"prompt": "p", "maxTokens": 5})
        elicited = client.call_raw("trigger-elicitation-request", {})
        client.set_roots([])
        assert client.roots == ()
    assert "sync answer" in _text(sampled)
    assert '"name": "Bo"' in _text(elicited) and "It was a dark and stormy night." in _text(elicited)
    assert len(threads) == 1 and threading.get_ident() not in threads


# ------------------------------------------------------------------ live: the SDK's server, in process


class Booking(BaseModel):
    guests: int = 2
    vegan: bool = False
    note: str


def _sdk_server() -> MCPServer:
    server = MCPServer("asks")

    @server.tool()
    async def book(ctx: Context) -> str:
        await ctx.info("booking", logger_name="desk")
        answer = await ctx.elicit("How many?", Booking)
        return f"{answer.action}:{answer.data.model_dump() if answer.data else None}"

    @server.tool()
    async def summarize(text: str, ctx: Context) -> str:
        message = mcp_types.SamplingMessage(role="user", content=mcp_types.TextContent(text=text))
        result = await ctx.request_context.session.create_message(
            [message], max_tokens=9, system_prompt="be brief", model_preferences=None
        )
        content = result.content
        return f"{result.model}:{getattr(content, 'text', '')}"

    @server.tool()
    async def plan(city: str, ctx: Context) -> str:
        """Sampling with a tool: the model calls `forecast`, gets its result, then answers."""
        session = ctx.request_context.session
        forecast = mcp_types.Tool(
            name="forecast",
            description="The weather in a city.",
            input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        )
        ask = mcp_types.SamplingMessage(role="user", content=mcp_types.TextContent(text=f"Plan a day in {city}"))
        first = await session.create_message(
            [ask], max_tokens=50, tools=[forecast], tool_choice=mcp_types.ToolChoice(mode="required")
        )
        [use] = [block for block in first.content_as_list if block.type == "tool_use"]
        reply = mcp_types.ToolResultContent(
            tool_use_id=use.id, content=[mcp_types.TextContent(text=f"sunny in {use.input['city']}")]
        )
        second = await session.create_message(
            [ask, mcp_types.SamplingMessage(role="assistant", content=[use]),
             mcp_types.SamplingMessage(role="user", content=[reply])],
            max_tokens=50,
            tools=[forecast],
        )
        return f"{first.stop_reason}:{use.name}:{use.input}|{second.stop_reason}:{getattr(second.content, 'text', '')}"

    return server


async def test_in_process_sdk_server_gets_typed_answers() -> None:
    from rt_helpers import LowClient

    logs: list[LogMessage] = []
    logged = anyio.Event()
    seen: list[SamplingRequest] = []

    def on_log(message: LogMessage) -> None:
        logs.append(message)
        logged.set()

    def sample(request: SamplingRequest) -> Completion:
        seen.append(request)
        return Completion(request.messages[0].text.upper(), model="up")

    async with LowClient.in_process(
        _sdk_server(),
        drift_check=False,
        elicitation=lambda request: Accept({"note": "window"}),
        sampling=sample,
        on_log=on_log,
    ) as client:
        booked = await client.call_raw("book", {})
        summary = await client.call_raw("summarize", {"text": "abc"})
        with anyio.fail_after(30):  # a bound on a hang, not a timing assertion
            await logged.wait()
    assert _text(booked) == "accept:{'guests': 2, 'vegan': False, 'note': 'window'}"
    assert _text(summary) == "up:ABC"
    assert seen[0].system_prompt == "be brief" and seen[0].max_tokens == 9
    assert logs == [LogMessage("info", "desk", "booking")]


async def test_sampling_with_tools_runs_the_models_tool_loop() -> None:
    from rt_helpers import LowClient

    seen: list[SamplingRequest] = []

    def model(request: SamplingRequest) -> Completion:
        seen.append(request)
        last = request.messages[-1].content[-1]
        if last["type"] == "tool_result":  # round two: the server ran the tool
            return Completion(f"take a walk, it is {last['content'][0]['text']}", model="m")
        return Completion("", model="m", tool_uses=(ToolUse("forecast", {"city": "Oslo"}, id="call-1"),))

    async with LowClient.in_process(_sdk_server(), drift_check=False, sampling=model) as client:
        result = await client.call_raw("plan", {"city": "Oslo"})
    assert _text(result) == "toolUse:forecast:{'city': 'Oslo'}|endTurn:take a walk, it is sunny in Oslo"
    first, second = seen
    assert first.tools == (
        SamplingTool(
            "forecast",
            "The weather in a city.",
            {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        ),
    )
    assert first.tool_choice == "required" and second.tool_choice is None
    assert second.messages[1].content[0] == {"type": "tool_use", "name": "forecast", "id": "call-1", "input": {"city": "Oslo"}}
