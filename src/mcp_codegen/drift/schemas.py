"""Walking an old and a new JSON Schema in parallel: each difference classified by the direction data flows."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from mcp_codegen.drift.findings import Direction, Findings, JsonObject, changed, mapping, show
from mcp_codegen.drift.normalize import (
    DOC_KEYS,
    RECURSIVE_REF,
    UNION_KEYS,
    canonical_json,
    type_set,
)

_MAX_KEYS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains")


_MIN_KEYS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains")


_HANDLED_KEYS = frozenset(
    {
        "type",
        "enum",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "prefixItems",
        "allOf",
        "default",
        "pattern",
        "format",
        "multipleOf",
        "uniqueItems",
        RECURSIVE_REF,
        *UNION_KEYS,
        *_MAX_KEYS,
        *_MIN_KEYS,
        *DOC_KEYS,
    }
)


_PLAIN_NAME = re.compile(r"^[^.\[\]\"*\s]+$")


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if _PLAIN_NAME.match(name) else f"{path}[{json.dumps(name, ensure_ascii=False)}]"


def _label(relative: str, direction: Direction) -> str:
    if not relative:
        return "arguments" if direction == "input" else "result"
    return relative.lstrip(".")


def describe_schema(schema: Any) -> str:
    """A short human description of a (normalised) schema: `string`, `object (Author)`, `array of integer`."""
    if not isinstance(schema, Mapping):
        return show(schema)
    if RECURSIVE_REF in schema:
        return f"recursive {schema[RECURSIVE_REF]}"
    if isinstance(schema.get("enum"), list):
        return "enum " + show(schema["enum"], 60)
    kinds = type_set(schema)
    if kinds is None:
        for key in UNION_KEYS:
            if isinstance(schema.get(key), list):
                return " | ".join(describe_schema(b) for b in schema[key])
        text = "any"
    else:
        text = " | ".join(sorted(kinds))
    if kinds == frozenset({"array"}) and isinstance(schema.get("items"), Mapping):
        text = f"array of {describe_schema(schema['items'])}"
    title = schema.get("title")
    return f"{text} ({title})" if isinstance(title, str) and title else text


def _type_value(kinds: frozenset[str] | None) -> Any:
    if kinds is None:
        return "any"
    ordered = sorted(kinds)
    return ordered[0] if len(ordered) == 1 else ordered


def _covers(wide: frozenset[str], narrow: frozenset[str]) -> bool:
    """Every type in `narrow` is accepted by `wide` (`number` accepts integers)."""
    return all(t in wide or (t == "integer" and "number" in wide) for t in narrow)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class SchemaWalker:
    """Walks two normalised schemas in parallel, in one direction (input: sent, output: received)."""

    def __init__(self, direction: Direction, out: Findings) -> None:
        self.direction = direction
        self.out = out
        self.root = ""

    def emit(self, kind: str, path: str, old: Any = None, new: Any = None, *, detail: str = "") -> None:
        relative = path[len(self.root) :]
        self.out.emit(f"{self.direction}-{kind}", path, old, new, name=_label(relative, self.direction), detail=detail)

    def diff_root(self, old: Any, new: Any, path: str) -> None:
        self.root = path
        self.compare(old, new, path, required=None)

    # -- one node ----------------------------------------------------------------------------------------------

    def compare(self, old: Any, new: Any, path: str, *, required: bool | None) -> None:
        if old is new or old == new:
            return
        if not isinstance(old, dict) or not isinstance(new, dict):
            self.emit("keyword-changed", path, old, new, detail="schema")
            return
        if RECURSIVE_REF in old or RECURSIVE_REF in new:
            if old.get(RECURSIVE_REF) != new.get(RECURSIVE_REF):
                self.emit("keyword-changed", path, old.get(RECURSIVE_REF), new.get(RECURSIVE_REF), detail="$ref")
            self._docs(old, new, path)
            return
        old_union = next((k for k in UNION_KEYS if isinstance(old.get(k), list)), None)
        new_union = next((k for k in UNION_KEYS if isinstance(new.get(k), list)), None)
        if old_union is None and new_union is None:
            self._node(old, new, path, required)
            return
        # anyOf and oneOf are compared alike: both become a Union in the generated models.
        old_outer, old_branches = _split_union(old, old_union)
        new_outer, new_branches = _split_union(new, new_union)
        self._node(old_outer, new_outer, path, required)
        self._branches(old_branches, new_branches, path, new_union or old_union or "anyOf", bool(new_union), required)

    def _node(self, old: JsonObject, new: JsonObject, path: str, required: bool | None) -> None:
        if old == new:
            return
        if not self._types(old, new, path):
            return  # the type changed altogether: what is under it is not comparable
        self._enums(old, new, path)
        self._constraints(old, new, path)
        self._default(old, new, path, required)
        self._object(old, new, path)
        self._arrays(old, new, path)
        self._all_of(old, new, path)
        self._docs(old, new, path)
        for key in sorted((set(old) | set(new)) - _HANDLED_KEYS):
            if changed(old, new, key):
                self.emit("keyword-changed", path, old.get(key), new.get(key), detail=key)

    def _types(self, old: JsonObject, new: JsonObject, path: str) -> bool:
        """Reports type changes; False when the types are unrelated (stop descending)."""
        was, now = type_set(old), type_set(new)
        if was == now:
            return True
        if was is None or now is None:
            self.emit("type-widened" if now is None else "type-narrowed", path, _type_value(was), _type_value(now))
            return True
        was_core, now_core = was - {"null"}, now - {"null"}
        if was_core != now_core:
            if not was_core or not now_core:
                self.emit("type-changed", path, _type_value(was), _type_value(now))
                return False
            wider, narrower = _covers(now_core, was_core), _covers(was_core, now_core)
            if wider and not narrower:
                self.emit("type-widened", path, _type_value(was_core), _type_value(now_core))
            elif narrower and not wider:
                self.emit("type-narrowed", path, _type_value(was_core), _type_value(now_core))
            elif not wider and not narrower:
                self.emit("type-changed", path, _type_value(was), _type_value(now))
                return False
        if ("null" in was) != ("null" in now):
            self.emit(
                "became-nullable" if "null" in now else "no-longer-nullable", path, _type_value(was), _type_value(now)
            )
        return True

    def _enums(self, old: JsonObject, new: JsonObject, path: str) -> None:
        was, now = old.get("enum"), new.get("enum")
        if was == now:
            return
        if isinstance(was, list) and isinstance(now, list):
            old_values = {canonical_json(v): v for v in was}
            new_values = {canonical_json(v): v for v in now}
            removed = sorted(old_values.keys() - new_values.keys())
            added = sorted(new_values.keys() - old_values.keys())
            if removed:
                self.emit("enum-value-removed", path, was, now, detail=", ".join(removed))
            if added:
                self.emit("enum-value-added", path, was, now, detail=", ".join(added))
        elif isinstance(was, list):
            self.emit("enum-dropped", path, was, now)
        elif isinstance(now, list):
            self.emit("enum-introduced", path, was, now)

    def _constraints(self, old: JsonObject, new: JsonObject, path: str) -> None:
        for keys, tighter_when_smaller in ((_MAX_KEYS, True), (_MIN_KEYS, False)):
            for key in keys:
                was, now = old.get(key), new.get(key)
                if was == now:
                    continue
                if isinstance(was, bool) or isinstance(now, bool):  # draft-4 exclusiveMaximum: true
                    tightened = now is True
                elif was is None or now is None:
                    tightened = was is None
                elif _number(was) and _number(now):
                    tightened = (now < was) if tighter_when_smaller else (now > was)
                else:
                    self.emit("keyword-changed", path, was, now, detail=key)
                    continue
                self.emit("constraint-tightened" if tightened else "constraint-relaxed", path, was, now, detail=key)
        if (old.get("uniqueItems") is True) != (new.get("uniqueItems") is True):
            tightened = new.get("uniqueItems") is True
            kind = "constraint-tightened" if tightened else "constraint-relaxed"
            self.emit(kind, path, old.get("uniqueItems"), new.get("uniqueItems"), detail="uniqueItems")
        self._multiple_of(old.get("multipleOf"), new.get("multipleOf"), path)
        for key in ("pattern", "format"):
            was, now = old.get(key), new.get(key)
            if was == now:
                continue
            if was is None:
                self.emit("constraint-tightened", path, was, now, detail=key)
            elif now is None:
                self.emit("constraint-relaxed", path, was, now, detail=key)
            else:
                self.emit("pattern-changed", path, was, now, detail=key)

    def _multiple_of(self, was: Any, now: Any, path: str) -> None:
        if was == now:
            return
        if was is None or now is None:
            tightened = was is None
        elif _number(was) and _number(now) and was and now:
            if now % was == 0:
                tightened = True
            elif was % now == 0:
                tightened = False
            else:  # neither divides the other: some old values fail and some new values are new
                tightened = self.direction == "input"
        else:
            self.emit("keyword-changed", path, was, now, detail="multipleOf")
            return
        self.emit("constraint-tightened" if tightened else "constraint-relaxed", path, was, now, detail="multipleOf")

    def _default(self, old: JsonObject, new: JsonObject, path: str, required: bool | None) -> None:
        if not changed(old, new, "default"):
            return
        detail = "added" if "default" not in old else "removed" if "default" not in new else "changed"
        if self.direction == "input" and required is True:
            # Never applied by the server: the argument is always sent. Documentation only.
            self.emit(
                "docs-changed", path, old.get("default"), new.get("default"), detail="default of a required argument"
            )
            return
        self.emit("default-changed", path, old.get("default"), new.get("default"), detail=detail)

    def _object(self, old: JsonObject, new: JsonObject, path: str) -> None:
        was_closed = old.get("additionalProperties") is False
        now_closed = new.get("additionalProperties") is False
        if was_closed != now_closed:
            kind = "additional-properties-closed" if now_closed else "additional-properties-opened"
            self.emit(kind, path, old.get("additionalProperties", True), new.get("additionalProperties", True))
        else:
            was_extra, now_extra = old.get("additionalProperties"), new.get("additionalProperties")
            if isinstance(was_extra, dict) or isinstance(now_extra, dict):
                self.compare(
                    was_extra if isinstance(was_extra, dict) else {},
                    now_extra if isinstance(now_extra, dict) else {},
                    f"{path}.*",
                    required=None,
                )
        old_props, new_props = mapping(old.get("properties")), mapping(new.get("properties"))
        old_req, new_req = _names(old.get("required")), _names(new.get("required"))
        if not old_props and not new_props and not old_req and not new_req:
            return
        for name in sorted(set(old_props) | set(new_props) | old_req | new_req):
            here = _child(path, name)
            was_there = name in old_props or name in old_req
            is_there = name in new_props or name in new_req
            if was_there and not is_there:
                self._property_removed(here, old_props.get(name, {}), name in old_req)
            elif is_there and not was_there:
                self._property_added(here, new_props.get(name, {}), name in new_req, was_closed)
            else:
                was_required, is_required = name in old_req, name in new_req
                if was_required != is_required:
                    kind = "property-became-required" if is_required else "property-became-optional"
                    self.emit(kind, here, was_required, is_required)
                self.compare(old_props.get(name, {}), new_props.get(name, {}), here, required=is_required)

    def _property_removed(self, path: str, schema: Any, required: bool) -> None:
        if self.direction == "input":
            self.emit("property-removed", path, describe_schema(schema), None)
        else:
            kind = "required-property-removed" if required else "optional-property-removed"
            self.emit(kind, path, describe_schema(schema), None)

    def _property_added(self, path: str, schema: Any, required: bool, closed: bool) -> None:
        if self.direction == "input":
            kind = "required-property-added" if required else "optional-property-added"
        else:
            kind = "property-added-closed" if closed else "property-added"
        self.emit(kind, path, None, describe_schema(schema))

    def _arrays(self, old: JsonObject, new: JsonObject, path: str) -> None:
        was, now = old.get("items"), new.get("items")
        if isinstance(was, list) or isinstance(now, list):  # draft-4 tuples
            self._tuple(was if isinstance(was, list) else [], now if isinstance(now, list) else [], path, "items")
        elif was != now:
            self.compare(
                was if isinstance(was, dict) else {}, now if isinstance(now, dict) else {}, f"{path}[]", required=None
            )
        was_prefix, now_prefix = old.get("prefixItems"), new.get("prefixItems")
        if was_prefix != now_prefix:
            self._tuple(
                was_prefix if isinstance(was_prefix, list) else [],
                now_prefix if isinstance(now_prefix, list) else [],
                path,
                "prefixItems",
            )

    def _tuple(self, was: list[Any], now: list[Any], path: str, key: str) -> None:
        for index in range(min(len(was), len(now))):
            self.compare(was[index], now[index], f"{path}[{index}]", required=None)
        if len(was) != len(now):
            self.emit("keyword-changed", path, len(was), len(now), detail=f"{key} (number of tuple items)")

    def _all_of(self, old: JsonObject, new: JsonObject, path: str) -> None:
        was, now = old.get("allOf"), new.get("allOf")
        if was == now:
            return
        was_parts = list(was) if isinstance(was, list) else []
        now_parts = list(now) if isinstance(now, list) else []
        common = {canonical_json(p) for p in was_parts} & {canonical_json(p) for p in now_parts}
        was_rest = [p for p in was_parts if canonical_json(p) not in common]
        now_rest = [(i, p) for i, p in enumerate(now_parts) if canonical_json(p) not in common]
        for (index, part), old_part in zip(now_rest, was_rest, strict=False):
            self.compare(old_part, part, f"{path}.allOf[{index}]", required=None)
        for _, part in now_rest[len(was_rest) :]:
            self.emit("constraint-tightened", path, None, describe_schema(part), detail="allOf part added")
        for part in was_rest[len(now_rest) :]:
            self.emit("constraint-relaxed", path, describe_schema(part), None, detail="allOf part removed")

    def _docs(self, old: JsonObject, new: JsonObject, path: str) -> None:
        for key in sorted(DOC_KEYS):
            if changed(old, new, key):
                self.emit("docs-changed", path, old.get(key), new.get(key), detail=key)

    # -- unions ------------------------------------------------------------------------------------------------

    def _branches(
        self, old: list[Any], new: list[Any], path: str, key: str, indexed_by_new: bool, required: bool | None
    ) -> None:
        old_rest = list(enumerate(old))
        new_rest = list(enumerate(new))
        new_prints = {canonical_json(b) for b in new}
        old_prints = {canonical_json(b) for b in old}
        old_rest = [(i, b) for i, b in old_rest if canonical_json(b) not in new_prints]
        new_rest = [(i, b) for i, b in new_rest if canonical_json(b) not in old_prints]
        was_null = any(_is_null(b) for _, b in old_rest)
        now_null = any(_is_null(b) for _, b in new_rest)
        old_rest = [(i, b) for i, b in old_rest if not _is_null(b)]
        new_rest = [(i, b) for i, b in new_rest if not _is_null(b)]
        if was_null and not now_null:
            self.emit("no-longer-nullable", path, "null", None)
        elif now_null and not was_null:
            self.emit("became-nullable", path, None, "null")
        scored = sorted(
            ((-_affinity(ob, nb), oi, ni) for oi, ob in old_rest for ni, nb in new_rest),
        )
        paired_old: set[int] = set()
        paired_new: set[int] = set()
        pairs: list[tuple[int, int]] = []
        for negative, oi, ni in scored:
            if negative >= 0 or oi in paired_old or ni in paired_new:
                continue
            paired_old.add(oi)
            paired_new.add(ni)
            pairs.append((oi, ni))
        for oi, ni in sorted(pairs, key=lambda pair: pair[1]):
            index = ni if indexed_by_new else oi
            self.compare(old[oi], new[ni], f"{path}.{key}[{index}]", required=required)
        for oi, branch in old_rest:
            if oi not in paired_old:
                self.emit("branch-removed", path, describe_schema(branch), None)
        for ni, branch in new_rest:
            if ni not in paired_new:
                self.emit("branch-added", path, None, describe_schema(branch))


def _names(value: Any) -> set[str]:
    return {v for v in value if isinstance(v, str)} if isinstance(value, list) else set()


def _is_null(branch: Any) -> bool:
    return isinstance(branch, dict) and branch.get("type") == "null" and len(branch) == 1


_OUTER_KEYS = DOC_KEYS | {"default"}


def _split_union(schema: JsonObject, key: str | None) -> tuple[JsonObject, list[Any]]:
    """(the keys around a union, its branches); a schema without a union is one branch per type."""
    if key is not None:
        return {k: v for k, v in schema.items() if k != key}, list(schema[key])
    outer = {k: v for k, v in schema.items() if k in _OUTER_KEYS}
    core = {k: v for k, v in schema.items() if k not in _OUTER_KEYS}
    kinds = type_set(core)
    if kinds is None or len(kinds) < 2:
        return outer, [core]
    return outer, [{**core, "type": kind} for kind in sorted(kinds)]


def _affinity(old: Any, new: Any) -> float:
    """How likely two union branches are the same branch, changed (> 0: pair them)."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return 0.0
    score = 0.0
    was, now = type_set(old), type_set(new)
    if was == now:
        score += 3
    elif was is not None and now is not None:
        score += 1 if (was & now or _covers(was, now) or _covers(now, was)) else -3
    for key in ("title", RECURSIVE_REF):
        if old.get(key) is not None and old.get(key) == new.get(key):
            score += 2
    old_props, new_props = mapping(old.get("properties")), mapping(new.get("properties"))
    if old_props and new_props:
        shared = set(old_props) & set(new_props)
        score += 4 * len(shared) / len(set(old_props) | set(new_props))
        for name in sorted(shared):
            a, b = mapping(old_props[name]).get("enum"), mapping(new_props[name]).get("enum")
            if isinstance(a, list) and isinstance(b, list) and len(a) == 1 and len(b) == 1:
                score += 5 if a == b else -5  # a discriminator
    if isinstance(old.get("enum"), list) and isinstance(new.get("enum"), list):
        score += 2 if {canonical_json(v) for v in old["enum"]} & {canonical_json(v) for v in new["enum"]} else 0
    return score
