"""Claude Agent SDK, Google ADK, smolagents and LlamaIndex running the generated tools against real servers, offline.

The Claude Agent SDK's query loop drives the Claude Code CLI, so its in-process server is driven
by an MCP client instead (as Claude Code would); ADK and smolagents run their own agent loops with
a scripted model; LlamaIndex tools are called through `FunctionTool.acall`, as its agents do.
"""

from __future__ import annotations

import base64
import importlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import mcp
import PIL.Image
import pytest
from helpers import corpus_names, corpus_snapshot, generate_into
from mcp.server.mcpserver import MCPServer

import mcp_codegen_runtime


def _listed(pkg: ModuleType, name: str, key: str = "inputSchema") -> Any:
    data = json.loads((Path(pkg.__file__).parent / "snapshot.json").read_text())
    return next(tool.get(key) for tool in data["tools"] if tool["name"] == name)


# ------------------------------------------------------------------------------------ Claude Agent SDK


def test_claude_agent_sdk_server_in_process(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    async def main() -> Any:
        async with demo_pkg.AsyncClient.in_process(demo_server) as client:
            recorder = mcp_codegen_runtime.TraceRecorder().attach(client)
            tools = client.tools()
            config = tools.to_claude_agent_sdk("demo")
            allowed = tools.claude_allowed_tools("demo")
            async with mcp.Client(config["instance"], mode="legacy", cache=None) as session:
                listed = await session.list_tools()
                weather = await session.call_tool("get_weather", {"city": "Oslo", "units": "fahrenheit"})
                missing = await session.call_tool("get_note", {"note_id": "nope"})
                invalid = await session.call_tool("add", {"a": "two"})
            return config, allowed, listed, weather, missing, invalid, recorder

    config, allowed, listed, weather, missing, invalid, recorder = anyio.run(main)
    assert config["type"] == "sdk" and config["name"] == "demo"
    assert allowed == [f"mcp__demo__{tool.name}" for tool in listed.tools]
    by_name = {tool.name: tool for tool in listed.tools}
    assert by_name["get_weather"].input_schema == _listed(demo_pkg, "get_weather")
    # A tool without parameters still gets "type" and "properties" (else the SDK reads a type map).
    assert all("properties" in tool.input_schema and tool.input_schema["type"] == "object" for tool in listed.tools)
    assert by_name["get_note"].annotations is None or by_name["get_note"].annotations.read_only_hint in (True, None)
    # The structured result reached the model as JSON text; the call went through the typed path.
    assert not weather.is_error
    assert json.loads(weather.content[0].text)["units"] == "fahrenheit"
    assert recorder.calls[0].framework == "claude_agent_sdk"
    assert missing.is_error and missing.content[0].text
    assert invalid.is_error  # the SDK's own jsonschema check, with the server's schema


def test_claude_agent_sdk_handlers_map_images(everything_pkg: ModuleType, everything_command: list[str]) -> None:
    async def main() -> Any:
        async with everything_pkg.AsyncClient.stdio(everything_command[0], everything_command[1:]) as client:
            tools = client.tools(include=["echo", "get-tiny-image", "get-resource-reference"])
            image = await tools["get-tiny-image"].to_claude_agent_sdk().handler({})
            echo = await tools["echo"].to_claude_agent_sdk().handler({"message": "hi"})
            reference = await tools["get-resource-reference"].to_claude_agent_sdk().handler({"resourceId": 2})
            return image, echo, reference

    image, echo, reference = anyio.run(main)
    assert image["is_error"] is False
    kinds = [block["type"] for block in image["content"]]
    assert "image" in kinds
    block = next(block for block in image["content"] if block["type"] == "image")
    assert block["mimeType"] == "image/png" and block["data"]
    assert echo == {"content": [{"type": "text", "text": "Echo: hi"}], "is_error": False}
    # An embedded resource: its URI and MIME type travel with it, never a Python repr.
    texts = "\n".join(block["text"] for block in reference["content"] if block["type"] == "text")
    assert "demo://resource/" in texts and "Resource(" not in texts and "TextResourceContents" not in texts


# ------------------------------------------------------------------------------------------ Google ADK


def _adk_loop(toolset: Any, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[Any], list[Any]]:
    """Run an ADK agent whose scripted model calls `calls` in one turn, then answers "done"."""
    from google.adk.agents import LlmAgent
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_response import LlmResponse
    from google.adk.runners import InMemoryRunner
    from google.genai import types

    requests: list[Any] = []

    class Scripted(BaseLlm):
        async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
            requests.append(llm_request)
            if len(requests) == 1:
                parts = [
                    types.Part(function_call=types.FunctionCall(name=name, args=args, id=f"c{index}"))
                    for index, (name, args) in enumerate(calls)
                ]
            else:
                parts = [types.Part(text="done")]
            yield LlmResponse(content=types.Content(role="model", parts=parts))

    async def run() -> list[Any]:
        agent = LlmAgent(name="assistant", model=Scripted(model="scripted"), tools=[toolset])
        runner = InMemoryRunner(agent=agent, app_name="adk_test")
        session = await runner.session_service.create_session(app_name="adk_test", user_id="u")
        message = types.Content(role="user", parts=[types.Part(text="go")])
        events = [event async for event in runner.run_async(user_id="u", session_id=session.id, new_message=message)]
        await runner.close()
        return events

    return requests, run  # type: ignore[return-value]


def test_adk_agent_loop_on_the_demo_server(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    async def main() -> Any:
        async with demo_pkg.AsyncClient.in_process(demo_server) as client:
            recorder = mcp_codegen_runtime.TraceRecorder().attach(client)
            toolset = client.tools().to_adk(tool_filter=["get_weather", "add", "get_note"], tool_name_prefix="demo")
            requests, run = _adk_loop(
                toolset,
                [
                    ("demo_get_weather", {"city": "Oslo", "units": "fahrenheit"}),
                    ("demo_add", {"a": 2, "b": 3}),
                    ("demo_get_note", {"note_id": "nope"}),
                ],
            )
            events = await run()
            return requests, events, recorder, client.closed

    requests, events, recorder, still_open = anyio.run(main)
    declarations = {
        declaration.name: declaration
        for tool in requests[0].config.tools
        for declaration in tool.function_declarations or []
    }
    # tool_filter (on the tool names) and tool_name_prefix are honoured: only the three, prefixed.
    assert set(declarations) == {"demo_get_weather", "demo_add", "demo_get_note"}
    weather = declarations["demo_get_weather"]
    assert weather.parameters_json_schema == _listed(demo_pkg, "get_weather")
    assert weather.response_json_schema == _listed(demo_pkg, "get_weather", "outputSchema")
    responses = {
        part.function_response.name: part.function_response.response
        for event in events
        for part in (event.content.parts if event.content else [])
        if part.function_response
    }
    assert responses["demo_get_weather"]["units"] == "fahrenheit"
    assert "error" in responses["demo_get_note"]
    assert {call.tool for call in recorder.calls} == {"get_weather", "add", "get_note"}
    assert all(call.framework == "adk" for call in recorder.calls)
    assert events[-1].content.parts[0].text == "done"
    assert not still_open  # not closed: the toolset does not own the client by default


def test_adk_toolset_that_owns_the_client_closes_it(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    async def main() -> tuple[bool, bool]:
        client = await demo_pkg.AsyncClient.in_process(demo_server).__aenter__()
        borrowed = client.tools().to_adk()
        await borrowed.close()
        after_borrowed = client.closed
        owner = client.tools().to_adk(close_client=True)
        await owner.close()
        return after_borrowed, client.closed

    after_borrowed, after_owner = anyio.run(main)
    assert not after_borrowed and after_owner


def test_adk_image_reaches_the_model_as_media(everything_pkg: ModuleType, everything_command: list[str]) -> None:
    async def main() -> Any:
        async with everything_pkg.AsyncClient.stdio(everything_command[0], everything_command[1:]) as client:
            toolset = client.tools(include=["get-tiny-image", "echo"]).to_adk()
            requests, run = _adk_loop(toolset, [("get-tiny-image", {}), ("echo", {"message": "hi"})])
            await run()
            return requests

    requests = anyio.run(main)
    responses = [
        part.function_response
        for content in requests[-1].contents
        for part in content.parts or []
        if part.function_response
    ]
    image = next(response for response in responses if response.name == "get-tiny-image")
    assert image.parts and image.parts[0].inline_data.mime_type == "image/png"
    echo = next(response for response in responses if response.name == "echo")
    assert echo.response == {"result": "Echo: hi"}


# ------------------------------------------------------------------------------------------ smolagents


def test_smolagents_tool_calling_agent_on_the_demo_server(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    from smolagents import ToolCallingAgent
    from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction, MessageRole, Model

    seen: dict[str, Any] = {}

    class Scripted(Model):
        def generate(self, messages: list[Any], stop_sequences: Any = None, response_format: Any = None,
                     tools_to_call_from: Any = None, **kwargs: Any) -> ChatMessage:  # fmt: skip
            step = seen.setdefault("steps", 0)
            seen["steps"] = step + 1
            if step == 0:
                seen["tools"] = {tool.name: tool for tool in tools_to_call_from}
                call = ChatMessageToolCallFunction(name="search_notes", arguments={"query": "milk"})
            elif step == 1:
                seen["messages"] = messages
                call = ChatMessageToolCallFunction(name="get_weather", arguments={"city": "Oslo"})
            else:
                seen["last"] = messages
                call = ChatMessageToolCallFunction(name="final_answer", arguments={"answer": "done"})
            return ChatMessage(
                role=MessageRole.ASSISTANT,
                content="",
                tool_calls=[ChatMessageToolCall(function=call, id=f"c{step}", type="function")],
            )

    with demo_pkg.Client.in_process(demo_server) as client:
        recorder = mcp_codegen_runtime.TraceRecorder().attach(client)
        agent = ToolCallingAgent(tools=client.tools().to_smolagents(), model=Scripted(), max_steps=4, verbosity_level=0)
        answer = agent.run("find milk")
    assert answer == "done"
    tools = seen["tools"]
    # "search-notes" is not a Python identifier: smolagents gets "search_notes".
    assert "search_notes" in tools and tools["search_notes"].inputs["query"]["type"] == "string"
    assert tools["get_weather"].inputs["units"]["nullable"] is True
    assert tools["get_weather"].output_schema == _listed(demo_pkg, "get_weather", "outputSchema")
    assert [call.tool for call in recorder.calls] == ["search-notes", "get_weather"]
    assert recorder.calls[0].framework == "smolagents"
    assert "Oslo" in str(seen["last"])


def test_smolagents_needs_a_blocking_client(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    async def main() -> str:
        async with demo_pkg.AsyncClient.in_process(demo_server) as client:
            try:
                client.tools().to_smolagents()
            except RuntimeError as error:
                return str(error)
            return ""

    assert "blocking Client" in anyio.run(main)


def test_smolagents_images(everything_pkg: ModuleType, everything_command: list[str]) -> None:
    from smolagents.agent_types import AgentImage

    with everything_pkg.Client.stdio(everything_command[0], everything_command[1:]) as client:
        (tool,) = client.tools(include=["get-tiny-image"]).to_smolagents()
        result = tool(sanitize_inputs_outputs=True)
        raw = client.tools()["get-tiny-image"].run_sync({})
    # Text and an image: the text, the image named by a placeholder (an AgentImage would lose the text).
    assert "[image: image/png" in str(result)
    # An image alone is smolagents' native AgentImage.
    agents = type(raw).__module__.rpartition(".")[0]  # mcp_codegen_runtime.agents
    runtime = sys.modules[agents + ".frameworks.smolagents"]
    part_class = sys.modules[agents + ".output"].ContentPart
    png = io.BytesIO()
    PIL.Image.new("RGB", (3, 2)).save(png, format="PNG")
    data = base64.b64encode(png.getvalue()).decode()
    image = runtime._result(type(raw)([part_class("image", data=data, mime_type="image/png")]), False)
    assert isinstance(image, AgentImage) and image.to_raw().size == (3, 2)


# ------------------------------------------------------------------------------------------ LlamaIndex


def test_llama_index_function_tools(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    async def main() -> Any:
        async with demo_pkg.AsyncClient.in_process(demo_server) as client:
            recorder = mcp_codegen_runtime.TraceRecorder().attach(client)
            tools = {tool.metadata.name: tool for tool in client.tools().to_llama_index()}
            weather = await tools["get_weather"].acall(city="Oslo", units="fahrenheit")
            with pytest.raises(RuntimeError, match="nope"):  # LlamaIndex's agents show it as an error output
                await tools["get_note"].acall(note_id="nope")
            return tools, weather, recorder

    tools, weather, recorder = anyio.run(main)
    openai_tool = tools["get_weather"].metadata.to_openai_tool()
    assert openai_tool["function"]["parameters"] == _listed(demo_pkg, "get_weather")
    assert tools["get_weather"].metadata.fn_schema is demo_pkg.TOOLS["get_weather"].arguments_model
    assert json.loads(weather.content)["units"] == "fahrenheit"
    assert recorder.calls[0].framework == "llama_index"


def test_llama_index_agent_loop_with_a_scripted_llm(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    from llama_index.core.agent.workflow import FunctionAgent
    from llama_index.core.base.llms.types import ChatMessage, ChatResponse, MessageRole, ToolCallBlock
    from llama_index.core.llms.mock import MockFunctionCallingLLM

    class Scripted(MockFunctionCallingLLM):
        def _answer(self, messages: Any) -> ChatResponse:
            if not any(message.role == MessageRole.TOOL for message in messages):
                block = ToolCallBlock(tool_call_id="c1", tool_name="add", tool_kwargs={"a": 2, "b": 3})
                return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, blocks=[block]))
            answer = next(m.content for m in messages if m.role == MessageRole.TOOL)
            return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=f"sum is {answer}"))

        async def achat(self, messages: Any, **kwargs: Any) -> ChatResponse:
            return self._answer(messages)

        async def astream_chat(self, messages: Any, **kwargs: Any) -> Any:
            response = self._answer(messages)

            async def stream() -> Any:
                yield response

            return stream()

    async def main() -> Any:
        async with demo_pkg.AsyncClient.in_process(demo_server) as client:
            agent = FunctionAgent(tools=client.tools().to_llama_index(), llm=Scripted())
            return await agent.run("2 + 3?")

    result = anyio.run(main)
    assert str(result).strip().endswith("sum is 5")


def test_llama_index_image_blocks(everything_pkg: ModuleType, everything_command: list[str]) -> None:
    from llama_index.core.base.llms.types import ImageBlock

    async def main() -> Any:
        async with everything_pkg.AsyncClient.stdio(everything_command[0], everything_command[1:]) as client:
            (tool,) = client.tools(include=["get-tiny-image"]).to_llama_index()
            return await tool.acall()

    output = anyio.run(main)
    assert any(isinstance(block, ImageBlock) and block.image_mimetype == "image/png" for block in output.blocks)


# ---------------------------------------------------------------------------------- Anthropic caching


def test_anthropic_cache_control_on_the_last_tool(demo_pkg: ModuleType) -> None:
    tools = mcp_codegen_runtime.ToolSet.from_specs(demo_pkg.TOOLS.values())
    plain = tools.to_anthropic()
    assert all("cache_control" not in tool for tool in plain)
    cached = tools.to_anthropic(cache_control=True)
    assert cached[-1]["cache_control"] == {"type": "ephemeral"}
    assert all("cache_control" not in tool for tool in cached[:-1])
    ttl = tools.to_anthropic(cache_control={"type": "ephemeral", "ttl": "1h"})
    assert ttl[-1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}


# ------------------------------------------------------------------------------------------ the corpus


@pytest.fixture(scope="module")
def corpus_toolsets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ModuleType]:
    root = tmp_path_factory.mktemp("frameworks_corpus")
    packages: dict[str, ModuleType] = {}
    for name in corpus_names():
        package = "fw_" + name.replace("-", "_") + "_client"
        generate_into(root, corpus_snapshot(name), package)
        if str(root) not in sys.path:
            sys.path.insert(0, str(root))
        packages[name] = importlib.import_module(package)
    return packages


@pytest.mark.parametrize("server", corpus_names())
def test_every_corpus_tool_converts_for_every_new_framework(
    server: str, corpus_toolsets: dict[str, ModuleType], demo_pkg: ModuleType, demo_server: MCPServer
) -> None:
    """Each framework accepts every tool of 13 real listings, with the schema as listed."""
    pkg = corpus_toolsets[server]
    listed = {tool["name"]: tool for tool in corpus_snapshot(server).tools}
    # The tools are bound to a real (blocking) client; converting never calls it.
    with demo_pkg.Client.in_process(demo_server) as client:
        tools = mcp_codegen_runtime.ToolSet.from_specs(pkg.TOOLS.values()).bind(client)

        def schema(tool: Any) -> dict[str, Any]:
            exact = dict(listed[tool.wire_name].get("inputSchema") or {})
            exact.setdefault("type", "object")
            return exact

        config = tools.to_claude_agent_sdk("corpus")

        async def claude_listing() -> Any:
            async with mcp.Client(config["instance"], mode="legacy", cache=None) as session:
                return await session.list_tools()

        claude = {tool.name: tool for tool in anyio.run(claude_listing).tools}
        adk = {tool.name: tool._get_declaration() for tool in anyio.run(tools.to_adk().get_tools)}
        smol = tools.to_smolagents()
        llama = {tool.metadata.name: tool for tool in tools.to_llama_index()}
        for tool in tools.values():
            exact = schema(tool)
            assert {**exact, "properties": exact.get("properties", {})} == claude[tool.name].input_schema
            assert adk[tool.name].parameters_json_schema == exact
            assert adk[tool.name].response_json_schema == listed[tool.wire_name].get("outputSchema")
            # (LlamaIndex refuses descriptions over 1024 characters unless told: two corpus servers have them.)
            openai_tool = llama[tool.name].metadata.to_openai_tool(skip_length_check=True)
            assert openai_tool["function"]["parameters"] == exact
            llama[tool.name].metadata.fn_schema.model_json_schema()
        assert len(smol) == len(tools) == len({t.name for t in smol})
        for converted in smol:  # smolagents validated each (names, inputs) when it was made
            properties = schema(converted.agent_tool).get("properties", {})
            assert set(converted.inputs) == set(properties)


def test_frameworks_are_imported_only_when_converting(demo_pkg: ModuleType) -> None:
    code = (
        "import sys, json, importlib\n"
        "import mcp_codegen_runtime\n"
        f"pkg = importlib.import_module({demo_pkg.__name__!r})\n"
        "tools = mcp_codegen_runtime.ToolSet.from_specs(pkg.TOOLS.values())\n"
        "tools.to_anthropic(cache_control=True)\n"
        "heavy = ('claude_agent_sdk', 'google', 'smolagents', 'llama_index', 'PIL')\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in heavy)))\n"
    )
    root = Path(demo_pkg.__file__).parents[1]
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root,
        env={**os.environ, "PYTHONPATH": f"{root}:{os.environ.get('PYTHONPATH', '')}"},
    )  # fmt: skip
    assert json.loads(output.stdout) == []
