"""The model splitter: the generator's one module becomes one module per tool plus `_shared`, losing nothing."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from helpers import generate_into, imported_package, mypy_strict, pyright_strict
from mcp import Client as McpClient
from mcp.server import Server

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.models import SHARED_MODULE, ModelsOutput, run_datamodel_codegen, split_models
from mcp_codegen.snapshot.fetch import snapshot_server

ENTRY = {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}
#: An object with declared entries and typed extras (a map with known keys), nested: the issue's case.
NESTED_MAP_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "storages": {
            "type": "object",
            "properties": {
                "datasets": {"type": "object", "properties": {"default": ENTRY}, "additionalProperties": ENTRY}
            },
        }
    },
}


def split(definitions: dict[str, Any], owners: dict[str, list[str]]) -> tuple[ModelsOutput, Diagnostics]:
    diagnostics = Diagnostics()
    source = run_datamodel_codegen({"$defs": definitions}, {})
    return split_models(source, owners, {}, diagnostics), diagnostics


def defined(module_source: str) -> set[str]:
    return {node.name for node in ast.parse(module_source).body if isinstance(node, ast.ClassDef)}


def test_class_reached_only_through_typed_extras_is_kept() -> None:
    output, diagnostics = split({"RunResult": NESTED_MAP_OUTPUT}, {"run": ["RunResult"]})
    assert not diagnostics.items
    classes = defined(output.modules["run"])
    quoted = [c for c in classes if c.endswith("AdditionalProperty")]
    assert len(quoted) == 1 and quoted[0] in output.modules["run"].split("__pydantic_extra__")[1]
    assert set(output.class_module) == classes


def test_classes_several_tools_reach_go_to_shared_and_are_imported() -> None:
    common = {"type": "object", "properties": {"x": {"type": "integer"}}}
    definitions = {
        "AArguments": {"type": "object", "properties": {"c": {"$ref": "#/$defs/Common"}}},
        "BArguments": {"type": "object", "properties": {"c": {"$ref": "#/$defs/Common"}, "own": ENTRY}},
        "Common": common,
        "Unused": {"type": "object", "properties": {"y": {"type": "string"}}},
    }
    output, _ = split(definitions, {"a": ["AArguments"], "b": ["BArguments"]})
    assert output.class_module["Common"] == SHARED_MODULE
    assert defined(output.modules[SHARED_MODULE]) == {"Common"}
    assert "from ._shared import Common" in output.modules["a"]
    assert "from ._shared import Common" in output.modules["b"]
    assert "Unused" not in output.class_module  # no tool reaches it
    assert output.class_module["BArgumentsOwn"] == "b"
    assert "class BArgumentsOwn" not in output.modules["a"]


def test_fields_of_arguments_in_declaration_order_with_wire_names() -> None:
    definitions = {
        "TArguments": {
            "type": "object",
            "properties": {"zed": {"type": "string"}, "camelCase": {"type": ["integer", "null"]}, "a": ENTRY},
            "required": ["a"],
        }
    }
    output, _ = split(definitions, {"t": ["TArguments"]})
    fields = output.fields["TArguments"]
    assert [(f.wire_name, f.required) for f in fields] == [("zed", False), ("camelCase", False), ("a", True)]
    # Optional and not nullable: the parameter type drops `| None` (not given means not sent).
    assert fields[0].type_source == "str"


def test_a_root_the_generator_did_not_produce_is_an_error() -> None:
    output, diagnostics = split({"TArguments": {"type": "object"}}, {"t": ["TArguments", "Missing"]})
    assert [d.location for d in diagnostics.errors] == ["models.Missing"]
    assert "t" in output.modules


def nested_map_server(seen: list[dict[str, Any]]) -> Server[Any]:
    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        schema = {"type": "object", "properties": {"name": {"type": "string"}}}
        return types.ListToolsResult(
            tools=[types.Tool(name="get_run", input_schema=schema, output_schema=NESTED_MAP_OUTPUT)]
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        seen.append(dict(params.arguments or {}))
        value = {"storages": {"datasets": {"default": {"id": "d"}, "extra": {"id": "e"}}}}
        return types.CallToolResult(content=[types.TextContent(type="text", text="ok")], structured_content=value)

    return Server("nested-map", on_list_tools=list_tools, on_call_tool=call_tool)


@pytest.mark.anyio
async def test_nested_map_with_declared_entries_type_checks_and_validates(tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []
    server = nested_map_server(seen)
    snapshot = await snapshot_server(server, diagnostics=Diagnostics())
    generate_into(tmp_path, snapshot, "nested_map")
    checked = mypy_strict(tmp_path, "nested_map")
    assert checked.returncode == 0, checked.stdout
    checked = pyright_strict(tmp_path, "nested_map")
    assert checked.returncode == 0, checked.stdout
    with imported_package(tmp_path / "nested_map") as package:
        async with McpClient(server, mode="legacy", cache=None) as session:
            result = await package.AsyncClient.from_session(session).get_run()
        datasets = result.storages.datasets
        assert datasets.default.id == "d"
        assert type(datasets.model_extra["extra"]).__name__.endswith("AdditionalProperty")
        assert datasets.model_extra["extra"].id == "e"
        assert result.model_dump(by_alias=True, exclude_unset=True) == {
            "storages": {"datasets": {"default": {"id": "d"}, "extra": {"id": "e"}}}
        }
    assert seen == [{}]
