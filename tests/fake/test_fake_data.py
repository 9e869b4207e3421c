"""Values synthesised from JSON Schemas: valid (checked with jsonschema) and the same every time."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from mcp_codegen_runtime.serving.data import synthesise

SCHEMAS: dict[str, dict[str, Any]] = {
    "required only": {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
        "required": ["b"],
        "additionalProperties": False,
    },
    "enum and const": {
        "type": "object",
        "properties": {"e": {"enum": ["x", "y"]}, "c": {"const": 7}},
        "required": ["e", "c"],
    },
    "bounds": {
        "type": "object",
        "properties": {
            "low": {"type": "integer", "minimum": 5},
            "high": {"type": "number", "maximum": -3.5},
            "exclusive": {"type": "integer", "exclusiveMinimum": 10, "exclusiveMaximum": 12},
            "multiple": {"type": "integer", "minimum": 7, "multipleOf": 5},
            "draft4": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
        },
        "required": ["low", "high", "exclusive", "multiple"],
    },
    "strings": {
        "type": "object",
        "properties": {
            "long": {"type": "string", "minLength": 12},
            "short": {"type": "string", "maxLength": 2},
            "when": {"type": "string", "format": "date-time"},
            "day": {"type": "string", "format": "date"},
            "mail": {"type": "string", "format": "email"},
            "id": {"type": "string", "format": "uuid"},
            "link": {"type": "string", "format": "uri"},
            "digits": {"type": "string", "pattern": "^[0-9]+$"},
        },
        "required": ["long", "short", "when", "day", "mail", "id", "link", "digits"],
    },
    "arrays": {
        "type": "object",
        "properties": {
            "three": {"type": "array", "items": {"type": "integer"}, "minItems": 3, "uniqueItems": True},
            "tuple": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "boolean"}], "minItems": 2},
            "contains": {"type": "array", "contains": {"const": "x"}},
        },
        "required": ["three", "tuple", "contains"],
    },
    "refs and recursion": {
        "type": "object",
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                },
                "required": ["name", "children"],
            }
        },
        "properties": {"root": {"$ref": "#/$defs/Node"}},
        "required": ["root"],
    },
    "definitions (draft 7)": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "definitions": {"Kind": {"type": "string", "enum": ["a", "b"]}},
        "properties": {"kind": {"$ref": "#/definitions/Kind"}},
        "required": ["kind"],
    },
    "anyOf first branch that works": {
        "type": "object",
        "properties": {"v": {"anyOf": [{"type": "string", "minLength": 5, "maxLength": 2}, {"type": "integer"}]}},
        "required": ["v"],
    },
    "oneOf": {
        "type": "object",
        "properties": {
            "v": {
                "oneOf": [{"type": "object", "properties": {"k": {"const": "a"}}, "required": ["k"]}, {"type": "null"}]
            }
        },
        "required": ["v"],
    },
    "allOf": {
        "type": "object",
        "properties": {
            "v": {
                "allOf": [
                    {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                    {"properties": {"b": {"type": "integer", "minimum": 2}}, "required": ["b"]},
                ]
            }
        },
        "required": ["v"],
    },
    "nullable type list": {
        "type": "object",
        "properties": {"n": {"type": ["null", "integer"], "minimum": 4}},
        "required": ["n"],
    },
    "wrapped primitive": {
        "type": "object",
        "properties": {"result": {"type": "array", "items": {"type": "string"}}},
        "required": ["result"],
        "x-fastmcp-wrap-result": True,
    },
    "no type at all": {"properties": {"x": {}}, "required": ["x"]},
    "min properties": {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "minProperties": 1,
    },
    "additional properties schema": {
        "type": "object",
        "required": ["extra"],
        "additionalProperties": {"type": "integer", "minimum": 1},
    },
}


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_synthesised_value_is_valid_and_deterministic(name: str) -> None:
    schema = SCHEMAS[name]
    value = synthesise(schema)
    jsonschema.validators.validator_for(schema)(schema).validate(value)
    assert synthesise(schema) == value


def test_choices_are_the_first_allowed() -> None:
    assert synthesise(SCHEMAS["enum and const"]) == {"e": "x", "c": 7}
    assert synthesise(SCHEMAS["anyOf first branch that works"]) == {"v": 0}
    assert synthesise(SCHEMAS["refs and recursion"]) == {"root": {"name": "string", "children": []}}
    assert synthesise({"type": "boolean"}) is False
    assert synthesise(True) is None
