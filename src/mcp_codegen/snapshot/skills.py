"""Listing a server's MCP Skills (`skills/list`, every page) into the snapshot, each entry kept as sent.

An entry that is not a usable skill (no `skill://…/SKILL.md` URI, a name that is no folder name, a file path
leaving the skill's folder, a manifest over the extension's limits) is left out with a warning: one bad skill
never costs the others, nor the snapshot.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.errors import ServerError
from mcp_codegen.snapshot.connect import Connection
from mcp_codegen.snapshot.model import JsonObject
from mcp_codegen_runtime.calls.skills import parse_skill
from mcp_codegen_runtime.text import one_line, shortened

#: More skills than this is a runaway server (the extension caps each skill, not their number).
MAX_SKILLS = 10_000
MAX_PAGES = 1_000


async def list_skills(
    connection: Connection,
    diagnostics: Diagnostics,
    progress: Callable[[str], None] | None,
    send: Callable[[str, JsonObject | None], Awaitable[JsonObject]],
) -> tuple[JsonObject, ...]:
    """Every entry of `skills/list`, following `nextCursor`; unusable entries become warnings. `send(method,
    params)` returns a request's raw result (`fetch.raw_request` on the connection)."""
    kept: list[JsonObject] = []
    names: set[str] = set()
    seen_cursors: set[str] = set()
    cursor: str | None = None
    index = 0
    for page in range(1, MAX_PAGES + 1):
        where = "skills/list" if page == 1 else f"skills/list (page {page})"
        connection.set_phase(where)
        if progress is not None:
            progress("listing skills" + (f" (page {page})" if page > 1 else ""))
        result = await send("skills/list", {"cursor": cursor} if cursor is not None else None)
        entries = result.get("skills")
        if not isinstance(entries, list):
            raise ServerError(f"the server sent an invalid {where} result: 'skills' is not a list")
        for entry in entries:
            location = f"skills[{index}]"
            index += 1
            try:
                skill = parse_skill(entry)
            except ValueError as error:
                diagnostics.warn(location, f"left out: {one_line(str(error), 200)}", code="skill-invalid")
                continue
            if skill.name in names:
                diagnostics.warn(f"skills.{skill.name}", "left out: a second skill of that name", code="duplicate-item")
                continue
            names.add(skill.name)
            kept.append(dict(entry))
        if index > MAX_SKILLS:
            raise ServerError(f"skills/list: the server listed more than {MAX_SKILLS} skills; giving up")
        next_cursor = result.get("nextCursor")
        if next_cursor is None or next_cursor == "":
            return tuple(kept)
        if not isinstance(next_cursor, str) or next_cursor in seen_cursors:
            raise ServerError(
                f"skills/list: the server sent an invalid or repeated cursor {shortened(str(next_cursor), 40)!r}"
            )
        seen_cursors.add(next_cursor)
        cursor = next_cursor
    raise ServerError(f"skills/list: more than {MAX_PAGES} pages; giving up")


__all__ = ["MAX_SKILLS", "list_skills"]
