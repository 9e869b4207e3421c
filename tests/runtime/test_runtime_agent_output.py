"""What agent tools hand a model: the text the server wrote, structured content as JSON only where there is none.

Bug 11: a string result reached models as a JSON string literal (`"42"`, a file's text as one
quoted line with `\\n` escapes). Every converter renders the same `ToolOutput`, so each is checked.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
import pytest
from rt_helpers import LowClient, in_memory, lowlevel_server

from mcp_codegen_runtime.agents.output import output_from_result
from mcp_codegen_runtime.calls.results import ToolResult

pytestmark = pytest.mark.anyio

FILE_TEXT = 'line 1\nline 2\t"quoted" – ünïcode\n\nlast line'


async def test_a_string_result_reaches_every_framework_as_the_text(monkeypatch: pytest.MonkeyPatch) -> None:
    # `env_value` is an SDK-built tool returning str: structuredContent {"result": ...} plus the text.
    monkeypatch.setenv("AGX_FILE_TEXT", FILE_TEXT)
    arguments = {"name": "AGX_FILE_TEXT"}
    async with in_memory() as client:
        tool = client.tools()["env_value"]
        out = await tool.run(arguments)
        assert out.text == FILE_TEXT and not out.is_error
        assert out.structured == {"result": FILE_TEXT}  # still there for code
        assert (await client.tools()["describe"].run({})).text == "7"  # not '"7"'

        [chat] = await client.handle_openai_tool_calls(
            [{"id": "c", "function": {"name": "env_value", "arguments": json.dumps(arguments)}}]
        )
        assert chat["content"] == FILE_TEXT
        [responses] = await client.handle_openai_responses_calls(
            [{"type": "function_call", "call_id": "r", "name": "env_value", "arguments": json.dumps(arguments)}]
        )
        assert responses["output"] == FILE_TEXT
        [anthropic] = await client.handle_anthropic_tool_use(
            [{"type": "tool_use", "id": "a", "name": "env_value", "input": arguments}]
        )
        assert anthropic["content"] == [{"type": "text", "text": FILE_TEXT}]
        assert await tool.to_langchain().ainvoke(arguments) == FILE_TEXT
        assert await tool.to_pydantic_ai().function(**arguments) == FILE_TEXT
        agents_tool: Any = tool.to_openai_agents()
        assert await agents_tool.on_invoke_tool(None, json.dumps(arguments)) == FILE_TEXT


async def test_text_wins_over_structured_content_and_json_fills_in_without_text() -> None:
    async with in_memory(lowlevel_server()) as session_client:
        client = LowClient.from_session(session_client.session)
        tools = client.tools()
        # Both: the server's text is what it wrote for a model; the structured value stays on the output.
        both = await tools["mismatch"].run({"mode": "ok"})
        assert both.text == "ok" and both.structured == {"count": 1, "label": "one"}
        # Structured content only: JSON, unwrapped from {"result": ...} for SDK-style tools.
        only = await tools["mismatch"].run({"mode": "structured-only"})
        assert json.loads(only.text) == {"count": 3, "label": "three"}
        wrapped = await tools["wrapped"].run({"mode": "structured-only"})
        assert wrapped.text == "42"
        [message] = await client.handle_openai_tool_calls(
            [{"id": "w", "function": {"name": "wrapped", "arguments": '{"mode": "structured-only"}'}}]
        )
        assert message["content"] == "42"


def test_a_wrapped_string_without_text_is_the_string_itself() -> None:
    raw = types.CallToolResult(content=[], structured_content={"result": "a\nb"})
    assert output_from_result(ToolResult(raw), unwrap=True).text == "a\nb"
    assert json.loads(output_from_result(ToolResult(raw), unwrap=False).text) == {"result": "a\nb"}
    # Empty text blocks are no text: the structured content fills in.
    blank = types.CallToolResult(content=[types.TextContent(type="text", text="")], structured_content={"n": 1})
    assert output_from_result(ToolResult(blank)).text == '{"n": 1}'
