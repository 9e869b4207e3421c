"""The snapshot: everything a server lists, as wire JSON, in a canonical and versioned file.

Items are kept as the raw dicts the server sent (camelCase, vendor keys and all): the SDK's models
drop unknown fields and reject whole pages over one off-spec tool. Canonical means sorted keys, a
stable item order, no timestamps and no volatile fields, so the same server gives the same bytes.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mcp_codegen.errors import SnapshotFormatError
from mcp_codegen.inputs.launch import LaunchRecord

FORMAT_VERSION = 1

JsonObject = dict[str, Any]

#: Fields that change without the server's API changing (issue: no volatile fields in snapshots).
_VOLATILE_ITEM_KEYS = ("size",)
_VOLATILE_ANNOTATION_KEYS = ("lastModified",)


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

    @property
    def server_name(self) -> str:
        name = self.server_info.get("name")
        return name if isinstance(name, str) and name else "mcp-server"

    @property
    def server_version(self) -> str | None:
        version = self.server_info.get("version")
        return version if isinstance(version, str) else None

    def canonical(self) -> Snapshot:
        """Sorted items, volatile fields removed; applied before every write and after every read."""
        return replace(
            self,
            tools=_sorted_items(self.tools, "name"),
            resources=_sorted_items(tuple(_without_volatile(r) for r in self.resources), "uri"),
            resource_templates=_sorted_items(
                tuple(_without_volatile(t) for t in self.resource_templates), "uriTemplate"
            ),
            prompts=_sorted_items(self.prompts, "name"),
        )

    def as_json(self) -> JsonObject:
        data: JsonObject = {
            "formatVersion": FORMAT_VERSION,
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
        return data

    def to_text(self) -> str:
        """The canonical file text: sorted keys, two-space indent, non-ASCII kept, trailing newline."""
        return json.dumps(self.canonical().as_json(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, data: Any, *, source: str = "snapshot") -> Snapshot:
        if not isinstance(data, Mapping):
            raise SnapshotFormatError(f"{source}: not a snapshot (expected a JSON object)")
        version = data.get("formatVersion")
        if version != FORMAT_VERSION:
            raise SnapshotFormatError(
                f"{source}: unsupported snapshot formatVersion {version!r} (this mcp-codegen reads {FORMAT_VERSION})"
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
        ).canonical()

    @classmethod
    def from_text(cls, text: str, *, source: str = "snapshot") -> Snapshot:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise SnapshotFormatError(f"{source}: not valid JSON ({error.msg} at line {error.lineno})") from None
        return cls.from_json(data, source=source)


def read_snapshot(path: Path) -> Snapshot:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SnapshotFormatError(f"{path}: no such snapshot file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise SnapshotFormatError(f"{path}: cannot read snapshot ({error.__class__.__name__})") from None
    return Snapshot.from_text(text, source=str(path))


def _item_list(data: Mapping[str, Any], key: str, source: str) -> tuple[JsonObject, ...]:
    items = data.get(key) or []
    if not isinstance(items, list) or not all(isinstance(item, Mapping) for item in items):
        raise SnapshotFormatError(f"{source}: {key} must be a list of objects")
    return tuple(dict(item) for item in items)


def _sort_key(item: Mapping[str, Any], key: str) -> tuple[str, str]:
    value = item.get(key)
    # Ties (duplicate names) are broken by the whole item so the order never depends on the server's.
    return (value if isinstance(value, str) else "", json.dumps(item, sort_keys=True))


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
