"""End to end against the real npm @modelcontextprotocol/server-everything (pinned in tests/servers).

A client is generated from the LIVE server with the CLI, imported, and every tool, resource, template
and prompt is used through it. Each typed outcome is compared with what a raw SDK client
(`mcp.Client(StdioServerParameters(...))`) gets from another instance of the same server.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import shlex
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from pydantic import BaseModel

from mcp_codegen_runtime.connection.server_env import inherited_environment

from .conftest import EXAMPLES, ROOT, tree, unique_name

pytestmark = pytest.mark.anyio

EXAMPLE = EXAMPLES / "everything_client"
#: Passed to both servers (typed and raw), so that `get-env` answers the same text to both.
SERVER_ENV = {"MCP_CODEGEN_E2E": "1"}
TINY_TEXT_FILE = "data:text/plain;base64," + base64.b64encode(b"Hello from mcp-codegen e2e\n").decode()

#: wire tool name -> (typed keyword arguments, the same arguments as wire JSON for the raw client).
#: Long-running tools are kept short; simulate-research-query needs task augmentation: the typed method
#: runs it as a task, the raw SDK call does not ask for one and the server answers isError.
TOOL_CALLS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "echo": ({"message": "hello, everything"}, {"message": "hello, everything"}),
    "get-annotated-message": (
        {"message_type": "error", "include_image": True},
        {"messageType": "error", "includeImage": True},
    ),
    "get-env": ({}, {}),
    "get-resource-links": ({"count": 4}, {"count": 4}),
    "get-resource-reference": (
        {"resource_type": "Blob", "resource_id": 3},
        {"resourceType": "Blob", "resourceId": 3},
    ),
    "get-structured-content": ({"location": "Chicago"}, {"location": "Chicago"}),
    "get-sum": ({"a": 2, "b": 3.5}, {"a": 2, "b": 3.5}),
    "get-tiny-image": ({}, {}),
    "gzip-file-as-resource": (
        {"name": "hello.txt.gz", "data": TINY_TEXT_FILE, "output_type": "resource"},
        {"name": "hello.txt.gz", "data": TINY_TEXT_FILE, "outputType": "resource"},
    ),
    "simulate-research-query": ({"topic": "python"}, {"topic": "python"}),
    "toggle-simulated-logging": ({}, {}),
    "toggle-subscriber-updates": ({}, {}),
    "trigger-long-running-operation": ({"duration": 0.2, "steps": 2}, {"duration": 0.2, "steps": 2}),
}

#: wire prompt name -> arguments (required ones filled; the optional `state` too for args-prompt).
PROMPT_CALLS: dict[str, dict[str, str]] = {
    "simple-prompt": {},
    "args-prompt": {"city": "Paris", "state": "Ile-de-France"},
    "completable-prompt": {"department": "Engineering", "name": "Alice"},
    "resource-prompt": {"resourceType": "Text", "resourceId": "1"},
}

#: Dynamic resources embed the time they were made ("created at 3:03:59 AM").
_TIME = re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:\s?[AP]M)?")


def _normalize(value: Any) -> Any:
    """JSON data with the time of day removed from texts and from base64 blobs that hold text."""
    if isinstance(value, dict):
        normalized = {key: _normalize(item) for key, item in value.items()}
        blob = value.get("blob")
        if isinstance(blob, str):
            try:
                decoded = base64.b64decode(blob, validate=True).decode("utf-8")
            except (binascii.Error, ValueError):
                pass
            else:
                normalized["blob"] = {"decoded": _TIME.sub("<time>", decoded)}
        return normalized
    if isinstance(value, list):
        return [_normalize(item) for item in value]
    if isinstance(value, str):
        return _TIME.sub("<time>", value)
    return value


def _dump(items: list[Any]) -> list[Any]:
    return _normalize([item.model_dump(mode="json", by_alias=True) for item in items])


# --------------------------------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def everything(
    everything_command: list[str],
    tmp_path_factory: pytest.TempPathFactory,
    generate_package: Callable[..., Path],
    import_package: Callable[[Path], ModuleType],
) -> ModuleType:
    """A client generated from the live server (absolute command line), under a unique package name."""
    name = unique_name("everything_live")
    directory = tmp_path_factory.mktemp("everything") / name
    generate_package(directory, "--stdio", shlex.join(everything_command), "--package-name", name)
    return import_package(directory)


@asynccontextmanager
async def raw_client(command: list[str]) -> AsyncIterator[Client]:
    # The environment a generated client gives its server (the SDK's defaults plus the TLS and proxy variables).
    params = StdioServerParameters(command=command[0], args=command[1:], env=inherited_environment() | SERVER_ENV)
    async with Client(params, mode="legacy", cache=None, read_timeout_seconds=60) as client:
        yield client


@asynccontextmanager
async def both(everything: ModuleType, command: list[str]) -> AsyncIterator[tuple[Any, Client]]:
    async with (
        everything.AsyncClient.stdio(command[0], command[1:], env=SERVER_ENV, timeout=60) as typed,
        raw_client(command) as raw,
    ):
        yield typed, raw


# --------------------------------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def relative_generation(
    everything_command: list[str], tmp_path_factory: pytest.TempPathFactory, codegen: Callable[..., Any]
) -> tuple[Path, Any]:
    """The live server generated exactly as scripts/regen_examples.py does it (same relative command line,
    run from the repo root, package name everything_client): even the launch record matches the example."""
    entry = Path(everything_command[1]).resolve().relative_to(ROOT).as_posix()
    output = tmp_path_factory.mktemp("relative") / "everything_client"
    result = codegen("generate", "--stdio", f"node {entry} stdio", "-o", str(output), cwd=ROOT)
    assert result.returncode == 0, result.stderr
    return output, result


def test_live_generation_is_byte_identical_to_the_committed_example(relative_generation: tuple[Path, Any]) -> None:
    output, result = relative_generation
    assert "Traceback" not in result.stderr
    assert "13 tools, 7 resources, 2 resource templates, 4 prompts, 0 warnings" in result.stderr
    generated, committed = tree(output), tree(EXAMPLE)
    assert sorted(generated) == sorted(committed), "regenerate with `python scripts/regen_examples.py`"
    assert [path for path in generated if generated[path] != committed[path]] == []


def test_absolute_command_line_changes_only_the_launch_record(
    everything: ModuleType, everything_command: list[str], relative_generation: tuple[Path, Any]
) -> None:
    absolute = tree(Path(everything.__file__).parent)
    relative = tree(relative_generation[0])
    assert sorted(absolute) == sorted(relative)
    differing = {path for path in absolute if absolute[path] != relative[path]}
    # README.md, temporal.py (its SERVER_KEY) and code_api.pyi (its module) name the package; the manifest hashes
    # the snapshot and the package name.
    named = {"README.md", "temporal.py", "code_api.pyi", ".mcp-codegen.json"}
    assert differing <= {"specs.py", "testing.py", "snapshot.json", *named}
    assert absolute["client.py"] == relative["client.py"]

    launch = {"transport": "stdio", "command": everything_command[0], "args": everything_command[1:]}
    absolute_snapshot = json.loads(absolute["snapshot.json"])
    relative_snapshot = json.loads(relative["snapshot.json"])
    assert absolute_snapshot.pop("launch") == launch
    assert relative_snapshot.pop("launch")["command"] == "node"
    assert absolute_snapshot == relative_snapshot
    assert everything.specs.LAUNCH == launch


# --------------------------------------------------------------------------------------------------
# Specs
# --------------------------------------------------------------------------------------------------


async def test_tool_specs_expose_the_raw_wire_schemas(everything: ModuleType, everything_command: list[str]) -> None:
    snapshot = json.loads((Path(everything.__file__).parent / "snapshot.json").read_text(encoding="utf-8"))
    wire = {tool["name"]: tool for tool in snapshot["tools"]}
    assert set(everything.TOOLS) == set(wire)
    for name, spec in everything.TOOLS.items():
        assert spec.name == name
        assert spec.input_schema == wire[name]["inputSchema"], name
        assert spec.output_schema == wire[name].get("outputSchema"), name
        assert spec.description == wire[name].get("description")
        assert spec.annotations == wire[name].get("annotations")

    async with raw_client(everything_command) as raw:
        listed = (await raw.list_tools()).tools
    assert {tool.name for tool in listed} == set(everything.TOOLS)
    for tool in listed:
        assert everything.TOOLS[tool.name].input_schema == tool.input_schema, tool.name
        assert everything.TOOLS[tool.name].output_schema == tool.output_schema, tool.name


async def test_every_listed_item_is_exercised_here(everything: ModuleType, everything_command: list[str]) -> None:
    async with raw_client(everything_command) as raw:
        tools = {tool.name for tool in (await raw.list_tools()).tools}
        resources = {str(resource.uri) for resource in (await raw.list_resources()).resources}
        templates = {template.uri_template for template in (await raw.list_resource_templates()).resource_templates}
        prompts = {prompt.name for prompt in (await raw.list_prompts()).prompts}
    assert tools == set(TOOL_CALLS) == set(everything.TOOLS)
    assert resources == set(everything.RESOURCES)
    assert templates == set(everything.TEMPLATES)
    assert prompts == set(PROMPT_CALLS) == set(everything.PROMPTS)


# --------------------------------------------------------------------------------------------------
# Tools
# --------------------------------------------------------------------------------------------------


async def _typed_outcome(everything: ModuleType, typed: Any, wire_name: str, arguments: dict[str, Any]) -> Any:
    """What the typed method returns, or the ToolResult its ToolError carries."""
    method = getattr(typed, everything.TOOLS[wire_name].python_name)
    try:
        return await method(**arguments)
    except everything.ToolError as error:
        assert error.tool == wire_name
        assert error.result.is_error
        assert str(error) == error.result.text
        return error.result


def _assert_same_tool_result(everything: ModuleType, outcome: Any, expected: Any) -> None:
    assert isinstance(outcome, everything.ToolResult)
    assert outcome.is_error == bool(expected.is_error)
    assert [block.type for block in outcome.content] == [block.type for block in expected.content]
    assert outcome.structured == expected.structured_content
    assert _dump(outcome.content) == _dump(expected.content)
    assert outcome.text == "\n".join(block.text for block in expected.content if block.type == "text")


@pytest.mark.parametrize("wire_name", sorted(TOOL_CALLS))
async def test_every_tool_matches_the_raw_sdk_result(
    everything: ModuleType, everything_command: list[str], wire_name: str
) -> None:
    typed_arguments, wire_arguments = TOOL_CALLS[wire_name]
    spec = everything.TOOLS[wire_name]
    async with both(everything, everything_command) as (typed, raw):
        outcome = await _typed_outcome(everything, typed, wire_name, typed_arguments)
        expected = await raw.call_tool(wire_name, wire_arguments)
        if wire_name.startswith("toggle-"):
            # Toggle back off on both servers ("Stopped ..."): also lets them exit promptly when stdin closes.
            _assert_same_tool_result(everything, outcome, expected)
            outcome = await _typed_outcome(everything, typed, wire_name, typed_arguments)
            expected = await raw.call_tool(wire_name, wire_arguments)
            assert outcome.text.startswith("Stopped")

    if spec.task_support == "required":
        # The raw SDK call asks for no task, so the server refuses it; the typed method runs the task.
        assert expected.is_error and "task" in expected.content[0].text
        assert isinstance(outcome, everything.ToolResult) and not outcome.is_error
        assert outcome.text.startswith("# Research Report: python")
        return
    if isinstance(outcome, BaseModel):
        # A tool with an output schema: the typed result is the validated structured content.
        assert spec.result_model is type(outcome)
        assert not expected.is_error
        assert expected.structured_content is not None
        assert outcome.model_dump(mode="json", by_alias=True) == expected.structured_content
        also = await _call_raw_through_typed(everything, everything_command, wire_name, wire_arguments)
        _assert_same_tool_result(everything, also, expected)
        return
    _assert_same_tool_result(everything, outcome, expected)


async def _call_raw_through_typed(
    everything: ModuleType, command: list[str], name: str, arguments: dict[str, Any]
) -> Any:
    async with everything.AsyncClient.stdio(command[0], command[1:], env=SERVER_ENV, timeout=60) as typed:
        return await typed.call_raw(name, arguments)


async def test_tool_outcomes_in_detail(everything: ModuleType, everything_command: list[str]) -> None:
    """Spot checks of what the comparisons above cannot see: values, images, decoded resources."""
    async with everything.AsyncClient.stdio(everything_command[0], everything_command[1:], timeout=60) as client:
        assert (await client.echo(message="hi")).text == "Echo: hi"
        assert (await client.get_sum(a=2, b=3.5)).text == "The sum of 2 and 3.5 is 5.5."
        weather = await client.get_structured_content(location="Chicago")
        assert type(weather).__name__ == "GetStructuredContentResult"
        assert weather.model_dump().keys() >= {"temperature", "conditions", "humidity"}

        image = await client.get_tiny_image()
        [(data, mime_type)] = image.image_bytes()
        assert mime_type == "image/png" and data.startswith(b"\x89PNG")

        gzipped = await client.gzip_file_as_resource(name="e2e.gz", data=TINY_TEXT_FILE, output_type="resource")
        [block] = gzipped.content
        assert block.type == "resource"
        assert gzipped.embedded_resources == [block] and gzipped.resource_links == []
        import gzip

        assert gzip.decompress(base64.b64decode(block.resource.blob)) == b"Hello from mcp-codegen e2e\n"

        # The default output type is a link to a session resource, readable on the same connection.
        linked = await client.gzip_file_as_resource(name="e2e-link.gz", data=TINY_TEXT_FILE)
        [link] = linked.content
        assert link.type == "resource_link"
        read = await client.read_resource(str(link.uri))
        assert gzip.decompress(read.blobs[0]) == b"Hello from mcp-codegen e2e\n"

        # Resource links, typed: each one readable by its URI.
        links = await client.get_resource_links(count=3)
        assert len(links.resource_links) == 3 and links.embedded_resources == []
        assert all(str(link.uri).startswith("demo://") for link in links.resource_links)
        first = await client.read_resource(str(links.resource_links[0].uri))
        assert first.raw.contents

        with pytest.raises(everything.ArgumentsValidationError):
            await client.get_structured_content(location="Atlantis")
        # A tool that requires a task: the typed method runs one; a raw call (no task asked) is refused.
        assert (await client.simulate_research_query(topic="python")).text.startswith("# Research Report")
        refused = await client.call_raw("simulate-research-query", {"topic": "python"})
        assert refused.is_error and "task" in refused.text


async def test_request_timeout_keeps_the_session_usable(everything: ModuleType, everything_command: list[str]) -> None:
    async with everything.AsyncClient.stdio(everything_command[0], everything_command[1:], timeout=60) as client:
        with pytest.raises(everything.RequestTimeoutError):
            await client.call("trigger-long-running-operation", {"duration": 1.5, "steps": 1}, timeout=0.3)
        assert (await client.echo(message="still here")).text == "Echo: still here"
        done = await client.trigger_long_running_operation(duration=0.1, steps=1)
        assert done.text == "Long running operation completed. Duration: 0.1 seconds, Steps: 1."


# --------------------------------------------------------------------------------------------------
# Resources, templates, prompts
# --------------------------------------------------------------------------------------------------


async def test_every_resource_matches_the_raw_read(everything: ModuleType, everything_command: list[str]) -> None:
    snapshot = json.loads((Path(everything.__file__).parent / "snapshot.json").read_text(encoding="utf-8"))
    uris = [resource["uri"] for resource in snapshot["resources"]]
    assert sorted(uris) == sorted(everything.RESOURCES) and len(uris) == 7
    async with both(everything, everything_command) as (typed, raw):
        for uri in uris:
            spec = everything.RESOURCES[uri]
            result = await getattr(typed.resources, spec.python_name)()
            expected = await raw.read_resource(uri)
            assert isinstance(result, everything.ResourceResult)
            assert result.raw == expected, uri
            assert [str(item.uri) for item in result.contents] == [uri]
            assert result.text and result.text == expected.contents[0].text
            assert result.mime_types == ["text/markdown"]


async def test_every_template_matches_the_raw_read(everything: ModuleType, everything_command: list[str]) -> None:
    assert len(everything.TEMPLATES) == 2
    async with both(everything, everything_command) as (typed, raw):
        for uri_template, spec in everything.TEMPLATES.items():
            assert [wire for wire, _python in spec.variables] == ["resourceId"]
            uri = uri_template.replace("{resourceId}", "1")
            method = getattr(typed.resources, spec.python_name)
            by_int = await method(resource_id=1)
            by_str = await method(resource_id="1")
            expected = await raw.read_resource(uri)
            for result in (by_int, by_str):
                assert [str(item.uri) for item in result.contents] == [uri]
                assert _dump(result.contents) == _dump(expected.contents)
            if "/text/" in uri_template:
                assert _TIME.sub("<time>", by_int.text) == "Resource 1: This is a plaintext resource created at <time>"
                assert by_int.blobs == []
            else:
                assert by_int.text == ""
                [blob] = by_int.blobs
                assert _TIME.sub("<time>", blob.decode()) == "Resource 1: This is a base64 blob created at <time>"
        # An id the server rejects is its error, typed.
        with pytest.raises(everything.ServerRequestError) as raised:
            await typed.resources.dynamic_text_resource(resource_id="not-a-number")
        assert type(raised.value).__name__ == "ResourceError"
        assert raised.value.uri == "demo://resource/dynamic/text/not-a-number"


async def test_every_prompt_matches_the_raw_get(everything: ModuleType, everything_command: list[str]) -> None:
    assert set(everything.PROMPTS) == set(PROMPT_CALLS)
    async with both(everything, everything_command) as (typed, raw):
        for wire_name, arguments in PROMPT_CALLS.items():
            spec = everything.PROMPTS[wire_name]
            python_names = {wire: python for wire, python, _required in spec.arguments}
            assert {wire for wire, _, required in spec.arguments if required} <= set(arguments)
            result = await getattr(typed.prompts, spec.python_name)(
                **{python_names[name]: value for name, value in arguments.items()}
            )
            expected = await raw.get_prompt(wire_name, arguments or None)
            assert isinstance(result, everything.PromptResult)
            assert result.description == expected.description
            assert [m.role for m in result.messages] == [m.role for m in expected.messages]
            assert _dump(result.messages) == _dump(expected.messages), wire_name
            assert result.text


async def test_prompt_texts(everything: ModuleType, everything_command: list[str]) -> None:
    async with everything.AsyncClient.stdio(everything_command[0], everything_command[1:], timeout=60) as client:
        assert (await client.prompts.simple_prompt()).text == "This is a simple prompt without arguments."
        assert (await client.prompts.args_prompt(city="Paris")).text == "What's weather in Paris?"
        assert (await client.prompts.completable_prompt(department="Engineering", name="Alice")).text == (
            "Please promote Alice to the head of the Engineering team."
        )
        embedded = await client.prompts.resource_prompt(resource_type="Text", resource_id="1")
        assert [message.content.type for message in embedded.messages] == ["text", "resource"]
        # The server's own error for a missing required argument, typed.
        with pytest.raises(everything.ServerRequestError) as raised:
            await client.get_prompt("args-prompt", {})
        assert type(raised.value).__name__ == "PromptError"
        assert raised.value.prompt == "args-prompt"
