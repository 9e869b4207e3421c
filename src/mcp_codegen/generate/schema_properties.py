"""What a tool's raw schemas declare, read for the IR: every property's location, descriptions and defaults."""

from __future__ import annotations

from typing import Any

#: Schema keywords followed to find declared properties (see `snapshot.model.canonical_schema`).
_ONE_SCHEMA_KEYS = ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else")
_SCHEMA_LIST_KEYS = ("anyOf", "oneOf", "allOf", "prefixItems", "items")
_SCHEMA_MAP_KEYS = ("patternProperties", "$defs", "definitions", "dependentSchemas")


def declared_properties(schema: Any, location: str, skip_top: bool) -> list[tuple[str, str]]:
    """(location, property name) of every `properties` entry in `schema`, the top level's unless `skip_top`."""
    found: list[tuple[str, str]] = []
    stack: list[tuple[Any, str, bool]] = [(schema, location, skip_top)]
    while stack:
        node, here, skip = stack.pop()
        if not isinstance(node, dict):
            continue
        properties = node.get("properties")
        if isinstance(properties, dict):
            for name, sub in properties.items():
                if not skip:
                    found.append((f"{here}.properties.{name}", name))
                stack.append((sub, f"{here}.properties.{name}", False))
        for key in _ONE_SCHEMA_KEYS:
            if isinstance(node.get(key), dict):
                stack.append((node[key], f"{here}.{key}", False))
        for key in _SCHEMA_LIST_KEYS:
            if isinstance(node.get(key), list):
                stack.extend((sub, f"{here}.{key}[{i}]", False) for i, sub in enumerate(node[key]))
        for key in _SCHEMA_MAP_KEYS:
            if isinstance(node.get(key), dict):
                stack.extend((sub, f"{here}.{key}.{name}", False) for name, sub in node[key].items())
    return sorted(found)


def property_descriptions(schema: Any) -> dict[str, str]:
    """Wire property name -> its `description`, for the top level's properties that have one."""
    if not isinstance(schema, dict) or not isinstance(properties := schema.get("properties"), dict):
        return {}
    return {
        name: prop["description"]
        for name, prop in properties.items()
        if isinstance(prop, dict) and isinstance(prop.get("description"), str)
    }


def property_defaults(schema: Any) -> dict[str, str]:
    """Wire property name -> its schema `default` as a Python literal (JSON data, so `repr` is exact)."""
    if not isinstance(schema, dict) or not isinstance(properties := schema.get("properties"), dict):
        return {}
    return {
        name: repr(prop["default"]) for name, prop in properties.items() if isinstance(prop, dict) and "default" in prop
    }
