"""How counts are worded in progress and summaries: `1 tool`, `2 tools`, one place for every message."""

from __future__ import annotations

from mcp_codegen.snapshot.model import Snapshot


def plural(count: int, word: str) -> str:
    """`1 tool`, `0 tools`, `2 resource templates`."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def counts(snapshot: Snapshot, *, tools: int | None = None) -> str:
    """`12 tools, 3 resources, 1 resource template, 2 prompts`; `tools` replaces the snapshot's count
    (the tools actually generated, after --include/--exclude)."""
    return ", ".join(
        [
            plural(len(snapshot.tools) if tools is None else tools, "tool"),
            plural(len(snapshot.resources), "resource"),
            plural(len(snapshot.resource_templates), "resource template"),
            plural(len(snapshot.prompts), "prompt"),
        ]
    )
