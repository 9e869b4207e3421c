"""The OpenAI Agents SDK running the generated tools as FunctionTools, with a fake Model, offline."""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any

import anyio
import pytest
from agents import Agent, FunctionTool, RunConfig, Runner, Usage
from agents.items import ModelResponse
from agents.models.interface import Model
from helpers import corpus_names, corpus_snapshot
from mcp.server.mcpserver import MCPServer
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

import mcp_codegen_runtime
from mcp_codegen_runtime.agents import NotStrictError, strict_json_schema


class ScriptedModel(Model):
    """Answers turn 1 with the given tool calls and turn 2 with text; records its inputs and tools."""

    def __init__(self, calls: list[tuple[str, dict[str, Any]]]) -> None:
        self.calls = calls
        self.inputs: list[Any] = []
        self.tools: list[Any] = []

    async def get_response(
        self,
        system_instructions: Any,
        input: Any,
        model_settings: Any,
        tools: Any,
        output_schema: Any,
        handoffs: Any,
        tracing: Any,
        **kwargs: Any,
    ) -> ModelResponse:
        self.inputs.append(input)
        self.tools = list(tools)
        if len(self.inputs) == 1:
            output: list[Any] = [
                ResponseFunctionToolCall(
                    type="function_call",
                    id=f"fc{i}",
                    call_id=f"call_{i}",
                    name=name,
                    arguments=json.dumps(args),
                    status="completed",
                )
                for i, (name, args) in enumerate(self.calls)
            ]
        else:
            output = [
                ResponseOutputMessage(
                    id="msg",
                    type="message",
                    role="assistant",
                    status="completed",
                    content=[ResponseOutputText(type="output_text", text="finished", annotations=[])],
                )
            ]
        return ModelResponse(output=output, usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:  # pragma: no cover
        raise NotImplementedError


def _outputs(model: ScriptedModel) -> dict[str, Any]:
    items = model.inputs[1]
    return {
        item["call_id"]: item["output"]
        for item in items
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    }


def test_agent_loop_on_the_demo_server(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    model = ScriptedModel(
        [
            (
                "draft_note",
                {"title": "Hi", "body": "b", "author": {"name": "Ada", "email": None}, "priority": None, "tags": None},
            ),
            ("add", {"a": 7, "b": 8}),
            ("get_note", {"note_id": "nope"}),
        ]
    )

    async def main() -> Any:
        async with demo_pkg.AsyncClient.in_process(demo_server) as client:
            recorder = mcp_codegen_runtime.TraceRecorder().attach(client)
            tools = client.tools().to_openai_agents()
            assert all(isinstance(tool, FunctionTool) for tool in tools)
            agent = Agent(name="notes", instructions="help", model=model, tools=tools)
            result = await Runner.run(agent, "draft a note", run_config=RunConfig(tracing_disabled=True))
            return result, recorder

    result, recorder = anyio.run(main)
    assert result.final_output == "finished"
    by_name = {tool.name: tool for tool in model.tools}
    assert by_name["draft_note"].strict_json_schema is True  # strict where the schema allows it
    ran = {call.tool: call for call in recorder.calls}
    # Nulls the schema admits (`tags`, `email`) go as values; the others were "not sent".
    assert ran["draft_note"].arguments == {
        "title": "Hi",
        "body": "b",
        "author": {"name": "Ada", "email": None},
        "tags": None,
    }
    assert ran["add"].arguments == {"a": 7, "b": 8} and ran["add"].framework == "openai_agents"
    outputs = _outputs(model)
    assert json.loads(outputs["call_0"])["priority"] == "normal"
    assert outputs["call_1"] == "15"
    assert outputs["call_2"].startswith("Error: ") and "nope" in outputs["call_2"]


def test_everything_server(everything_pkg: ModuleType, everything_command: list[str]) -> None:
    model = ScriptedModel([("get-sum", {"a": 1.5, "b": 2}), ("echo", {"message": "agents sdk"})])

    async def main() -> Any:
        async with everything_pkg.AsyncClient.stdio(everything_command[0], everything_command[1:]) as client:
            tools = client.tools(include=["get-sum", "echo"]).to_openai_agents()
            agent = Agent(name="e", model=model, tools=tools)
            return await Runner.run(agent, "sum", run_config=RunConfig(tracing_disabled=True))

    result = anyio.run(main)
    assert result.final_output == "finished"
    outputs = _outputs(model)
    assert "3.5" in outputs["call_0"]
    assert "agents sdk" in outputs["call_1"]


@pytest.mark.parametrize("server", corpus_names())
def test_strict_schemas_need_no_second_pass_by_the_sdk(server: str) -> None:
    """`to_openai_agents()` skips the SDK's own strict pass: ours must be a fixed point of it."""
    from agents.strict_schema import ensure_strict_json_schema

    strict_count = 0
    for tool in corpus_snapshot(server).tools:
        try:
            ours = strict_json_schema(tool.get("inputSchema"))
        except NotStrictError:
            continue
        strict_count += 1
        assert ensure_strict_json_schema(copy.deepcopy(ours)) == ours, tool["name"]
    assert strict_count or server == "notion"  # notion: free-form objects in every schema
