"""Tool input schemas made of keyword combinations typed clients get wrong (issue 31), one tool each.

Each entry is a whole `inputSchema` (2020-12 unless it names draft-07). The property tests send hypothesis-drawn
arguments to every tool and check them against `jsonschema` in the schema's own dialect.
"""

from __future__ import annotations

from typing import Any

DRAFT7 = "http://json-schema.org/draft-07/schema#"


def _v(schema: Any, **root: Any) -> dict[str, Any]:
    """A tool taking one required argument `v` of `schema`."""
    return {"type": "object", "properties": {"v": schema}, "required": ["v"], **root}


HARD_SCHEMAS: dict[str, dict[str, Any]] = {
    # Object and array keywords without `type`: they constrain objects (arrays) only, any other value is valid.
    "object_keywords_untyped": _v({"properties": {"foo": {"type": "integer"}}, "required": ["foo"]}),
    "array_keywords_untyped": _v({"items": {"type": "integer"}, "maxItems": 2}),
    # number vs integer: 1 stays 1, 1.0 stays 1.0; 1.0 is an integer.
    "number_and_integer": {
        "type": "object",
        "properties": {"n": {"type": "number"}, "i": {"type": "integer"}, "m": {"type": "number", "multipleOf": 0.5}},
        "required": ["n"],
    },
    "number_or_anything": _v({"anyOf": [{"type": "number"}, {}]}),
    # const / enum with 0 vs 0.0 (equal in JSON Schema) and false (not equal).
    "const_zero": {"type": "object", "properties": {"n": {"const": 0}}, "required": ["n"]},
    "enum_mixed": _v({"enum": [0, 1.5, "a", None, [0], {"k": 0}]}),
    "const_object": _v({"const": {"a": [1, 2.0], "b": False}}),
    # patternProperties with additionalProperties.
    "pattern_and_additional": _v(
        {"properties": {"foo": {}}, "patternProperties": {"^v": {"type": "integer"}}, "additionalProperties": False}
    ),
    "pattern_only_root": {"type": "object", "patternProperties": {"^x_": {"type": "string"}}},
    # Nested unevaluatedProperties / unevaluatedItems, prefixItems.
    "unevaluated_properties_nested": _v(
        {"allOf": [{"properties": {"foo": {}}, "unevaluatedProperties": True}], "unevaluatedProperties": False}
    ),
    "unevaluated_properties_ref": _v(
        {"$ref": "#/$defs/base", "properties": {"own": {"type": "string"}}, "unevaluatedProperties": False},
        **{"$defs": {"base": {"properties": {"inherited": {"type": "integer"}}}}},
    ),
    "unevaluated_items_allof": _v({"allOf": [{"prefixItems": [{"type": "string"}]}], "unevaluatedItems": False}),
    "prefix_items_open": _v({"prefixItems": [{"type": "string"}, {"type": "number"}], "items": True}),
    "prefix_items_closed": _v({"type": "array", "prefixItems": [{"type": "integer"}], "items": False}),
    # draft-07: array `items`, additionalItems, `$ref` with ignored siblings.
    "draft7_tuple_items": {
        "$schema": DRAFT7,
        "type": "object",
        "properties": {
            "v": {"type": "array", "items": [{"type": "integer"}, {"type": "string"}], "additionalItems": False}
        },
        "required": ["v"],
    },
    "draft7_ref_siblings": {
        "$schema": DRAFT7,
        "type": "object",
        "definitions": {"r": {"type": "array"}},
        "properties": {"foo": {"$ref": "#/definitions/r", "maxItems": 2}},
    },
    # dependentSchemas / dependentRequired, propertyNames, min/maxProperties at the root.
    "dependent_schemas": _v(
        {"type": "object", "properties": {"a": {}, "b": {}}, "dependentSchemas": {"a": {"required": ["b"]}}}
    ),
    "dependent_required_root": {
        "type": "object",
        "properties": {"card": {"type": "string"}, "address": {"type": "string"}},
        "dependentRequired": {"card": ["address"]},
    },
    "property_names_root": {"type": "object", "propertyNames": {"maxLength": 3}},
    "min_max_properties_root": {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "minProperties": 1,
        "maxProperties": 2,
    },
    # allOf / anyOf / oneOf / not, if/then/else.
    "all_any_one_not": _v(
        {
            "allOf": [{"type": ["integer", "string"]}],
            "anyOf": [{"type": "integer", "minimum": 2}, {"type": "string", "minLength": 2}],
            "oneOf": [{"type": "integer", "multipleOf": 2}, {"type": "string"}, {"type": "integer", "multipleOf": 3}],
            "not": {"const": 12},
        }
    ),
    "if_then_else": _v(
        {
            "type": "object",
            "if": {"properties": {"kind": {"const": "n"}}, "required": ["kind"]},
            "then": {"properties": {"value": {"type": "number"}}, "required": ["value"]},
            "else": {"properties": {"value": {"type": "string"}}},
        }
    ),
    # Nullable types, recursive refs.
    "nullable": {
        "type": "object",
        "properties": {
            "a": {"type": ["integer", "null"]},
            "b": {"anyOf": [{"type": "string", "maxLength": 2}, {"type": "null"}]},
            "c": {"type": "array", "items": {"type": ["number", "null"]}},
        },
        "required": ["a"],
    },
    "recursive_tree": _v(
        {"$ref": "#/$defs/node"},
        **{
            "$defs": {
                "node": {
                    "type": "object",
                    "properties": {
                        "value": {"type": "integer"},
                        "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                    },
                    "required": ["value"],
                    "additionalProperties": False,
                }
            }
        },
    ),
    # additionalProperties: extra keys allowed, typed, or refused.
    "additional_typed": {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "required": ["a"],
        "additionalProperties": {"type": "string"},
    },
    "additional_only_root": {"type": "object", "additionalProperties": {"type": "boolean"}},
    "additional_open": {"type": "object", "properties": {"a": {"type": "string"}}},
    "additional_closed": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False},
    # Strings: pattern (not anchored), format not asserted, lengths in code points.
    "strings": {
        "type": "object",
        "properties": {
            "p": {"type": "string", "pattern": "b+"},
            "uri": {"type": "string", "format": "uri"},
            "when": {"type": "string", "format": "date-time"},
            "short": {"type": "string", "maxLength": 2},
        },
    },
    # Number and string keywords without `type`: they constrain numbers (strings) only.
    "scalar_keywords_untyped": _v({"minimum": 1.5, "maxLength": 2, "pattern": "^a"}),
    # `required` names a key `properties` does not list.
    "required_not_listed": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a", "b-c"]},
    "unique_items": _v({"type": "array", "uniqueItems": True}),
    "contains_min_max": _v({"type": "array", "contains": {"type": "integer"}, "minContains": 2, "maxContains": 3}),
    "python_names": {
        "type": "object",
        "properties": {"for": {"type": "integer"}, "api-version": {"type": "string"}, "$x": {"type": "boolean"}},
        "required": ["for"],
    },
}
