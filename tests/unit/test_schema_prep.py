"""Schema preparation: what reaches the model generator, and what is reported on the way."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from helpers import generate_into, imported_package, mypy_strict
from mcp import Client as McpClient
from mcp.server import Server

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.naming import ClassNames
from mcp_codegen.generate.schema_prep import PreparedTool, accepts_null, is_wrapped_primitive, prepare_tool
from mcp_codegen.snapshot.fetch import snapshot_server


def prepare(tool: dict[str, Any]) -> tuple[PreparedTool, Diagnostics]:
    diagnostics = Diagnostics()
    claim = ClassNames(()).claim
    prepared = prepare_tool(tool, class_prefix="T", location="tools.t", diagnostics=diagnostics, claim=claim)
    return prepared, diagnostics


def arguments(schema: dict[str, Any]) -> tuple[dict[str, Any], Diagnostics]:
    prepared, diagnostics = prepare({"name": "t", "inputSchema": schema})
    return prepared.definitions["TArguments"], diagnostics


def test_the_raw_tool_is_never_modified() -> None:
    tool = {
        "name": "t",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A", "default": None}, "p": {"type": "string", "pattern": "(?=x)"}},
            "$defs": {"A": {"type": "object", "properties": {"n": {"type": "integer", "format": "int64"}}}},
        },
    }
    before = copy.deepcopy(tool)
    prepare(tool)
    assert tool == before


def test_objects_keep_unknown_keys_unless_closed() -> None:
    schema, _ = arguments(
        {
            "type": "object",
            "properties": {"open": {"type": "object"}, "closed": {"type": "object", "additionalProperties": False}},
        }
    )
    assert schema["additionalProperties"] is True
    assert schema["properties"]["open"]["additionalProperties"] is True
    assert schema["properties"]["closed"]["additionalProperties"] is False


def test_definitions_and_path_refs_are_hoisted_under_the_tools_prefix() -> None:
    prepared, diagnostics = prepare(
        {
            "name": "t",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "node": {"$ref": "#/definitions/Node"},
                    "first": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string"}}}},
                    "again": {"$ref": "#/properties/first/items"},
                    "whole": {"$ref": "#"},
                },
                "definitions": {
                    "Node": {"type": "object", "properties": {"child": {"$ref": "#/definitions/Node"}}},
                },
            },
        }
    )
    assert not diagnostics.items
    definitions = prepared.definitions
    root = definitions["TArguments"]
    assert "definitions" not in root
    assert root["properties"]["node"] == {"$ref": "#/$defs/TNode"}
    assert definitions["TNode"]["properties"]["child"] == {"$ref": "#/$defs/TNode"}  # recursion kept
    assert root["properties"]["whole"] == {"$ref": "#/$defs/TArguments"}
    hoisted = root["properties"]["again"]["$ref"].removeprefix("#/$defs/")
    assert definitions[hoisted]["properties"] == {"k": {"type": "string"}}


def test_what_cannot_be_checked_is_dropped_and_reported() -> None:
    schema, diagnostics = arguments(
        {
            "type": "object",
            "properties": {
                "look": {"type": "string", "pattern": "(?<=a)b"},
                "ok": {"type": "string", "pattern": "^[a-z]+$", "format": "uri"},
                "wide": {"type": "integer", "enum": [1, 2**70]},
                "remote": {"$ref": "https://example.com/schema.json"},
                "dangling": {"$ref": "#/$defs/Nowhere"},
                "wrong": {"type": "integer", "default": "ten"},
                "object_default": {"type": "object", "default": {"a": 1}},
                "wrong_array": {"type": "array", "items": {"type": "integer"}, "default": ["x"]},
            },
        }
    )
    properties = schema["properties"]
    assert "pattern" not in properties["look"]
    assert properties["ok"] == {"type": "string", "pattern": "^[a-z]+$"}  # formats stay plain strings
    assert "enum" not in properties["wide"]
    assert properties["remote"] == {} and properties["dangling"] == {}
    assert "default" not in properties["wrong"] and "default" not in properties["wrong_array"]
    assert properties["object_default"]["default"] == {"a": 1}  # valid against its schema: the model holds it
    reported = {d.location.removeprefix("tools.t.inputSchema.properties.") for d in diagnostics.warnings}
    assert reported == {
        "look.pattern",
        "wide.enum",
        "remote.$ref",
        "dangling.$ref",
        "wrong.default",
        "wrong_array.default",
    }


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "string"}, False),
        ({"type": ["string", "null"]}, True),
        ({"type": "string", "nullable": True}, True),
        ({"anyOf": [{"type": "string"}, {"type": "object"}]}, False),
        ({"anyOf": [{"type": "string"}, {"type": "null"}]}, True),
        ({"oneOf": [{"$ref": "#/$defs/A"}, {}]}, True),
        ({"enum": ["a", None]}, True),
        ({"enum": ["a"]}, False),
        ({"const": None}, True),
        ({"$ref": "#/$defs/A"}, False),
        ({"description": "anything"}, True),
        ({"allOf": [{"type": ["string", "null"]}, {"maxLength": 3}]}, True),
    ],
)
def test_accepts_null(schema: dict[str, Any], expected: bool) -> None:
    assert accepts_null(schema) is expected


def test_null_default_on_a_property_that_does_not_accept_null_means_not_given() -> None:
    schema, diagnostics = arguments(
        {
            "type": "object",
            "properties": {
                "union": {"anyOf": [{"type": "string"}, {"type": "object"}], "default": None},
                "plain": {"type": "string", "default": None},
                "nullable": {"type": ["string", "null"], "default": None},
                "listed": {"type": ["string", "null"], "default": "x"},
                "nested": {"type": "object", "properties": {"inner": {"type": "integer", "default": None}}},
            },
        }
    )
    properties = schema["properties"]
    assert "default" not in properties["union"] and "default" not in properties["plain"]
    assert "default" not in properties["nested"]["properties"]["inner"]
    assert properties["nullable"]["default"] is None
    assert properties["listed"]["default"] == "x"
    assert not diagnostics.items  # nothing lost: null was the server's "not given"


def test_wrapped_primitive_results() -> None:
    wrapped = {"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]}
    assert is_wrapped_primitive({**wrapped, "title": "addOutput"})
    assert is_wrapped_primitive({**wrapped, "x-fastmcp-wrap-result": True})
    assert not is_wrapped_primitive(wrapped)
    assert not is_wrapped_primitive({**wrapped, "title": "addOutput", "required": []})


def test_unusable_schemas_give_permissive_arguments_and_untyped_results() -> None:
    prepared, diagnostics = prepare({"name": "t", "inputSchema": {}, "outputSchema": {"type": "string"}})
    assert prepared.permissive_arguments and prepared.result_class is None
    assert [d.location for d in diagnostics.warnings] == ["tools.t.inputSchema", "tools.t.outputSchema"]


# A schema made from a Python signature: optional arguments say `"default": null` without allowing null.
OPTIONAL = {"anyOf": [{"type": "string"}, {"type": "object"}], "default": None}
NULL_DEFAULTS_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string"},
        "scope": OPTIONAL,
        "options": {"type": "object", "properties": {"mode": OPTIONAL, "limit": {"type": "integer", "default": None}}},
    },
    "required": ["query"],
}
NULL_DEFAULTS_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {"cursor": OPTIONAL, "count": {"type": "integer"}},
}


def null_defaults_server(seen: list[dict[str, Any]]) -> Server[Any]:
    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        tool = types.Tool(name="search", input_schema=NULL_DEFAULTS_INPUT, output_schema=NULL_DEFAULTS_OUTPUT)
        return types.ListToolsResult(tools=[tool])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        seen.append(dict(params.arguments or {}))
        return types.CallToolResult(
            content=[types.TextContent(type="text", text="{}")], structured_content={"count": 1}
        )

    return Server("null-defaults", on_list_tools=list_tools, on_call_tool=call_tool)


@pytest.mark.anyio
async def test_null_defaults_type_check_and_send_nothing_when_not_given(tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []
    server = null_defaults_server(seen)
    diagnostics = Diagnostics()
    snapshot = await snapshot_server(server, diagnostics=diagnostics)
    assert not generate_into(tmp_path, snapshot, "null_defaults").items
    checked = mypy_strict(tmp_path, "null_defaults")
    assert checked.returncode == 0, checked.stdout
    with imported_package(tmp_path / "null_defaults") as package:
        async with McpClient(server, mode="legacy", cache=None) as session:
            client = package.AsyncClient.from_session(session)
            result = await client.search(query="q")
            await client.search(query="q", scope={"a": 1}, options=package.models.SearchArgumentsOptions(mode="m"))
        assert result.count == 1 and result.cursor is None
        assert "cursor" not in result.model_dump(by_alias=True, exclude_unset=True)
    assert seen == [{"query": "q"}, {"query": "q", "scope": {"a": 1}, "options": {"mode": "m"}}]
    # The embedded snapshot still says what the server said.
    embedded = json.loads((tmp_path / "null_defaults" / "snapshot.json").read_text(encoding="utf-8"))
    assert embedded["tools"][0]["inputSchema"]["properties"]["scope"]["default"] is None
