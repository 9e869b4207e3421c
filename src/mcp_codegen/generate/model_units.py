"""One tool's models as plain data (a "unit" in, an "entry" out): what the model cache stores and a worker makes.

Tools are made alone (`generate_unit`) or in batches of tools that cannot affect each other's code
(`generate_units`); either way the entry of a tool is the same bytes. `tool_models.py` decides which tools
to make and merges the entries; `workers.py` runs `generate_units` in worker processes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.generate.models import FieldInfo, ModelsOutput, property_names, run_datamodel_codegen, split_models

#: The version of the entries' layout: entries of another version are cache misses.
ENTRY_FORMAT = 2
#: At most this many tools per model generator call (more saves little and gives the workers uneven shares).
BATCH_SIZE = 8


class _ClassMissing(Exception):
    """The model generator made no class for a root (a model the package would import)."""


def generate_unit(unit: dict[str, Any]) -> dict[str, Any]:
    """One tool's models as plain data; a tool the model generator rejects, or makes no root class for, gets a
    permissive arguments model (never a package importing a class that does not exist)."""
    failed: str | None = None
    diagnostics = Diagnostics()
    try:
        source = run_datamodel_codegen(unit["document"], unit["aliases"])
        output = split_models(source, unit["owners"], _nullable([unit]), diagnostics)
        if any(item.code == "model-class-missing" for item in diagnostics.items):
            raise _ClassMissing("it made no class for the arguments or the result")
    except Exception as error:  # the generator's failures have no common type
        failed = str(error) if isinstance(error, _ClassMissing) else error.__class__.__name__
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
        "format": ENTRY_FORMAT,
        "failed": failed,
        "modules": modules,
        "classModule": {name: module for name, module in output.class_module.items() if module in modules},
        "fields": {root: [field_json(f) for f in fields] for root, fields in output.fields.items() if root in roots},
        "resultFields": {root: field_json(f) for root, f in output.result_field_types.items() if root in roots},
        "imports": {name: line for name, line in output.imports.items() if line in lines},
        "diagnostics": [d.as_json() for d in diagnostics.items],
    }


def field_json(info: FieldInfo) -> dict[str, Any]:
    """A field as plain data (`field_from_json` reads it back)."""
    return {
        "python": info.python_name,
        "wire": info.wire_name,
        "type": info.type_source,
        "required": info.required,
        "names": sorted(info.names),
    }


def field_from_json(data: dict[str, Any]) -> FieldInfo:
    """The field `field_json` wrote."""
    return FieldInfo(data["python"], data["wire"], data["type"], data["required"], frozenset(data["names"]))
