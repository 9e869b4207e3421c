"""Hypothesis strategies of JSON values guided by a JSON Schema: likely-valid candidates and near misses of them.

The strategies need not be exact (jsonschema judges every drawn value); they only make valid values likely and
invalid ones close to valid. Written here because hypothesis-jsonschema 0.23.1 (its latest release) cannot draw
objects with hypothesis >= 6.15x (`'many' object has no attribute 'more'`, a private API it used).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**40), max_value=2**40)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.text(max_size=4)
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)
ANY_JSON = JSON_SCALARS | JSON_VALUES  # scalars more often than JSON_VALUES alone draws them
_OBJECT_WORDS = {"properties", "required", "additionalProperties", "patternProperties", "propertyNames",
                 "minProperties", "maxProperties", "dependentSchemas", "dependentRequired", "dependencies",
                 "unevaluatedProperties"}  # fmt: skip
_ARRAY_WORDS = {"items", "prefixItems", "additionalItems", "contains", "minItems", "maxItems", "uniqueItems",
                "unevaluatedItems"}  # fmt: skip
_NUMBER_WORDS = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
_STRING_WORDS = {"minLength", "maxLength", "pattern", "format"}
_TYPE_WORDS = {"object": _OBJECT_WORDS, "array": _ARRAY_WORDS, "number": _NUMBER_WORDS, "string": _STRING_WORDS}
_MAX_DEPTH = 4


def values_for(schema: Any, root: Mapping[str, Any] | None = None, depth: int = 0) -> st.SearchStrategy[Any]:
    """Values `schema` (a subschema of `root`) likely accepts."""
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return ANY_JSON if depth <= _MAX_DEPTH else JSON_SCALARS
    root = schema if root is None else root
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#"):
        target = _pointer(root, ref)
        if target is not None:
            siblings = {key: value for key, value in schema.items() if key != "$ref"}
            merged = {**target, **siblings} if isinstance(target, dict) else target
            return values_for(merged, root, depth + 1)
    if "const" in schema:
        return st.sampled_from([schema["const"], _twin(schema["const"])])
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return st.sampled_from([*schema["enum"], *map(_twin, schema["enum"])])
    rest = {key: value for key, value in schema.items() if key not in ("anyOf", "oneOf", "allOf")}
    for word in ("anyOf", "oneOf"):
        options = schema.get(word)
        if isinstance(options, list) and options:
            return st.one_of([values_for(_merge(rest, option), root, depth + 1) for option in options])
    if isinstance(schema.get("allOf"), list):
        merged_all = dict(rest)
        for part in schema["allOf"]:
            merged_all = _merge(merged_all, part)
        return values_for(merged_all, root, depth + 1)
    types = schema.get("type")
    if isinstance(types, list):
        return st.one_of([values_for({**schema, "type": one}, root, depth) for one in types] or [ANY_JSON])
    if types is None:  # keywords of each type constrain values of that type only: draw those and others
        words = set(schema)
        implied = [kind for kind, kind_words in _TYPE_WORDS.items() if words & kind_words]
        return st.one_of([_typed(schema, kind, root, depth) for kind in implied] + [ANY_JSON])
    return _typed(schema, types, root, depth)


def _twin(value: Any) -> Any:
    """`value` with every number in the other form (0 <-> 0.0): equal to it in JSON Schema."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, list):
        return [_twin(item) for item in value]
    if isinstance(value, dict):
        return {key: _twin(item) for key, item in value.items()}
    return value


def _merge(base: Mapping[str, Any], extra: Any) -> Any:
    if not isinstance(extra, dict):
        return base
    merged = {**base, **extra}
    if isinstance(base.get("properties"), dict) and isinstance(extra.get("properties"), dict):
        merged["properties"] = {**base["properties"], **extra["properties"]}
    if isinstance(base.get("required"), list) and isinstance(extra.get("required"), list):
        merged["required"] = [*base["required"], *extra["required"]]
    return merged


def _pointer(root: Mapping[str, Any], ref: str) -> Any:
    """What the local `$ref` points at in `root` (referencing, jsonschema's resolver), or None."""
    resource = Resource.from_contents(dict(root), default_specification=DRAFT202012)
    resolver = Registry().with_resource("urn:fidelity-root", resource).resolver(base_uri="urn:fidelity-root")
    try:
        return resolver.lookup(ref).contents
    except (Unresolvable, ValueError):
        return None


def _typed(schema: Mapping[str, Any], kind: str, root: Mapping[str, Any], depth: int) -> st.SearchStrategy[Any]:
    if kind in ("integer", "number"):
        low, high = _bounds(schema)
        first = None if low is None else math.ceil(low)
        last = None if high is None else math.floor(high)
        if first is not None and last is not None and first > last:
            return JSON_SCALARS
        whole = st.integers(min_value=first, max_value=last)
        step = schema.get("multipleOf")
        if isinstance(step, int | float) and not isinstance(step, bool) and step > 0:
            whole = whole.map(lambda n: n * step)
        if kind == "integer":
            return whole | whole.map(float)
        return whole | st.floats(min_value=low, max_value=high, allow_nan=False, allow_infinity=False)
    if kind == "string":
        pattern = schema.get("pattern")
        low, high = schema.get("minLength", 0), schema.get("maxLength", max(4, schema.get("minLength", 0) + 2))
        if isinstance(pattern, str):
            try:
                re.compile(pattern)
            except re.error:
                return st.text(max_size=4)
            return st.from_regex(pattern).filter(lambda text: low <= len(text) <= high) | st.text(max_size=4)
        return st.text(min_size=low, max_size=high)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        return _array(schema, root, depth)
    if kind == "object":
        return _object(schema, root, depth)
    return JSON_VALUES


def _bounds(schema: Mapping[str, Any]) -> tuple[float | None, float | None]:
    def number(key: str) -> float | None:
        value = schema.get(key)
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None

    low = number("minimum") if number("exclusiveMinimum") is None else number("exclusiveMinimum")
    high = number("maximum") if number("exclusiveMaximum") is None else number("exclusiveMaximum")
    return low, high


def _array(schema: Mapping[str, Any], root: Mapping[str, Any], depth: int) -> st.SearchStrategy[Any]:
    prefix = schema.get("prefixItems")
    items = schema.get("items", True)
    if isinstance(items, list):  # draft-07 tuple form
        prefix, items = items, schema.get("additionalItems", True)
    head = [values_for(sub, root, depth + 1) for sub in prefix] if isinstance(prefix, list) else []
    tail_schema = items if items is not False else {}
    low, high = schema.get("minItems", 0), schema.get("maxItems", 3)
    tail = st.lists(
        values_for(tail_schema, root, depth + 1), min_size=max(0, low - len(head)), max_size=max(0, high - len(head))
    )
    if "contains" in schema:
        tail = tail | st.lists(values_for(schema["contains"], root, depth + 1), min_size=1, max_size=3)
    values = st.tuples(*head).flatmap(lambda first: tail.map(lambda rest: [*first, *rest]))
    if schema.get("uniqueItems") is True:
        values = values.map(lambda items_: list({json.dumps(item, sort_keys=True): item for item in items_}.values()))
    return values


def _object(schema: Mapping[str, Any], root: Mapping[str, Any], depth: int) -> st.SearchStrategy[Any]:
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = [name for name in schema.get("required", []) if isinstance(name, str)]
    fixed = {name: values_for(properties.get(name, {}), root, depth + 1) for name in required}
    optional = {name: values_for(sub, root, depth + 1) for name, sub in properties.items() if name not in fixed}
    values = st.fixed_dictionaries(fixed, optional=optional)
    extra = schema.get("additionalProperties", True)
    patterns = schema.get("patternProperties") if isinstance(schema.get("patternProperties"), dict) else {}
    more: list[st.SearchStrategy[dict[str, Any]]] = []
    for pattern, sub in patterns.items():
        try:
            keys = st.from_regex(pattern).filter(lambda key: len(key) < 8)
        except re.error:
            continue
        more.append(st.dictionaries(keys, values_for(sub, root, depth + 1), max_size=2))
    if extra is not False:
        more.append(
            st.dictionaries(
                st.text(max_size=3), values_for(extra if isinstance(extra, dict) else {}, root, depth + 1), max_size=2
            )
        )
    if more:
        values = st.tuples(values, st.just({}) | st.one_of(more)).map(lambda pair: {**pair[1], **pair[0]})
    return values


def near_misses(arguments: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """`arguments` with one value somewhere replaced by a close one, or one top-level key added or dropped."""
    changed: list[st.SearchStrategy[dict[str, Any]]] = [
        ANY_JSON.map(lambda extra: {**arguments, "extra_key": extra}),
    ]
    if arguments:
        changed.append(
            st.sampled_from(list(arguments)).map(lambda key: {k: v for k, v in arguments.items() if k != key})
        )
    inner = [path for path in _paths(arguments) if path]
    if inner:
        changed.append(
            st.sampled_from(inner).flatmap(
                lambda path: _near(_value_at(arguments, path)).map(lambda new: _replaced(arguments, path, new))
            )
        )
    return st.one_of(changed)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*path, index))
    return found


def _value_at(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replaced(value[head], rest, new)}
    return [*value[:head], _replaced(value[head], rest, new), *value[head + 1 :]]


def _near(value: Any) -> st.SearchStrategy[Any]:
    """Values close to `value`: the other number form, off by one, another type, one item or key more or less."""
    options: list[Any] = [None, "x", [value], {"k": value}]
    if isinstance(value, bool):
        options += [int(value), not value]
    elif isinstance(value, int):
        options += [float(value), value + 1, value - 1, str(value)]
    elif isinstance(value, float):
        options += [int(value), value + 0.5, -value]
    elif isinstance(value, str):
        options += [value + "x", value[:-1], "", 0]
    elif isinstance(value, list):
        options += [[*value, value[-1] if value else 0], value[:-1], [*value, "x"], {}]
    elif isinstance(value, dict):
        options += [{**value, "zz": 1}, dict(list(value.items())[:-1]), []]
    return st.sampled_from(options)
