"""Deterministic JSON values that satisfy a JSON Schema: what a fake server answers for unhandled tools.

`synthesise(schema)` walks the schema (local `$ref`s into `$defs`/`definitions`, `allOf`, `anyOf`/`oneOf`:
the first branch whose value validates) and builds the smallest plain value that fits: required
properties only, `minItems` items, bounds and `multipleOf` respected, a few common `format`s. The same
schema always gives the same value; `jsonschema` (a dependency of `mcp`) checks branches.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from importlib import import_module
from typing import Any, TypeGuard, cast

__all__ = ["is_valid", "synthesise"]

_JsonObject = dict[str, Any]

#: Deeper than this, a (recursive) schema gets its minimal value without descending further.
_MAX_DEPTH = 24

_FORMATS: dict[str, str] = {
    "date-time": "2000-01-01T00:00:00Z",
    "date": "2000-01-01",
    "time": "00:00:00Z",
    "duration": "PT0S",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "hostname": "example.com",
    "idn-hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "uri": "https://example.com/",
    "uri-reference": "https://example.com/",
    "iri": "https://example.com/",
    "iri-reference": "https://example.com/",
    "url": "https://example.com/",
    "uri-template": "https://example.com/{id}",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "json-pointer": "/a",
    "relative-json-pointer": "0",
    "regex": ".*",
    "byte": "",
    "binary": "",
    "password": "password",
}

_TYPE_ORDER = ("object", "array", "string", "integer", "number", "boolean", "null")


def is_valid(value: Any, schema: Mapping[str, Any], root: Mapping[str, Any]) -> bool:
    """Whether `value` validates against `schema` (whose `$ref`s point into `root`)."""
    jsonschema = import_module("jsonschema")
    document: _JsonObject = dict(schema)
    for key in ("$defs", "definitions"):
        if key in root and key not in document:
            document[key] = root[key]
    try:
        validator_class = jsonschema.validators.validator_for(document)
        return bool(validator_class(document).is_valid(value))
    except Exception:  # an unusable schema: nothing to check against
        return True


def synthesise(schema: Any, root: Any = None) -> Any:
    """A value valid against `schema` (a JSON Schema; `root` holds the `$defs` its `$ref`s name)."""
    base = _mapping(root) or _mapping(schema) or {}
    return _Synth(base).value(schema, 0)


class _Synth:
    __slots__ = ("root",)

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root

    def resolve(self, ref: str) -> Any:
        if not ref.startswith("#"):
            return {}
        node: Any = self.root
        for part in ref[1:].split("/"):
            if not part:
                continue
            part = part.replace("~1", "/").replace("~0", "~")
            mapping = _mapping(node)
            if mapping is None or part not in mapping:
                return {}
            node = mapping[part]
        return node

    def value(self, schema: Any, depth: int) -> Any:
        if schema is True or schema is None:
            return None
        schema = _mapping(schema)
        if schema is None:
            return None
        if depth > _MAX_DEPTH:
            return self.minimal(schema)
        ref = schema.get("$ref")
        if isinstance(ref, str):
            target = self.resolve(ref)
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            target_schema = _mapping(target)
            if target_schema is not None:
                return self.value({**target_schema, **siblings}, depth + 1)
        if "const" in schema:
            return schema["const"]
        enum = _list(schema.get("enum"))
        if enum:
            return enum[0]
        for key in ("anyOf", "oneOf"):
            branches = _list(schema.get(key))
            if branches:
                return self.branch(schema, key, branches, depth)
        all_of = _list(schema.get("allOf"))
        if all_of:
            merged = _merge([schema, *[self.deref(b) for b in all_of]])
            merged.pop("allOf", None)
            return self.value(merged, depth + 1)
        kind = _type_of(schema)
        if kind == "object":
            return self.object(schema, depth)
        if kind == "array":
            return self.array(schema, depth)
        if kind == "string":
            return _string(schema)
        if kind == "integer":
            return _number(schema, integer=True)
        if kind == "number":
            return _number(schema, integer=False)
        if kind == "boolean":
            return False
        return None

    def deref(self, schema: Any) -> Any:
        mapping = _mapping(schema)
        ref = mapping.get("$ref") if mapping is not None else None
        if isinstance(ref, str):
            return self.deref(self.resolve(ref))
        return schema

    def branch(
        self, schema: Mapping[str, Any], key: str, branches: list[Any], depth: int
    ) -> Any:
        rest = {k: v for k, v in schema.items() if k != key}
        first: Any = None
        for index, branch in enumerate(branches):
            target = self.deref(branch)
            candidate_schema = (
                _merge([rest, target]) if _mapping(target) is not None else branch
            )
            candidate = self.value(candidate_schema, depth + 1)
            if index == 0:
                first = candidate
            if is_valid(candidate, schema, self.root):
                return candidate
        return first

    def minimal(self, schema: Mapping[str, Any]) -> Any:
        minimal: dict[str, Any] = {
            "object": {},
            "array": [],
            "string": "",
            "integer": 0,
            "number": 0,
        }
        return minimal.get(_type_of(schema) or "")

    def object(self, schema: Mapping[str, Any], depth: int) -> _JsonObject:
        properties = _mapping(schema.get("properties")) or {}
        names = [n for n in _list(schema.get("required")) or [] if isinstance(n, str)]
        result: _JsonObject = {}
        for name in names:
            sub = properties.get(name)
            if sub is None:
                sub = _mapping(schema.get("additionalProperties")) or {}
            result[name] = self.value(sub, depth + 1)
        minimum = schema.get("minProperties")
        if isinstance(minimum, int) and len(result) < minimum:
            for name, sub in properties.items():
                if len(result) >= minimum:
                    break
                if name not in result:
                    result[name] = self.value(sub, depth + 1)
        return result

    def array(self, schema: Mapping[str, Any], depth: int) -> list[Any]:
        minimum = schema.get("minItems")
        count = minimum if isinstance(minimum, int) and minimum > 0 else 0
        prefix_list = _list(schema.get("prefixItems")) or []
        items: Any = schema.get("items")
        tuple_items = _list(items)
        if tuple_items is not None:  # draft 4-7 tuple form
            prefix_list, items = tuple_items, schema.get("additionalItems")
        values: list[Any] = []
        for index in range(count):
            sub = prefix_list[index] if index < len(prefix_list) else items
            value = self.value(sub if sub is not None else {}, depth + 1)
            if schema.get("uniqueItems") is True and value in values:
                value = _distinct(value, index)
            values.append(value)
        contains = _mapping(schema.get("contains"))
        if contains is not None and not values:
            values.append(self.value(contains, depth + 1))
        return values


def _merge(schemas: list[Any]) -> _JsonObject:
    merged: _JsonObject = {}
    for item in schemas:
        schema = _mapping(item)
        if schema is None:
            continue
        for key, value in schema.items():
            before_map = _mapping(merged.get(key))
            before_list = _list(merged.get(key))
            if key == "properties" and before_map is not None:
                merged[key] = {**before_map, **(_mapping(value) or {})}
            elif key == "required" and before_list is not None:
                added = [n for n in _list(value) or [] if n not in before_list]
                merged[key] = [*before_list, *added]
            else:
                merged[key] = value
    return merged


def _type_of(schema: Mapping[str, Any]) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, str):
        return kind
    kind_list = _list(kind)
    if kind_list is not None:
        kinds = [k for k in kind_list if isinstance(k, str)]
        for preferred in _TYPE_ORDER:
            if preferred in kinds and preferred != "null":
                return preferred
        return "null" if "null" in kinds else None
    if "properties" in schema or "required" in schema:
        return "object"
    if "items" in schema or "prefixItems" in schema:
        return "array"
    if any(k in schema for k in ("minLength", "maxLength", "pattern", "format")):
        return "string"
    if any(k in schema for k in ("minimum", "maximum", "multipleOf")):
        return "number"
    return None


def _string(schema: Mapping[str, Any]) -> str:
    fmt = schema.get("format")
    text = _FORMATS.get(fmt, "") if isinstance(fmt, str) else ""
    if not text:
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            text = _from_pattern(pattern)
    if not text and not (isinstance(fmt, str) and fmt in _FORMATS):
        text = "string"
    minimum = schema.get("minLength")
    if isinstance(minimum, int) and len(text) < minimum:
        text = text + "x" * (minimum - len(text))
    maximum = schema.get("maxLength")
    if isinstance(maximum, int) and len(text) > maximum:
        text = text[: max(maximum, 0)]
    return text


def _from_pattern(pattern: str) -> str:
    import re

    for candidate in ("string", "a", "A", "0", "a0", "abc", "example", "x-1", ""):
        try:
            if re.search(pattern, candidate):
                return candidate
        except re.error:
            return ""
    return ""


def _number(schema: Mapping[str, Any], *, integer: bool) -> int | float:
    low: float | None = None
    high: float | None = None
    minimum = schema.get("minimum")
    if _is_number(minimum):
        low = float(minimum)
    exclusive_min = schema.get("exclusiveMinimum")
    if _is_number(exclusive_min):
        step = 1.0 if integer else 1e-6
        low = (
            max(low, float(exclusive_min) + step)
            if low is not None
            else float(exclusive_min) + step
        )
    elif exclusive_min is True and low is not None:  # draft 4 boolean form
        low += 1.0 if integer else 1e-6
    maximum = schema.get("maximum")
    if _is_number(maximum):
        high = float(maximum)
    exclusive_max = schema.get("exclusiveMaximum")
    if _is_number(exclusive_max):
        step = 1.0 if integer else 1e-6
        high = (
            min(high, float(exclusive_max) - step)
            if high is not None
            else float(exclusive_max) - step
        )
    elif exclusive_max is True and high is not None:
        high -= 1.0 if integer else 1e-6
    value = 0.0
    if low is not None and value < low:
        value = low
    if high is not None and value > high:
        value = high
    multiple = schema.get("multipleOf")
    if _is_number(multiple) and float(multiple) > 0:
        step = float(multiple)
        value = math.ceil(value / step) * step
        if high is not None and value > high:
            value = math.floor(high / step) * step
    if integer:
        rounded = (
            math.ceil(value) if low is not None and value > 0 else math.floor(value)
        )
        if low is not None and rounded < low:
            rounded = math.ceil(low)
        return int(rounded)
    return int(value) if value == int(value) else value


def _mapping(value: object) -> Mapping[str, Any] | None:
    return cast("Mapping[str, Any]", value) if isinstance(value, Mapping) else None


def _list(value: object) -> list[Any] | None:
    return list(cast("list[object]", value)) if isinstance(value, list) else None


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _distinct(value: Any, index: int) -> Any:
    if isinstance(value, str):
        return f"{value}{index}"
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + index
    return value
