"""Per-item hashes of an MCP listing: the connect-time drift guard's only computation.

SELF-CONTAINED ON PURPOSE: this module uses nothing but the standard library (`hashlib`, `json`) and imports
nothing from mcp_codegen, so it can be copied verbatim into a generated package's `_runtime/` and give the very
same hashes there as the generator computed from the snapshot. Keep it that way (a test checks it).

The hash of one item (a tool, prompt, resource or resource template, as the raw wire dict the server listed)::

    text = json.dumps(item, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    hash = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

after removing, for resources and resource templates, the volatile fields the snapshot never stores (`size` and
`annotations.lastModified`). Hash the raw JSON the server sent (the same dicts a snapshot holds: camelCase,
vendor keys and explicit nulls kept), not a re-dump of the SDK's typed models, which drop unknown fields.

A hash says *that* an item changed, not *how*: on a mismatch, take a snapshot and run `mcp-codegen diff`.
Key order in the server's JSON does not matter; any other difference does (even a reordered `required` list).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

#: Kinds of listed items, and the key that names each item of that kind.
ITEM_KEYS: Mapping[str, str] = {
    "tool": "name",
    "prompt": "name",
    "resource": "uri",
    "resourceTemplate": "uriTemplate",
}
#: The listing sections (as in a snapshot) and the kind of their items.
SECTIONS: Mapping[str, str] = {
    "tools": "tool",
    "prompts": "prompt",
    "resources": "resource",
    "resourceTemplates": "resourceTemplate",
}
_VOLATILE_ITEM_KEYS = ("size",)
_VOLATILE_ANNOTATION_KEYS = ("lastModified",)


def canonical_item_json(kind: str, item: Mapping[str, Any]) -> str:
    """The exact text that is hashed for one item."""
    if kind not in ITEM_KEYS:
        raise ValueError(f"unknown item kind {kind!r} (expected one of {', '.join(ITEM_KEYS)})")
    if kind in ("resource", "resourceTemplate"):
        item = _without_volatile(item)
    return json.dumps(item, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def item_hash(kind: str, item: Mapping[str, Any]) -> str:
    """16 hex digits: the start of the SHA-256 of the item's canonical JSON (see the module docstring)."""
    return hashlib.sha256(canonical_item_json(kind, item).encode("utf-8")).hexdigest()[:16]


def section_hashes(kind: str, items: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """`{item key: hash}` for one listing section (a later duplicate key overrides an earlier one)."""
    key = ITEM_KEYS[kind]
    hashes: dict[str, str] = {}
    for item in items:
        name = item.get(key)
        if isinstance(name, str):
            hashes[name] = item_hash(kind, item)
    return hashes


def listing_hashes(listing: Mapping[str, Iterable[Mapping[str, Any]]]) -> dict[str, dict[str, str]]:
    """`{"tools": {name: hash}, "prompts": ..., "resources": {uri: hash}, "resourceTemplates": ...}`.

    `listing` maps section names (`tools`, `prompts`, `resources`, `resourceTemplates`) to raw items; missing
    sections are left out of the result (so a guard can hash only what it lists).
    """
    return {section: section_hashes(kind, listing[section]) for section, kind in SECTIONS.items() if section in listing}


def hash_differences(expected: Mapping[str, Mapping[str, str]], live: Mapping[str, Mapping[str, str]]) -> list[str]:
    """One line per item that differs, for the sections present in both: `tools.x: changed|removed|added`."""
    lines: list[str] = []
    for section in SECTIONS:
        if section not in expected or section not in live:
            continue
        before, now = expected[section], live[section]
        for name in sorted(set(before) | set(now)):
            if name not in now:
                lines.append(f"{section}.{name}: removed")
            elif name not in before:
                lines.append(f"{section}.{name}: added")
            elif before[name] != now[name]:
                lines.append(f"{section}.{name}: changed")
    return lines


def _without_volatile(item: Mapping[str, Any]) -> Mapping[str, Any]:
    annotations = item.get("annotations")
    volatile_annotations = isinstance(annotations, Mapping) and any(k in annotations for k in _VOLATILE_ANNOTATION_KEYS)
    if not volatile_annotations and not any(k in item for k in _VOLATILE_ITEM_KEYS):
        return item
    cleaned = {k: v for k, v in item.items() if k not in _VOLATILE_ITEM_KEYS}
    if volatile_annotations and isinstance(annotations, Mapping):
        cleaned["annotations"] = {k: v for k, v in annotations.items() if k not in _VOLATILE_ANNOTATION_KEYS}
    return cleaned
