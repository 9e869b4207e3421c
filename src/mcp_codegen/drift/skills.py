"""Drift of a server's MCP Skills between two snapshots: removed (breaking), files or frontmatter changed
(dangerous: the skill behaves differently under the same name), added (safe)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp_codegen.drift.findings import Findings, JsonObject

__all__ = ["diff_skills"]


def _by_name(skills: tuple[JsonObject, ...]) -> dict[str, JsonObject]:
    found: dict[str, JsonObject] = {}
    for entry in skills:
        frontmatter = entry.get("frontmatter")
        name = frontmatter.get("name") if isinstance(frontmatter, Mapping) else None
        if isinstance(name, str):
            found.setdefault(name, entry)
    return found


def _files(entry: JsonObject) -> dict[str, Any] | str:
    """Path-independent view of a manifest: file URI -> (digest, size), or "dynamic"."""
    resources = entry.get("resources")
    if not isinstance(resources, list):
        return str(resources)
    return {
        str(item.get("uri")): [item.get("digest"), item.get("size")] for item in resources if isinstance(item, Mapping)
    }


def diff_skills(old: tuple[JsonObject, ...] | None, new: tuple[JsonObject, ...] | None, out: Findings) -> None:
    """Emit the skills' findings; nothing when neither snapshot knows the extension."""
    if old is None and new is None:
        return
    if old is not None and new is None:
        if old:
            out.emit("skills-extension-removed", "skills", len(old), None)
        return
    was, now = _by_name(old or ()), _by_name(new or ())
    for name in sorted(was.keys() - now.keys()):
        out.emit("skill-removed", f"skills.{name}", was[name].get("uri"), None, name=name)
    for name in sorted(now.keys() - was.keys()):
        out.emit("skill-added", f"skills.{name}", None, now[name].get("uri"), name=name)
    for name in sorted(was.keys() & now.keys()):
        before, after = _files(was[name]), _files(now[name])
        if before != after:
            out.emit(
                "skill-files-changed", f"skills.{name}.resources", before, after, name=name, detail=_what(before, after)
            )
        old_front, new_front = was[name].get("frontmatter") or {}, now[name].get("frontmatter") or {}
        keys = sorted(key for key in set(old_front) | set(new_front) if old_front.get(key) != new_front.get(key))
        if keys:
            out.emit(
                "skill-frontmatter-changed",
                f"skills.{name}.frontmatter",
                {k: old_front.get(k) for k in keys},
                {k: new_front.get(k) for k in keys},
                name=name,
                detail=", ".join(keys),
            )


def _what(before: dict[str, Any] | str, after: dict[str, Any] | str) -> str:
    """Which files changed, by their last path segment: `SKILL.md, reference/checklist.md`."""
    if isinstance(before, str) or isinstance(after, str):
        return "the manifest"
    uris = sorted(uri for uri in set(before) | set(after) if before.get(uri) != after.get(uri))
    shown = [uri.split("://", 1)[-1].split("/", 1)[-1] for uri in uris[:4]]
    more = f" and {len(uris) - 4} more" if len(uris) > 4 else ""
    return "files " + ", ".join(shown) + more
