"""Unions of objects named by what tells their members apart: a tag makes a discriminated union, else labels.

Part of schema preparation (`schema_prep`): each inline member is hoisted under a name of its own, so the
model generator writes `ShapeCircle`, not `Shape1`; what validates is unchanged.
"""

from __future__ import annotations

from typing import Any, Protocol

from mcp_codegen.casing import pascal_case
from mcp_codegen.generate.naming import kept_as_field_name
from mcp_codegen.generate.schema_names import LABEL_LIMIT, member_labels

JsonSchema = dict[str, Any]


class Hoister(Protocol):
    """What a union's members are hoisted into: the shared document's definitions, under claimed names."""

    definitions: dict[str, Any]

    def claim(self, name: str) -> str: ...


#: Keys a union may have beside its members and still be read as a discriminated union of them.
_UNION_ANNOTATIONS = frozenset({"title", "description", "examples"})


def discriminated(schema: JsonSchema, hoister: Hoister, class_path: str) -> JsonSchema:
    """A `oneOf`/`anyOf` of objects told apart by a tag, as a discriminated union of named classes.

    It holds when every member (null aside) is a plain object schema, or a ref to one, with a required
    property whose schema is a string `const` or one-value `enum`, all values distinct: then each inline
    member is hoisted as `<class path><Tag>` (not the generator's `...1`, `...2`) and the union gets a
    `discriminator` (the model generator writes `Field(discriminator=...)`; pydantic then checks one member,
    chosen by the tag, and names it in errors). Anything else is left as it is.
    """
    key = "oneOf" if "oneOf" in schema else "anyOf"
    members = schema.get(key)
    nullable = [m for m in members if m == {"type": "null"}] if isinstance(members, list) else []
    allowed = _UNION_ANNOTATIONS | ({"default"} if nullable and schema.get("default", 0) is None else set())
    if not class_path or not isinstance(members, list) or set(schema) - allowed != {key}:
        return schema
    objects = [m for m in members if m != {"type": "null"}]
    bodies = [_object_body(member, hoister) for member in objects]
    if len(objects) < 2 or len(nullable) > 1 or any(body is None for body in bodies):
        return schema
    checked = [body for body in bodies if body is not None]
    tag = _tag_property(checked)
    if tag is None:
        return _named_members(schema, key, checked, hoister, class_path)
    refs = []
    mapping = {}
    for member, body in zip(objects, bodies, strict=True):
        assert body is not None
        value = _tag_value(body["properties"][tag])
        assert value is not None
        if "$ref" in member:
            ref = member["$ref"]
        else:
            tag_name = pascal_case(value, fallback="Variant")[:LABEL_LIMIT]
            name = hoister.claim(class_path + tag_name)
            hoister.definitions[name] = member
            ref = f"#/$defs/{name}"
        refs.append({"$ref": ref})
        mapping[value] = ref
    union: JsonSchema = {"oneOf": refs, "discriminator": {"propertyName": tag, "mapping": mapping}}
    annotations = {k: v for k, v in schema.items() if k != key}
    if nullable:  # the generator keeps the discriminator only on a flat union: `A | B | None`
        union["oneOf"].append({"type": "null"})
    return {**union, **annotations}


def _named_members(
    schema: JsonSchema, key: str, bodies: list[JsonSchema], hoister: Hoister, class_path: str
) -> JsonSchema:
    """A union of plain objects (`bodies`, null aside) without a tag: its inline members hoisted under names by
    what tells them apart (`schema_names.member_labels`), not the generator's `...1`. Validation is unchanged."""
    labels = member_labels(bodies)
    if labels is None:
        return schema
    refs, labelled = [], iter(labels)
    for member in schema[key]:
        if member == {"type": "null"}:
            refs.append(member)
            continue
        label = next(labelled)
        if "$ref" not in member:
            name = hoister.claim(class_path + label)
            hoister.definitions[name] = member
            member = {"$ref": f"#/$defs/{name}"}
        refs.append(member)
    return {**schema, key: refs}


def _object_body(member: Any, hoister: Hoister) -> JsonSchema | None:
    """The object schema of a union member (followed through a ref to a hoisted definition), if it is a plain one."""
    if isinstance(member, dict) and set(member) == {"$ref"} and isinstance(member["$ref"], str):
        member = hoister.definitions.get(member["$ref"].removeprefix("#/$defs/"))
    if not isinstance(member, dict) or member.get("type") != "object":
        return None
    if any(key in member for key in ("$ref", "allOf", "anyOf", "oneOf", "not", "if")):
        return None
    properties, required = member.get("properties"), member.get("required")
    if not isinstance(properties, dict) or not isinstance(required, list):
        return None
    return member


def _tag_property(bodies: list[JsonSchema]) -> str | None:
    """The first property every body requires with a one-string schema, the strings all distinct."""
    first: dict[str, Any] = bodies[0]["properties"]
    for name in first:
        if not kept_as_field_name(name):  # pydantic's discriminator names the field
            continue
        values = []
        for body in bodies:
            schema = body["properties"].get(name)
            value = _tag_value(schema) if name in body["required"] else None
            if value is None:
                break
            values.append(value)
        else:
            if len(set(values)) == len(values):
                return name
    return None


def _tag_value(schema: Any) -> str | None:
    if not isinstance(schema, dict):
        return None
    if isinstance(schema.get("const"), str):
        return str(schema["const"])
    enum = schema.get("enum")
    if isinstance(enum, list) and len(enum) == 1 and isinstance(enum[0], str):
        return str(enum[0])
    return None
