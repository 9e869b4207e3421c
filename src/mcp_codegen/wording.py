"""How counts are worded in progress and summaries: `1 tool`, `2 tools`, one place for every message."""

from __future__ import annotations

from collections.abc import Sized
from typing import Protocol


class Listing(Protocol):
    """What `counts` reads of a server's listing (a `snapshot.model.Snapshot`): below the stages, it names none."""

    @property
    def tools(self) -> Sized: ...
    @property
    def resources(self) -> Sized: ...
    @property
    def resource_templates(self) -> Sized: ...
    @property
    def prompts(self) -> Sized: ...


def plural(count: int, word: str) -> str:
    """`1 tool`, `0 tools`, `2 resource templates`."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def counts(listing: Listing, *, tools: int | None = None) -> str:
    """`12 tools, 3 resources, 1 resource template, 2 prompts`; `tools` replaces the listing's count
    (the tools actually generated, after --include/--exclude); `, 2 skills` when the server offers skills."""
    skills: object = getattr(listing, "skills", None)
    return ", ".join(
        [
            plural(len(listing.tools) if tools is None else tools, "tool"),
            plural(len(listing.resources), "resource"),
            plural(len(listing.resource_templates), "resource template"),
            plural(len(listing.prompts), "prompt"),
            *([plural(len(skills), "skill")] if isinstance(skills, tuple) else []),
        ]
    )
