"""Large catalogs: deferred loading in Anthropic's and OpenAI's dialects, the shipped search index and
`tools(search=True)` (search_tools + call_tool) against the demo server and in a pydantic-ai agent loop.

The ms-365 listing (344 tools, benchmarks/data) is turned into specs over its snapshot and the index the
generator writes for it; no models are generated (the definitions need only the listed schemas).
"""

from __future__ import annotations

import gzip
import importlib
import json
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from pydantic import ConfigDict, TypeAdapter

import mcp_codegen_runtime
from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.build_ir import plan_tools
from mcp_codegen.generate.pipeline import search_index
from mcp_codegen.snapshot.model import read_snapshot
from mcp_codegen_runtime.agents import ToolSet
from mcp_codegen_runtime.agents.search_index import INDEX_FILE
from mcp_codegen_runtime.calls.specs import SnapshotData, ToolSpec

MS365 = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "ms365_0.155.0.snapshot.json.gz"


def _specs(folder: Path) -> list[ToolSpec[Any, Any]]:
    snapshot = SnapshotData(folder)
    return [
        ToolSpec(
            name=name,
            python_name=name.replace("-", "_"),
            models_module="never_imported",
            arguments_class="Unused",
            result_class=None,
            unwrap_result=False,
            snapshot=snapshot,
        )
        for name in snapshot.tool_names
    ]


@pytest.fixture(scope="module")
def ms365_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ms-365 snapshot with the search index the generator ships beside it."""
    folder = tmp_path_factory.mktemp("ms365")
    (folder / "snapshot.json").write_bytes(gzip.decompress(MS365.read_bytes()))
    plans = plan_tools(read_snapshot(folder / "snapshot.json"), Diagnostics())
    (folder / INDEX_FILE).write_text(search_index(plans), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def ms365(ms365_dir: Path) -> ToolSet:
    tools = ToolSet.from_specs(_specs(ms365_dir))
    assert len(tools) == 344
    return tools


def _validator(annotation: Any) -> TypeAdapter[Any]:
    # extra="forbid": a misspelled or unknown field fails instead of being dropped.
    return TypeAdapter(list[annotation], config=ConfigDict(extra="forbid"))


def test_anthropic_deferred_marks_every_tool_and_carries_the_search_tool(ms365: ToolSet) -> None:
    from anthropic.types import ToolUnionParam

    definitions = ms365.to_anthropic(defer_loading=True)
    assert definitions[0] == {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}
    assert [item["name"] for item in definitions[1:]] == ms365.names
    assert all(item["defer_loading"] is True for item in definitions[1:])
    # Each deferred definition is the plain one plus the flag.
    assert {**ms365.to_anthropic()[7], "defer_loading": True} == definitions[8]
    assert len(TypeAdapter(list[ToolUnionParam]).validate_python(definitions)) == 345
    # Every field but the (server's own) schema checked strictly: a misspelled field fails.
    strictly = [
        {**item, "input_schema": {"type": "object"}} if "input_schema" in item else item for item in definitions
    ]
    assert len(_validator(ToolUnionParam).validate_python(strictly)) == 345
    regex = ms365.to_anthropic(defer_loading=True, tool_search="regex", keep=["get-*"], cache_control=True)
    assert regex[0] == {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}
    loaded = [item["name"] for item in regex[1:] if "defer_loading" not in item]
    assert loaded and all(name.startswith("get-") for name in loaded)
    assert len(loaded) == sum(name.startswith("get-") for name in ms365.names)
    # The breakpoint goes on the last loaded tool: Anthropic refuses a deferred one carrying it.
    cached = [item["name"] for item in regex if "cache_control" in item]
    assert cached == [loaded[-1]] and "cache_control" not in regex[-1]
    assert next(item for item in regex if item["name"] == loaded[-1])["cache_control"] == {"type": "ephemeral"}
    _validator(ToolUnionParam).validate_python([regex[0]])
    with pytest.raises(ValueError, match="bm25"):
        ms365.to_anthropic(defer_loading=True, tool_search="fuzzy")  # type: ignore[arg-type]


@pytest.mark.parametrize("keep", [None, "get-*", "*"])
@pytest.mark.parametrize("cache_control", [True, {"type": "ephemeral", "ttl": "1h"}])
def test_anthropic_deferred_and_cached_request_passes_the_providers_rule(
    ms365: ToolSet, keep: str | None, cache_control: Any
) -> None:
    from anthropic.types import ToolUnionParam

    definitions = ms365.to_anthropic(defer_loading=True, keep=keep, cache_control=cache_control)
    strictly = [
        {**item, "input_schema": {"type": "object"}} if "input_schema" in item else item for item in definitions
    ]
    assert len(_validator(ToolUnionParam).validate_python(strictly)) == 345
    # Anthropic's rule: no definition is both deferred and a caching breakpoint.
    assert not [item["name"] for item in definitions if item.get("defer_loading") and "cache_control" in item]
    # One breakpoint, after the last definition in the model's context (the search tool when all are deferred).
    loaded = [item["name"] for item in definitions if not item.get("defer_loading")]
    assert [item["name"] for item in definitions if "cache_control" in item] == [loaded[-1]]
    expected = {"type": "ephemeral"} if cache_control is True else cache_control
    assert next(item for item in definitions if "cache_control" in item)["cache_control"] == expected
    if keep is None:
        assert definitions[0]["cache_control"] == expected and loaded == [definitions[0]["name"]]


def test_openai_responses_deferred_in_namespaces_with_tool_search(ms365: ToolSet) -> None:
    from openai.types.responses import ToolParam

    definitions = ms365.to_openai_responses(defer_loading=True, keep="list-mail-messages")
    assert definitions[0] == {"type": "tool_search"}
    assert definitions[1]["name"] == "list-mail-messages" and "defer_loading" not in definitions[1]
    namespaces = definitions[2:]
    assert all(item["type"] == "namespace" and item["description"] for item in namespaces)
    functions = [tool for item in namespaces for tool in item["tools"]]
    assert sorted(tool["name"] for tool in functions) == sorted(set(ms365.names) - {"list-mail-messages"})
    assert all(tool["defer_loading"] is True and tool["type"] == "function" for tool in functions)
    # A large server is split by topic: the mail tools share a namespace, and most stay small.
    by_name = {item["name"]: [tool["name"] for tool in item["tools"]] for item in namespaces}
    mail = next(names for key, names in by_name.items() if key.endswith("_mail"))
    assert "send-mail" in mail
    assert len(by_name) > 20
    _validator(ToolParam).validate_python(definitions)
    flat = ms365.to_openai_responses(defer_loading=True, namespaces=None)
    assert [item["type"] for item in flat[1:]] == ["function"] * 344
    assert all(item["defer_loading"] is True for item in flat[1:])
    one = ms365.to_openai_responses(defer_loading=True, namespaces="server")
    assert [item["name"] for item in one[1:]] == ["Microsoft365MCP"]


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        ("send an email to my manager", "send-mail"),
        ("what meetings do I have on my calendar this week", "list-calendar-events"),
        ("create a new task in my to do list", "create-todo-task"),
        ("upload a file to OneDrive", "upload-file-content"),
        ("post a message in a Teams channel", "send-channel-message"),
        ("delete an email", "delete-mail-message"),
    ],
)
def test_search_finds_the_tool_for_a_plain_request(ms365: ToolSet, request_text: str, expected: str) -> None:
    found = [tool.name for tool in ms365.search(request_text, limit=5)]
    assert expected in found, found


def test_search_ranks_only_the_sets_tools(ms365_dir: Path) -> None:
    specs = _specs(ms365_dir)
    without_mail = ToolSet.from_specs(specs, exclude=["*mail*"])
    found = [tool.name for tool in without_mail.search("send an email", limit=10)]
    assert found and not any("mail" in name for name in found)
    prefixed = ToolSet.from_specs(specs, include=["*calendar*"], prefix="m365_")
    names = [tool.name for tool in prefixed.search("calendar events", limit=3)]
    assert names and all(name.startswith("m365_") and "calendar" in name for name in names)


def test_the_shipped_index_ranks_as_the_one_built_in_memory(ms365_dir: Path, tmp_path: Path) -> None:
    shutil.copy(ms365_dir / "snapshot.json", tmp_path / "snapshot.json")  # no index beside it
    shipped = ToolSet.from_specs(_specs(ms365_dir))
    built = ToolSet.from_specs(_specs(tmp_path))
    for query in ("reply to a message", "excel worksheet range", "who is my manager"):
        assert [t.name for t in shipped.search(query, limit=10)] == [t.name for t in built.search(query, limit=10)]


#: A small Slack server's listing (after @modelcontextprotocol/server-slack's tools).
SLACK_TOOLS = [
    ("list_channels", "List public or pre-defined channels in the workspace with pagination", {"limit": "Maximum number of channels to return", "cursor": "Pagination cursor for next page of results"}),
    ("post_message", "Post a new message to a Slack channel", {"channel_id": "The ID of the channel to post to", "text": "The message text to post"}),
    ("reply_to_thread", "Reply to a specific message thread in Slack", {"channel_id": "The ID of the channel containing the thread", "thread_ts": "The timestamp of the parent message", "text": "The reply text"}),
    ("add_reaction", "Add a reaction emoji to a message", {"channel_id": "The ID of the channel containing the message", "timestamp": "The timestamp of the message to react to", "reaction": "The name of the emoji reaction (without ::)"}),
    ("get_channel_history", "Get recent messages from a channel", {"channel_id": "The ID of the channel", "limit": "Number of messages to retrieve"}),
]  # fmt: skip


@pytest.fixture(scope="module")
def slack_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 5-tool Slack package's snapshot with its shipped index."""
    folder = tmp_path_factory.mktemp("slack")
    snapshot = json.loads(gzip.decompress(MS365.read_bytes()))
    snapshot.update(serverInfo={"name": "slack", "version": "1.0.0"}, instructions=None, launch=None)
    snapshot["tools"] = [
        {
            "name": name,
            "description": description,
            "inputSchema": {
                "type": "object",
                "properties": {key: {"type": "string", "description": text} for key, text in parameters.items()},
            },
        }
        for name, description, parameters in SLACK_TOOLS
    ]
    (folder / "snapshot.json").write_text(json.dumps(snapshot), encoding="utf-8")
    plans = plan_tools(read_snapshot(folder / "snapshot.json"), Diagnostics())
    (folder / INDEX_FILE).write_text(search_index(plans), encoding="utf-8")
    return folder


def test_a_search_over_several_packages_ranks_over_one_index_of_their_tools(
    ms365_dir: Path, slack_dir: Path, tmp_path: Path
) -> None:
    slack = ToolSet.from_specs(_specs(slack_dir))
    assert [tool.name for tool in slack.search("post a message to the slack channel", limit=1)] == ["post_message"]
    both = ToolSet([*ToolSet.from_specs(_specs(ms365_dir)).values(), *slack.values()])
    found = [tool.name for tool in both.search("post a message to the slack channel", limit=5)]
    assert "post_message" in found, found
    # Ranked as one index of the union: the same order as one package holding both listings.
    merged = tmp_path / "merged"
    merged.mkdir()
    snapshot = json.loads((ms365_dir / "snapshot.json").read_text(encoding="utf-8"))
    snapshot["tools"] += json.loads((slack_dir / "snapshot.json").read_text(encoding="utf-8"))["tools"]
    (merged / "snapshot.json").write_text(json.dumps(snapshot), encoding="utf-8")
    plans = plan_tools(read_snapshot(merged / "snapshot.json"), Diagnostics())
    (merged / INDEX_FILE).write_text(search_index(plans), encoding="utf-8")
    one = ToolSet.from_specs(_specs(merged))
    for query in ("post a message to the slack channel", "reply in a thread", "list channels", "send mail"):
        assert [t.name for t in both.search(query, limit=10)] == [t.name for t in one.search(query, limit=10)]


def test_embed_is_fused_with_the_lexical_ranking(ms365: ToolSet) -> None:
    calls: list[int] = []

    def embed(texts: list[str]) -> list[list[float]]:
        # A stand-in for an embedding model: "holiday" means the same as "out of office".
        calls.append(len(texts))
        return [
            [float("automatic replies" in text.lower() or "holiday" in text.lower()), 1.0 - 0.5 * ("mail" in text)]
            for text in texts
        ]

    assert "automatic" not in " ".join(t.name for t in ms365.search("holiday", limit=5))
    fused = [tool.name for tool in ms365.search("holiday", limit=5, embed=embed)]
    assert any("automatic" in name or "mailbox-settings" in name for name in fused), fused
    ms365.search("vacation", embed=embed)
    assert calls == [344, 1, 1]  # the tools are embedded once


def test_search_tools_pair_is_a_few_kilobytes_in_every_json_form(ms365: ToolSet) -> None:
    pair = ms365.searching()
    assert pair.names == ["search_tools", "call_tool"]
    for form in (pair.to_openai(), pair.to_openai_responses(), pair.to_anthropic(), pair.to_openai(strict="auto")):
        assert len(json.dumps(form)) < 4_000
    assert len(json.dumps(ms365.to_anthropic())) > 2_000_000


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def test_search_and_call_against_the_demo_server_in_openai_form(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    async def main() -> tuple[list[dict[str, Any]], list[dict[str, Any]], Any]:
        async with demo_pkg.AsyncClient.in_process(demo_server) as client:
            recorder = mcp_codegen_runtime.TraceRecorder().attach(client)
            tools = client.tools(exclude="add", search=True)
            definitions = tools.to_openai()
            first = await client.handle_openai_tool_calls(
                [_call("s1", "search_tools", {"query": "current weather in a city", "limit": 2})]
            )
            found = json.loads(first[0]["content"])
            name = found[0]["name"]
            second = await client.handle_openai_tool_calls(
                [
                    _call("c1", "call_tool", {"name": name, "arguments": {"city": "Oslo"}}),
                    _call("c2", "call_tool", {"name": name, "arguments": {"city": 7}}),
                    _call("c3", "call_tool", {"name": "add", "arguments": {"a": 1, "b": 2}}),
                    _call("c4", "call_tool", {"name": "get_note", "arguments": {"note_id": "nope"}}),
                ]
            )
            return definitions, [first[0], *second, {"found": found}], recorder

    definitions, answers, recorder = anyio.run(main)
    assert [item["function"]["name"] for item in definitions] == ["search_tools", "call_tool"]
    found = answers[-1]["found"]
    assert found[0]["name"] == "get_weather" and len(found) <= 2
    assert found[0]["input_schema"]["required"] == ["city"]
    assert json.loads(answers[1]["content"])["city"] == "Oslo"
    # Invalid arguments are refused before the server sees them; a tool left out is unknown.
    assert answers[2]["content"].startswith("Error:") and "city" in answers[2]["content"]
    assert answers[3]["content"].startswith("Error: unknown tool 'add'")
    assert answers[4]["content"].startswith("Error:")  # the server's isError, as sent
    ran = {(call.tool, json.dumps(call.arguments)): call for call in recorder.calls}
    assert ran["get_weather", '{"city": "Oslo"}'].result.structured["city"] == "Oslo"
    refused = ran["get_weather", '{"city": 7}']
    assert refused.result is None and type(refused.error).__name__ == "ArgumentsValidationError"
    assert not any(tool == "add" for tool, _ in ran)


def test_search_and_call_in_a_pydantic_ai_agent_loop(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    seen: dict[str, Any] = {}

    def returned(messages: list[ModelMessage]) -> list[Any]:
        return [
            part
            for message in messages
            if isinstance(message, ModelRequest)
            for part in message.parts
            if getattr(part, "part_kind", "") == "tool-return"
        ]

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        parts = returned(messages)
        if not parts:
            seen["offered"] = sorted(tool.name for tool in info.function_tools)
            return ModelResponse(parts=[ToolCallPart("search_tools", {"query": "add two numbers"}, tool_call_id="s")])
        if len(parts) == 1:
            best = json.loads(parts[0].model_response_str())[0]["name"]
            seen["best"] = best
            return ModelResponse(
                parts=[ToolCallPart("call_tool", {"name": best, "arguments": {"a": 2, "b": 40}}, tool_call_id="c")]
            )
        seen["answer"] = parts[1].model_response_str()
        return ModelResponse(parts=[TextPart("done")])

    async def main() -> Any:
        async with demo_pkg.AsyncClient.in_process(demo_server) as client:
            agent = Agent(FunctionModel(model), toolsets=[client.tools(search=True).to_pydantic_ai()])
            return await agent.run("What is 2 + 40?")

    result = anyio.run(main)
    assert result.output == "done"
    assert seen["offered"] == ["call_tool", "search_tools"]
    assert seen["best"] == "add" and seen["answer"] == "42"


def test_search_pair_on_a_blocking_client(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    with demo_pkg.Client.in_process(demo_server) as client:
        tools = client.tools(search=True)
        assert tools.names == ["search_tools", "call_tool"]
        found = tools["search_tools"].run_sync({"query": "weather"})
        assert "get_weather" in found.text
        output = tools["call_tool"].run_sync({"name": "add", "arguments": {"a": 1, "b": 2}})
        assert not output.is_error and output.text == "3"
        assert [tool.name for tool in client.tools().search("list the notes with a tag", limit=1)] == ["list_notes"]


def test_the_package_ships_its_index_and_search_reads_it(demo_pkg: ModuleType) -> None:
    index_file = Path(demo_pkg.__file__).parent / INDEX_FILE
    shipped = importlib.import_module("mcp_codegen_runtime.agents.search_index")
    index = shipped.load_index(index_file)
    snapshot = json.loads((index_file.parent / "snapshot.json").read_text())
    assert index is not None and index.names == [tool["name"] for tool in snapshot["tools"]]
    tools = demo_pkg.AsyncClient.toolset_for(None)
    assert [tool.name for tool in tools.search("sum of two integers", limit=1)] == ["add"]


def test_the_search_pair_in_every_framework(demo_pkg: ModuleType, demo_server: MCPServer) -> None:
    with demo_pkg.Client.in_process(demo_server) as client:
        pair = client.tools(search=True)
        names = ["search_tools", "call_tool"]
        assert [tool.name for tool in pair.to_langchain()] == names
        assert [tool.name for tool in pair.to_openai_agents()] == names
        assert [tool.metadata.name for tool in pair.to_llama_index()] == names
        assert [tool.name for tool in pair.to_smolagents()] == names
        assert sorted(pair.to_pydantic_ai().tools) == sorted(names)
        assert pair.claude_allowed_tools("m365") == ["mcp__m365__search_tools", "mcp__m365__call_tool"]
        assert [agent_tool.to_adk().name for agent_tool in pair.values()] == names
        langchain_call = pair.to_langchain()[1]
        assert langchain_call.invoke({"name": "add", "arguments": {"a": 4, "b": 5}}) == "9"


def test_call_tool_runs_each_tool_on_its_own_client(demo_pkg: ModuleType) -> None:
    from mcp_codegen.demo.server import build_server

    async def main() -> tuple[Any, Any, Any]:
        async with (
            demo_pkg.AsyncClient.in_process(build_server()) as first,
            demo_pkg.AsyncClient.in_process(build_server()) as second,
        ):
            seen_first = mcp_codegen_runtime.TraceRecorder().attach(first)
            seen_second = mcp_codegen_runtime.TraceRecorder().attach(second)
            both = type(first.tools())([*first.tools(prefix="a_").values(), *second.tools(prefix="b_").values()])
            pair = both.searching()
            out = await pair["call_tool"].run({"name": "b_add", "arguments": {"a": 1, "b": 1}})
            return out, seen_first.calls, seen_second.calls

    out, first_calls, second_calls = anyio.run(main)
    assert out.text == "2"
    assert [call.tool for call in second_calls] == ["add"] and first_calls == []
