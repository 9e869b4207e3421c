"""Result types observed in recorded sessions: the JSON answers of tools that declare no output schema, joined
into one JSON Schema per tool and kept in the snapshot (`observedResults`), so generation and `--check` stay
offline.

A recorded `tools/call` answer counts when it is not an error and carries JSON: its `structuredContent`, else
its one text block parsed as a JSON object or array. The schema is the join of every sample:

* an object's fields seen in every sample are required, the others optional; a field that was ever `null` is
  nullable and optional; nested objects are objects (models), arrays' items are joined over all elements;
* types are joined: an integer widens to a number; different kinds become an `anyOf`;
* no `additionalProperties`: the models keep unknown keys.

A tool with both JSON and other answers, or whose answers are objects in some samples and arrays in others,
is left untyped (a warning). Tools that declare an `outputSchema` are never retyped.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.errors import UsageError
from mcp_codegen.snapshot.model import JsonObject, Snapshot
from mcp_codegen_runtime.recordings.envelope import RecordingFormatError, read_recording

__all__ = ["infer_schema", "observed_output_schema", "observed_entries", "recorded_answers", "with_observed_results"]

_NUMBERS = ("integer", "number")
_ORDER = ("object", "array", "string", "number", "integer", "boolean")


def recorded_answers(directory: Path) -> dict[str, list[object]]:
    """Every recorded tool answer under `directory` (`*.ndjson`, recursively, in path order), by tool: the JSON
    it carries, or None for an answer without JSON. Errors (`isError`, JSON-RPC errors) are left out."""
    if not directory.is_dir():
        raise UsageError(f"--results-from: {directory} is not a directory of recordings (*.ndjson)")
    answers: dict[str, list[object]] = {}
    for path in sorted(directory.rglob("*.ndjson")):
        try:
            sessions = read_recording(path)
        except RecordingFormatError as error:
            raise UsageError(f"--results-from: {error}") from None
        for session in sessions:
            calls: dict[str, str] = {}
            for line in session.lines:
                message = line.message
                key = json.dumps(message.get("id"))
                if line.direction == "send" and line.method == "tools/call":
                    params = message.get("params")
                    name = params.get("name") if isinstance(params, dict) else None
                    if isinstance(name, str):
                        calls[key] = name
                elif line.direction == "recv" and line.is_response and key in calls:
                    result = message.get("result")
                    if isinstance(result, dict) and result.get("isError") is not True:
                        answers.setdefault(calls[key], []).append(_json_of(cast("dict[str, Any]", result)))
                    calls.pop(key)
    return answers


def _json_of(result: Mapping[str, Any]) -> object:
    structured = result.get("structuredContent")
    if isinstance(structured, dict):
        return structured
    content = result.get("content")
    if not isinstance(content, list) or len(content) != 1:
        return None
    block = content[0]
    if not isinstance(block, dict) or block.get("type") != "text" or not isinstance(block.get("text"), str):
        return None
    try:
        value = cast(object, json.loads(block["text"]))
    except ValueError:
        return None
    return value if isinstance(value, (dict, list)) else None


@dataclass
class _Shape:
    """What was seen at one place of the samples: the kinds of value, and inside objects and arrays."""

    kinds: set[str] = field(default_factory=set)
    #: How many objects were seen here, and each key's shape with the number of objects that had it.
    objects: int = 0
    properties: dict[str, _Shape] = field(default_factory=dict)
    present: dict[str, int] = field(default_factory=dict)
    items: _Shape | None = None

    def add(self, value: object) -> None:
        if value is None:
            self.kinds.add("null")
        elif isinstance(value, bool):
            self.kinds.add("boolean")
        elif isinstance(value, int):
            self.kinds.add("integer")
        elif isinstance(value, float):
            self.kinds.add("number")
        elif isinstance(value, str):
            self.kinds.add("string")
        elif isinstance(value, dict):
            self.kinds.add("object")
            self.objects += 1
            for key, inner in cast("dict[str, object]", value).items():
                self.properties.setdefault(key, _Shape()).add(inner)
                self.present[key] = self.present.get(key, 0) + 1
        elif isinstance(value, list):
            self.kinds.add("array")
            for inner in cast("list[object]", value):
                if self.items is None:
                    self.items = _Shape()
                self.items.add(inner)

    def schema(self) -> JsonObject:
        kinds = set(self.kinds)
        if kinds >= {"integer", "number"}:
            kinds.discard("integer")  # an integer widens to a number
        nullable = "null" in kinds
        kinds.discard("null")
        branches = [self._branch(kind) for kind in _ORDER if kind in kinds]
        if not branches:
            return {"type": "null"} if nullable else {}
        if len(branches) == 1 and not nullable:
            return branches[0]
        if len(branches) == 1 and set(branches[0]) == {"type"}:
            return {"type": [branches[0]["type"], "null"]}
        return {"anyOf": [*branches, *([{"type": "null"}] if nullable else [])]}

    def _branch(self, kind: str) -> JsonObject:
        if kind == "object":
            names = sorted(self.properties)
            required = [
                name
                for name in names
                if self.present[name] == self.objects and "null" not in self.properties[name].kinds
            ]
            schema: JsonObject = {"type": "object", "properties": {n: self.properties[n].schema() for n in names}}
            return {**schema, "required": required} if required else schema
        if kind == "array":
            return {"type": "array", "items": self.items.schema() if self.items is not None else {}}
        return {"type": kind}


def infer_schema(samples: Iterable[object]) -> JsonObject:
    """The JSON Schema joining `samples` (see the module docstring)."""
    shape = _Shape()
    for sample in samples:
        shape.add(sample)
    return shape.schema()


def observed_entries(
    snapshot: Snapshot, answers: Mapping[str, Sequence[object]], diagnostics: Diagnostics
) -> dict[str, JsonObject]:
    """The `observedResults` entries for the snapshot's tools without an output schema that answered JSON."""
    entries: dict[str, JsonObject] = {}
    for tool in snapshot.tools:
        name = tool.get("name")
        samples = answers.get(name) if isinstance(name, str) else None
        if not samples or not isinstance(name, str) or tool.get("outputSchema") is not None:
            continue
        if any(sample is None for sample in samples):
            if not all(sample is None for sample in samples):
                diagnostics.warn(
                    f"tools.{name}",
                    f"{sum(s is None for s in samples)} of its {len(samples)} recorded answers are not JSON:"
                    " its results stay untyped",
                    code="observed-results-mixed",
                )
            continue
        schema = infer_schema(samples)
        if schema.get("type") not in ("object", "array"):
            diagnostics.warn(
                f"tools.{name}",
                "its recorded answers are objects in some samples and arrays in others: its results stay untyped",
                code="observed-results-mixed",
            )
            continue
        entries[name] = {"observed": True, "samples": len(samples), "schema": schema}
    return entries


def with_observed_results(snapshot: Snapshot, directory: Path, diagnostics: Diagnostics) -> Snapshot:
    """`snapshot` with the result types observed in the recordings under `directory` (replacing any it had)."""
    entries = observed_entries(snapshot, recorded_answers(directory), diagnostics)
    return replace(snapshot, observed_results=entries).canonical()


def observed_output_schema(snapshot: Snapshot, tool: Mapping[str, Any]) -> JsonObject | None:
    """The output schema a tool's result model is made from when it declares none but its results were observed:
    the observed object, or an array held as `items` (what `mcp_codegen_runtime.calls.observed` parses a JSON
    array into); None otherwise. A declared `outputSchema` is never replaced."""
    entry = snapshot.observed_results.get(str(tool.get("name")))
    if entry is None or tool.get("outputSchema") is not None:
        return None
    schema = entry.get("schema")
    if not isinstance(schema, dict):
        return None
    schema = cast(JsonObject, schema)
    if schema.get("type") == "array":
        return {"type": "object", "properties": {"items": schema}, "required": ["items"]}
    if schema.get("type") != "object":
        return None
    properties = schema.get("properties")
    if isinstance(properties, dict) and "tool_result" in properties:  # the base class's own attribute
        kept = {key: value for key, value in cast(JsonObject, properties).items() if key != "tool_result"}
        required = [name for name in schema.get("required", []) if name != "tool_result"]
        schema = {**schema, "properties": kept, "required": required}
    return schema
