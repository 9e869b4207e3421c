"""Normalisation before diffing (DRIFT_RULES.md, "Before diffing").

Two snapshots of the same API must compare equal whatever the spelling, so before any comparison:

- items are keyed: tools and prompts by `name`, resources by `uri`, resource templates by `uriTemplate`
  (`index_items`);
- every JSON Schema is rewritten into one canonical spelling (`normalize_schema`):

  * each schema is read in its dialect and said in 2020-12 terms (`schema_dialect`: a draft-07 `$ref` ignores
    its siblings, array-form `items` is `prefixItems`); then `$schema`, `$id`, `$anchor`, `$dynamicAnchor` are
    dropped (identity, not meaning);
  * local `$ref`s (`#`, `#/$defs/X`, `#/definitions/X`, path refs such as `#/properties/x/items`) are
    replaced by the (normalised) schema they point to, sibling keywords of the `$ref` laid over it; a ref met
    again while it is being expanded becomes the marker `{"$recursiveRef": "<ref>"}` (the recursion guard), so
    a recursive schema is expanded exactly once along each path. `$defs`/`definitions` are then dropped: only
    what is referenced matters. Remote or dangling refs are kept as they are;
  * `required` is sorted and deduplicated; `enum` is sorted (by canonical JSON) and deduplicated; `const` is
    spelled as a one-value `enum`;
  * `type` is a string for one type and a sorted list for several; OpenAPI's `nullable: true` adds `"null"`;
  * nullable has one spelling: `anyOf`/`oneOf` of `{"type": "null"}` and one typed branch is folded into that
    branch with `"null"` added to its `type` (`{"anyOf": [{"type": "string"}, {"type": "null"}]}` and
    `{"type": ["string", "null"]}` both become `{"type": ["null", "string"]}`); branches that are nothing but a
    `type` are folded into one type list; a union of one branch is folded into its parent; nested pure unions
    are flattened; the remaining branches are sorted (by canonical JSON);
  * `true` schemas become `{}`, `false` becomes `{"not": {}}`; `additionalProperties: true` (the default) is
    dropped.

The result shares no mutable state with the input (the input is never modified); subtrees of one result may be
shared (an expanded definition used twice), so treat results as read-only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import unquote

from mcp_codegen.schema_dialect import in_current_dialect, is_legacy_dialect

JsonObject = dict[str, Any]

#: Identity keywords: they say where a schema lives, not what it accepts.
DROPPED_KEYS = frozenset({"$schema", "$id", "$anchor", "$dynamicAnchor"})
#: Keywords that only document a schema: changing them is a docs change (safe).
DOC_KEYS = frozenset({"title", "description", "examples", "example", "$comment", "deprecated"})
#: Keys a union's parent may share with the branch folded into it without changing what is accepted.
_MERGEABLE_KEYS = DOC_KEYS | {"default"}
#: Keywords whose value is one schema; a list of schemas; a map of schemas.
SCHEMA_KEYS = ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else")
SCHEMA_LIST_KEYS = ("anyOf", "oneOf", "allOf", "prefixItems")
SCHEMA_MAP_KEYS = ("properties", "patternProperties", "dependentSchemas")
UNION_KEYS = ("anyOf", "oneOf")
RECURSIVE_REF = "$recursiveRef"
_DEFINITION_KEYS = ("$defs", "definitions")


def canonical_json(value: Any) -> str:
    """Sorted keys, no whitespace, non-ASCII kept: the one text of a JSON value (also used for hashing)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def normalize_schema(schema: Any) -> Any:
    """The canonical spelling of one root JSON Schema (see the module docstring). Total: never raises."""
    return _Normalizer(schema).node(schema, ("#",))  # the root is being expanded: `#` inside it recurses


def index_items(items: Iterable[Mapping[str, Any]], key: str) -> dict[str, JsonObject]:
    """Items keyed by `key` (`name`, `uri`, `uriTemplate`), in a deterministic order.

    An item without a string key is keyed by its canonical JSON; a duplicate key gets `#2`, `#3`, ... in
    the order the items come (snapshots sort duplicates by their whole content, so this is stable).
    """
    indexed: dict[str, JsonObject] = {}
    for item in items:
        value = item.get(key)
        name = value if isinstance(value, str) else canonical_json(item)
        unique, number = name, 1
        while unique in indexed:
            number += 1
            unique = f"{name}#{number}"
        indexed[unique] = dict(item)
    return indexed


def type_set(schema: Mapping[str, Any]) -> frozenset[str] | None:
    """The types a normalised schema names (`None`: no `type` keyword, any type)."""
    kind = schema.get("type")
    if isinstance(kind, str):
        return frozenset((kind,))
    if isinstance(kind, list):
        return frozenset(k for k in kind if isinstance(k, str))
    return None


_SKIPPED = DROPPED_KEYS | set(_DEFINITION_KEYS)
_ONE = frozenset(SCHEMA_KEYS)
_LIST = frozenset(SCHEMA_LIST_KEYS)
_MAP = frozenset(SCHEMA_MAP_KEYS)
#: Keys `_tidy` may rewrite: a node without any of them is already canonical.
_TIDY_KEYS = frozenset({"required", "const", "enum", "nullable", "type", "anyOf", "oneOf", "allOf"})


class _Normalizer:
    def __init__(self, root: Any) -> None:
        self.root = root
        #: Expansions that met no recursion marker, by ref: a definition used twice is normalised once.
        self.cache: dict[str, Any] = {}
        #: Recursion markers made so far (an expansion that made none can be cached).
        self.markers = 0
        #: Draft-07 or older: a `$ref` ignores its siblings (`schema_dialect`).
        self.legacy = isinstance(root, dict) and is_legacy_dialect(root.get("$schema"))

    def node(self, schema: Any, stack: tuple[str, ...]) -> Any:
        if schema is True:
            return {}
        if schema is False:
            return {"not": {}}
        if not isinstance(schema, dict):
            return schema
        schema = in_current_dialect(schema, self.legacy)
        ref = schema.get("$ref")
        if ref is not None and isinstance(ref, str) and (ref == "#" or ref.startswith("#/")):
            return self._expand(schema, ref, stack)
        result: JsonObject = {}
        for key, value in schema.items():
            if key in _SKIPPED:
                continue
            if key in _ONE:
                if key == "additionalProperties" and (value is True or value is False or value == {}):
                    if value is False:
                        result[key] = False
                    continue
                result[key] = self.node(value, stack)
            elif key in _LIST and isinstance(value, list):
                result[key] = [self.node(item, stack) for item in value]
            elif key in _MAP and isinstance(value, dict):
                result[key] = {name: self.node(sub, stack) for name, sub in value.items()}
            else:
                result[key] = value
        return _tidy(result)

    def _expand(self, schema: Mapping[str, Any], ref: str, stack: tuple[str, ...]) -> Any:
        if ref in stack:
            self.markers += 1
            return _tidy({RECURSIVE_REF: ref, **self._siblings(schema, stack)})
        target = _resolve_pointer(self.root, ref)
        if target is _MISSING:
            return _tidy({"$ref": ref, **self._siblings(schema, stack)})
        if ref in self.cache:
            expanded = self.cache[ref]
        else:
            before = self.markers
            expanded = self.node(target, (*stack, ref))
            if self.markers == before:
                self.cache[ref] = expanded
        siblings = self._siblings(schema, stack)
        if not siblings:
            return expanded
        if not isinstance(expanded, dict):
            return _tidy({"allOf": [expanded], **siblings})
        return _tidy({**expanded, **siblings})

    def _siblings(self, schema: Mapping[str, Any], stack: tuple[str, ...]) -> JsonObject:
        rest = {key: value for key, value in schema.items() if key != "$ref"}
        if not rest:
            return {}
        normalized = self.node(rest, stack)
        return normalized if isinstance(normalized, dict) else {}


class _Missing:
    pass


_MISSING = _Missing()


def _resolve_pointer(root: Any, ref: str) -> Any:
    node = root
    for raw in ref[2:].split("/") if ref != "#" else ():
        part = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return _MISSING
    return node


def _sort_key(value: Any) -> str:
    return canonical_json(value)


def _unique_sorted(values: list[Any]) -> list[Any]:
    seen: dict[str, Any] = {}
    for value in values:
        seen.setdefault(_sort_key(value), value)
    return [seen[key] for key in sorted(seen)]


def _tidy(schema: JsonObject) -> JsonObject:
    """Canonical spelling of one node whose children are already normalised."""
    present = schema.keys() & _TIDY_KEYS
    if not present or (present == {"type"} and not isinstance(schema["type"], list)):
        return schema
    required = schema.get("required")
    if isinstance(required, list) and all(isinstance(name, str) for name in required):
        schema["required"] = sorted(set(required))
    if "const" in schema and "enum" not in schema:
        schema["enum"] = [schema.pop("const")]
    enum = schema.get("enum")
    if isinstance(enum, list):
        schema["enum"] = _unique_sorted(enum)
    if schema.get("nullable") is True and "type" in schema:
        schema.pop("nullable")
        _set_types(schema, (type_set(schema) or frozenset()) | {"null"})
    elif isinstance(schema.get("type"), list):
        _set_types(schema, type_set(schema) or frozenset())
    for key in UNION_KEYS:
        if isinstance(schema.get(key), list):
            schema = _tidy_union(schema, key)
    if isinstance(schema.get("allOf"), list):
        branches = [b for b in schema["allOf"] if b != {}]
        schema["allOf"] = _unique_sorted(branches)
        if not schema["allOf"]:
            del schema["allOf"]
        elif len(schema["allOf"]) == 1:
            schema = _fold_into_parent(schema, "allOf", schema["allOf"][0]) or schema
    return schema


def _set_types(schema: JsonObject, types: frozenset[str]) -> None:
    ordered = sorted(types)
    schema["type"] = ordered[0] if len(ordered) == 1 else ordered


def _is_null_branch(branch: Any) -> bool:
    return isinstance(branch, dict) and branch.get("type") == "null" and len(branch) == 1


def _is_pure_type(branch: Any) -> bool:
    return isinstance(branch, dict) and len(branch) == 1 and type_set(branch) is not None


def _tidy_union(schema: JsonObject, key: str) -> JsonObject:
    branches: list[Any] = []
    for branch in schema[key]:
        # A nested union that is nothing but a union (and docs) contributes its branches.
        if (
            isinstance(branch, dict)
            and any(isinstance(branch.get(k), list) for k in UNION_KEYS)
            and all(k in UNION_KEYS or k in DOC_KEYS for k in branch)
            and sum(1 for k in UNION_KEYS if k in branch) == 1
        ):
            inner = next(k for k in UNION_KEYS if k in branch)
            branches.extend(branch[inner])
        else:
            branches.append(branch)
    branches = _unique_sorted(branches)
    if len(branches) > 1 and all(_is_pure_type(b) for b in branches):
        types: frozenset[str] = frozenset()
        for branch in branches:
            types |= type_set(branch) or frozenset()
        branches = [{"type": sorted(types) if len(types) > 1 else next(iter(types))}]
    nulls = [b for b in branches if _is_null_branch(b)]
    others = [b for b in branches if not _is_null_branch(b)]
    if nulls and len(others) == 1 and isinstance(others[0], dict) and type_set(others[0]) is not None:
        typed = dict(others[0])
        _set_types(typed, (type_set(typed) or frozenset()) | {"null"})
        folded = _fold_into_parent(schema, key, typed)
        if folded is not None:
            return folded
    if len(branches) == 1:
        folded = _fold_into_parent(schema, key, branches[0])
        if folded is not None:
            return folded
    schema[key] = branches
    return schema


def _fold_into_parent(schema: JsonObject, key: str, branch: Any) -> JsonObject | None:
    """The parent with its only union branch merged in, or None when they conflict."""
    if not isinstance(branch, dict):
        return None
    parent = {k: v for k, v in schema.items() if k != key}
    for name, value in branch.items():
        if name in parent and parent[name] != value and name not in _MERGEABLE_KEYS:
            return None
    merged = {**branch, **parent}
    return _tidy(merged) if merged != schema else merged
