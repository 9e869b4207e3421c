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

from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path
from typing import Any

from mcp_codegen.drift.findings import Findings, JsonObject, changed, mapping
from mcp_codegen.drift.model import DriftReport, Finding
from mcp_codegen.drift.normalize import (
    canonical_json,
    index_items,
    normalize_schema,
)
from mcp_codegen.drift.schemas import SchemaWalker, describe_schema
from mcp_codegen.drift.skills import diff_skills
from mcp_codegen.errors import SnapshotFormatError
from mcp_codegen.snapshot.model import Snapshot, read_snapshot
from mcp_codegen_runtime.calls.ui import ToolUI, tool_ui

__all__ = ["DriftReport", "Finding", "diff_snapshots", "load_side"]


#: Tool annotations: spec default, and the value that is the riskier one.
_HINTS: tuple[tuple[str, bool, bool], ...] = (
    ("readOnlyHint", False, False),
    ("destructiveHint", True, True),
    ("idempotentHint", False, False),
    ("openWorldHint", True, True),
)
_TASK_SUPPORT_DEFAULT = "forbidden"
_TOOL_KNOWN_KEYS = frozenset(
    {"name", "title", "description", "annotations", "execution", "inputSchema", "outputSchema", "_meta"}
)
#: Capabilities whose removal makes a whole kind of request fail.
_CORE_CAPABILITIES = frozenset({"tools", "prompts", "resources"})


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
    out = Findings()
    _diff_server(old, new, out)
    _diff_tools(index_items(old.tools, "name"), index_items(new.tools, "name"), out)
    if _compared(old, new, "prompts", out):
        _diff_prompts(index_items(old.prompts, "name"), index_items(new.prompts, "name"), out)
    if _compared(old, new, "resources", out):
        _diff_resources(index_items(old.resources, "uri"), index_items(new.resources, "uri"), out)
    if _compared(old, new, "resourceTemplates", out):
        _diff_templates(
            index_items(old.resource_templates, "uriTemplate"), index_items(new.resource_templates, "uriTemplate"), out
        )
    diff_skills(old.skills, new.skills, out)
    return DriftReport(findings=out.sorted())


def _compared(old: Snapshot, new: Snapshot, key: str, out: Findings) -> bool:
    """Whether both snapshots hold listing `key`, so its items can be compared. A listing one of them lacks
    (`not_listed`: failed, timed out or skipped) is not compared, which would read as everything removed or
    added: one `listing-not-compared` finding says so instead (none when both skipped it on purpose)."""
    was, now = old.not_listed.get(key), new.not_listed.get(key)
    if was is None and now is None:
        return True
    if was == now == "skipped":
        return False
    sides = [
        f"{reason.replace('-', ' ')} in the {side} snapshot" for side, reason in (("old", was), ("new", now)) if reason
    ]
    out.emit("listing-not-compared", key, was or "listed", now or "listed", name=key, detail=" and ".join(sides))
    return False


# ---- server ----------------------------------------------------------------------------------------------------


def _diff_server(old: Snapshot, new: Snapshot, out: Findings) -> None:
    _diff_capabilities(old.capabilities, new.capabilities, "server.capabilities", "", out)
    if old.protocol_version != new.protocol_version:
        out.emit("protocol-version-changed", "server.protocolVersion", old.protocol_version, new.protocol_version)
    for key in sorted(set(old.server_info) | set(new.server_info)):
        if not changed(old.server_info, new.server_info, key):
            continue
        rule = "server-version-changed" if key == "version" else "server-info-changed"
        out.emit(rule, f"server.serverInfo.{key}", old.server_info.get(key), new.server_info.get(key), detail=key)
    if old.instructions != new.instructions:
        out.emit("instructions-changed", "server.instructions", old.instructions, new.instructions)


def _diff_capabilities(
    old: Mapping[str, Any], new: Mapping[str, Any], location: str, prefix: str, out: Findings
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


def _diff_tools(old: dict[str, JsonObject], new: dict[str, JsonObject], out: Findings) -> None:
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


def _diff_tool(name: str, old: JsonObject, new: JsonObject, out: Findings) -> None:
    base = f"tools.{name}"
    if changed(old, new, "title"):
        out.emit("tool-title-changed", f"{base}.title", old.get("title"), new.get("title"), name=name)
    if changed(old, new, "description"):
        out.emit(
            "tool-description-changed", f"{base}.description", old.get("description"), new.get("description"), name=name
        )
    _diff_annotations(name, mapping(old.get("annotations")), mapping(new.get("annotations")), out)
    _diff_execution(name, mapping(old.get("execution")), mapping(new.get("execution")), out)
    _diff_other_metadata(name, base, "", old, new, _TOOL_KNOWN_KEYS, out)
    _diff_meta(name, old.get("_meta"), new.get("_meta"), out)
    if changed(old, new, "inputSchema"):
        SchemaWalker("input", out).diff_root(
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
    elif had and changed(old, new, "outputSchema"):
        SchemaWalker("output", out).diff_root(
            normalize_schema(old["outputSchema"]), normalize_schema(new["outputSchema"]), f"{base}.output"
        )


def _diff_annotations(name: str, old: Mapping[str, Any], new: Mapping[str, Any], out: Findings) -> None:
    base = f"tools.{name}.annotations"
    for hint, default, risky in _HINTS:
        was = old.get(hint) if isinstance(old.get(hint), bool) else default
        now = new.get(hint) if isinstance(new.get(hint), bool) else default
        if was != now:
            rule = "annotation-riskier" if now == risky else "annotation-safer"
            out.emit(rule, f"{base}.{hint}", was, now, name=name, detail=hint)
    if changed(old, new, "title"):
        out.emit("tool-title-changed", f"{base}.title", old.get("title"), new.get("title"), name=name)
    known = {hint for hint, _, _ in _HINTS} | {"title"}
    _diff_other_metadata(name, base, "annotations.", old, new, known, out)


def _diff_execution(name: str, old: Mapping[str, Any], new: Mapping[str, Any], out: Findings) -> None:
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


def _diff_meta(name: str, old: object, new: object, out: Findings) -> None:
    """A tool's `_meta`: its MCP Apps UI (resource URI, visibility) by its own rules, the rest as metadata."""
    base = f"tools.{name}._meta.ui"
    was, now = tool_ui(old) or ToolUI(), tool_ui(new) or ToolUI()
    if was.resource_uri != now.resource_uri:
        if was.resource_uri is None:
            rule = "tool-ui-added"
        elif now.resource_uri is None:
            rule = "tool-ui-removed"
        else:
            rule = "tool-ui-resource-changed"
        out.emit(rule, f"{base}.resourceUri", was.resource_uri, now.resource_uri, name=name)
    if set(was.visibility) != set(now.visibility):
        if was.model_visible != now.model_visible:
            rule = "tool-became-model-visible" if now.model_visible else "tool-became-app-only"
        else:
            rule = "tool-visibility-changed"
        out.emit(rule, f"{base}.visibility", list(was.visibility), list(now.visibility), name=name)
    if _without_ui(old) != _without_ui(new):
        out.emit("tool-metadata-changed", f"tools.{name}._meta", old, new, name=name, detail="_meta")


def _without_ui(meta: object) -> object:
    """`_meta` without what `_diff_meta` classifies itself: the UI's visibility and resource URI (the flat key
    too, when it names the same URI as the nested one, or is the only one)."""
    if not isinstance(meta, dict):
        return meta
    ui_found = tool_ui(meta)
    uri = ui_found.resource_uri if ui_found is not None else None
    rest = {key: value for key, value in meta.items() if not (key == "ui/resourceUri" and value == uri)}
    ui = rest.get("ui")
    if isinstance(ui, dict):
        ui = {key: value for key, value in ui.items() if key not in ("resourceUri", "visibility")}
        if ui:
            rest["ui"] = ui
        else:
            del rest["ui"]
    return rest or None


def _diff_other_metadata(
    name: str,
    base: str,
    detail_prefix: str,
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    known: Collection[str],
    out: Findings,
) -> None:
    """Keys with no rule of their own (vendor and future ones): any change is `tool-metadata-changed`."""
    for key in sorted((set(old) | set(new)) - set(known)):
        if changed(old, new, key):
            detail = detail_prefix + key
            out.emit("tool-metadata-changed", f"{base}.{key}", old.get(key), new.get(key), name=name, detail=detail)


# ---- schemas ---------------------------------------------------------------------------------------------------


# ---- prompts ---------------------------------------------------------------------------------------------------


def _diff_prompts(old: dict[str, JsonObject], new: dict[str, JsonObject], out: Findings) -> None:
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


def _diff_prompt(name: str, old: JsonObject, new: JsonObject, out: Findings) -> None:
    base = f"prompts.{name}"
    for key in sorted((set(old) | set(new)) - {"name", "arguments"}):
        if changed(old, new, key):
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
                if changed(was, now, key):
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


def _diff_resources(old: dict[str, JsonObject], new: dict[str, JsonObject], out: Findings) -> None:
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
            if not changed(was, now, key):
                continue
            if key == "mimeType":
                out.emit("resource-mime-type-changed", here, was.get(key), now.get(key), name=uri)
            elif key == "name":
                out.emit("resource-name-changed", here, was.get(key), now.get(key), name=uri)
            else:
                out.emit("resource-docs-changed", here, was.get(key), now.get(key), name=uri, detail=key)


def template_parts(template: str) -> tuple[str, list[str]]:
    """(the literal skeleton with each expression reduced to its operator, the variable names in order)."""
    from mcp_codegen_runtime.calls.uri import uri_template_expressions  # on use: the runtime is slow to import

    skeleton: list[str] = []
    names: list[str] = []
    position = 0
    for expression in uri_template_expressions(template):
        skeleton.append(template[position : expression.start] + "{" + expression.operator + "}")
        names.extend(variable.name for variable in expression.variables)
        position = expression.end
    skeleton.append(template[position:])
    return "".join(skeleton), names


def _diff_templates(old: dict[str, JsonObject], new: dict[str, JsonObject], out: Findings) -> None:
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


def _diff_template(key: str, was: JsonObject, now: JsonObject, out: Findings) -> None:
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
        if not changed(was, now, field):
            continue
        if field == "mimeType":
            out.emit("template-mime-type-changed", here, was.get(field), now.get(field), name=key, hint=hint)
        elif field == "name":
            out.emit("template-name-changed", here, was.get(field), now.get(field), name=key, hint=hint)
        else:
            out.emit("template-docs-changed", here, was.get(field), now.get(field), name=key, detail=field, hint=hint)
