"""Whatever a server names things, the generated package means the same to mypy, pyright and ty, and every value
goes out under its wire name and comes back.

Hypothesis draws listings from the name pools of `drawn_names` (builtins, keywords, the names generated code
imports, `BaseModel`'s attributes, the package's and the runtime's own names, odd names) and puts them in tools'
arguments, results and nested `$defs`, in prompts and their arguments, resources and template variables. For each:

* a real SDK server (low level, in process) lists it, and the snapshot is taken from it as from any server;
* the package is generated with no error, and imported;
* every typed method is called through that server with a value for every parameter (nested objects included):
  the server receives each value under its wire name, the echoed result comes back through the result model
  with the same wire names, a prompt's arguments and a template's variables reach the server as drawn.

Then the packages of all examples, one package holding every pool name at once as a tool name and as a property,
and one with the issue's result (properties `list`, `str`, `Any`, `NotRequired`... then fields annotated with those
builtins, and a property named `""`) go through `mypy --strict`, pyright (strict) and ty on a plain install, and their `code_api.pyi` through the ty
release code mode runs: one run of each checker.

`MCP_CODEGEN_NAMES_EXAMPLES` sets the number of drawn listings (default 16); the seed is fixed (reproducible).
"""

from __future__ import annotations

import inspect
import json
import os
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from drawn_names import TAIL, every_name, listings, pools, sample
from helpers import imported_package, plain_python, type_check
from hypothesis import HealthCheck, Phase, given, seed, settings
from mcp.server import Server

from mcp_codegen.diagnostics import Diagnostics, Level
from mcp_codegen.generate.pipeline import generate_files
from mcp_codegen.output.write import write_package
from mcp_codegen.snapshot.fetch import snapshot_server

pytestmark = pytest.mark.slow(reason="drawn names through mypy, pyright and ty, and a round trip per package")

EXAMPLES = int(os.environ.get("MCP_CODEGEN_NAMES_EXAMPLES", "16"))


def echo_server(listing: dict[str, Any], seen: list[tuple[str, str, Any]]) -> Server[Any]:
    """A low-level SDK server listing `listing` as given; a tool call answers its arguments as structured content,
    a prompt its arguments as text, a resource its URI. Every request is recorded in `seen`."""
    tools = [types.Tool.model_validate(tool) for tool in listing["tools"]]
    prompts = [types.Prompt.model_validate(prompt) for prompt in listing["prompts"]]
    resources = [types.Resource.model_validate(resource) for resource in listing["resources"]]
    templates = [types.ResourceTemplate.model_validate(template) for template in listing["resourceTemplates"]]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        seen.append(("tool", params.name, params.arguments))
        text = types.TextContent(type="text", text=json.dumps(params.arguments))
        return types.CallToolResult(content=[text], structured_content=params.arguments)

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=prompts)

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        seen.append(("prompt", params.name, params.arguments))
        text = types.TextContent(type="text", text=json.dumps(params.arguments or {}))
        return types.GetPromptResult(messages=[types.PromptMessage(role="user", content=text)])

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=resources)

    async def list_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=templates)

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        seen.append(("resource", str(params.uri), None))
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=params.uri, text=str(params.uri))])

    return Server(
        "drawn",
        version="1.0.0",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )


def generate(listing: dict[str, Any], directory: Path, package: str) -> Diagnostics:
    """The package of what the SDK server sends for `listing`, written to `directory / package`; its diagnostics."""
    server = echo_server(listing, [])
    snapshot = anyio.run(lambda: snapshot_server(server, diagnostics=Diagnostics()))
    diagnostics = Diagnostics()
    files = generate_files(snapshot, package_name=package, diagnostics=diagnostics)
    assert not [d for d in diagnostics if d.level is Level.ERROR], [str(d) for d in diagnostics]
    write_package(directory / package, files, overwrite=True)
    return diagnostics


async def round_trip(package: Any, listing: dict[str, Any]) -> None:
    """Call every tool, prompt, resource and template of `listing` through the generated client and the SDK server."""
    seen: list[tuple[str, str, Any]] = []
    async with package.AsyncClient.in_process(echo_server(listing, seen), cache=False) as client:
        for tool in listing["tools"]:
            schema = tool["inputSchema"]
            sent = sample(schema, schema.get("$defs", {}))
            spec = package.TOOLS[tool["name"]]
            fields = spec.arguments_model.model_fields
            python = {(info.alias if info.alias is not None else name): name for name, info in fields.items()}
            method = getattr(client, spec.python_name)
            assert list(inspect.signature(method).parameters) == [python[wire] for wire in _ordered(schema)]
            result = await method(**{python[wire]: value for wire, value in sent.items()})
            assert seen.pop() == ("tool", tool["name"], sent)
            if "outputSchema" in tool:
                assert result.model_dump(mode="json", by_alias=True, exclude_unset=True) == sent
            else:
                assert json.loads(result.text) == sent
        for prompt in listing["prompts"]:
            spec = package.PROMPTS[prompt["name"]]
            # Every other optional argument left out: what is sent is what was given, under its own wire name.
            given = [a for i, a in enumerate(prompt["arguments"]) if a["required"] or i % 2 == 0]
            sent = {argument["name"]: f"v{index}" for index, argument in enumerate(given)}
            python = {wire: name for wire, name, _ in spec.arguments}
            got = await getattr(client.prompts, spec.python_name)(**{python[w]: value for w, value in sent.items()})
            assert seen.pop() == ("prompt", prompt["name"], sent or None)
            assert json.loads(got.messages[0].content.text) == sent
        for resource in listing["resources"]:
            spec = package.RESOURCES[resource["uri"]]
            got = await getattr(client.resources, spec.python_name)()
            assert seen.pop() == ("resource", resource["uri"], None)
        for template in listing["resourceTemplates"]:
            spec = package.TEMPLATES[template["uriTemplate"]]
            values = {wire: f"v{index}" for index, (wire, _) in enumerate(spec.variables)}
            got = await getattr(client.resources, spec.python_name)(**{py: values[w] for w, py in spec.variables})
            expected = template["uriTemplate"]
            for wire, value in values.items():
                expected = expected.replace(f"{{{wire}}}", value)
            assert seen.pop() == ("resource", expected, None)
    assert seen == []


def _ordered(schema: dict[str, Any]) -> list[str]:
    """The wire names of a method's parameters in order: required first, each group in the schema's order."""
    required = set(schema.get("required", []))
    properties = list(schema["properties"])
    return [name for name in properties if name in required] + [name for name in properties if name not in required]


def every_name_listing() -> dict[str, Any]:
    """One listing holding every pool name at once: as a tool name (each tool taking one property of that name) and
    as a property of one tool's arguments, result and nested definition."""
    all_names = every_name()
    everything = {name: {"type": "string"} for name in all_names} | {
        "tail_list": {"type": "array", "items": {"type": "integer"}}
    }
    schema = {"type": "object", "properties": {**everything, "tail_nested": {"$ref": "#/$defs/Inner"}}}
    schema["$defs"] = {"Inner": {"type": "object", "properties": everything}}
    tools = [{"name": "every name", "inputSchema": schema, "outputSchema": schema}]
    tools += [{"name": name, "inputSchema": {"type": "object", "properties": {name: {"type": "string"}}}}
              for name in all_names if name != "every name"]  # fmt: skip
    return {"tools": tools, "prompts": [], "resources": [], "resourceTemplates": []}


def builtin_fields_listing() -> dict[str, Any]:
    """The issue's case: a result (and arguments, and a nested definition) with properties named after builtins and
    typing names, then fields annotated with those builtins; and a property named with the empty string."""
    shadowing = ["list", "str", "int", "dict", "Any", "Literal", "NotRequired", "TypedDict", "None", "float", "bool"]
    properties = {name: {"type": "string"} for name in shadowing} | {"": {"type": "integer"}} | TAIL
    inner = {"type": "object", "properties": properties, "required": ["list", ""]}
    schema = {
        **inner,
        "properties": {**properties, "tail_nested": {"$ref": "#/$defs/Sheet"}},
        "$defs": {"Sheet": inner},
    }
    tools = [{"name": "get_sheet", "inputSchema": schema, "outputSchema": schema}]
    return {"tools": tools, "prompts": [], "resources": [], "resourceTemplates": []}


def test_drawn_names_type_check_with_three_checkers_and_round_trip(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    written: dict[str, dict[str, Any]] = {}

    @seed(61)
    @settings(
        max_examples=EXAMPLES,
        database=None,
        deadline=None,
        phases=[Phase.generate, Phase.shrink],
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
    )
    @given(listings())
    def one_listing(listing: dict[str, Any]) -> None:
        package = f"drawn_{len(written)}"
        generate(listing, tmp_path, package)
        with imported_package(tmp_path / package) as imported:
            anyio.run(round_trip, imported, listing)
        written[package] = listing

    one_listing()
    assert len(written) >= EXAMPLES // 2  # hypothesis may stop early, never much
    for package, listing in (("drawn_every_name", every_name_listing()), ("drawn_builtins", builtin_fields_listing())):
        diagnostics = generate(listing, tmp_path, package)
        with imported_package(tmp_path / package) as imported:
            anyio.run(round_trip, imported, listing)
        written[package] = listing
    # The empty property name: a valid file, its object typed `dict[str, Any]` in the stub, with a note.
    assert {d.location for d in diagnostics if d.code == "code-api-loose-type"} == {
        "tools.get_sheet.inputSchema",
        "tools.get_sheet.outputSchema",
    }
    stub = (tmp_path / "drawn_builtins" / "code_api.pyi").read_text(encoding="utf-8")
    assert "-> dict[str, Any]:" in stub
    packages = list(written)
    results = type_check(tmp_path, packages, plain_python(tmp_path_factory))
    assert set(results) == {"mypy", "pyright", "ty", "ty (code mode's)"}
    for checked in results.values():
        failing = sorted({package for package in packages if f"{package}/" in checked.output})
        listings_text = "\n".join(f"{name}: {json.dumps(written.get(name))[:3000]}" for name in failing[:3])
        assert checked.returncode == 0, f"{checked.checker}:\n{checked.output[-6000:]}\n{listings_text}"


def test_every_pool_is_drawn_from() -> None:
    assert all(pools().values()) and "list" in pools()["builtins"] and "run_code" in pools()["runtime"]
    assert {"Any", "Literal", "NotRequired", "TypedDict", "Field", "BaseModel"} <= set(pools()["imported"])
