"""Short, stable per-item hashes, for the generated client's connect-time drift guard.

The generator embeds `snapshot_hashes(snapshot)` in a package; at connect time the client hashes the live
listing with the same function and compares (`hash_differences`). The function the runtime needs lives in
`_itemhash.py`, which is standard-library only and self-contained: copy that file into the runtime
(`RUNTIME_SOURCE` is its path) rather than re-implementing it, so both sides always agree.

    item_hash(kind, wire_item) == sha256(json.dumps(item, sort_keys=True, separators=(",", ":"),
                                                    ensure_ascii=False).encode()).hexdigest()[:16]

with `size` and `annotations.lastModified` left out of resources and templates (they are not in snapshots).
"""

from __future__ import annotations

from pathlib import Path

from mcp_codegen.drift._itemhash import (
    ITEM_KEYS,
    SECTIONS,
    canonical_item_json,
    hash_differences,
    item_hash,
    listing_hashes,
    section_hashes,
)
from mcp_codegen.snapshot.model import Snapshot

__all__ = [
    "ITEM_KEYS",
    "RUNTIME_SOURCE",
    "SECTIONS",
    "canonical_item_json",
    "hash_differences",
    "item_hash",
    "listing_hashes",
    "section_hashes",
    "snapshot_hashes",
]

#: The stdlib-only module to copy into a generated package's runtime.
RUNTIME_SOURCE = Path(__file__).with_name("_itemhash.py")


def snapshot_hashes(snapshot: Snapshot) -> dict[str, dict[str, str]]:
    """Every item of a snapshot, hashed: `{"tools": {name: hash}, ..., "resourceTemplates": {...}}`."""
    return listing_hashes(
        {
            "tools": snapshot.tools,
            "prompts": snapshot.prompts,
            "resources": snapshot.resources,
            "resourceTemplates": snapshot.resource_templates,
        }
    )
