"""`tools(code=True)`: the one `run_python` tool, in the converters and the `handle_*` methods.

Against the demo server (in memory) and, for the index form with `search_api`, the demo server with a
small stub limit and the ms-365 listing (344 tools) served by its package's fake server.
"""

from __future__ import annotations

import importlib
import json
from types import ModuleType

import pytest
from mcp.server.mcpserver import MCPServer

pytestmark = pytest.mark.anyio


def _agent_tool_module(pkg: ModuleType) -> ModuleType:
    """The runtime's `code_mode.agent_tool`, which every package imports."""
    return importlib.import_module("mcp_codegen_runtime.code_mode.agent_tool")


def _use(code: str, block_id: str = "toolu_1") -> list[dict[str, object]]:
    return [{"type": "tool_use", "id": block_id, "name": "run_python", "input": {"code": code}}]


async def test_one_tool_carrying_the_stubs_in_every_converter(code_demo: ModuleType, demo_server: MCPServer) -> None:
    async with code_demo.AsyncClient.in_process(demo_server) as client:
        tools = client.tools(code=True)
        assert tools.names == ["run_python"]
        [anthropic] = tools.to_anthropic()
        assert anthropic["input_schema"]["required"] == ["code"]
        stubs = client.code_api()
        for line in ("async def add(*, a: int, b: int) -> int:", "class GetWeatherResult(TypedDict):"):
            assert line in stubs and line in anthropic["description"]
        [openai] = tools.to_openai()
        assert openai["function"]["name"] == "run_python"
        assert openai["function"]["description"] == anthropic["description"]
        assert [tool.name for tool in tools.to_langchain()] == ["run_python"]
        assert tools["run_python"].annotations == {"openWorldHint": True}


async def test_handle_anthropic_tool_use_returns_the_codes_value(code_demo: ModuleType, demo_server: MCPServer) -> None:
    code = (
        "import code_demo_client as api\n"
        "total = 0\n"
        "for n in range(1, 21):\n"
        "    total += await api.add(a=n, b=n)\n"
        "print('done')\n"
        "total\n"
    )
    async with code_demo.AsyncClient.in_process(demo_server) as client:
        client.tools(code=True)
        [answer] = await client.handle_anthropic_tool_use(_use(code))
        assert answer["tool_use_id"] == "toolu_1" and "is_error" not in answer
        assert json.loads(answer["content"][0]["text"]) == {"value": 420, "stdout": "done\n"}
        # OpenAI's dialect too, through the set.
        tools = client.tools(code=True)
        [message] = await tools.handle_openai_tool_calls(
            [{"id": "c1", "type": "function", "function": {"name": "run_python", "arguments": json.dumps({"code": "import code_demo_client as api\nawait api.add(a=40, b=2)"})}}]
        )
        assert json.loads(message["content"]) == {"value": 42}


async def test_a_failed_run_is_an_error_result_that_says_what_to_fix(
    code_demo: ModuleType, demo_server: MCPServer
) -> None:
    async with code_demo.AsyncClient.in_process(demo_server) as client:
        tools = client.tools(code=True)
        [typed] = await tools.handle_anthropic_tool_use(_use("import code_demo_client as api\nawait api.add(a='x', b=1)"))
        [raised] = await tools.handle_anthropic_tool_use(
            _use("import code_demo_client as api\nprint('before')\nawait api.get_note(note_id='nope')")
        )
        [limit] = await tools.handle_anthropic_tool_use(_use("while True:\n    pass"), timeout=0.5)
    assert typed["is_error"] is True
    assert "code.py:2:" in typed["content"][0]["text"] and "Expected `int`" in typed["content"][0]["text"]
    assert raised["is_error"] is True
    text = raised["content"][0]["text"]
    assert "line 3" in text and "ToolError" in text and "before" in text
    assert limit["is_error"] is True and "time limit" in limit["content"][0]["text"]


async def test_the_sets_filters_choose_the_functions(code_demo: ModuleType, demo_server: MCPServer) -> None:
    async with code_demo.AsyncClient.in_process(demo_server) as client:
        tools = client.tools("get_*", code=True)
        description = tools.to_anthropic()[0]["description"]
        assert "async def get_weather(" in description and "async def add(" not in description
        [refused] = await tools.handle_anthropic_tool_use(_use("import code_demo_client as api\nawait api.add(a=1, b=2)"))
        [allowed] = await tools.handle_anthropic_tool_use(
            _use("import code_demo_client as api\n(await api.get_weather(city='Oslo'))['city']")
        )
    assert refused["is_error"] is True and "add" in refused["content"][0]["text"]
    assert json.loads(allowed["content"][0]["text"]) == {"value": "Oslo"}


async def test_past_the_limit_an_index_and_search_api(
    code_demo: ModuleType, demo_server: MCPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent_tool = _agent_tool_module(code_demo)
    monkeypatch.setattr(agent_tool, "STUBS_LIMIT", 200)
    code = "import code_demo_client as api\nfound = api.search_api('weather in a city', 1)\nfound\n"
    async with code_demo.AsyncClient.in_process(demo_server) as client:
        tools = client.tools(code=True)
        description = tools.to_anthropic()[0]["description"]
        assert "get_weather: Get the current weather for a city" in description
        assert "async def" not in description
        [answer] = await tools.handle_anthropic_tool_use(_use(code))
        # Outside index mode the module has no search_api: the type check refuses it.
        monkeypatch.setattr(agent_tool, "STUBS_LIMIT", 10**9)
        [plain] = await client.tools(code=True).handle_anthropic_tool_use(_use(code))
    found = json.loads(answer["content"][0]["text"])["value"]
    assert found.startswith("from typing import") and "async def get_weather(" in found
    assert "class GetWeatherResult(TypedDict):" in found and "async def add(" not in found
    assert plain["is_error"] is True and "search_api" in plain["content"][0]["text"]


@pytest.mark.slow(reason="ms-365's 344 tools: its whole stub read and type-checked by the sandbox")
async def test_ms365_fits_in_40_kb_and_finds_its_functions(code_ms365: ModuleType) -> None:
    pkg = code_ms365
    agent_tool = _agent_tool_module(pkg)
    testing = importlib.import_module("code_ms365_client.testing")
    async with pkg.AsyncClient.in_process(testing.FakeServer()) as client:
        tools = client.tools(code=True)
        size = len(json.dumps(tools.to_anthropic()).encode("utf-8"))
        assert size < 40_000, size
        assert len(client.code_api().encode("utf-8")) > 20 * agent_tool.STUBS_LIMIT  # the index is what fits
        code = "import code_ms365_client as api\napi.search_api('send an email message', 3)\n"
        [answer] = await client.handle_anthropic_tool_use(_use(code))
    found = json.loads(answer["content"][0]["text"])["value"]
    assert "async def send_mail(" in found


def test_a_blocking_clients_run_python(code_demo: ModuleType) -> None:
    import sys

    with code_demo.Client.stdio(sys.executable, ["-m", "mcp_codegen.demo"]) as client:
        tools = client.tools(code=True)
        output = tools["run_python"].run_sync({"code": "import code_demo_client as api\nawait api.add(a=2, b=3)"})
    assert not output.is_error
    assert json.loads(output.parts[0].text) == {"value": 5}
