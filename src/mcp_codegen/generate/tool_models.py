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

The cache is `cache.py`'s (`models/` in the user's cache directory), one entry per server holding each tool's
result; the results are made by `model_units.py`, here or in the workers.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any

from mcp_codegen.diagnostics import Diagnostic, Diagnostics
from mcp_codegen.generate.build_ir import ToolPlan, datamodel_document
from mcp_codegen.generate.cache import ServerResults
from mcp_codegen.generate.model_units import ENTRY_FORMAT, field_from_json
from mcp_codegen.generate.models import ModelsOutput
from mcp_codegen.generate.workers import cores, run_units

#: Below this many tools to generate, a second process costs more than it saves (measured on 2 cores: the
#: workers are forked after the model generator is imported, and a tool takes 10-30 ms; 10 tools break even).
PARALLEL_FROM = 12


def tool_models(
    plans: Sequence[ToolPlan],
    diagnostics: Diagnostics,
    *,
    workers: int | None = None,
    server: str = "",
    while_waiting: Callable[[Sequence[ToolPlan], ModelsOutput], None] | None = None,
) -> ModelsOutput:
    """The models of every tool of `plans`, merged in plan order (cache and workers as the module says).

    `workers` forces the number of worker processes (1: none); by default both cores are used when at least
    `PARALLEL_FROM` tools miss the cache. The cache holds `server`'s tools' models as one entry.
    `while_waiting(plans, models)` is given the tools found in the cache and their models while the others are
    made, then the made ones as they come back: the next stages' work on them overlaps the model generator's.
    """
    from mcp_codegen.generate.fingerprint import generator_fingerprint

    store = ServerResults.open("models", generator_fingerprint(), server, _valid)
    # A tool's unit key (and size) by what its plan is made from: a tool whose plan is replayed is not encoded.
    known = ServerResults.open("model-keys", generator_fingerprint(), server, _valid_key) if store else None
    units: list[dict[str, Any] | None] = []
    keys: list[str] = []
    weights: list[int] = []
    for plan in plans:
        memo = _memo_key(plan) if known is not None and plan.prepared_key else ""
        recorded = known.get(memo) if known is not None and memo else None
        if recorded is None:
            unit = _unit(plan)
            text = _text(unit)
            recorded = {"key": hashlib.sha256(text.encode()).hexdigest(), "weight": len(text)}
            units.append(unit)
        else:
            units.append(None)
        if known is not None and memo:
            known.use(memo, recorded, made=units[-1] is not None)
        keys.append(recorded["key"])
        weights.append(recorded["weight"])
    if known is not None:
        known.close()
    found: dict[int, dict[str, Any]] = {}
    for index, key in enumerate(keys):
        if store is not None and (entry := store.get(key)) is not None:
            found[index] = entry
            store.use(key, entry, made=False)
    missing = [index for index in range(len(plans)) if index not in found]

    def cached_ones() -> None:
        if while_waiting is not None:
            cached = ModelsOutput()
            for index in sorted(found):  # merged apart: their diagnostics are added by the merge below
                _merge(cached, found[index], plans[index], Diagnostics(), keys[index])
            while_waiting([plans[index] for index in sorted(found)], cached)

    def made_ones(start: int, entries: list[dict[str, Any]]) -> None:
        if while_waiting is not None:  # as the workers answer: the next stages' work on them overlaps the rest
            made = ModelsOutput()
            indices = missing[start : start + len(entries)]
            for index, entry in zip(indices, entries, strict=True):
                _merge(made, entry, plans[index], Diagnostics(), keys[index])
            while_waiting([plans[index] for index in indices], made)

    # A tool's share of the work is about its schemas' size.
    to_make = [made if (made := units[i]) is not None else _unit(plans[i]) for i in missing]
    count = workers if workers is not None else (cores() if len(to_make) >= PARALLEL_FROM else 1)
    generated = run_units(to_make, count, cached_ones, [weights[i] for i in missing], made_ones)
    for index, entry in zip(missing, generated, strict=True):
        found[index] = entry
        if store is not None:
            store.use(keys[index], entry, made=True)
    if store is not None:
        store.close()
    merged = ModelsOutput()
    for index, plan in enumerate(plans):
        _merge(merged, found[index], plan, diagnostics, keys[index])
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


def _memo_key(plan: ToolPlan) -> str:
    """What a tool's unit is made from, digested: its prepared schemas' inputs and granted names (in
    `prepared_key`, with its class prefix) and its module; the rest of the plan follows from those."""
    return hashlib.sha256(f"{plan.prepared_key}\0{plan.models_module}".encode()).hexdigest()


def _valid_key(entry: dict[str, Any]) -> bool:
    return isinstance(entry["key"], str) and isinstance(entry["weight"], int)


def _text(unit: dict[str, Any]) -> str:
    """The unit as the text its cache key hashes."""
    return json.dumps(unit, ensure_ascii=False, separators=(",", ":"))  # properties keep their order


def _merge(merged: ModelsOutput, entry: dict[str, Any], plan: ToolPlan, diagnostics: Diagnostics, key: str) -> None:
    merged.sources[plan.wire_name] = key
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
    merged.fields.update({root: [field_from_json(f) for f in fields] for root, fields in entry["fields"].items()})
    merged.result_field_types.update({root: field_from_json(f) for root, f in entry["resultFields"].items()})
    for name, line in entry["imports"].items():
        merged.imports.setdefault(name, line)
    for item in entry["diagnostics"]:
        diagnostics.add(Diagnostic.from_json(item))


# -------------------------------------------------------------------------------------- the cache entries

_KEYS = {"format", "failed", "modules", "classModule", "fields", "resultFields", "imports", "diagnostics"}


def _valid(entry: dict[str, Any]) -> bool:
    """A cache entry this version wrote (a corrupt or foreign file is a miss, never an error)."""
    if entry.keys() != _KEYS or entry["format"] != ENTRY_FORMAT:
        return False
    for fields in entry["fields"].values():  # a malformed entry raises: the cache calls it a miss
        for item in fields:
            field_from_json(item)
    for item in entry["resultFields"].values():
        field_from_json(item)
    for item in entry["diagnostics"]:
        Diagnostic.from_json(item)
    return all(isinstance(text, str) for text in entry["modules"].values())
