"""`typing.get_type_hints()` on every generated method and model, as `validate_call`, FastAPI, typer and agent
frameworks read them, while a plain import of the package still loads no tool's models."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import anyio
import pydantic
import pytest
from helpers import generate_into, imported_package, snapshot_of

from mcp_codegen.demo.server import build_server
from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.snapshot.fetch import snapshot_server

CLIENT_CLASSES = ("AsyncClient", "Client", "AsyncPrompts", "Prompts", "AsyncResources", "Resources")
NOTE = {
    "type": "object",
    "properties": {"id": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}},
}


def _synthetic_tool(index: int) -> dict[str, Any]:
    """One of several schema shapes, by `index`: enums, nested objects and arrays, refs and recursion,
    unions of objects, typed maps, awkward property names, wrapped and object results."""
    shape = index % 8
    properties: dict[str, Any] = {"query": {"type": "string"}}
    output: dict[str, Any] | None = {"type": "object", "properties": {"items": {"type": "array", "items": NOTE}}}
    defs: dict[str, Any] = {}
    if shape == 0:
        properties["mode"] = {"enum": ["fast", "slow"], "default": "fast"}
    elif shape == 1:
        properties["filter"] = {"type": "object", "properties": {"notes": {"type": "array", "items": NOTE}}}
    elif shape == 2:
        properties["tree"] = {"$ref": "#/$defs/Node"}
        defs["Node"] = {
            "type": "object",
            "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
        }
    elif shape == 3:
        properties["op"] = {
            "oneOf": [
                {
                    "type": "object",
                    "properties": {"kind": {"const": "add"}, "x": {"type": "integer"}},
                    "required": ["kind"],
                },
                {
                    "type": "object",
                    "properties": {"kind": {"const": "drop"}, "id": {"type": "string"}},
                    "required": ["kind"],
                },
            ]
        }
    elif shape == 4:
        properties["labels"] = {"type": "object", "additionalProperties": NOTE}
    elif shape == 5:
        properties["class"] = {"type": "string"}
        properties["max-items"] = {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}], "default": None}
    elif shape == 6:
        output = {
            "type": "object",
            "properties": {"result": {"type": "integer"}},
            "required": ["result"],
            "x-fastmcp-wrap-result": True,
        }
    else:
        output = None
    schema: dict[str, Any] = {"type": "object", "properties": properties, "required": ["query"]}
    if defs:
        schema["$defs"] = defs
    tool: dict[str, Any] = {
        "name": f"tool_{index:03d}",
        "description": f"Synthetic tool {index}.",
        "inputSchema": schema,
    }
    if output is not None:
        tool["outputSchema"] = output
    return tool


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("hints")

    async def take() -> Any:
        return await snapshot_server(build_server(), diagnostics=Diagnostics())

    synthetic = snapshot_of([_synthetic_tool(index) for index in range(48)])
    for snapshot, name in ((anyio.run(take), "demo_hints"), (synthetic, "synthetic_hints")):
        diagnostics = generate_into(directory, snapshot, name)
        assert not diagnostics.errors, diagnostics.items
    return {"demo": directory / "demo_hints", "synthetic": directory / "synthetic_hints"}


def _own_functions(cls: type) -> list[tuple[str, Any]]:
    """The functions a generated class defines itself (properties' getters included), not its runtime base's."""
    functions = []
    for name, member in vars(cls).items():
        function = member.fget if isinstance(member, property) else member
        if inspect.isfunction(function):
            functions.append((name, function))
    return functions


@pytest.mark.parametrize("which", ["demo", "synthetic"])
def test_every_generated_method_has_resolvable_hints(packages: dict[str, Path], which: str) -> None:
    with imported_package(packages[which]) as package:
        client = importlib.import_module(f"{package.__name__}.client")
        checked = 0
        for class_name in CLIENT_CLASSES:
            for name, function in _own_functions(getattr(client, class_name)):
                hints = typing.get_type_hints(function, include_extras=True)
                assert "return" in hints, f"{class_name}.{name}"
                checked += 1
        tools = len(package.TOOLS)
        assert checked >= 2 * tools + 4  # each tool twice, the namespaces' properties
        if which == "demo":
            hints = typing.get_type_hints(package.AsyncClient.draft_note)
            assert hints["author"] is package.DraftNoteAuthor and hints["return"] is package.DraftNoteResult
            assert hints["priority"] == typing.Literal["low", "normal", "high"] | package.NotSent


@pytest.mark.parametrize("which", ["demo", "synthetic"])
def test_every_model_has_resolvable_hints(packages: dict[str, Path], which: str) -> None:
    with imported_package(packages[which]) as package:
        models = importlib.import_module(f"{package.__name__}.models")
        names = dir(models)
        assert len(names) >= len(package.TOOLS)
        for name in names:
            model = getattr(models, name)
            assert issubclass(model, pydantic.BaseModel)
            hints = typing.get_type_hints(model, include_extras=True)
            assert set(model.model_fields) <= set(hints), name


@pytest.mark.parametrize("which", ["demo", "synthetic"])
def test_a_plain_import_loads_no_tool_models(packages: dict[str, Path], which: str) -> None:
    name = packages[which].name
    code = f"import sys, {name}; print(sorted(m for m in sys.modules if m.startswith('{name}.models.')))"
    completed = subprocess.run(
        [sys.executable, "-c", code], cwd=packages[which].parent, capture_output=True, text=True, check=True
    )
    assert completed.stdout.strip() == "[]"


def _validated(method: Any) -> Any:
    return pydantic.validate_call(method, validate_return=True)


@pytest.mark.anyio
async def test_validate_call_reads_a_generated_method(packages: dict[str, Path]) -> None:
    with imported_package(packages["demo"]) as package:
        async with package.AsyncClient.in_process(build_server()) as client:
            add = _validated(client.add)
            assert await add(a="2", b=3) == 5  # coerced by the hints, as a framework would
            with pytest.raises(pydantic.ValidationError):
                await add(a="two", b=3)
            draft = await _validated(client.draft_note)(title="Trip", body="Pack.", author={"name": "Ada"})
            assert isinstance(draft, package.DraftNoteResult) and draft.author.name == "Ada"
        with package.Client.in_process(build_server()) as blocking:
            assert _validated(blocking.add)(a=1, b="1") == 2
