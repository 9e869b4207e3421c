"""Each tool's IR (`build_ir.tool_ir`), kept in the user's cache by what it is built from: a run builds only the
changed tools' IR, and never re-parses the model source of the others (`cache.py`: one `tool-ir/` entry per
server).

A tool's IR is a pure function of its plan (its listing, the names given to it) and of its own models, which are
themselves named by a hash of what they are made from (`ModelsOutput.sources`): those two make the key.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, TypeVar

from mcp_codegen.diagnostics import Diagnostic
from mcp_codegen.generate import ir
from mcp_codegen.generate.build_ir import ToolIR, ToolPlan, tool_ir
from mcp_codegen.generate.cache import ServerResults, value_digest
from mcp_codegen.generate.models import ModelsOutput
from mcp_codegen.generate.prepared_cache import SCHEMA_KEYS

_T = TypeVar("_T")


def open_store(server_name: str) -> ServerResults | None:
    """The IR of `server_name`'s tools kept in the cache (None when it is off or unusable)."""
    from mcp_codegen.generate.fingerprint import generator_fingerprint

    return ServerResults.open("tool-ir", generator_fingerprint(), server_name, _valid)


def tool_irs(plans: Sequence[ToolPlan], models: ModelsOutput, store: ServerResults | None) -> list[ToolIR]:
    """`tool_ir` of every plan, in order: from `store` where it holds them, built (and added) otherwise."""
    parts = []
    for plan in plans:
        key = _key(plan, models.sources.get(plan.wire_name, "")) if store is not None else ""
        entry = store.get(key) if store is not None else None
        cached = _from_json(entry)
        if store is not None and entry is not None and cached is not None:
            store.use(key, entry, made=False)
            parts.append(cached)
            continue
        part = tool_ir(plan, models)
        if store is not None:
            store.use(key, _as_json(part), made=True)
        parts.append(part)
    return parts


def _key(plan: ToolPlan, models_source: str) -> str:
    raw = plan.raw
    if plan.prepared_key:  # encoding a large server's schemas again cost ~25 ms of a regeneration
        raw = {key: value for key, value in raw.items() if key not in SCHEMA_KEYS}  # named by it
    facts = [
        models_source,
        plan.prepared_key,
        raw,
        plan.python_name,
        plan.task_method,
        plan.class_prefix,
        plan.description_override,
        plan.parameter_names,
        plan.parameter_notes,
        plan.unwrap_result,
        plan.prepared.permissive_arguments,
        plan.prepared.result_class,
        plan.observed,
    ]
    return value_digest(facts)  # keys keep their order


def _as_json(part: ToolIR) -> dict[str, Any]:
    return {
        "tool": _plain(part.tool),
        "argumentModels": [_plain(model) for model in part.argument_models],
        "diagnostics": [diagnostic.as_json() for diagnostic in part.diagnostics],
    }


def _plain(value: Any) -> Any:
    """`dataclasses.asdict` as JSON data (tuples as lists), without its deep copy of every leaf: the IR holds
    strings, numbers and nested dataclasses, lists, tuples and dicts of them."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: _plain(getattr(value, field.name)) for field in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def _from_json(entry: dict[str, Any] | None) -> ToolIR | None:
    """The entry's IR, or None when there is none or it is not one this version wrote (a miss, never an error)."""
    if entry is None or entry.keys() != {"tool", "argumentModels", "diagnostics"}:
        return None
    try:
        return _parsed(entry)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _parsed(entry: dict[str, Any]) -> ToolIR:
    tool = entry["tool"]
    models = entry["argumentModels"]
    return ToolIR(
        tool=_made(
            ir.Tool,
            {
                **tool,
                "parameters": tuple(_made(ir.Parameter, p) for p in tool["parameters"]),
                **({"ui_visibility": tuple(tool["ui_visibility"])} if tool.get("ui_visibility") is not None else {}),
            },
        ),
        argument_models=tuple(
            _made(ir.Model, {**m, "fields": tuple(_made(ir.ModelField, f) for f in m["fields"])}) for m in models
        ),
        diagnostics=tuple(Diagnostic.from_json(d) for d in entry["diagnostics"]),
    )


_FIELDS: dict[type, frozenset[str]] = {}


def _made(cls: type[_T], values: dict[str, Any]) -> _T:
    """`cls(**values)` for one of the IR's frozen dataclasses, without its `__init__` (a frozen class sets each
    field through `object.__setattr__`: the IR of 300+ cached tools holds tens of thousands of fields). Only
    an entry naming every field exactly is taken this way; any other goes through `__init__` (and its errors)."""
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = frozenset(field.name for field in dataclasses.fields(cls))  # type: ignore[arg-type]
    if values.keys() != names:
        return cls(**values)
    made = object.__new__(cls)
    made.__dict__.update(values)
    return made


def _valid(entry: dict[str, Any]) -> bool:
    return isinstance(entry.get("tool"), dict)  # the whole entry is checked as it is read (`_from_json`)
