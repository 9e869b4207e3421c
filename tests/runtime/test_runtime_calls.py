"""The async client over an in-memory session: typed calls, arguments, results and errors."""

from __future__ import annotations

import anyio
import pytest
from fakepkg import AsyncClient
from fakepkg.client import APP_CONFIG, GET_WEATHER, REVIEW, USER_PROFILE
from fakepkg.models.get_weather import GetWeatherResult
from rt_helpers import LowClient, in_memory, lowlevel_server
from rt_server import build_server

from mcp_codegen_runtime import (
    NOT_SENT,
    ArgumentsValidationError,
    ConnectionClosedError,
    McpClientError,
    PromptError,
    PromptResult,
    RequestTimeoutError,
    ResourceError,
    ResourceResult,
    ResultValidationError,
    ToolError,
    ToolResult,
    UnknownToolError,
)

pytestmark = pytest.mark.anyio


async def test_typed_call_returns_the_output_model() -> None:
    async with in_memory() as client:
        weather = await client.get_weather(city="Paris", units="f", days=2)
    assert type(weather) is GetWeatherResult
    assert (weather.city, weather.temperature, weather.units, weather.days) == ("Paris", 70.7, "f", 2)


async def test_not_sent_is_left_out_and_none_is_sent_as_null() -> None:
    async with in_memory() as client:
        assert await client.describe() == "7"  # not sent: the server's own default applies
        assert await client.describe(b=None) == "None"  # sent as JSON null
        assert await client.describe(b=3) == "3"
        assert await client.describe(b=NOT_SENT) == "7"


async def test_primitive_results_are_unwrapped() -> None:
    async with in_memory() as client:
        total = await client.add(a=2, b=40)
        found = await client.search(query="q", max_results=2)
        none_value = await client.env_value(name="SURELY_NOT_SET_ANYWHERE_1234")
    assert type(total) is int and total == 42
    assert found == ["q-0", "q-1"]  # python name max_results sent under its alias maxResults
    assert none_value is None


async def test_tool_without_output_schema_returns_tool_result() -> None:
    async with in_memory() as client:
        result = await client.greet_plain(name="Ada")
    assert type(result) is ToolResult
    assert result.text == "Hello, Ada!"
    assert result.structured is None and not result.is_error
    assert result.raw.content[0].type == "text"
    assert "Hello, Ada!" in repr(result)


async def test_is_error_result_raises_tool_error() -> None:
    async with in_memory() as client:
        with pytest.raises(ToolError) as caught:
            await client.fail(message="disk on fire")
    error = caught.value
    assert type(error) is ToolError
    assert error.tool == "fail"
    assert "disk on fire" in str(error)
    assert error.result.is_error and "disk on fire" in error.result.text


async def test_invalid_arguments_raise_before_sending() -> None:
    async with in_memory() as client:
        with pytest.raises(ArgumentsValidationError) as caught:
            await client.call("add", {"a": "not a number"})
    error = caught.value
    assert type(error) is ArgumentsValidationError
    assert isinstance(error, ValueError) and isinstance(error, McpClientError)
    assert error.tool == "add"
    assert {tuple(item["loc"]) for item in error.errors} == {("a",), ("b",)}


async def test_call_by_name_accepts_wire_and_python_names() -> None:
    async with in_memory() as client:
        assert await client.call("search", {"query": "w", "maxResults": 1}) == ["w-0"]
        assert await client.call("search", {"query": "p", "max_results": 1}) == ["p-0"]
        assert await client.call("add", {"a": 1, "b": 1}) == 2
        weather = await client.call("get_weather", {"city": "Oslo", "units": NOT_SENT})
        assert isinstance(weather, GetWeatherResult) and weather.units == "c"
        raw = await client.call_raw("fail", {"message": "x"})
        assert raw.is_error  # call_raw never raises for isError


async def test_unknown_tool_lists_close_matches() -> None:
    async with in_memory() as client:
        with pytest.raises(UnknownToolError) as caught:
            await client.call("get_wether", {})
    assert type(caught.value) is UnknownToolError
    assert "get_weather" in caught.value.suggestions
    assert "did you mean 'get_weather'" in str(caught.value)


async def test_result_not_matching_the_output_model_keeps_the_raw_result() -> None:
    async with in_memory(lowlevel_server()) as session_client:
        client = LowClient.from_session(session_client.session)
        ok = await client.mismatch(mode="ok")
        assert (ok.count, ok.label) == (1, "one")
        with pytest.raises(ResultValidationError) as caught:
            await client.mismatch(mode="wrong")
        error = caught.value
        assert type(error) is ResultValidationError
        assert error.tool == "mismatch"
        assert error.result.structured == {"count": "many", "label": "x"}  # nothing lost
        assert error.result.text == "many"
        assert error.errors and error.errors[0]["loc"] == ("count",)
        # No structuredContent: the first text block is parsed as JSON...
        from_text = await client.mismatch(mode="text-json")
        assert (from_text.count, from_text.label) == (2, "two")
        # ...and unwrapped tools take a bare JSON value.
        assert await client.wrapped(mode="any") == 42
        with pytest.raises(ResultValidationError) as garbage:
            await client.mismatch(mode="text-garbage")
        assert garbage.value.result.text == "not json"
        # The session is still fine afterwards.
        assert (await client.mismatch(mode="ok")).count == 1


async def test_listings_follow_every_page() -> None:
    async with in_memory(lowlevel_server()) as client:
        tools = await client.list_tools()
    assert [tool.name for tool in tools] == ["mismatch", "wrapped"]


async def test_timeout_leaves_the_session_usable() -> None:
    async with in_memory() as client:
        # A minute's work cut at 0.2 s: waiting it out would trip the 30 s guard.
        with anyio.fail_after(30), pytest.raises(RequestTimeoutError) as caught:
            await client.call("slow", {"seconds": 60}, timeout=0.2)
        assert type(caught.value) is RequestTimeoutError
        assert isinstance(caught.value, TimeoutError)
        assert await client.add(a=1, b=1) == 2


async def test_a_timeout_names_the_tool_and_the_limit() -> None:
    async with in_memory() as client:
        with pytest.raises(RequestTimeoutError, match=r"^tools/call request for tool 'slow' timed out after 0.2 s$"):
            await client.call("slow", {"seconds": 5}, timeout=0.2)
        with pytest.raises(RequestTimeoutError, match=r"^tools/call request for tool 'slow' timed out after 0.2 s$"):
            await client.call_raw("slow", {"seconds": 5}, timeout=0.2)
        with pytest.raises(RequestTimeoutError, match=r"^tools/call request for tool 'slow' timed out after 0.2 s$"):
            await client.with_options(timeout=0.2).call("slow", {"seconds": 5})
        with pytest.raises(RequestTimeoutError, match=r"^tools/call request for tool 'slow' timed out \(no progress"):
            await client.with_options(timeout=0.2, reset_timeout_on_progress=True).call("slow", {"seconds": 5})
    # Without a per-call timeout the connector's own is the limit.
    async with AsyncClient.in_process(build_server(), timeout=0.3, drift_check=False) as client:
        with pytest.raises(RequestTimeoutError, match=r"^tools/call request for tool 'slow' timed out after 0.3 s$"):
            await client.call("slow", {"seconds": 5})


async def test_twenty_concurrent_calls() -> None:
    results: dict[int, int] = {}
    async with in_memory() as client:

        async def one(index: int) -> None:
            results[index] = await client.add(a=index, b=1000)

        async with anyio.create_task_group() as group:
            for index in range(20):
                group.start_soon(one, index)
        assert results == {index: index + 1000 for index in range(20)}


async def test_resources_and_templates() -> None:
    async with in_memory() as client:
        config = await client.resources.app_config()
        profile = await client.resources.user_profile(user_id="42 b/c")
        direct = await client.read_resource("config://app")
        with pytest.raises(ResourceError) as caught:
            await client.read_resource("nope://missing")
    assert type(config) is ResourceResult and config.text == '{"debug": true}'
    assert config.mime_types == ["application/json"] and config.blobs == []
    assert profile.text == "profile of 42 b/c"
    assert profile.contents[0].uri == "users://42%20b%2Fc/profile"  # percent-encoded by the template
    assert direct == config
    assert type(caught.value) is ResourceError and caught.value.uri == "nope://missing"


async def test_prompts() -> None:
    async with in_memory() as client:
        short = await client.prompts.review(code="x = 1")
        long = await client.prompts.review(code="y = 2", style="long")
        by_name = await client.get_prompt("review", {"code": "z"})
        with pytest.raises(ArgumentsValidationError) as missing:
            await client._get_prompt(REVIEW, {"style": "long"})  # pyright: ignore[reportPrivateUsage]
        with pytest.raises(PromptError) as unknown:
            await client.get_prompt("no_such_prompt")
    assert type(short) is PromptResult
    assert short.description == "Review some code."
    assert "(short)" in short.text and "(long)" in long.text and "z" in by_name.text
    assert missing.value.errors[0]["loc"] == ("code",)
    assert type(unknown.value) is PromptError and unknown.value.prompt == "no_such_prompt"


async def test_listings_and_server_info() -> None:
    async with in_memory() as client:
        tools = await client.list_tools()
        resources = await client.list_resources()
        templates = await client.list_resource_templates()
        prompts = await client.list_prompts()
        info = client.server_info
    assert {tool.name for tool in tools} >= {"get_weather", "add", "crash"}
    assert [r.uri for r in resources] == [APP_CONFIG.uri]
    assert [t.uri_template for t in templates] == [USER_PROFILE.uri_template]
    assert [p.name for p in prompts] == ["review"]
    assert info is not None and (info.name, info.version) == ("rt-demo", "1.2.3")


async def test_closed_client_fails_fast_without_touching_the_session() -> None:
    async with in_memory() as client:
        await client.aclose()
        assert client.closed
        with pytest.raises(ConnectionClosedError):
            await client.add(a=1, b=2)
        with pytest.raises(ConnectionClosedError):
            await client.list_tools()


async def test_spec_metadata_comes_from_the_snapshot() -> None:
    assert GET_WEATHER.input_schema["required"] == ["city"]
    assert GET_WEATHER.output_schema is not None and GET_WEATHER.output_schema["title"] == "Weather"
    assert GET_WEATHER.annotations == {"readOnlyHint": True}
    assert GET_WEATHER.description == "Current weather for a city."
    assert GET_WEATHER.title is None
    assert "get_weather" in repr(GET_WEATHER)
    assert REVIEW.description == "Review some code."
    assert USER_PROFILE.mime_type == "text/plain"
    assert APP_CONFIG.description == "The app configuration."
    # Schemas are copies: changing one does not change the snapshot.
    GET_WEATHER.input_schema["required"].append("x")
    assert GET_WEATHER.input_schema["required"] == ["city"]


async def test_from_session_accepts_client_or_client_session() -> None:
    async with in_memory() as client:
        again = AsyncClient.from_session(client.session)
        assert await again.add(a=3, b=4) == 7
        assert again.session is client.session


async def test_in_process_connector_unwraps_body_exceptions() -> None:
    async with AsyncClient.in_process(build_server()) as client:
        assert await client.add(a=1, b=2) == 3
    assert client.closed
    with pytest.raises(ToolError) as caught:
        async with AsyncClient.in_process(build_server()) as client:
            await client.fail(message="inside")
    assert type(caught.value) is ToolError
    with pytest.raises(KeyError) as body:
        async with AsyncClient.in_process(build_server()):
            raise KeyError("mine")
    assert type(body.value) is KeyError
