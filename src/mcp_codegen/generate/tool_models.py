"""Each tool's models, made on their own: one generator call per tool, cached by what it depends on, in parallel.

A tool's models depend only on its own prepared definitions (every `$ref` is hoisted under the tool's own
prefix), the field names chosen for them and its nullable parameters: so each tool's code is a pure function
of those, generated alone (its field names are chosen among its own properties, not the whole server's).
That makes three things safe at once, with byte-identical output whatever happens:

* a cache: the result of a tool is stored under a hash of exactly those inputs plus the generator's
  fingerprint, so regenerating after one tool changed makes that tool's models only;
* parallel work: tools missing from the cache are spread over worker processes (`workers.py`) when there
  are enough of them to pay for starting the workers, or when the run started them early;
* isolation: a tool the model generator cannot handle is found at once and made permissive (a warning),
  without re-running the others.

The cache is `cache.py`'s (`models/` in the user's cache directory), one entry per tool result.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from mcp_codegen.diagnostics import Diagnostic, Diagnostics, Level
from mcp_codegen.generate.build_ir import ToolPlan, datamodel_document
from mcp_codegen.generate.cache import ResultCache
from mcp_codegen.generate.models import FieldInfo, ModelsOutput, property_names, run_datamodel_codegen, split_models
from mcp_codegen.generate.workers import cores, run_units

#: Below this many tools to generate, a second process costs more than it saves (measured on 2 cores: the
#: workers are forked after the model generator is imported, and a tool takes 10-30 ms; 10 tools break even).
PARALLEL_FROM = 12
_FORMAT = 2
#: At most this many tools per model generator call (more saves little and gives the workers uneven shares).
BATCH_SIZE = 8


def tool_models(plans: Sequence[ToolPlan], diagnostics: Diagnostics, *, workers: int | None = None) -> ModelsOutput:
    """The models of every tool of `plans`, merged in plan order (cache and workers as the module says).

    `workers` forces the number of worker processes (1: none); by default both cores are used when at least
    `PARALLEL_FROM` tools miss the cache.
    """
    from mcp_codegen.generate.fingerprint import generator_fingerprint

    store = ResultCache.open("models", generator_fingerprint(), _valid)
    units = [_unit(plan) for plan in plans]
    keys = [_key(unit) for unit in units]
    found: dict[int, dict[str, Any]] = {}
    for index, key in enumerate(keys):
        entry = store.get(key) if store is not None else None
        if entry is not None:
            found[index] = entry
    missing = [index for index in range(len(plans)) if index not in found]
    for index, entry in zip(missing, _generate([units[i] for i in missing], workers), strict=True):
        found[index] = entry
        if store is not None:
            store.put(keys[index], entry)
    if store is not None:
        store.prune()
    merged = ModelsOutput()
    for index, plan in enumerate(plans):
        _merge(merged, found[index], plan, diagnostics)
    return merged


# ---------------------------------------------------------------------------------------------- one tool


def _unit(plan: ToolPlan) -> dict[str, Any]:
    """Everything a tool's models are made from, as plain data (what the cache key and a worker get)."""
    document, aliases = datamodel_document([plan])
    return {
        "prefix": plan.class_prefix,
        "document": document,
        "aliases": aliases,
        "owners": {plan.models_module: [plan.arguments_class, *filter(None, [plan.prepared.result_class])]},
        "nullable": {plan.arguments_class: sorted(plan.nullable)},
        "permissive": {plan.arguments_class: {"type": "object", "additionalProperties": True}},
    }


def _key(unit: dict[str, Any]) -> str:
    text = json.dumps(unit, ensure_ascii=False, separators=(",", ":"))  # properties keep their order
    return hashlib.sha256(text.encode()).hexdigest()


def generate_unit(unit: dict[str, Any]) -> dict[str, Any]:
    """One tool's models as plain data; a tool the model generator rejects gets a permissive arguments model."""
    failed: str | None = None
    try:
        source = run_datamodel_codegen(unit["document"], unit["aliases"])
        owners = unit["owners"]
    except Exception as error:  # the generator's failures have no common type
        failed = error.__class__.__name__
        source = run_datamodel_codegen({"$defs": unit["permissive"]}, {})
        owners = {module: roots[:1] for module, roots in unit["owners"].items()}
    diagnostics = Diagnostics()
    output = split_models(source, owners, _nullable([unit]), diagnostics)
    return _entry(output, unit, failed, diagnostics)


# ------------------------------------------------------------------------------------ several tools at once


def generate_units(units: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """`generate_unit` of each unit, in order, with one generator call per batch of tools that cannot
    affect each other's code (each call has a fixed cost of a few ms, as much as a small tool)."""
    return [entry for batch in _batches(units) for entry in _generate_batch(batch)]


def _batches(units: Sequence[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Consecutive units, `BATCH_SIZE` at most per batch, a unit that could affect another going alone."""
    batches: list[list[dict[str, Any]]] = []
    for unit in units:
        current = batches[-1] if batches else None
        if current is not None and len(current) < BATCH_SIZE and all(_independent(unit, other) for other in current):
            current.append(unit)
        else:
            batches.append([unit])
    return batches


def _independent(one: dict[str, Any], other: dict[str, Any]) -> bool:
    """Whether the two tools' models come out the same together as alone.

    Every class name of a tool starts with its prefix, so prefixes that do not start one another cannot
    collide; and a field alias applies to every property of that name, so each tool's aliases must agree
    with every property name of the other.
    """
    if one["prefix"].startswith(other["prefix"]) or other["prefix"].startswith(one["prefix"]):
        return False
    for a, b in ((one, other), (other, one)):
        names = property_names(b["document"])
        for wire, python in a["aliases"].items():
            if wire in names and b["aliases"].get(wire) != python:
                return False
    return True


def _generate_batch(units: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if len(units) == 1:
        return [generate_unit(units[0])]
    document: dict[str, Any] = {"$defs": {}}
    aliases: dict[str, str] = {}
    owners: dict[str, list[str]] = {}
    for unit in units:
        document["$defs"].update(unit["document"]["$defs"])
        aliases.update(unit["aliases"])
        owners.update(unit["owners"])
    diagnostics = Diagnostics()
    try:
        output = split_models(run_datamodel_codegen(document, aliases), owners, _nullable(units), diagnostics)
    except Exception:  # the generator's failures have no common type: find the tool it fails on, alone
        return [generate_unit(unit) for unit in units]
    entries = [_entry(output, unit, None, Diagnostics()) for unit in units]
    # Anything a tool's code could owe to another (a shared class, a class outside its prefix, a warning
    # to attribute): made alone instead.
    if (
        diagnostics.items
        or any(
            not name.startswith(unit["prefix"])
            for entry, unit in zip(entries, units, strict=True)
            for name in entry["classModule"]
        )
        or sum(len(entry["classModule"]) for entry in entries) != len(output.class_module)
    ):
        return [generate_unit(unit) for unit in units]
    return entries


def _nullable(units: Sequence[dict[str, Any]]) -> dict[str, frozenset[str]]:
    return {name: frozenset(fields) for unit in units for name, fields in unit["nullable"].items()}


def _entry(output: ModelsOutput, unit: dict[str, Any], failed: str | None, diagnostics: Diagnostics) -> dict[str, Any]:
    """The part of `output` that is `unit`'s, as plain data (the cache entry)."""
    modules = {module: output.modules[module] for module in unit["owners"] if module in output.modules}
    roots = {root for names in unit["owners"].values() for root in names}
    # The import lines its own module holds (the generator imports what each model uses, one name per line).
    lines = {line for text in modules.values() for line in text.splitlines()}
    return {
        "format": _FORMAT,
        "failed": failed,
        "modules": modules,
        "classModule": {name: module for name, module in output.class_module.items() if module in modules},
        "fields": {root: [_field_json(f) for f in fields] for root, fields in output.fields.items() if root in roots},
        "resultFields": {root: _field_json(f) for root, f in output.result_field_types.items() if root in roots},
        "imports": {name: line for name, line in output.imports.items() if line in lines},
        "diagnostics": [d.as_json() for d in diagnostics.items],
    }


def _generate(units: Sequence[dict[str, Any]], workers: int | None) -> list[dict[str, Any]]:
    count = workers if workers is not None else (cores() if len(units) >= PARALLEL_FROM else 1)
    return run_units(units, count, generate_units)


def _field_json(info: FieldInfo) -> dict[str, Any]:
    return {
        "python": info.python_name,
        "wire": info.wire_name,
        "type": info.type_source,
        "required": info.required,
        "names": sorted(info.names),
    }


def _field(data: dict[str, Any]) -> FieldInfo:
    return FieldInfo(data["python"], data["wire"], data["type"], data["required"], frozenset(data["names"]))


def _merge(merged: ModelsOutput, entry: dict[str, Any], plan: ToolPlan, diagnostics: Diagnostics) -> None:
    if entry["failed"] is not None:
        diagnostics.warn(
            f"tools.{plan.wire_name}",
            f"the model generator cannot handle this tool's schemas ({entry['failed']}); "
            "arguments and result are untyped",
            code="model-generator-failed",
        )
        plan.prepared.definitions = {plan.arguments_class: {"type": "object", "additionalProperties": True}}
        plan.prepared.permissive_arguments = True
        plan.prepared.result_class = None
        plan.parameter_names = {}
    merged.modules.update(entry["modules"])
    merged.class_module.update(entry["classModule"])
    merged.fields.update({root: [_field(f) for f in fields] for root, fields in entry["fields"].items()})
    merged.result_field_types.update({root: _field(f) for root, f in entry["resultFields"].items()})
    for name, line in entry["imports"].items():
        merged.imports.setdefault(name, line)
    for item in entry["diagnostics"]:
        diagnostics.add(Diagnostic(item["location"], item["message"], Level(item["level"]), item["code"]))


# -------------------------------------------------------------------------------------- the cache entries

_KEYS = {"format", "failed", "modules", "classModule", "fields", "resultFields", "imports", "diagnostics"}


def _valid(entry: dict[str, Any]) -> bool:
    """A cache entry this version wrote (a corrupt or foreign file is a miss, never an error)."""
    if entry.keys() != _KEYS or entry["format"] != _FORMAT:
        return False
    for fields in entry["fields"].values():  # a malformed entry raises: the cache calls it a miss
        for item in fields:
            _field(item)
    for item in entry["resultFields"].values():
        _field(item)
    for item in entry["diagnostics"]:
        Diagnostic(item["location"], item["message"], Level(item["level"]), item["code"])
    return all(isinstance(text, str) for text in entry["modules"].values())
