"""LangChain tools in a LangGraph ReAct agent driven by a fake chat model that emits tool calls, offline."""

from __future__ import annotations

import json
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer

import mcp_codegen_runtime

pytestmark = pytest.mark.filterwarnings("ignore:create_react_agent has been moved")

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage  # noqa: E402
from langchain_core.tools import StructuredTool  # noqa: E402
from langgraph.prebuilt import create_react_agent  # noqa: E402


class ToolCallingFakeModel(GenericFakeChatModel):
    """Answers with the scripted messages and records what it was sent (and the tools it was bound to)."""

    received: list[list[BaseMessage]] = []
    bound: list[Any] = []

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        self.bound.extend(tools)
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.received.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def _script(*messages: AIMessage) -> ToolCallingFakeModel:
    return ToolCallingFakeModel(messages=iter(messages), received=[], bound=[])


def _tool_messages(messages: list[BaseMessage]) -> dict[str, ToolMessage]:
    return {m.name or "": m for m in messages if isinstance(m, ToolMessage)}


def test_async_react_agent_on_the_demo_server(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    model = _script(
        AIMessage(
            content="",
            tool_calls=[
                {"name": "search-notes", "args": {"query": "milk"}, "id": "c1", "type": "tool_call"},
                {"name": "add", "args": {"a": 20, "b": 22}, "id": "c2", "type": "tool_call"},
                {"name": "get_note", "args": {"note_id": "nope"}, "id": "c3", "type": "tool_call"},
            ],
        ),
        AIMessage(content="All done."),
    )

    async def main() -> Any:
        async with demo_pkg.AsyncClient.in_process(demo_server) as client:
            recorder = mcp_codegen_runtime.TraceRecorder().attach(client)
            tools = client.tools().to_langchain()
            assert all(isinstance(tool, StructuredTool) for tool in tools)
            agent = create_react_agent(model, tools)
            state = await agent.ainvoke({"messages": [("user", "find milk, add 20 and 22")]})
            return state, recorder

    state, recorder = anyio.run(main)
    assert state["messages"][-1].content == "All done."
    ran = {call.tool: call for call in recorder.calls}
    assert ran["search-notes"].arguments == {"query": "milk"}
    assert ran["add"].arguments == {"a": 20, "b": 22} and ran["add"].framework == "langchain"
    # What the model was sent on its second turn holds the tool results.
    tool_messages = _tool_messages(model.received[1])
    assert tool_messages["add"].content == "42" and tool_messages["add"].status == "success"
    assert json.loads(tool_messages["search-notes"].content)["query"] == "milk"
    assert tool_messages["get_note"].status == "error" and "nope" in tool_messages["get_note"].content
    assert tool_messages["add"].artifact.result is not None  # the whole ToolOutput rides along
    bound = {tool.name: tool for tool in model.bound}
    assert bound["get_weather"].args_schema["properties"]["city"]["description"] == "City name, e.g. 'Paris'."


def test_sync_agent_with_the_blocking_client(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    model = _script(
        AIMessage(
            content="",
            tool_calls=[{"name": "get_weather", "args": {"city": "Lima"}, "id": "s1", "type": "tool_call"}],
        ),
        AIMessage(content="Sunny-ish."),
    )
    with demo_pkg.Client.in_process(demo_server) as client:
        recorder = mcp_codegen_runtime.TraceRecorder().attach(client)
        agent = create_react_agent(model, client.tools(include="get_weather").to_langchain())
        state = agent.invoke({"messages": [("user", "weather in Lima?")]})
        assert state["messages"][-1].content == "Sunny-ish."
        assert [call.arguments for call in recorder.calls] == [{"city": "Lima"}]
    weather = json.loads(_tool_messages(model.received[1])["get_weather"].content)
    assert weather["city"] == "Lima"


def test_everything_server_image_reaches_the_model(everything_pkg: ModuleType, everything_command: list[str]) -> None:
    model = _script(
        AIMessage(
            content="",
            tool_calls=[
                {"name": "get-tiny-image", "args": {}, "id": "i1", "type": "tool_call"},
                {"name": "echo", "args": {"message": "langgraph"}, "id": "i2", "type": "tool_call"},
            ],
        ),
        AIMessage(content="Seen."),
    )

    async def main() -> Any:
        async with everything_pkg.AsyncClient.stdio(everything_command[0], everything_command[1:]) as client:
            agent = create_react_agent(model, client.tools(include=["get-tiny-image", "echo"]).to_langchain())
            return await agent.ainvoke({"messages": [("user", "show me")]})

    state = anyio.run(main)
    assert state["messages"][-1].content == "Seen."
    messages = _tool_messages(model.received[1])
    assert "langgraph" in messages["echo"].content
    image = messages["get-tiny-image"].content
    assert isinstance(image, list) and any(
        block.get("type") == "image" and block.get("mime_type") == "image/png" for block in image
    )
