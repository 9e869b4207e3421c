"""Resources and prompts as agent tools (`client.tools(resources=True, prompts=True)`), through real servers and frameworks."""

from __future__ import annotations

import importlib
import json
from types import ModuleType
from typing import Any

import anyio
import mcp
from mcp.server.mcpserver import MCPServer


def test_demo_resources_and_prompts_as_tools(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    async def main() -> Any:
        async with demo_pkg.AsyncClient.in_process(demo_server) as client:
            plain = client.tools()
            tools = client.tools(resources=True, prompts=True)
            listing = await tools["list_resources"].run({})
            config = await tools["read_resource"].run({"uri": "config://app"})
            note = await tools["read_note"].run({"note_id": "welcome"})
            typed_note = await tools["read_note"](note_id="welcome")
            missing = await tools["read_resource"].run({"uri": "notes://nope"})
            prompt = await tools["prompt_summarize_note"].run({"note_id": "welcome", "style": "short"})
            no_argument = await tools["prompt_plan_trip"].run({})
            return plain, tools, listing, config, note, typed_note, missing, prompt, no_argument

    plain, tools, listing, config, note, typed_note, missing, prompt, no_argument = anyio.run(main)
    assert "list_resources" not in plain  # opt-in
    extra = ["list_resources", "read_resource", "read_note", "prompt_plan_trip", "prompt_summarize_note"]
    assert list(tools)[-5:] == extra
    assert tools["read_note"].input_schema == {
        "type": "object",
        "properties": {"note_id": {"type": "string", "description": "The {note_id} part of notes://{note_id}"}},
        "required": ["note_id"],
    }
    assert tools["prompt_summarize_note"].input_schema["required"] == ["note_id"]
    assert tools["prompt_summarize_note"].input_schema["properties"]["style"]["description"]
    assert tools["read_note"].annotations == {"readOnlyHint": True, "openWorldHint": False}
    listed = json.loads(listing.text)
    assert [item["uri"] for item in listed["resources"]] == ["config://app"]
    assert listed["resourceTemplates"][0]["uriTemplate"] == "notes://{note_id}"
    assert config.text.startswith("[resource config://app")
    assert note.text.startswith("[resource notes://welcome (text/markdown)]\n")
    assert typed_note.text in note.text  # the typed call gives the ResourceResult
    assert missing.is_error
    rendered = json.loads(prompt.text)
    assert rendered["messages"][0]["role"] == "user"
    assert rendered["messages"][0]["content"].startswith("Summarize this note as short")
    assert no_argument.is_error and "city" in no_argument.text


def test_resource_and_prompt_tools_in_a_framework(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    """The same converters apply: here the Claude Agent SDK's server and LlamaIndex."""

    async def main() -> Any:
        async with demo_pkg.AsyncClient.in_process(demo_server) as client:
            tools = client.tools(exclude="*", resources=True, prompts=True)
            config = tools.to_claude_agent_sdk("demo")
            async with mcp.Client(config["instance"], mode="legacy", cache=None) as session:
                listed = await session.list_tools()
                read = await session.call_tool("read_note", {"note_id": "welcome"})
            llama = {tool.metadata.name: tool for tool in tools.to_llama_index()}
            prompt = await llama["prompt_plan_trip"].acall(city="Oslo")
            return listed, read, prompt, llama

    listed, read, prompt, llama = anyio.run(main)
    assert [tool.name for tool in listed.tools] == [
        "list_resources",
        "read_resource",
        "read_note",
        "prompt_plan_trip",
        "prompt_summarize_note",
    ]
    assert not read.is_error and "notes://welcome" in read.content[0].text
    assert "Oslo" in prompt.content
    assert llama["read_note"].metadata.fn_schema.model_json_schema()["required"] == ["note_id"]


def test_everything_resources_blobs_and_prompts(everything_pkg: ModuleType, everything_command: list[str]) -> None:
    with everything_pkg.Client.stdio(everything_command[0], everything_command[1:]) as client:
        tools = client.tools(exclude="*", resources=True, prompts=True)
        names = list(tools)
        blob = tools["read_dynamic_blob_resource"].run_sync({"resourceId": "1"})
        text = tools["read_dynamic_text_resource"].run_sync({"resourceId": "2"})
        args = tools["prompt_args_prompt"].run_sync({"city": "Oslo", "state": "Vestland"})
        resource_prompt = tools["prompt_resource_prompt"].run_sync({"resourceType": "Text", "resourceId": "1"})
    assert names[:2] == ["list_resources", "read_resource"]
    assert "prompt_simple_prompt" in names
    # A binary resource: URI, MIME type and size, never a Python repr.
    assert blob.text.startswith("[resource demo://resource/dynamic/blob/1: ") and blob.text.endswith(" bytes]")
    assert "demo://resource/dynamic/text/2 (text/plain)" in text.text
    assert "Oslo" in args.text
    messages = json.loads(resource_prompt.text)["messages"]
    assert any(isinstance(m["content"], dict) and m["content"].get("type") == "resource" for m in messages)


def test_resource_tool_names_never_collide_with_tool_names(demo_pkg: ModuleType) -> None:
    agent_extras = importlib.import_module("mcp_codegen_runtime.agents.extras")
    agent_toolset = importlib.import_module("mcp_codegen_runtime.agents.toolset")
    extras = agent_extras.extra_specs(resources=True)
    clash = agent_extras.ExtraSpec(
        name="add", description="", input_schema={"type": "object", "properties": {}}, invoke=extras[0].invoke
    )
    tools = agent_toolset.make_toolset(demo_pkg.TOOLS.values(), extras=[*extras, clash], namespace="demo")
    assert "mcp__demo__add" in tools and "mcp__demo__add_2" in tools
    assert tools["mcp__demo__add_2"].spec is clash
    assert "mcp__demo__list_resources" in tools and "mcp__demo__read_resource" in tools


def test_embedded_resources_and_links_keep_uri_mime_and_media(demo_pkg: ModuleType) -> None:
    import mcp_types

    agent_output = importlib.import_module("mcp_codegen_runtime.agents.output")
    results = importlib.import_module("mcp_codegen_runtime.calls.results")
    raw = mcp_types.CallToolResult.model_validate(
        {
            "content": [
                {"type": "resource", "resource": {"uri": "file:///a.md", "mimeType": "text/markdown", "text": "# A"}},
                {"type": "resource", "resource": {"uri": "file:///p.png", "mimeType": "image/png", "blob": "iVBORw0K"}},
                {"type": "resource", "resource": {"uri": "file:///z.bin", "blob": "AAAA"}},
                {
                    "type": "resource_link",
                    "uri": "file:///b.txt",
                    "name": "b",
                    "mimeType": "text/plain",
                    "description": "the b file",
                },
            ]
        }
    )
    output = agent_output.output_from_result(results.ToolResult(raw))
    kinds = [part.kind for part in output.parts]
    assert kinds == ["text", "text", "image", "text", "text"]
    assert output.parts[0].text == "[resource file:///a.md (text/markdown)]\n# A"
    assert output.parts[1].text == "[resource file:///p.png: image/png, 6 bytes]"
    assert output.parts[2].mime_type == "image/png" and output.parts[2].data == "iVBORw0K"
    assert output.parts[3].text == "[resource file:///z.bin: application/octet-stream, 3 bytes]"
    assert output.parts[4].text == "[resource link: b file:///b.txt (text/plain): the b file]"
    # LangChain gets the image as a standard block; Anthropic as an image block.
    blocks = output.to_langchain_content()
    assert {"type": "image", "base64": "iVBORw0K", "mime_type": "image/png"} in blocks
    assert any(block["type"] == "image" for block in output.to_anthropic_content())
