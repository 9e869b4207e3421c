"""OpenAI's strict JSON Schema dialect: an input schema's strict form, and undoing it on a model's arguments.

Strict mode wants every property required (optional ones nullable) and `additionalProperties:
false`; a schema with no such form (free-form objects, `allOf`, `not`, ...) raises
`NotStrictError` saying why. `drop_optional_nulls` maps a strict answer back: a null for an
optional property whose schema does not admit null means "not sent" (read from the schema alone, so
it holds whichever definition the model was given).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, Literal, cast

__all__ = ["NotStrictError", "Strict", "drop_optional_nulls", "strict_json_schema"]

#: A converter's `strict` argument: always, never, or when the schema has a strict form.
Strict = bool | Literal["auto"]
_JsonObject = dict[str, Any]


class NotStrictError(ValueError):
    """The schema has no OpenAI strict form; the message says why."""


_UNSUPPORTED = ("not", "if", "then", "else", "patternProperties", "dependentSchemas")
_STRICT_FORMATS = frozenset(
    {
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "uuid",
    }
)
_KEPT = (
    "description",
    "enum",
    "const",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
)


def strict_json_schema(schema: Mapping[str, Any]) -> _JsonObject:
    """The OpenAI strict-mode form of an object schema (raises NotStrictError saying why not)."""
    if schema.get("type", "object") != "object" or "anyOf" in schema:
        raise NotStrictError("the input schema is not a plain object schema")
    root = _strict(schema, "arguments", root=True)
    for key in ("$defs", "definitions"):
        defs = schema.get(key)
        if isinstance(defs, dict):
            root[key] = {
                name: _strict(cast(Mapping[str, Any], sub), f"{key}.{name}")
                for name, sub in cast(_JsonObject, defs).items()
                if isinstance(sub, dict)
            }
    return root


def _strict(schema: object, path: str, *, root: bool = False) -> _JsonObject:
    if not isinstance(schema, dict):
        raise NotStrictError(f"{path}: a boolean schema")
    source = cast(_JsonObject, schema)
    for key in _UNSUPPORTED:
        if key in source:
            raise NotStrictError(f"{path}: uses {key!r}")
    ref = source.get("$ref")
    if isinstance(ref, str):
        if not (ref == "#" or ref.startswith(("#/$defs/", "#/definitions/"))):
            raise NotStrictError(f"{path}: reference {ref!r} is not to $defs")
        return {"$ref": ref}
    out: _JsonObject = {}
    for key in _KEPT:
        if key in source:
            out[key] = source[key]
    fmt = source.get("format")
    if isinstance(fmt, str) and fmt in _STRICT_FORMATS:
        out["format"] = fmt
    all_of = source.get("allOf")
    if isinstance(all_of, list):
        items = cast(list[object], all_of)
        if len(items) != 1:
            raise NotStrictError(f"{path}: uses 'allOf'")
        inner = _strict(items[0], path)
        return {**inner, **out}
    options = source.get("anyOf", source.get("oneOf"))
    if isinstance(options, list):
        out["anyOf"] = [
            _strict(option, f"{path}|{index}")
            for index, option in enumerate(cast(list[object], options))
        ]
        return out
    kind = source.get("type")
    if isinstance(kind, list):
        kinds = [k for k in cast(list[object], kind) if isinstance(k, str)]
        if len([k for k in kinds if k != "null"]) > 1:
            if any(k in source for k in ("properties", "items")):
                raise NotStrictError(f"{path}: several types with nested schemas")
            out["anyOf"] = [{"type": k} for k in kinds]
            return out
        out["type"] = kinds
    elif isinstance(kind, str):
        out["type"] = kind
    elif "properties" in source:
        out["type"] = "object"
    elif "enum" not in source and "const" not in source:
        raise NotStrictError(f"{path}: accepts any value (no type)")
    types = out.get("type")
    is_object = types == "object" or (isinstance(types, list) and "object" in types)
    is_array = types == "array" or (isinstance(types, list) and "array" in types)
    if is_object:
        extra = source.get("additionalProperties")
        if extra not in (None, False):
            raise NotStrictError(f"{path}: an object with free-form keys")
        properties = source.get("properties")
        if not isinstance(properties, dict) or (not properties and not root):
            if not root:
                raise NotStrictError(f"{path}: an object without listed properties")
            properties = {}
        needed = _names(source.get("required"))
        converted: _JsonObject = {}
        for name, sub in cast(_JsonObject, properties).items():
            prop = _strict(sub, f"{path}.{name}")
            if name not in needed:
                prop = _nullable(prop, sub)
            converted[name] = prop
        out["properties"] = converted
        out["required"] = list(converted)
        out["additionalProperties"] = False
    if is_array:
        items_schema = source.get("items")
        if not isinstance(items_schema, dict):
            raise NotStrictError(f"{path}: an array without an item schema")
        out["items"] = _strict(cast(object, items_schema), f"{path}[]")
    return out


def _names(value: object) -> set[str]:
    """The strings of a JSON list (e.g. `required`), else an empty set."""
    if not isinstance(value, list):
        return set()
    return {item for item in cast(list[object], value) if isinstance(item, str)}


def _nullable(prop: _JsonObject, original: object) -> _JsonObject:
    """`prop` accepting null too; the original default is noted in the description."""
    default = (
        cast(_JsonObject, original).get("default", None)
        if isinstance(original, dict)
        else None
    )
    note = "Optional (null: not sent"
    note += (
        f", default {json.dumps(default, default=str)})."
        if default is not None
        else ")."
    )
    description = prop.get("description")
    described = f"{description} {note}" if isinstance(description, str) else note
    kind = prop.get("type")
    if "$ref" in prop or "const" in prop:
        return {"anyOf": [prop, {"type": "null"}], "description": described}
    if "anyOf" in prop:
        options = cast(list[_JsonObject], prop["anyOf"])
        if not any(option.get("type") == "null" for option in options):
            options = [*options, {"type": "null"}]
        return {**prop, "anyOf": options, "description": described}
    result = dict(prop)
    if isinstance(kind, str):
        result["type"] = [kind, "null"] if kind != "null" else "null"
    elif isinstance(kind, list):
        kinds = cast(list[str], kind)
        result["type"] = kinds if "null" in kinds else [*kinds, "null"]
    else:
        return {"anyOf": [prop, {"type": "null"}], "description": described}
    enum = result.get("enum")
    if isinstance(enum, list) and None not in enum:
        result["enum"] = [*cast(list[object], enum), None]
    result["description"] = described
    return result


def drop_optional_nulls(value: object, schema: Mapping[str, Any]) -> object:
    """Undo the strict form on a model's answer: a null for an optional property is removed.

    Only where the property's own schema does not admit null: there the null can only be the strict
    dialect's "not sent"; a null the schema allows is a value and stays.
    """
    return _drop_nulls(value, schema, schema, 0)


def _resolve(schema: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    for _ in range(32):
        ref = schema.get("$ref")
        if not isinstance(ref, str):
            return schema
        if ref == "#":
            schema = root
            continue
        target: object = root
        for piece in ref.removeprefix("#/").split("/"):
            if not isinstance(target, dict):
                return {}
            target = cast(Mapping[str, object], target).get(piece)
        schema = cast(_JsonObject, target) if isinstance(target, dict) else {}
    return schema


def _drop_nulls(
    value: object, schema: Mapping[str, Any], root: Mapping[str, Any], depth: int
) -> object:
    if depth > 64:
        return value
    schema = _resolve(schema, root)
    all_of = schema.get("allOf")
    if isinstance(all_of, list) and len(cast(list[object], all_of)) == 1:
        inner = cast(list[object], all_of)[0]
        if isinstance(inner, dict):
            schema = _resolve(cast(_JsonObject, inner), root)
    if isinstance(value, dict):
        data = cast(_JsonObject, value)
        properties = schema.get("properties")
        if not isinstance(properties, dict):
            for option in _options(schema, root):
                props = option.get("properties")
                if isinstance(props, dict) and set(data) <= set(
                    cast(_JsonObject, props)
                ):
                    return _drop_nulls(data, option, root, depth + 1)
            return data
        props = cast(_JsonObject, properties)
        required = _names(schema.get("required"))
        cleaned: _JsonObject = {}
        for key, item in data.items():
            sub = props.get(key)
            if (
                item is None
                and isinstance(sub, dict)
                and key not in required
                and not _admits_null(cast(_JsonObject, sub), root, depth + 1)
            ):
                continue
            cleaned[key] = (
                _drop_nulls(item, cast(_JsonObject, sub), root, depth + 1)
                if isinstance(sub, dict)
                else item
            )
        return cleaned
    if isinstance(value, list):
        elements = cast(list[object], value)
        items = schema.get("items")
        if isinstance(items, dict):
            return [
                _drop_nulls(item, cast(_JsonObject, items), root, depth + 1)
                for item in elements
            ]
        return elements
    return value


def _admits_null(
    schema: Mapping[str, Any], root: Mapping[str, Any], depth: int
) -> bool:
    """Whether `schema` accepts null (when unsure, yes: a null is then kept, as the model sent it)."""
    if depth > 64:
        return True
    schema = _resolve(schema, root)
    admits = True
    kind = schema.get("type")
    if isinstance(kind, str):
        admits = kind == "null"
    elif isinstance(kind, list):
        admits = "null" in cast(list[object], kind)
    if "const" in schema:
        admits = admits and schema["const"] is None
    enum = schema.get("enum")
    if isinstance(enum, list):
        admits = admits and None in cast(list[object], enum)
    if any(isinstance(schema.get(key), list) for key in ("anyOf", "oneOf")):
        admits = admits and any(
            _admits_null(option, root, depth + 1) for option in _options(schema, root)
        )
    all_of = schema.get("allOf")
    if isinstance(all_of, list):
        admits = admits and all(
            _admits_null(cast(_JsonObject, part), root, depth + 1)
            for part in cast(list[object], all_of)
            if isinstance(part, dict)
        )
    return admits


def _options(
    schema: Mapping[str, Any], root: Mapping[str, Any]
) -> Iterator[Mapping[str, Any]]:
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list):
            for option in cast(list[object], options):
                if isinstance(option, dict):
                    yield _resolve(cast(_JsonObject, option), root)
