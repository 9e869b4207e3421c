"""Each tool's models, made on their own: one generator call per tool, cached by what it depends on, in parallel.

A tool's models depend only on its own prepared definitions (every `$ref` is hoisted under the tool's own
prefix), the field names chosen for them and its nullable parameters: so each tool's code is a pure function
of those, generated alone (its field names are chosen among its own properties, not the whole server's).
That makes three things safe at once, with byte-identical output whatever happens:

* a cache: the result of a tool is stored under a hash of exactly those inputs plus the generator's
  fingerprint, so regenerating after one tool changed makes that tool's models only;
* parallel work: tools missing from the cache are spread over worker processes when there are enough of
  them to pay for starting the workers;
* isolation: a tool the model generator cannot handle is found at once and made permissive (a warning),
  without re-running the others.

The cache lives in the user cache directory (`$MCP_CODEGEN_CACHE_DIR`, else `$XDG_CACHE_HOME/mcp-codegen`,
else `~/.cache/mcp-codegen`) under `models/`, one small JSON file per tool result, in a folder per
generator fingerprint (older folders are removed); it is bounded (`MAX_ENTRIES`, least recently used
removed first). `MCP_CODEGEN_NO_CACHE=1` turns it off. An unreadable, corrupt or unwritable cache only
costs time.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from mcp_codegen.diagnostics import Diagnostic, Diagnostics, Level
from mcp_codegen.generate.build_ir import ToolPlan, datamodel_document
from mcp_codegen.generate.models import FieldInfo, ModelsOutput, run_datamodel_codegen, split_models

#: At most this many cached tool results are kept (about 2-20 KB each).
MAX_ENTRIES = 20_000
#: Below this many tools to generate, a second process costs more than it saves (measured on 2 cores: the
#: workers are forked after the model generator is imported, and a tool takes 10-30 ms; 10 tools break even).
PARALLEL_FROM = 12
_FORMAT = 1


def tool_models(plans: Sequence[ToolPlan], diagnostics: Diagnostics, *, workers: int | None = None) -> ModelsOutput:
    """The models of every tool of `plans`, merged in plan order (cache and workers as the module says).

    `workers` forces the number of worker processes (1: none); by default both cores are used when at least
    `PARALLEL_FROM` tools miss the cache.
    """
    from mcp_codegen.inputs.options import generator_fingerprint

    store = _Store.open(generator_fingerprint())
    keys = [_key(plan) for plan in plans]
    found: dict[int, dict[str, Any]] = {}
    for index, key in enumerate(keys):
        entry = store.get(key) if store is not None else None
        if entry is not None:
            found[index] = entry
    missing = [index for index in range(len(plans)) if index not in found]
    for index, entry in zip(missing, _generate([plans[i] for i in missing], workers), strict=True):
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
        "document": document,
        "aliases": aliases,
        "owners": {plan.models_module: [plan.arguments_class, *filter(None, [plan.prepared.result_class])]},
        "nullable": {plan.arguments_class: sorted(plan.nullable)},
        "permissive": {plan.arguments_class: {"type": "object", "additionalProperties": True}},
    }


def _key(plan: ToolPlan) -> str:
    text = json.dumps(_unit(plan), ensure_ascii=False, separators=(",", ":"))  # properties keep their order
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
    nullable = {name: frozenset(fields) for name, fields in unit["nullable"].items()}
    output = split_models(source, owners, nullable, diagnostics)
    return {
        "format": _FORMAT,
        "failed": failed,
        "modules": output.modules,
        "classModule": output.class_module,
        "fields": {root: [_field_json(f) for f in fields] for root, fields in output.fields.items()},
        "resultFields": {root: _field_json(f) for root, f in output.result_field_types.items()},
        "imports": output.imports,
        "diagnostics": [d.as_json() for d in diagnostics.items],
    }


def _generate(plans: Sequence[ToolPlan], workers: int | None) -> list[dict[str, Any]]:
    units = [_unit(plan) for plan in plans]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    count = workers if workers is not None else (cores if len(units) >= PARALLEL_FROM else 1)
    count = max(1, min(count, len(units) or 1))
    if count == 1:
        return [generate_unit(unit) for unit in units]
    import datamodel_code_generator  # noqa: F401 - imported once here, inherited by the forked workers

    # Contiguous chunks in plan order; results come back in the same order whatever the split.
    size = -(-len(units) // count)
    chunks = [units[start : start + size] for start in range(0, len(units), size)]
    with ProcessPoolExecutor(max_workers=count) as pool:
        return [entry for chunk in pool.map(_generate_chunk, chunks) for entry in chunk]


def _generate_chunk(units: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [generate_unit(unit) for unit in units]


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


# ---------------------------------------------------------------------------------------------- the cache


class _Store:
    """The on-disk cache of one generator fingerprint; every failure to use it is silent (it only costs time)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.written = 0

    @classmethod
    def open(cls, fingerprint: str) -> _Store | None:
        if os.environ.get("MCP_CODEGEN_NO_CACHE"):
            return None
        try:
            base = cache_root() / "models"
            directory = base / fingerprint[:20]
            directory.mkdir(parents=True, exist_ok=True)
            for other in base.iterdir():  # results of other generator versions never match again
                if other != directory and other.is_dir():
                    shutil.rmtree(other, ignore_errors=True)
        except (OSError, RuntimeError):  # RuntimeError: no home directory
            return None
        return cls(directory) if os.access(directory, os.W_OK) else None

    def _path(self, key: str) -> Path:
        return self.directory / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        path = self._path(key)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            os.utime(path)  # recently used: kept longest
        except (OSError, ValueError):
            return None
        return entry if isinstance(entry, dict) and _valid(entry) else None

    def put(self, key: str, entry: dict[str, Any]) -> None:
        path = self._path(key)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            temporary.write_text(json.dumps(entry, ensure_ascii=False), encoding="utf-8")
            os.replace(temporary, path)
            self.written += 1
        except OSError:
            temporary.unlink(missing_ok=True)

    def prune(self) -> None:
        if not self.written:
            return
        try:
            entries = list(self.directory.glob("*.json"))
            if len(entries) <= MAX_ENTRIES:
                return
            entries.sort(key=lambda path: path.stat().st_mtime)
            for path in entries[: len(entries) - MAX_ENTRIES]:
                path.unlink(missing_ok=True)
        except OSError:
            return


def cache_root() -> Path:
    """The user's cache directory for mcp-codegen."""
    explicit = os.environ.get("MCP_CODEGEN_CACHE_DIR")
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mcp-codegen"


_KEYS = {"format", "failed", "modules", "classModule", "fields", "resultFields", "imports", "diagnostics"}


def _valid(entry: dict[str, Any]) -> bool:
    """A cache entry this version wrote (a corrupt or foreign file is a miss, never an error)."""
    if entry.keys() != _KEYS or entry["format"] != _FORMAT:
        return False
    try:
        for fields in entry["fields"].values():
            for item in fields:
                _field(item)
        for item in entry["resultFields"].values():
            _field(item)
        for item in entry["diagnostics"]:
            Diagnostic(item["location"], item["message"], Level(item["level"]), item["code"])
        return all(isinstance(text, str) for text in entry["modules"].values())
    except (KeyError, TypeError, ValueError, AttributeError):
        return False
