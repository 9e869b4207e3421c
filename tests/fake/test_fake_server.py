"""The fake server's behaviour for tests: handlers, scripts, errors, recording, latency, progress,
list_changed, elicitation and sampling, resources and prompts; against the SDK's own client in memory."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from mcp_codegen_runtime.serving.fake import FakeServer
from mcp_codegen_runtime.serving.hooks import FakeContext, FakeError

pytestmark = pytest.mark.anyio

SNAPSHOT: dict[str, Any] = {
    "formatVersion": 2,
    "serverInfo": {"name": "weather", "version": "2.0.0"},
    "protocolVersion": "2025-06-18",
    "capabilities": {"tools": {"listChanged": True}, "resources": {}, "prompts": {}},
    "instructions": "Ask about the weather.",
    "tools": [
        {
            "name": "get_weather",
            "description": "Weather now.",
            "inputSchema": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
                "required": ["city"],
            },
            "outputSchema": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "temperature": {"type": "number", "minimum": -90, "maximum": 60},
                    "conditions": {"enum": ["sunny", "rain"]},
                },
                "required": ["city", "temperature", "conditions"],
            },
        },
        {"name": "ping", "inputSchema": {"type": "object"}},
    ],
    "resources": [{"uri": "config://app", "name": "config", "mimeType": "application/json"}],
    "resourceTemplates": [{"uriTemplate": "notes://{note_id}/text", "name": "note"}],
    "prompts": [
        {
            "name": "plan",
            "description": "Plan a trip.",
            "arguments": [{"name": "city", "required": True}, {"name": "style"}],
        }
    ],
}


def _client(fake: FakeServer, **options: Any) -> Client:
    return Client(fake, mode="legacy", cache=None, **options)


async def test_unhandled_tools_answer_synthesised_results_or_text() -> None:
    fake = FakeServer(SNAPSHOT)
    async with _client(fake) as client:
        result = await client.call_tool("get_weather", {"city": "Oslo"})
        assert not result.is_error
        assert result.structured_content == {"city": "string", "temperature": 0, "conditions": "sunny"}
        text = await client.call_tool("ping", {})
        assert text.structured_content is None and text.content[0].text == "ping: fake result"


async def test_unhandled_error_names_the_tool() -> None:
    fake = FakeServer(SNAPSHOT, unhandled="error")
    async with _client(fake) as client:
        result = await client.session.call_tool("get_weather", {"city": "Oslo"})
        assert result.is_error
        assert "'get_weather'" in result.content[0].text
        with pytest.raises(MCPError, match="no handler for prompt 'plan'"):
            await client.get_prompt("plan", {"city": "Oslo"})


async def test_handlers_receive_arguments_and_their_return_becomes_the_result() -> None:
    fake = FakeServer(SNAPSHOT)

    @fake.tools["get_weather"]
    def weather(arguments: dict[str, Any]) -> dict[str, Any]:
        return {"city": arguments["city"], "temperature": 12.5, "conditions": "rain"}

    @fake.tools["ping"]
    async def ping(arguments: dict[str, Any]) -> str:
        return "pong"

    async with _client(fake) as client:
        result = await client.call_tool("get_weather", {"city": "Oslo"})
        assert result.structured_content == {"city": "Oslo", "temperature": 12.5, "conditions": "rain"}
        assert (await client.call_tool("ping", {})).content[0].text == "pong"


async def test_raising_makes_an_is_error_result_with_the_message() -> None:
    fake = FakeServer(SNAPSHOT)

    @fake.tools["get_weather"]
    def weather(arguments: dict[str, Any]) -> dict[str, Any]:
        raise FakeError("city unknown", structured={"code": 404})

    @fake.tools["ping"]
    def ping(arguments: dict[str, Any]) -> str:
        raise ValueError("broken")

    async with _client(fake) as client:
        failed = await client.session.call_tool("get_weather", {"city": "Atlantis"})
        assert failed.is_error and failed.content[0].text == "city unknown"
        assert failed.structured_content == {"code": 404}
        broken = await client.session.call_tool("ping", {})
        assert broken.is_error and broken.content[0].text == "broken"
    assert [call.error for call in fake.calls] == ["city unknown", "broken"]


async def test_invalid_arguments_are_rejected_before_the_handler() -> None:
    fake = FakeServer(SNAPSHOT)
    seen: list[Any] = []
    fake.tools["get_weather"](seen.append)
    async with _client(fake) as client:
        missing = await client.session.call_tool("get_weather", {})
        wrong = await client.session.call_tool("get_weather", {"city": "Oslo", "days": 0})
        unknown = await client.session.call_tool("nope", {})
    assert missing.is_error and missing.content[0].text.startswith("Input validation error: 'city' is a required")
    assert wrong.is_error and "(at days)" in wrong.content[0].text
    assert unknown.is_error and unknown.content[0].text == "Unknown tool: nope"
    assert seen == []
    assert [call.name for call in fake.calls] == ["get_weather", "get_weather", "nope"]
    assert all(call.is_error for call in fake.calls)


async def test_script_fails_first_then_succeeds_then_falls_back_to_the_handler() -> None:
    fake = FakeServer(SNAPSHOT)
    ok = {"city": "Oslo", "temperature": 1, "conditions": "sunny"}
    fake.script("get_weather", [FakeError("try again"), ok])
    fake.tools["get_weather"](lambda arguments: {**ok, "temperature": 2})
    async with _client(fake) as client:
        texts = []
        for _ in range(3):
            result = await client.session.call_tool("get_weather", {"city": "Oslo"})
            texts.append((result.is_error, (result.structured_content or {}).get("temperature")))
    assert texts == [(True, None), (False, 1), (False, 2)]
    assert [call.is_error for call in fake.tools["get_weather"].calls] == [True, False, False]
    assert fake.calls[0].arguments == {"city": "Oslo"}
    assert isinstance(fake.calls[1].result, types.CallToolResult)


async def test_delay_holds_the_answer_back() -> None:
    fake = FakeServer(SNAPSHOT, delay=30)
    async with _client(fake) as client:
        with pytest.raises(MCPError) as raised:
            await client.session.call_tool("ping", {}, read_timeout_seconds=0.2)
        assert raised.value.error.code == types.REQUEST_TIMEOUT
        fake.delay = 0
        hook = fake.tools["ping"]
        hook.delay = 30
        with pytest.raises(MCPError):
            await client.session.call_tool("ping", {}, read_timeout_seconds=0.2)
        hook.delay = 0
        assert not (await client.session.call_tool("ping", {})).is_error


async def test_progress_elicitation_sampling_and_logs_from_a_handler() -> None:
    fake = FakeServer(SNAPSHOT)

    @fake.tools["ping"]
    async def ping(arguments: dict[str, Any], ctx: FakeContext) -> str:
        await ctx.progress(1, 2, "half way")
        answer = await ctx.elicit("Which city?", {"type": "object", "properties": {"city": {"type": "string"}}})
        sampled = await ctx.sample("Say hi", max_tokens=10)
        await ctx.log("info", "done")
        assert isinstance(sampled.content, types.TextContent)
        return f"{answer.action}:{(answer.content or {}).get('city')}:{sampled.content.text}"

    progress: list[tuple[float, float | None, str | None]] = []
    logs: list[Any] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        assert params.message == "Which city?"
        return types.ElicitResult(action="accept", content={"city": "Oslo"})

    async def sample(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text="hi"), model="m")

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params.data)

    async with _client(fake, elicitation_callback=elicit, sampling_callback=sample, logging_callback=on_log) as client:
        result = await client.call_tool("ping", {}, progress_callback=on_progress)
    assert result.content[0].text == "accept:Oslo:hi"
    assert progress == [(1, 2, "half way")]
    assert logs == ["done"]


async def test_list_changed_drops_and_changes_tools_and_notifies() -> None:
    fake = FakeServer(SNAPSHOT)
    notified = anyio.Event()
    methods: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ServerNotification | types.ToolListChangedNotification):
            root = getattr(message, "root", message)
            methods.append(root.method)
            notified.set()

    async with _client(fake, message_handler=on_message) as client:
        assert [tool.name for tool in (await client.list_tools()).tools] == ["get_weather", "ping"]
        await fake.remove_tool("ping")
        with anyio.fail_after(5):
            await notified.wait()
        assert [tool.name for tool in (await client.list_tools()).tools] == ["get_weather"]
        gone = await client.session.call_tool("ping", {})
        assert gone.is_error and gone.content[0].text == "Unknown tool: ping"
        changed = fake.listing("tools", "get_weather")
        changed["inputSchema"]["required"] = ["city", "days"]
        await fake.set_tool(changed)
        now = await client.session.call_tool("get_weather", {"city": "Oslo"})
        assert now.is_error and "'days' is a required property" in now.content[0].text
        listed = (await client.list_tools()).tools[0]
        assert listed.input_schema["required"] == ["city", "days"]
    assert methods[:2] == ["notifications/tools/list_changed", "notifications/tools/list_changed"]


async def test_resources_static_and_templated_are_read_and_recorded() -> None:
    fake = FakeServer(SNAPSHOT)

    @fake.resources["notes://{note_id}/text"]
    def note(variables: dict[str, str]) -> str:
        return f"note {variables['note_id']}"

    async with _client(fake) as client:
        static = await client.read_resource("config://app")
        templated = await client.read_resource("notes://n%201/text")
        with pytest.raises(MCPError, match="Resource not found"):
            await client.read_resource("other://x")
    first = static.contents[0]
    assert isinstance(first, types.TextResourceContents)
    assert first.mime_type == "application/json" and first.text == "config://app: fake contents"
    second = templated.contents[0]
    assert isinstance(second, types.TextResourceContents) and second.text == "note n 1"
    assert [(c.kind, c.name, c.arguments, c.is_error) for c in fake.calls] == [
        ("resource", "config://app", {}, False),
        ("resource", "notes://n%201/text", {"note_id": "n 1"}, False),
        ("resource", "other://x", {}, True),
    ]
    assert len(fake.resources["notes://{note_id}/text"].calls) == 1


async def test_prompts_answer_messages_and_check_required_arguments() -> None:
    fake = FakeServer(SNAPSHOT)
    async with _client(fake) as client:
        unhandled = await client.get_prompt("plan", {"city": "Oslo"})
        assert unhandled.messages[0].content == types.TextContent(type="text", text="plan(city=Oslo)")
        assert unhandled.description == "Plan a trip."

        @fake.prompts["plan"]
        def plan(arguments: dict[str, str]) -> list[str]:
            return [f"Go to {arguments['city']}", "Pack light"]

        handled = await client.get_prompt("plan", {"city": "Rome", "style": "short"})
        assert [m.content.text for m in handled.messages if isinstance(m.content, types.TextContent)] == [
            "Go to Rome",
            "Pack light",
        ]
        with pytest.raises(MCPError, match="Missing required arguments: city"):
            await client.get_prompt("plan", {})
        with pytest.raises(MCPError, match="Unknown prompt: nope"):
            await client.get_prompt("nope", {})
    assert [call.error for call in fake.calls_to("plan")] == [None, None, "Missing required arguments: city"]


async def test_capabilities_decide_which_methods_exist() -> None:
    snapshot = {**SNAPSHOT, "capabilities": {"tools": {}}}
    fake = FakeServer(snapshot)
    async with _client(fake) as client:
        with pytest.raises(MCPError) as raised:
            await client.list_prompts()
        assert raised.value.error.code == types.METHOD_NOT_FOUND


async def test_reset_forgets_calls_handlers_and_scripts() -> None:
    fake = FakeServer(SNAPSHOT)
    fake.tools["ping"](lambda arguments: "pong")
    fake.script("ping", [FakeError("x")])
    async with _client(fake) as client:
        await client.call_tool("get_weather", {"city": "Oslo"})
        fake.reset()
        assert fake.calls == []
        assert (await client.call_tool("ping", {})).content[0].text == "ping: fake result"


def test_constructor_checks_its_options() -> None:
    with pytest.raises(ValueError, match="unhandled"):
        FakeServer(SNAPSHOT, unhandled="ignore")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="page_size"):
        FakeServer(SNAPSHOT, page_size=0)
    with pytest.raises(KeyError):
        FakeServer(SNAPSHOT).tools["nope"]


async def test_a_2026_era_client_lists_and_calls_too() -> None:
    """The SDK client's default mode negotiates 2026-07-28 (no handshake; results carry caching fields)."""
    fake = FakeServer(SNAPSHOT)
    with anyio.fail_after(30):
        async with Client(fake, cache=None) as client:
            assert [tool.name for tool in (await client.list_tools()).tools] == ["get_weather", "ping"]
            assert [prompt.name for prompt in (await client.list_prompts()).prompts] == ["plan"]
            result = await client.call_tool("get_weather", {"city": "Oslo"})
            assert not result.is_error and result.structured_content is not None
