"""Class names for what the model generator would otherwise number (`Content1`, `Author2`): by place, tag or content.

* the inline object members of a union are named by what tells them apart (`member_labels`): a tag property's
  values (`type: "resource"` -> `Resource`), else their titles, else a property only that member has
  (`WithLine`);
* a definition reached under a name already used (by the arguments, or by another path of the same schema) is
  that same class when the two definitions are the same (`same_definition`), and is named by its place
  (`DraftNoteResultAuthor`, `SearchArgumentsBItems`) when not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcp_codegen.casing import pascal_case

#: Longest label kept in a member's class name (a label is server text: it names, it does not bloat).
LABEL_LIMIT = 40


def resolve_pointer(root: Any, pointer: str) -> Any:
    """The node `pointer` (`#/$defs/Item`, `#/properties/x/items`) names in `root`, or None."""
    node: Any = root
    for raw in pointer.lstrip("#").strip("/").split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def place_name(pointer: str) -> str:
    """`#/properties/a/items` -> `AItems`, `#/$defs/Author` -> `Author`: a definition's path, for a name."""
    parts = pointer.lstrip("#").strip("/").split("/")
    kept = [part for part in parts if part not in ("properties", "$defs", "definitions")]
    return "".join(pascal_case(part.replace("~1", "/").replace("~0", "~"), fallback="Item") for part in kept)


def same_definition(root: Any, schema: Any, other_root: Any, other: Any) -> bool:
    """Whether `schema` (in `root`) and `other` (in `other_root`) are the same schema, their refs followed."""
    return _same(root, schema, other_root, other, set())


def _same(root: Any, schema: Any, other_root: Any, other: Any, assumed: set[tuple[str, str]]) -> bool:
    if isinstance(schema, dict) and isinstance(other, dict):
        if schema.keys() != other.keys():
            return False
        for key, value in schema.items():
            ref, other_ref = value, other[key]
            if key == "$ref" and isinstance(ref, str) and isinstance(other_ref, str):
                if (ref, other_ref) in assumed:  # recursion: equal unless shown otherwise elsewhere
                    continue
                assumed.add((ref, other_ref))
                target, other_target = resolve_pointer(root, ref), resolve_pointer(other_root, other_ref)
                if target is None or other_target is None or not _same(root, target, other_root, other_target, assumed):
                    return False
            elif not _same(root, value, other_root, other_ref, assumed):
                return False
        return True
    if isinstance(schema, list) and isinstance(other, list):
        return len(schema) == len(other) and all(
            _same(root, a, other_root, b, assumed) for a, b in zip(schema, other, strict=True)
        )
    return type(schema) is type(other) and bool(schema == other)


def member_labels(bodies: Sequence[dict[str, Any]]) -> list[str] | None:
    """A distinct PascalCase label per union member (plain object schemas), or None when none tells them apart."""
    for labels in (_tag_labels(bodies), _title_labels(bodies), _own_property_labels(bodies)):
        if labels is not None and all(labels) and len(set(labels)) == len(labels):
            return labels
    return None


def _string_values(schema: Any) -> list[str] | None:
    """The strings a `const` or an all-string `enum` allows."""
    if not isinstance(schema, dict):
        return None
    if isinstance(schema.get("const"), str):
        return [schema["const"]]
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(value, str) for value in enum):
        return list(enum)
    return None


def _tag_labels(bodies: Sequence[dict[str, Any]]) -> list[str] | None:
    """`ImageOrAudio` for a member whose `type` is one of "image", "audio": the first property all members
    give fixed strings."""
    for name in bodies[0]["properties"]:
        values = [_string_values(body["properties"].get(name)) for body in bodies]
        if all(values):
            return [_label("Or".join(pascal_case(v, fallback="") for v in vs or ())) for vs in values]
    return None


def _title_labels(bodies: Sequence[dict[str, Any]]) -> list[str] | None:
    titles = [body.get("title") for body in bodies]
    if not all(isinstance(title, str) for title in titles):
        return None
    return [_label(pascal_case(str(title), fallback="")) for title in titles]


def _own_property_labels(bodies: Sequence[dict[str, Any]]) -> list[str] | None:
    """`WithLine`: the first property (required ones first) that no other member has."""
    labels = []
    for index, body in enumerate(bodies):
        others = {name for i, other in enumerate(bodies) if i != index for name in other["properties"]}
        required = [name for name in body.get("required", []) if name in body["properties"]]
        own = [name for name in [*required, *body["properties"]] if name not in others]
        if not own:
            return None
        labels.append(_label("With" + pascal_case(own[0], fallback="")))
    return labels


def _label(text: str) -> str:
    return text[:LABEL_LIMIT]
