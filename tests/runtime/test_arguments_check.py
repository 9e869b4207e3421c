"""The arguments of a typed call: sent as given, checked by the tool's own schema (the one listed in this session
where the server changed it), refused with the parameter's Python name and never the value."""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from helpers import generate_into, imported_package, snapshot_of
from mcp import Client as McpClient
from mcp.server import Server
from pydantic import BaseModel

from mcp_codegen_runtime.calls.arguments import InvalidArguments, SchemaCheck, json_value

pytestmark = pytest.mark.anyio

#: At generation the tool takes a name of at most 3 characters and a `camelCase` count.
GENERATED = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 3},
        "itemCount": {"type": "integer", "minimum": 0},
        "ratio": {"type": "number"},
        "secret": {"type": "string", "pattern": "^[a-z]+$"},
    },
    "required": ["name"],
}


def _echo_server(input_schema: dict[str, Any]) -> Server[Any]:
    """A low-level server listing one tool `echo` with `input_schema`; it answers with the JSON it received."""

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name="echo", input_schema=input_schema)])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        text = json.dumps(params.arguments, sort_keys=True)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    return Server("echo", on_list_tools=list_tools, on_call_tool=call_tool)


@pytest.fixture(scope="module")
def echo_package(tmp_path_factory: pytest.TempPathFactory) -> Any:
    directory = tmp_path_factory.mktemp("arguments")
    generate_into(directory, snapshot_of([{"name": "echo", "inputSchema": GENERATED}]), "echo_client")
    with imported_package(directory / "echo_client") as package:
        yield package


@asynccontextmanager
async def _client(package: Any, server_schema: dict[str, Any]) -> AsyncIterator[Any]:
    async with McpClient(_echo_server(server_schema), mode="legacy", cache=None) as session_client:
        yield package.AsyncClient.from_session(session_client.session)


async def test_numbers_keep_their_form_and_python_names_become_wire_names(echo_package: Any) -> None:
    async with _client(echo_package, GENERATED) as client:
        result = await client.echo(name="abc", item_count=2, ratio=1)
        assert result.text == '{"itemCount": 2, "name": "abc", "ratio": 1}'
        result = await client.echo(name="abc", ratio=1.0)
        assert result.text == '{"name": "abc", "ratio": 1.0}'
        # call() takes Python or wire names alike.
        assert (await client.call("echo", {"name": "x", "item_count": 1})).text == '{"itemCount": 1, "name": "x"}'
        assert (await client.call("echo", {"name": "x", "itemCount": 1})).text == '{"itemCount": 1, "name": "x"}'


async def test_refusals_name_the_python_parameter_and_never_the_value(echo_package: Any) -> None:
    errors = echo_package.ArgumentsValidationError
    async with _client(echo_package, GENERATED) as client:
        with pytest.raises(errors) as refused:
            await client.echo(name="abc", item_count="1")  # a string for an integer: refused, not coerced
        assert "item_count: must be of type integer" in str(refused.value)
        with pytest.raises(errors) as refused:
            await client.echo(name="abc", secret="Hunter2-Secret")
        assert "secret: must match the pattern" in str(refused.value)
        assert "Hunter2" not in str(refused.value)
        with pytest.raises(errors, match="ratio: is not a finite number"):
            await client.echo(name="abc", ratio=math.nan)


async def test_a_constraint_the_server_relaxed_since_generation_is_not_refused(echo_package: Any) -> None:
    relaxed = json.loads(json.dumps(GENERATED))
    relaxed["properties"]["name"]["maxLength"] = 10
    async with _client(echo_package, relaxed) as client:
        with pytest.raises(echo_package.ArgumentsValidationError, match="at most 3 characters"):
            await client.echo(name="abcdef")  # no listing in this session yet: the snapshot decides
        summary = await client.check_drift()  # what connecting does: list the tools
        assert summary is not None and summary.changed == ("echo",)
        assert (await client.echo(name="abcdef")).text == '{"name": "abcdef"}'


def test_json_values_are_kept_as_given() -> None:
    class Point(BaseModel):
        x: int | float
        y: int | float = 0

    assert json_value({"a": (1, 2.0), "p": Point(x=1)}) == {"a": [1, 2.0], "p": {"x": 1}}
    assert type(json_value(1)) is int and type(json_value(1.0)) is float
    for value in ({1, 2}, b"x", float("inf"), {1: "a"}):
        with pytest.raises(InvalidArguments):
            json_value(value)


@pytest.mark.parametrize(
    ("schema", "valid", "invalid"),
    [
        # draft-07 ignores a $ref's siblings; 2020-12 applies them.
        (
            {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "definitions": {"r": {"type": "array"}},
                "properties": {"v": {"$ref": "#/definitions/r", "maxItems": 2}},
            },
            {"v": [1, 2, 3]},
            {"v": "x"},
        ),
        (
            {"$defs": {"r": {"type": "array"}}, "properties": {"v": {"$ref": "#/$defs/r", "maxItems": 2}}},
            {"v": [1, 2]},
            {"v": [1, 2, 3]},
        ),
        # draft-04's boolean exclusiveMaximum.
        (
            {
                "$schema": "http://json-schema.org/draft-04/schema#",
                "properties": {"v": {"maximum": 3, "exclusiveMaximum": True}},
            },
            {"v": 2.5},
            {"v": 3},
        ),
        # unevaluatedProperties sees what an allOf branch evaluated.
        (
            {"properties": {"v": {"allOf": [{"properties": {"foo": {}}}], "unevaluatedProperties": False}}},
            {"v": {"foo": 1}},
            {"v": {"foo": 1, "bar": 2}},
        ),
        # const 0 accepts 0.0 (JSON numbers are equal by value).
        ({"properties": {"v": {"const": 0}}}, {"v": 0.0}, {"v": 1}),
    ],
)
def test_each_schema_is_read_in_its_dialect(schema: dict[str, Any], valid: Any, invalid: Any) -> None:
    check = SchemaCheck({"type": "object", **schema})
    assert check.problems(valid) == []
    assert check.problems(invalid) != []


def test_a_remote_ref_or_an_invalid_schema_gives_no_verdict() -> None:
    assert SchemaCheck({"properties": {"v": {"$ref": "https://example.invalid/s.json"}}}).problems({"v": 1}) == []
    assert SchemaCheck({"type": 12}).problems({"v": 1}) == []


def test_a_parameter_named_like_the_extras_keyword_is_renamed(tmp_path: Path) -> None:
    # The method keeps `extra_arguments` for the extra keys; the property becomes `extra_arguments_`.
    tool = {
        "name": "t",
        "inputSchema": {
            "type": "object",
            "properties": {"extra_arguments": {"type": "string"}},
            "additionalProperties": {"type": "integer"},
        },
    }
    generate_into(tmp_path, snapshot_of([tool]), "extras_client")
    source = (tmp_path / "extras_client" / "client.py").read_text(encoding="utf-8")
    assert "extra_arguments_: str | NotSent = NOT_SENT" in source
    assert "extra_arguments: Mapping[str, object] | None = None" in source
    assert '{"extra_arguments": extra_arguments_}, extra=extra_arguments' in source


@pytest.mark.parametrize(
    ("dialect", "one_point_oh_is_an_integer"),
    [(None, True), ("http://json-schema.org/draft-04/schema#", False)],
)
def test_the_plain_fast_path_agrees_with_the_validator(dialect: str | None, one_point_oh_is_an_integer: bool) -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"n": {"type": "integer", "title": "N"}, "s": {"type": ["string", "null"]}},
        "required": ["n"],
        "additionalProperties": False,
    }
    if dialect is not None:
        schema["$schema"] = dialect
    check = SchemaCheck(schema)
    assert check._plain is not None  # the fast path is taken for this schema
    assert check.problems({"n": 1, "s": None}) == []
    assert (check.problems({"n": 1.0}) == []) is one_point_oh_is_an_integer  # decided by the validator
    for refused in ({"n": True}, {"s": "x"}, {"n": 1, "t": 2}, {"n": "1"}):
        assert check.problems(refused) != []
