"""pydantic-ai agents (FunctionModel, TestModel) running the generated tools against real servers, offline."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

import mcp_codegen_runtime


def _listed_schema(pkg: ModuleType, name: str) -> dict[str, Any]:
    data = json.loads((Path(pkg.__file__).parent / "snapshot.json").read_text())
    return next(tool["inputSchema"] for tool in data["tools"] if tool["name"] == name)


def _tool_returns(messages: list[ModelMessage]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if getattr(part, "part_kind", "") in ("tool-return", "retry-prompt") and getattr(
                    part, "tool_name", None
                ):
                    found[part.tool_name] = part
    return found


def test_function_model_loop_on_the_demo_server(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    seen: dict[str, Any] = {}

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = _tool_returns(messages)
        if not returns:
            seen["definitions"] = {tool.name: tool for tool in info.function_tools}
            return ModelResponse(
                parts=[
                    ToolCallPart("get_weather", {"city": "Oslo", "units": "fahrenheit"}, tool_call_id="c1"),
                    ToolCallPart("add", {"a": 2, "b": 3}, tool_call_id="c2"),
                    ToolCallPart("get_note", {"note_id": "nope"}, tool_call_id="c3"),
                ]
            )
        seen["returns"] = returns
        return ModelResponse(parts=[TextPart("done")])

    async def main() -> Any:
        async with demo_pkg.AsyncClient.in_process(demo_server) as client:
            recorder = mcp_codegen_runtime.TraceRecorder().attach(client)
            agent = Agent(FunctionModel(model), toolsets=[client.tools().to_pydantic_ai()])
            result = await agent.run("What is the weather in Oslo, and 2 + 3?")
            return result, recorder

    result, recorder = anyio.run(main)
    assert result.output == "done"
    definitions = seen["definitions"]
    assert definitions["get_weather"].parameters_json_schema == _listed_schema(demo_pkg, "get_weather")
    assert definitions["search-notes"].description == "Search note titles and bodies for some text."
    # The tools ran on the server with the model's arguments ...
    ran = {call.tool: call for call in recorder.calls}
    assert ran["get_weather"].arguments == {"city": "Oslo", "units": "fahrenheit"}
    assert ran["get_weather"].result.structured["units"] == "fahrenheit"
    assert ran["add"].arguments == {"a": 2, "b": 3}
    assert ran["get_weather"].framework == "pydantic_ai"
    # ... and their results reached the model; the isError result as a failed tool call, not a crash.
    returns = seen["returns"]
    weather = json.loads(returns["get_weather"].content)
    assert weather["city"] == "Oslo" and weather["units"] == "fahrenheit"
    assert returns["add"].content == "5"
    failed = returns["get_note"]
    assert "nope" in str(failed.content)
    seen_failed = seen["failed_kind"] = failed.part_kind
    assert seen_failed in ("tool-return", "retry-prompt")


def test_test_model_calls_every_selected_tool(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    async def main() -> Any:
        async with demo_pkg.AsyncClient.in_process(demo_server) as client:
            recorder = mcp_codegen_runtime.TraceRecorder().attach(client)
            tools = client.tools(include=["add", "list_notes"], prefix="nb_")
            agent = Agent(TestModel(), toolsets=[tools.to_pydantic_ai()])
            result = await agent.run("go")
            return result, recorder

    result, recorder = anyio.run(main)
    assert sorted(call.agent_name for call in recorder.calls) == ["nb_add", "nb_list_notes"]
    assert all(call.ok for call in recorder.calls), recorder.transcript()
    output = json.loads(result.output)
    add_call = next(call for call in recorder.calls if call.tool == "add")
    assert output["nb_add"] == str(add_call.arguments["a"] + add_call.arguments["b"])


def test_everything_server_echo_and_image(everything_pkg: ModuleType, everything_command: list[str]) -> None:
    seen: dict[str, Any] = {}

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = _tool_returns(messages)
        if not returns:
            return ModelResponse(
                parts=[
                    ToolCallPart("mcp__everything__echo", {"message": "hello agents"}, tool_call_id="e1"),
                    ToolCallPart("mcp__everything__get-tiny-image", {}, tool_call_id="e2"),
                ]
            )
        seen["returns"] = returns
        seen["all"] = messages
        return ModelResponse(parts=[TextPart("ok")])

    async def main() -> Any:
        async with everything_pkg.AsyncClient.stdio(everything_command[0], everything_command[1:]) as client:
            tools = client.tools(include=["echo", "get-tiny-image"], namespace=True)
            agent = Agent(FunctionModel(model), toolsets=[tools.to_pydantic_ai()])
            return await agent.run("echo")

    result = anyio.run(main)
    assert result.output == "ok"
    assert "hello agents" in seen["returns"]["mcp__everything__echo"].content
    # The image reached the model as binary content, not as a placeholder.
    rendered = repr(seen["all"])
    assert "image/png" in rendered and ("BinaryContent" in rendered or "BinaryImage" in rendered)
    assert "[image: image/png" not in rendered
