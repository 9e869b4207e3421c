"""Valid values validate in the generated models and dump back to the same JSON."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import generate_into, snapshot_of

PERSON = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "friends": {"type": "array", "items": {"$ref": "#"}},
        "home": {"$ref": "#/$defs/Address"},
        "work": {"$ref": "#/properties/home"},
    },
    "required": ["name"],
    "$defs": {
        "Address": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "zip": {"type": ["string", "null"]}},
            "required": ["city"],
        }
    },
}
SHAPES = {
    "type": "object",
    "properties": {
        "shape": {
            "oneOf": [
                {
                    "type": "object",
                    "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}},
                    "required": ["kind", "r"],
                },
                {
                    "type": "object",
                    "properties": {"kind": {"const": "square"}, "side": {"type": "integer"}},
                    "required": ["kind", "side"],
                },
            ]
        },
        "color": {"enum": ["red", "green"]},
        "labels": {"type": "object", "additionalProperties": {"type": "integer"}},
        "when": {"type": "string", "format": "date-time"},
        "site": {"type": "string", "format": "uri"},
        "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        "merged": {
            "allOf": [
                {"type": "object", "properties": {"a": {"type": "integer"}}},
                {"type": "object", "properties": {"b": {"type": "string"}}},
            ]
        },
        "maybe": {"type": ["integer", "null"]},
        "bad_pattern": {"type": "string", "pattern": "(?<!unclosed"},
    },
}
#: Combinations the model generator merges: an `allOf` of inline objects keeps the keys they leave open, and
#: members that take any value (keywords of objects without `type`) make no class that drops keys.
MERGED = {
    "type": "object",
    "properties": {
        "inline": {
            "allOf": [
                {"type": "object", "properties": {"b": {"type": "integer"}}},
                {"type": "object", "properties": {"c": {"type": "integer"}}},
            ]
        },
        "untyped": {
            "allOf": [{"$ref": "#/$defs/Loose"}, {"properties": {"b": True}}, {"oneOf": [{"required": ["x"]}, {}]}],
            "unevaluatedProperties": False,
        },
    },
    "$defs": {"Loose": {"properties": {"a": True}}},
}
CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    (
        "person",
        PERSON,
        {"name": "a", "friends": [{"name": "b", "extra": 1}], "home": {"city": "x", "zip": None}, "unknown": [1]},
    ),
    ("person", PERSON, {"name": "a", "work": {"city": "y"}}),
    ("shapes", SHAPES, {"shape": {"kind": "circle", "r": 1.5}, "color": "red", "labels": {"x": 1}}),
    (
        "shapes",
        SHAPES,
        {"shape": {"kind": "square", "side": 2}, "when": "2024-01-01T00:00:00+00:00", "site": "http://x"},
    ),
    ("shapes", SHAPES, {"either": "s", "merged": {"a": 1, "b": "c"}, "maybe": None, "bad_pattern": "(("}),
    ("merged", MERGED, {"inline": {"b": 1, "c": 2, "d": 3}, "untyped": {"a": 1, "x": 1}}),
    ("merged", MERGED, {"untyped": 5}),
]


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root: Path = tmp_path_factory.mktemp("fidelity")
    tools = [
        {"name": "person", "inputSchema": PERSON, "outputSchema": PERSON},
        {"name": "shapes", "inputSchema": SHAPES, "outputSchema": SHAPES},
        {"name": "merged", "inputSchema": MERGED, "outputSchema": MERGED},
    ]
    diagnostics = generate_into(root, snapshot_of(tools), "fidelity_pkg")
    assert any("pattern" in d.location for d in diagnostics), "the invalid pattern is reported"
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module("fidelity_pkg")
    finally:
        sys.path.remove(str(root))


@pytest.mark.parametrize(("tool", "schema", "value"), CASES)
def test_round_trip(package: Any, tool: str, schema: dict[str, Any], value: dict[str, Any]) -> None:
    spec = package.TOOLS[tool]
    for model in (spec.arguments_model, spec.result_model):
        dumped = model.model_validate(value).model_dump(mode="json", by_alias=True, exclude_unset=True)
        assert dumped == value


def test_schemas_are_exactly_as_listed(package: Any) -> None:
    assert package.TOOLS["person"].input_schema == PERSON
    assert package.TOOLS["shapes"].output_schema == SHAPES
