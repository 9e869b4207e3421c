"""The snapshot: everything a server lists, as wire JSON, in a canonical and versioned file.

Items are kept as the raw dicts the server sent (camelCase, vendor keys and all): the SDK's models
drop unknown fields and reject whole pages over one off-spec tool. Canonical means sorted keys, a
stable item order, no timestamps and no volatile fields, so the same server gives the same bytes.
One exception to sorted keys: a schema's `properties` keep the server's order (format version 2), which
is the order of the generated parameters and fields; version 1 files (everything sorted) still read.

A listing the snapshot does not hold (skipped on purpose, or answered with an error or not in time) is named
in `notListed`, so that nobody, drift above all, reads its empty list as "everything removed". A file with
`notListed` is format version 3: an older mcp-codegen refuses it instead of reading the gap as empty; every
other file stays version 2, byte for byte as before.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from itertools import pairwise
from pathlib import Path
from typing import Any, Protocol, cast

from mcp_codegen.errors import SnapshotFormatError
from mcp_codegen.inputs.launch import LaunchRecord, RegistryRecord
from mcp_codegen.inputs.options import SKIPPABLE

FORMAT_VERSION = 2
#: The version of a file that has `notListed` (a listing missing from it).
INCOMPLETE_FORMAT_VERSION = 3
#: Versions this code reads: version 1 differs only in having sorted `properties` too; 3 in `notListed`.
READABLE_FORMAT_VERSIONS = (1, 2, 3)

JsonObject = dict[str, Any]

#: Fields that change without the server's API changing (issue: no volatile fields in snapshots).
_VOLATILE_ITEM_KEYS = ("size",)
_VOLATILE_ANNOTATION_KEYS = ("lastModified",)
_ITEM_LISTS = ("tools", "resources", "resourceTemplates", "prompts", "skills")
#: The listings a snapshot may lack (tools are always required), by their key in the file.
OPTIONAL_LISTINGS = tuple(SKIPPABLE.values())
#: Why a listing is missing: left out on purpose (`--skip`), answered with a JSON-RPC error, or not in time.
NOT_LISTED_REASONS = ("skipped", "failed", "timed-out")


@dataclass(frozen=True)
class Snapshot:
    server_info: JsonObject
    protocol_version: str | None = None
    capabilities: JsonObject = field(default_factory=dict)
    instructions: str | None = None
    launch: LaunchRecord | None = None
    tools: tuple[JsonObject, ...] = ()
    resources: tuple[JsonObject, ...] = ()
    resource_templates: tuple[JsonObject, ...] = ()
    prompts: tuple[JsonObject, ...] = ()
    #: The MCP registry entry the server was found by (`--registry`): `check` and regeneration read it again.
    registry: RegistryRecord | None = None
    #: The `skills/list` entries (MCP Skills extension) as sent; None (absent from the file) when the server
    #: does not offer the extension, () when it offers no skill.
    skills: tuple[JsonObject, ...] | None = None
    #: The listings this snapshot does not hold (an `OPTIONAL_LISTINGS` key -> a `NOT_LISTED_REASONS` value):
    #: their lists are empty because they were not taken, not because the server offers nothing.
    not_listed: Mapping[str, str] = field(default_factory=dict)
    #: Result types seen in recorded sessions (`--results-from`) of tools without an output schema, by tool:
    #: `{"observed": true, "samples": N, "schema": {...}}` (`snapshot.observed`). Not what the server lists.
    observed_results: Mapping[str, JsonObject] = field(default_factory=dict)

    @property
    def server_name(self) -> str:
        name = self.server_info.get("name")
        return name if isinstance(name, str) and name else "mcp-server"

    @property
    def server_version(self) -> str | None:
        version = self.server_info.get("version")
        return version if isinstance(version, str) else None

    def canonical(self) -> Snapshot:
        """Sorted items and keys, volatile fields removed; applied before every write and after every read.

        Remembered on the instance (a frozen snapshot never changes; `replace()` makes a new one), and
        a canonical snapshot is its own canonical form: reading a file and hashing it canonicalises once.
        """
        known = self.__dict__.get("_canonical")
        if known is not None:
            return cast(Snapshot, known)
        result = self._canonicalised()
        object.__setattr__(self, "_canonical", result)
        object.__setattr__(result, "_canonical", result)
        return result

    def _canonicalised(self) -> Snapshot:
        return replace(
            self,
            server_info=sorted_keys(self.server_info),
            capabilities=sorted_keys(self.capabilities),
            tools=_sorted_items(tuple(_canonical_tool(t) for t in self.tools), "name"),
            resources=_sorted_items(tuple(sorted_keys(_without_volatile(r)) for r in self.resources), "uri"),
            resource_templates=_sorted_items(
                tuple(sorted_keys(_without_volatile(t)) for t in self.resource_templates), "uriTemplate"
            ),
            prompts=_sorted_items(tuple(sorted_keys(p) for p in self.prompts), "name"),
            skills=None
            if self.skills is None
            else _sorted_items(tuple(_canonical_skill(s) for s in self.skills), "uri"),
            not_listed=dict(sorted(self.not_listed.items())),
            observed_results={name: sorted_keys(self.observed_results[name]) for name in sorted(self.observed_results)},
        )

    def as_json(self) -> JsonObject:
        data: JsonObject = {
            "formatVersion": INCOMPLETE_FORMAT_VERSION if self.not_listed else FORMAT_VERSION,
            "serverInfo": self.server_info,
            "protocolVersion": self.protocol_version,
            "capabilities": self.capabilities,
            "instructions": self.instructions,
            "tools": list(self.tools),
            "resources": list(self.resources),
            "resourceTemplates": list(self.resource_templates),
            "prompts": list(self.prompts),
        }
        if self.launch is not None:
            data["launch"] = self.launch.as_json()
        if self.registry is not None:
            data["registry"] = self.registry.as_json()
        if self.skills is not None:
            data["skills"] = list(self.skills)
        if self.not_listed:
            data["notListed"] = dict(self.not_listed)
        if self.observed_results:
            data["observedResults"] = dict(self.observed_results)
        return data

    def to_text(self) -> str:
        """The canonical file text: sorted keys (schemas' `properties` in the server's order), two-space
        indent, non-ASCII kept, trailing newline."""
        return json.dumps(self._ordered(), indent=2, ensure_ascii=False) + "\n"

    def content_digest(self) -> str:
        """A digest of the same content as `to_text()`: what input hashes are taken over. It is taken over the
        compact text of all but the tools (the C encoder; the indented file text takes the pure-Python one, ten
        times slower) and `tool_digests()`, so a file recognised tool by tool (`_canonical_file`) encodes only the
        tools it has not seen: the others' digests are known. Remembered: a generation asks twice (is the output
        current? then the manifest)."""
        known = self.__dict__.get("_content_digest")
        if known is None:
            head = json.dumps({**self._ordered(), "tools": []}, ensure_ascii=False, separators=(",", ":"))
            known = hashlib.sha256("\0".join([head, *self.tool_digests()]).encode()).hexdigest()
            object.__setattr__(self, "_content_digest", known)
        return cast(str, known)

    def tool_digests(self) -> list[str]:
        """Each canonical tool's `item_digest`, in the canonical order: known from the cache for a file recognised
        tool by tool (`_canonical_file`), else computed once (the input hash and the snapshot's text both use
        them)."""
        canonical = self.canonical()
        known = canonical.__dict__.get("_tool_digests")
        if known is None:
            known = [item_digest(tool) for tool in canonical.tools]
            object.__setattr__(canonical, "_tool_digests", known)
        return cast("list[str]", known)

    def canonical_text(self) -> str | None:
        """The text this snapshot was read from when that is its canonical file text (`to_text()`), else None."""
        return cast("str | None", self.__dict__.get("_canonical_text"))

    def read_from_text(self) -> bool:
        """Whether this snapshot was parsed from JSON text (a file), not made from a server's answers."""
        return "_source_text" in self.__dict__

    def read_from(self, text: str) -> bool:
        """Whether this snapshot was parsed from exactly `text`."""
        return self.__dict__.get("_source_text") == text

    def read_back(self, text: str) -> Snapshot:
        """The snapshot `text`, this snapshot's canonical file text, reads back as: this very one when it was
        read from that same text (the usual file, written by mcp-codegen), else `text` parsed."""
        if self.__dict__.get("_source_text") == text:
            return self
        return Snapshot.from_text(text)

    def _ordered(self) -> JsonObject:
        data = self.canonical().as_json()
        # Items are canonical already (sorting them again would sort their `properties`).
        return {key: data[key] if key in _ITEM_LISTS else sorted_keys(data[key]) for key in sorted(data)}

    @classmethod
    def from_json(cls, data: Any, *, source: str = "snapshot") -> Snapshot:
        if not isinstance(data, Mapping):
            raise SnapshotFormatError(f"{source}: not a snapshot (expected a JSON object)")
        version = data.get("formatVersion")
        if isinstance(version, bool) or version not in READABLE_FORMAT_VERSIONS:
            readable = " and ".join(str(v) for v in READABLE_FORMAT_VERSIONS)
            raise SnapshotFormatError(
                f"{source}: unsupported snapshot formatVersion {version!r} (this mcp-codegen reads {readable})"
            )
        server_info = data.get("serverInfo")
        if not isinstance(server_info, Mapping):
            raise SnapshotFormatError(f"{source}: serverInfo must be an object")
        capabilities = data.get("capabilities") or {}
        if not isinstance(capabilities, Mapping):
            raise SnapshotFormatError(f"{source}: capabilities must be an object")
        launch_data = data.get("launch")
        try:
            launch = LaunchRecord.from_json(launch_data) if isinstance(launch_data, Mapping) else None
        except (KeyError, TypeError) as error:
            raise SnapshotFormatError(f"{source}: launch is malformed ({error})") from None
        registry_data = data.get("registry")
        try:
            registry = RegistryRecord.from_json(registry_data) if isinstance(registry_data, Mapping) else None
        except KeyError as error:
            raise SnapshotFormatError(f"{source}: registry is malformed (no {error})") from None
        instructions = data.get("instructions")
        protocol_version = data.get("protocolVersion")
        return cls(
            server_info=dict(server_info),
            protocol_version=protocol_version if isinstance(protocol_version, str) else None,
            capabilities=dict(capabilities),
            instructions=instructions if isinstance(instructions, str) else None,
            launch=launch,
            tools=_item_list(data, "tools", source),
            resources=_item_list(data, "resources", source),
            resource_templates=_item_list(data, "resourceTemplates", source),
            prompts=_item_list(data, "prompts", source),
            registry=registry,
            skills=_item_list(data, "skills", source) if "skills" in data else None,
            not_listed=_not_listed(data.get("notListed"), source),
            observed_results=_observed_results(data, source),
        ).canonical()

    @classmethod
    def from_text(
        cls, text: str, *, source: str = "snapshot", item_texts: Callable[[str], ItemTexts | None] | None = None
    ) -> Snapshot:
        """The snapshot in `text`. With `item_texts` (the server's name -> the tool texts known to be canonical),
        a file in canonical form is recognised without canonicalising every tool schema (`_canonical_file`)."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise SnapshotFormatError(f"{source}: not valid JSON ({error.msg} at line {error.lineno})") from None
        snapshot = _canonical_file(text, data, source, item_texts) if item_texts is not None else None
        if snapshot is None:
            snapshot = cls.from_json(data, source=source)
        object.__setattr__(snapshot, "_source_text", text)  # see `read_back`
        return snapshot


class ItemTexts(Protocol):
    """The tool texts known to be canonical (each tool's part of a canonical file), by `item_text_digest`, with the
    `item_digest` of the tool each reads as; kept between runs."""

    def get(self, text_digest: str) -> str | None:
        """The `item_digest` of the tool whose canonical text has `text_digest`, when that text was seen."""

    def add(self, text_digest: str, tool: str) -> None:
        """The text of `text_digest` was found canonical; `tool` is its tool's `item_digest`."""

    def close(self) -> None:
        """Done: keep what was added."""


def item_text_digest(text: str) -> str:
    """The digest `ItemTexts` knows a tool's text by (its part of the file, indented as in the file)."""
    return hashlib.sha256(text.encode()).hexdigest()


def item_digest(item: Any) -> str:
    """The digest of a canonical item's content (its compact JSON, keys in their order): what names a tool in the
    input hash (`Snapshot.tool_digests`) and an item's indented text in the cache (`snapshot_text`)."""
    return hashlib.sha256(json.dumps(item, ensure_ascii=False, separators=(",", ":")).encode()).hexdigest()


#: Where the tools' list starts and ends in a canonical file: `tools` is the last key of the top object.
_TOOLS_OPEN, _TOOLS_CLOSE = '  "tools": [\n', "\n  ]\n}\n"
#: Between two items of a top-level list: lines at that depth are only the items' own braces.
_ITEM_SEPARATOR = ",\n    {\n"
#: A file is recognised tool by tool when at most one tool in this many is new (each new one is written again
#: to be checked, in pure Python): else it is read the usual way, and its text made while the models are.
_MOSTLY_KNOWN = 4


def _canonical_file(
    text: str, data: Any, source: str, item_texts: Callable[[str], ItemTexts | None]
) -> Snapshot | None:
    """The snapshot of `text` when `text` is its canonical file text (what `to_text()` writes), else None.

    Every part but the tools is checked the usual way (read, canonicalised, written again: small). Each tool's
    part of the text is known by its digest when a run found it canonical before; any other is checked by
    canonicalising that tool alone and writing it again. So a regeneration after a change canonicalises and
    encodes only the changed tools, however large the others' schemas are.
    """
    tools = data.get("tools") if isinstance(data, dict) else None
    if not isinstance(tools, list) or not tools or not all(isinstance(tool, dict) for tool in tools):
        return None
    names = [tool.get("name") for tool in tools]
    if not all(isinstance(name, str) for name in names) or any(a >= b for a, b in pairwise(names)):
        return None  # not in canonical order, or names that tie (ordered by their whole text): the usual way
    shell = Snapshot.from_json({**data, "tools": []}, source=source)
    head = shell.to_text()
    empty = '  "tools": []\n}\n'
    if not head.endswith(empty) or not text.startswith(head[: -len(empty)]) or not text.endswith(_TOOLS_CLOSE):
        return None
    body = text[len(head) - len(empty) :]
    if not body.startswith(_TOOLS_OPEN):
        return None
    pieces = body[len(_TOOLS_OPEN) : -len(_TOOLS_CLOSE)].split(_ITEM_SEPARATOR)
    if len(pieces) != len(tools):
        return None
    known = item_texts(shell.server_name)
    if known is None:
        return None
    try:
        pieces = [pieces[0], *("    {\n" + piece for piece in pieces[1:])]
        digests = [item_text_digest(piece) for piece in pieces]
        tool_digests = [known.get(digest) for digest in digests]
        new = [index for index, tool in enumerate(tool_digests) if tool is None]
        if len(new) * _MOSTLY_KNOWN > len(tools):
            return None  # a new server, or most tools changed: the usual way, and the text while the models are made
        for index in new:
            canonical = json.dumps(_canonical_tool(tools[index]), indent=2, ensure_ascii=False)
            if "    " + canonical.replace("\n", "\n    ") != pieces[index]:
                return None
            tool_digests[index] = digest = item_digest(tools[index])
            known.add(digests[index], digest)
    finally:
        known.close()
    # Each tool's text is the canonical text of the tool it reads as, so that tool is canonical (keys in order).
    snapshot = replace(shell, tools=tuple(tools))
    object.__setattr__(snapshot, "_canonical", snapshot)
    object.__setattr__(snapshot, "_canonical_text", text)
    object.__setattr__(snapshot, "_tool_digests", tool_digests)  # see `tool_digests`
    return snapshot


def read_snapshot(path: Path, *, item_texts: Callable[[str], ItemTexts | None] | None = None) -> Snapshot:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SnapshotFormatError(f"{path}: no such snapshot file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise SnapshotFormatError(f"{path}: cannot read snapshot ({error.__class__.__name__})") from None
    return Snapshot.from_text(text, source=str(path), item_texts=item_texts)


def _item_list(data: Mapping[str, Any], key: str, source: str) -> tuple[JsonObject, ...]:
    items = data.get(key) or []
    if not isinstance(items, list) or not all(isinstance(item, Mapping) for item in items):
        raise SnapshotFormatError(f"{source}: {key} must be a list of objects")
    return tuple(dict(item) for item in items)


def _not_listed(value: Any, source: str) -> dict[str, str]:
    """`notListed` as read: an object naming optional listings and why each is missing."""
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(
        key in OPTIONAL_LISTINGS and reason in NOT_LISTED_REASONS for key, reason in value.items()
    ):
        raise SnapshotFormatError(
            f"{source}: notListed must map {', '.join(OPTIONAL_LISTINGS)} to one of {', '.join(NOT_LISTED_REASONS)}"
        )
    return dict(value)


def _observed_results(data: Mapping[str, Any], source: str) -> dict[str, JsonObject]:
    observed = data.get("observedResults") or {}
    valid = isinstance(observed, Mapping) and all(
        isinstance(entry, Mapping)
        and entry.get("observed") is True
        and isinstance(entry.get("samples"), int)
        and isinstance(entry.get("schema"), Mapping)
        for entry in observed.values()
    )
    if not valid:
        raise SnapshotFormatError(
            f"{source}: observedResults must map tool names to {{observed: true, samples: N, schema: {{...}}}}"
        )
    return {str(name): sorted_keys(entry) for name, entry in observed.items()}


def _sort_key(item: Mapping[str, Any], key: str) -> tuple[str, str]:
    value = item.get(key)
    # Ties (duplicate names) are broken by the whole (canonical) item so the order never depends on the server's.
    return (value if isinstance(value, str) else "", json.dumps(item, ensure_ascii=False))


def _sorted_items(items: tuple[JsonObject, ...], key: str) -> tuple[JsonObject, ...]:
    return tuple(sorted(items, key=lambda item: _sort_key(item, key)))


def _without_volatile(item: JsonObject) -> JsonObject:
    if not any(k in item for k in _VOLATILE_ITEM_KEYS) and not _has_volatile_annotation(item):
        return item
    cleaned = copy.deepcopy(item)
    for key in _VOLATILE_ITEM_KEYS:
        cleaned.pop(key, None)
    annotations = cleaned.get("annotations")
    if isinstance(annotations, dict):
        for key in _VOLATILE_ANNOTATION_KEYS:
            annotations.pop(key, None)
    return cleaned


def _has_volatile_annotation(item: Mapping[str, Any]) -> bool:
    annotations = item.get("annotations")
    return isinstance(annotations, Mapping) and any(k in annotations for k in _VOLATILE_ANNOTATION_KEYS)


def sorted_keys(value: Any) -> Any:
    """`value` with every object's keys sorted, recursively (what `json.dumps(sort_keys=True)` writes)."""
    if isinstance(value, Mapping):
        return {key: sorted_keys(value[key]) for key in sorted(value)}
    if isinstance(value, list | tuple):
        return [sorted_keys(item) for item in value]
    return value


#: Keywords whose value is one schema (or, for `items`, possibly a list of schemas); a list of schemas;
#: a map of schemas whose order means nothing. `properties` is the one ordered map.
_SCHEMA_KEYS = frozenset(
    {"items", "additionalProperties", "additionalItems", "unevaluatedItems", "unevaluatedProperties", "not",
     "contains", "propertyNames", "if", "then", "else"}
)  # fmt: skip
_SCHEMA_LIST_KEYS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
_SCHEMA_MAP_KEYS = frozenset({"patternProperties", "$defs", "definitions", "dependentSchemas"})


def canonical_schema(schema: Any) -> Any:
    """A JSON Schema with sorted keys, except that every `properties` map keeps the server's order.

    Only keywords in schema positions are followed: a property named `properties` is a name, not a keyword.
    Anything else (vendor keywords, `default`, `enum`...) is plain data and fully sorted.
    """
    if not isinstance(schema, Mapping):
        return sorted_keys(schema)
    result: JsonObject = {}
    for key in sorted(schema):
        value = schema[key]
        if key == "properties" and isinstance(value, Mapping):
            result[key] = {name: canonical_schema(sub) for name, sub in value.items()}
        elif key in _SCHEMA_MAP_KEYS and isinstance(value, Mapping):
            result[key] = {name: canonical_schema(value[name]) for name in sorted(value)}
        elif (key in _SCHEMA_LIST_KEYS or key == "items") and isinstance(value, list):
            result[key] = [canonical_schema(item) for item in value]
        elif key in _SCHEMA_KEYS:
            result[key] = canonical_schema(value)
        else:
            result[key] = sorted_keys(value)
    return result


def _canonical_skill(skill: JsonObject) -> JsonObject:
    """A skill entry with sorted keys and its manifest sorted by URI (sizes kept: they are what a file is)."""
    canonical = cast(JsonObject, sorted_keys(skill))
    resources = canonical.get("resources")
    if isinstance(resources, list):
        canonical["resources"] = sorted(
            resources,
            key=lambda item: _sort_key(item, "uri") if isinstance(item, Mapping) else ("", json.dumps(item)),
        )
    return canonical


def _canonical_tool(tool: JsonObject) -> JsonObject:
    return {
        key: canonical_schema(tool[key]) if key in ("inputSchema", "outputSchema") else sorted_keys(tool[key])
        for key in sorted(tool)
    }
