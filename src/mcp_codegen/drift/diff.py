"""Classify every difference between two snapshots (DRIFT_RULES.md; the rules are in `rules.py`).

`diff_snapshots(old, new)` keys items (tools and prompts by name, resources by URI, templates by URI template),
normalises schemas (`normalize.py`) and walks them in parallel, emitting one `Finding` per classified change.
Input schemas are walked as *sent* (a narrower schema breaks old calls), output schemas as *received* (a wider
schema breaks old result models). The walk recurses into nested objects, array items (`[]`), tuple items
(`[0]`), additional-property values (`.*`), `anyOf`/`oneOf` branches (`.anyOf[i]`, i counted in the new schema
when it has a union), `allOf` parts (`.allOf[i]`) and, through normalisation, into `$ref`'d definitions.

Findings come in a deterministic order: server, tools, prompts, resources, resource templates; then by location,
rule and values.

`load_side(path)` reads one side: a snapshot file, or a generated package directory (its `snapshot.json`).
A side that cannot be read raises `SnapshotFormatError`: a failed load never reads as "no drift".
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from mcp_codegen.drift.model import DriftReport, Finding
from mcp_codegen.drift.normalize import (
    DOC_KEYS,
    RECURSIVE_REF,
    UNION_KEYS,
    canonical_json,
    index_items,
    normalize_schema,
    type_set,
)
from mcp_codegen.drift.rules import get_rule, render_reason
from mcp_codegen.errors import SnapshotFormatError
from mcp_codegen.snapshot.model import Snapshot, read_snapshot

__all__ = ["DriftReport", "Finding", "diff_snapshots", "load_side"]

Direction = Literal["input", "output"]
JsonObject = dict[str, Any]

_SECTION_ORDER = {"server": 0, "tools": 1, "prompts": 2, "resources": 3, "resourceTemplates": 4}

#: Tool annotations: spec default, and the value that is the riskier one.
_HINTS: tuple[tuple[str, bool, bool], ...] = (
    ("readOnlyHint", False, False),
    ("destructiveHint", True, True),
    ("idempotentHint", False, False),
    ("openWorldHint", True, True),
)
_TASK_SUPPORT_DEFAULT = "forbidden"
_TOOL_KNOWN_KEYS = frozenset(
    {"name", "title", "description", "annotations", "execution", "inputSchema", "outputSchema"}
)
#: Capabilities whose removal makes a whole kind of request fail.
_CORE_CAPABILITIES = frozenset({"tools", "prompts", "resources"})

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


# ---- loading ---------------------------------------------------------------------------------------------------


def load_side(path: Path) -> Snapshot:
    """One side of a diff: a snapshot file, or a generated package or project directory (its `snapshot.json`).

    Raises `SnapshotFormatError` (one line, naming the path) when the side cannot be read.
    """
    if path.is_dir():
        snapshot_file = path / "snapshot.json"
        inside = sorted(path.glob("src/*/snapshot.json"))  # a project (`generate --meta pyproject`)
        if not snapshot_file.is_file() and len(inside) == 1:
            snapshot_file = inside[0]
        if not snapshot_file.is_file():
            raise SnapshotFormatError(
                f"{path}: a directory but not a generated package (no snapshot.json); give a snapshot file or a package"
            )
        return read_snapshot(snapshot_file)
    if not path.exists():
        raise SnapshotFormatError(f"{path}: no such snapshot file or package directory")
    return read_snapshot(path)


# ---- the diff --------------------------------------------------------------------------------------------------


def diff_snapshots(old: Snapshot, new: Snapshot) -> DriftReport:
    """Every classified difference between `old` and `new`, in a deterministic order."""
    out = _Findings()
    _diff_server(old, new, out)
    _diff_tools(index_items(old.tools, "name"), index_items(new.tools, "name"), out)
    _diff_prompts(index_items(old.prompts, "name"), index_items(new.prompts, "name"), out)
    _diff_resources(index_items(old.resources, "uri"), index_items(new.resources, "uri"), out)
    _diff_templates(
        index_items(old.resource_templates, "uriTemplate"), index_items(new.resource_templates, "uriTemplate"), out
    )
    return DriftReport(findings=out.sorted())


class _Findings:
    def __init__(self) -> None:
        self.items: list[Finding] = []

    def emit(
        self,
        rule_id: str,
        location: str,
        old: Any = None,
        new: Any = None,
        *,
        hint: str | None = None,
        name: str = "",
        detail: str = "",
    ) -> None:
        rule = get_rule(rule_id)
        fields = {"name": name, "detail": detail, "old": _show(old), "new": _show(new)}
        self.items.append(
            Finding(
                rule=rule.id,
                level=rule.level,
                location=location,
                old=old,
                new=new,
                reason=render_reason(rule, **fields),
                wire_impact=rule.wire_impact.format_map(_Blank(fields)),
                source_impact=rule.source_impact.format_map(_Blank(fields)),
                hint=hint,
            )
        )

    def sorted(self) -> tuple[Finding, ...]:
        def key(finding: Finding) -> tuple[int, str, str, str]:
            section = finding.location.split(".", 1)[0]
            values = canonical_json([finding.old, finding.new])
            return (_SECTION_ORDER.get(section, 9), finding.location, finding.rule, values)

        return tuple(sorted(self.items, key=key))


class _Blank(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "?"


def _show(value: Any, limit: int = 80) -> str:
    """A value as compact JSON, cut to `limit` characters, for reasons."""
    if value is None:
        return "none"
    text = value if isinstance(value, str) else canonical_json(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _changed(old: Mapping[str, Any], new: Mapping[str, Any], key: str) -> bool:
    return (key in old) != (key in new) or old.get(key) != new.get(key)


# ---- server ----------------------------------------------------------------------------------------------------


def _diff_server(old: Snapshot, new: Snapshot, out: _Findings) -> None:
    _diff_capabilities(old.capabilities, new.capabilities, "server.capabilities", "", out)
    if old.protocol_version != new.protocol_version:
        out.emit("protocol-version-changed", "server.protocolVersion", old.protocol_version, new.protocol_version)
    for key in sorted(set(old.server_info) | set(new.server_info)):
        if not _changed(old.server_info, new.server_info, key):
            continue
        rule = "server-version-changed" if key == "version" else "server-info-changed"
        out.emit(rule, f"server.serverInfo.{key}", old.server_info.get(key), new.server_info.get(key), detail=key)
    if old.instructions != new.instructions:
        out.emit("instructions-changed", "server.instructions", old.instructions, new.instructions)


def _diff_capabilities(
    old: Mapping[str, Any], new: Mapping[str, Any], location: str, prefix: str, out: _Findings
) -> None:
    for key in sorted(set(old) | set(new)):
        here, name = f"{location}.{key}", f"{prefix}{key}"
        was, now = old.get(key), new.get(key)
        offered_before, offered_now = not _off(was), not _off(now)
        if offered_before and not offered_now:
            rule = "capability-removed" if not prefix and key in _CORE_CAPABILITIES else "capability-feature-removed"
            out.emit(rule, here, was, now, name=name)
        elif offered_now and not offered_before:
            out.emit("capability-added", here, was, now, name=name)
        elif isinstance(was, Mapping) and isinstance(now, Mapping):
            _diff_capabilities(was, now, here, f"{name}.", out)
        elif was != now and offered_now:
            # A changed value the rules do not know (a string, a number): treated as the old feature gone.
            out.emit("capability-feature-removed", here, was, now, name=name)


def _off(value: Any) -> bool:
    """A capability flag that offers nothing (absent, null or false)."""
    return value is None or value is False


# ---- tools -----------------------------------------------------------------------------------------------------


def _diff_tools(old: dict[str, JsonObject], new: dict[str, JsonObject], out: _Findings) -> None:
    removed = sorted(old.keys() - new.keys())
    added = sorted(new.keys() - old.keys())
    renamed_to, renamed_from, candidates = _rename_candidates(
        {name: old[name] for name in removed}, {name: new[name] for name in added}, _tool_fingerprint
    )
    for name in removed:
        if name in renamed_to:
            target = renamed_to[name]
            out.emit("tool-renamed", f"tools.{name}", name, target, name=name, hint=f"possibly renamed to {target}")
        else:
            hint = _candidates_hint(candidates.get(name, ()))
            out.emit("tool-removed", f"tools.{name}", name, None, name=name, hint=hint)
    for name in added:
        hint = f"possibly the new name of {renamed_from[name]}" if name in renamed_from else None
        out.emit("tool-added", f"tools.{name}", None, name, name=name, hint=hint)
    for name in sorted(old.keys() & new.keys()):
        if old[name] != new[name]:
            _diff_tool(name, old[name], new[name], out)


def _tool_fingerprint(tool: Mapping[str, Any]) -> str:
    schema = normalize_schema(tool.get("inputSchema"))
    if isinstance(schema, dict):
        # FastMCP titles the arguments schema after the function ("get_noteArguments"): not part of the shape.
        schema = {k: v for k, v in schema.items() if k != "title"}
    return canonical_json(schema)


def _prompt_fingerprint(prompt: Mapping[str, Any]) -> str:
    arguments = prompt.get("arguments")
    shape = sorted(
        (str(a.get("name")), a.get("required") is True)
        for a in (arguments if isinstance(arguments, list) else [])
        if isinstance(a, Mapping)
    )
    return canonical_json(shape)


def _rename_candidates(
    removed: Mapping[str, JsonObject], added: Mapping[str, JsonObject], fingerprint: Callable[[JsonObject], str]
) -> tuple[dict[str, str], dict[str, str], dict[str, tuple[str, ...]]]:
    """One-to-one renames (same fingerprint, nothing else shares it) and the ambiguous candidates."""
    if not removed or not added:
        return {}, {}, {}
    by_print_added: dict[str, list[str]] = {}
    for name, item in added.items():
        by_print_added.setdefault(fingerprint(item), []).append(name)
    by_print_removed: dict[str, list[str]] = {}
    for name, item in removed.items():
        by_print_removed.setdefault(fingerprint(item), []).append(name)
    renamed_to: dict[str, str] = {}
    renamed_from: dict[str, str] = {}
    candidates: dict[str, tuple[str, ...]] = {}
    for print_, names in by_print_removed.items():
        targets = sorted(by_print_added.get(print_, ()))
        if len(names) == 1 and len(targets) == 1:
            renamed_to[names[0]] = targets[0]
            renamed_from[targets[0]] = names[0]
        elif targets:
            for name in names:
                candidates[name] = tuple(targets)
    return renamed_to, renamed_from, candidates


def _candidates_hint(candidates: Iterable[str]) -> str | None:
    names = list(candidates)
    if not names:
        return None
    shown = ", ".join(names[:3]) + (f" (+{len(names) - 3} more)" if len(names) > 3 else "")
    return f"possibly renamed to one of: {shown}"


def _diff_tool(name: str, old: JsonObject, new: JsonObject, out: _Findings) -> None:
    base = f"tools.{name}"
    if _changed(old, new, "title"):
        out.emit("tool-title-changed", f"{base}.title", old.get("title"), new.get("title"), name=name)
    if _changed(old, new, "description"):
        out.emit(
            "tool-description-changed", f"{base}.description", old.get("description"), new.get("description"), name=name
        )
    _diff_annotations(name, _mapping(old.get("annotations")), _mapping(new.get("annotations")), out)
    _diff_execution(name, _mapping(old.get("execution")), _mapping(new.get("execution")), out)
    _diff_other_metadata(name, base, "", old, new, _TOOL_KNOWN_KEYS, out)
    if _changed(old, new, "inputSchema"):
        _SchemaWalker("input", out).diff_root(
            normalize_schema(old.get("inputSchema", {})), normalize_schema(new.get("inputSchema", {})), f"{base}.input"
        )
    had, has = old.get("outputSchema") is not None, new.get("outputSchema") is not None
    if had and not has:
        out.emit(
            "output-schema-removed", f"{base}.output", describe_schema(normalize_schema(old["outputSchema"])), name=name
        )
    elif has and not had:
        out.emit(
            "output-schema-added",
            f"{base}.output",
            None,
            describe_schema(normalize_schema(new["outputSchema"])),
            name=name,
        )
    elif had and _changed(old, new, "outputSchema"):
        _SchemaWalker("output", out).diff_root(
            normalize_schema(old["outputSchema"]), normalize_schema(new["outputSchema"]), f"{base}.output"
        )


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _diff_annotations(name: str, old: Mapping[str, Any], new: Mapping[str, Any], out: _Findings) -> None:
    base = f"tools.{name}.annotations"
    for hint, default, risky in _HINTS:
        was = old.get(hint) if isinstance(old.get(hint), bool) else default
        now = new.get(hint) if isinstance(new.get(hint), bool) else default
        if was != now:
            rule = "annotation-riskier" if now == risky else "annotation-safer"
            out.emit(rule, f"{base}.{hint}", was, now, name=name, detail=hint)
    if _changed(old, new, "title"):
        out.emit("tool-title-changed", f"{base}.title", old.get("title"), new.get("title"), name=name)
    known = {hint for hint, _, _ in _HINTS} | {"title"}
    _diff_other_metadata(name, base, "annotations.", old, new, known, out)


def _diff_execution(name: str, old: Mapping[str, Any], new: Mapping[str, Any], out: _Findings) -> None:
    base = f"tools.{name}.execution"
    was = old.get("taskSupport") if isinstance(old.get("taskSupport"), str) else _TASK_SUPPORT_DEFAULT
    now = new.get("taskSupport") if isinstance(new.get("taskSupport"), str) else _TASK_SUPPORT_DEFAULT
    if was != now:
        if now == "required":
            rule = "task-support-required"
        elif was == "required" and now == "forbidden":
            rule = "task-support-forbidden"
        elif now == "forbidden":
            rule = "task-support-narrowed"
        else:
            rule = "task-support-changed"
        out.emit(rule, f"{base}.taskSupport", was, now, name=name)
    _diff_other_metadata(name, base, "execution.", old, new, {"taskSupport"}, out)


def _diff_other_metadata(
    name: str,
    base: str,
    detail_prefix: str,
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    known: Collection[str],
    out: _Findings,
) -> None:
    """Keys with no rule of their own (vendor and future ones): any change is `tool-metadata-changed`."""
    for key in sorted((set(old) | set(new)) - set(known)):
        if _changed(old, new, key):
            detail = detail_prefix + key
            out.emit("tool-metadata-changed", f"{base}.{key}", old.get(key), new.get(key), name=name, detail=detail)


# ---- schemas ---------------------------------------------------------------------------------------------------


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if _PLAIN_NAME.match(name) else f"{path}[{json.dumps(name, ensure_ascii=False)}]"


def _label(relative: str, direction: Direction) -> str:
    if not relative:
        return "arguments" if direction == "input" else "result"
    return relative.lstrip(".")


def describe_schema(schema: Any) -> str:
    """A short human description of a (normalised) schema: `string`, `object (Author)`, `array of integer`."""
    if not isinstance(schema, Mapping):
        return _show(schema)
    if RECURSIVE_REF in schema:
        return f"recursive {schema[RECURSIVE_REF]}"
    if isinstance(schema.get("enum"), list):
        return "enum " + _show(schema["enum"], 60)
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


class _SchemaWalker:
    """Walks two normalised schemas in parallel, in one direction (input: sent, output: received)."""

    def __init__(self, direction: Direction, out: _Findings) -> None:
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
            if _changed(old, new, key):
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
        if not _changed(old, new, "default"):
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
        old_props, new_props = _mapping(old.get("properties")), _mapping(new.get("properties"))
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
            if _changed(old, new, key):
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
    old_props, new_props = _mapping(old.get("properties")), _mapping(new.get("properties"))
    if old_props and new_props:
        shared = set(old_props) & set(new_props)
        score += 4 * len(shared) / len(set(old_props) | set(new_props))
        for name in sorted(shared):
            a, b = _mapping(old_props[name]).get("enum"), _mapping(new_props[name]).get("enum")
            if isinstance(a, list) and isinstance(b, list) and len(a) == 1 and len(b) == 1:
                score += 5 if a == b else -5  # a discriminator
    if isinstance(old.get("enum"), list) and isinstance(new.get("enum"), list):
        score += 2 if {canonical_json(v) for v in old["enum"]} & {canonical_json(v) for v in new["enum"]} else 0
    return score


# ---- prompts ---------------------------------------------------------------------------------------------------


def _diff_prompts(old: dict[str, JsonObject], new: dict[str, JsonObject], out: _Findings) -> None:
    removed = sorted(old.keys() - new.keys())
    added = sorted(new.keys() - old.keys())
    renamed_to, renamed_from, _ = _rename_candidates(
        {n: old[n] for n in removed}, {n: new[n] for n in added}, _prompt_fingerprint
    )
    for name in removed:
        hint = f"possibly renamed to {renamed_to[name]}" if name in renamed_to else None
        out.emit("prompt-removed", f"prompts.{name}", name, None, name=name, hint=hint)
    for name in added:
        hint = f"possibly the new name of {renamed_from[name]}" if name in renamed_from else None
        out.emit("prompt-added", f"prompts.{name}", None, name, name=name, hint=hint)
    for name in sorted(old.keys() & new.keys()):
        if old[name] != new[name]:
            _diff_prompt(name, old[name], new[name], out)


def _diff_prompt(name: str, old: JsonObject, new: JsonObject, out: _Findings) -> None:
    base = f"prompts.{name}"
    for key in sorted((set(old) | set(new)) - {"name", "arguments"}):
        if _changed(old, new, key):
            out.emit("prompt-docs-changed", f"{base}.{key}", old.get(key), new.get(key), name=name, detail=key)
    old_args = index_items(_objects(old.get("arguments")), "name")
    new_args = index_items(_objects(new.get("arguments")), "name")
    for arg in sorted(set(old_args) | set(new_args)):
        here = f"{base}.arguments.{arg}"
        was, now = old_args.get(arg), new_args.get(arg)
        if now is None:
            out.emit("prompt-argument-removed", here, arg, None, name=name, detail=arg)
        elif was is None:
            rule = "prompt-required-argument-added" if now.get("required") is True else "prompt-optional-argument-added"
            out.emit(rule, here, None, arg, name=name, detail=arg)
        else:
            was_required, is_required = was.get("required") is True, now.get("required") is True
            if was_required != is_required:
                rule = "prompt-argument-became-required" if is_required else "prompt-argument-became-optional"
                out.emit(rule, here, was_required, is_required, name=name, detail=arg)
            for key in sorted((set(was) | set(now)) - {"name", "required"}):
                if _changed(was, now, key):
                    out.emit(
                        "prompt-docs-changed",
                        here,
                        was.get(key),
                        now.get(key),
                        name=name,
                        detail=f"argument {arg!r} {key}",
                    )


def _objects(value: Any) -> list[JsonObject]:
    return [dict(v) for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


# ---- resources and templates -----------------------------------------------------------------------------------


def _diff_resources(old: dict[str, JsonObject], new: dict[str, JsonObject], out: _Findings) -> None:
    added_by_name: dict[str, list[str]] = {}
    for uri in sorted(new.keys() - old.keys()):
        added_by_name.setdefault(str(new[uri].get("name")), []).append(uri)
    for uri in sorted(old.keys() - new.keys()):
        moved = added_by_name.get(str(old[uri].get("name")), [])
        hint = f"possibly moved to {moved[0]}" if len(moved) == 1 else None
        out.emit("resource-removed", f"resources.{uri}", uri, None, name=uri, hint=hint)
    for uri in sorted(new.keys() - old.keys()):
        out.emit("resource-added", f"resources.{uri}", None, uri, name=uri)
    for uri in sorted(old.keys() & new.keys()):
        was, now = old[uri], new[uri]
        if was == now:
            continue
        here = f"resources.{uri}"
        for key in sorted((set(was) | set(now)) - {"uri"}):
            if not _changed(was, now, key):
                continue
            if key == "mimeType":
                out.emit("resource-mime-type-changed", here, was.get(key), now.get(key), name=uri)
            elif key == "name":
                out.emit("resource-name-changed", here, was.get(key), now.get(key), name=uri)
            else:
                out.emit("resource-docs-changed", here, was.get(key), now.get(key), name=uri, detail=key)


def template_parts(template: str) -> tuple[str, list[str]]:
    """(the literal skeleton with each expression reduced to its operator, the variable names in order)."""
    from mcp_codegen.runtime.calls.uri import uri_template_expressions  # on use: the runtime is slow to import

    skeleton: list[str] = []
    names: list[str] = []
    position = 0
    for expression in uri_template_expressions(template):
        skeleton.append(template[position : expression.start] + "{" + expression.operator + "}")
        names.extend(variable.name for variable in expression.variables)
        position = expression.end
    skeleton.append(template[position:])
    return "".join(skeleton), names


def _diff_templates(old: dict[str, JsonObject], new: dict[str, JsonObject], out: _Findings) -> None:
    removed = sorted(old.keys() - new.keys())
    added = sorted(new.keys() - old.keys())
    # A template whose URI template changed but kept its name is the same template, changed.
    added_by_name: dict[str, list[str]] = {}
    for key in added:
        added_by_name.setdefault(str(new[key].get("name")), []).append(key)
    removed_by_name: dict[str, list[str]] = {}
    for key in removed:
        removed_by_name.setdefault(str(old[key].get("name")), []).append(key)
    pairs: list[tuple[str, str]] = []
    for name, keys in removed_by_name.items():
        targets = added_by_name.get(name, [])
        if len(keys) == 1 and len(targets) == 1:
            pairs.append((keys[0], targets[0]))
    paired_old = {a for a, _ in pairs}
    paired_new = {b for _, b in pairs}
    for key in removed:
        if key not in paired_old:
            out.emit("template-removed", f"resourceTemplates.{key}", key, None, name=key)
    for key in added:
        if key not in paired_new:
            out.emit("template-added", f"resourceTemplates.{key}", None, key, name=key)
    for key in sorted(old.keys() & new.keys()):
        if old[key] != new[key]:
            _diff_template(key, old[key], new[key], out)
    for old_key, new_key in pairs:
        _diff_template(old_key, old[old_key], new[new_key], out)


def _diff_template(key: str, was: JsonObject, now: JsonObject, out: _Findings) -> None:
    here = f"resourceTemplates.{key}"
    old_template, new_template = str(was.get("uriTemplate", key)), str(now.get("uriTemplate", key))
    hint = f"uriTemplate is now {new_template}" if old_template != new_template else None
    if old_template != new_template:
        old_skeleton, old_names = template_parts(old_template)
        new_skeleton, new_names = template_parts(new_template)
        gone = [n for n in old_names if n not in new_names]
        fresh = [n for n in new_names if n not in old_names]
        if gone and len(gone) == len(fresh):
            renames = ", ".join(f"{a} → {b}" for a, b in zip(gone, fresh, strict=True))
            out.emit("template-variable-renamed", here, old_template, new_template, name=key, detail=renames, hint=hint)
        else:
            if fresh:
                out.emit(
                    "template-variable-added",
                    here,
                    old_template,
                    new_template,
                    name=key,
                    detail=", ".join(fresh),
                    hint=hint,
                )
            if gone:
                out.emit(
                    "template-variable-removed",
                    here,
                    old_template,
                    new_template,
                    name=key,
                    detail=", ".join(gone),
                    hint=hint,
                )
        # With as many expressions on both sides, a different skeleton is a change of the literal text;
        # otherwise the variables added or removed already say what changed.
        if old_skeleton.count("{") == new_skeleton.count("{") and old_skeleton != new_skeleton:
            out.emit("template-literal-changed", here, old_template, new_template, name=key, hint=hint)
    for field in sorted((set(was) | set(now)) - {"uriTemplate"}):
        if not _changed(was, now, field):
            continue
        if field == "mimeType":
            out.emit("template-mime-type-changed", here, was.get(field), now.get(field), name=key, hint=hint)
        elif field == "name":
            out.emit("template-name-changed", here, was.get(field), now.get(field), name=key, hint=hint)
        else:
            out.emit("template-docs-changed", here, was.get(field), now.get(field), name=key, detail=field, hint=hint)
