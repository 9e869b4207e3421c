"""The tool names agents see: valid for every model API, at most 64 characters, collision-free.

OpenAI and Anthropic accept tool names matching `^[a-zA-Z0-9_-]+$` of at most 64 characters.
`agent_tool_names()` maps each wire name to such a name, with an optional prefix or the
`mcp__<server>__<tool>` namespacing of Claude's agent SDK:

* a name that is already valid (prefix and namespace included) is kept as it is;
* other characters become `_` (`search.notes` -> `search_notes`, `résumé` -> `r_sum_`);
* a name that is too long keeps its readable start and ends with `_` plus 8 hex digits of a hash
  of the full name, so it is the same on every run and every machine;
* when two wire names would give the same name, the one that needed no change keeps it and the
  others get a hash suffix of their own wire name (independent of listing order).

Pure functions of their arguments (stdlib only): the generator may import this module to compute
the same names at generation time.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

__all__ = [
    "MAX_NAME_LENGTH",
    "NAME_PATTERN",
    "agent_tool_names",
    "is_valid_tool_name",
    "namespace_for",
    "sanitize_name",
    "shorten_name",
]

#: What OpenAI (function names) and Anthropic (tool names) accept.
NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")
MAX_NAME_LENGTH = 64

_INVALID = re.compile(r"[^a-zA-Z0-9_-]+")
_HASH_LENGTH = 8
_MAX_SERVER_PART = 24


def is_valid_tool_name(name: str, limit: int = MAX_NAME_LENGTH) -> bool:
    """True when `name` is accepted as a tool name by OpenAI and Anthropic (and is at most `limit` long)."""
    return 0 < len(name) <= limit and NAME_PATTERN.match(name) is not None


def _digest(text: str, length: int = _HASH_LENGTH) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:length]


def sanitize_name(name: str) -> str:
    """`name` with every run of characters outside `[a-zA-Z0-9_-]` replaced by one `_` ("tool" if empty)."""
    if NAME_PATTERN.match(name) is not None:
        return name
    cleaned = _INVALID.sub("_", name)
    return cleaned if cleaned.strip("_") else f"tool_{_digest(name)}"


def shorten_name(
    name: str, limit: int = MAX_NAME_LENGTH, *, key: str | None = None
) -> str:
    """`name` cut to at most `limit` characters: its start, `_` and 8 hex digits of a hash of `key` (default: `name`).

    Unchanged when it already fits. The same input always gives the same output.
    """
    if len(name) <= limit:
        return name
    suffix = "_" + _digest(key if key is not None else name)
    head = name[: max(1, limit - len(suffix))].rstrip("_-") or name[:1]
    return head + suffix


def namespace_for(server_name: str) -> str:
    """The `<server>` part of `mcp__<server>__<tool>`: sanitized, at most 24 characters.

    A scoped name keeps its last segment (`@acme/mcp-servers/everything` -> `everything`); a
    longer one keeps its start and a hash of the whole server name.
    """
    last = server_name.strip().rstrip("/").rpartition("/")[2].lstrip("@")
    part = sanitize_name(last) if last else "server"
    return shorten_name(part, _MAX_SERVER_PART, key=server_name)


def _candidate(wire: str, prefix: str, namespace: str | None, limit: int) -> str:
    tool = sanitize_name(prefix + wire) if prefix else sanitize_name(wire)
    full_key = f"{namespace or ''}\0{prefix}\0{wire}"
    if namespace is None:
        return shorten_name(tool, limit, key=full_key)
    return shorten_name(f"mcp__{namespace_for(namespace)}__{tool}", limit, key=full_key)


def agent_tool_names(
    wire_names: Iterable[str],
    *,
    prefix: str = "",
    namespace: str | None = None,
    limit: int = MAX_NAME_LENGTH,
) -> dict[str, str]:
    """Map each wire name to the name agents see (see the module docstring), in input order.

    `prefix` is prepended to every tool name (sanitized like the name); `namespace` (a server
    name) gives `mcp__<namespace>__<prefix><tool>`. Every returned name matches `NAME_PATTERN`,
    has at most `limit` characters (at least 16), and no two are equal. The result for one wire
    name depends only on that name, the options and (on a collision) which other names exist.
    """
    if limit < 16:
        raise ValueError("limit must be at least 16")
    names = list(dict.fromkeys(wire_names))
    candidates = {wire: _candidate(wire, prefix, namespace, limit) for wire in names}
    taken: set[str] = set()
    result: dict[str, str] = {}
    # Names that needed no change claim theirs first, then the others in sorted order: the outcome
    # does not depend on the order the server listed its tools in.
    unchanged = [
        wire for wire in names if candidates[wire] == _plain(wire, prefix, namespace)
    ]
    kept = set(unchanged)
    changed = sorted(wire for wire in names if wire not in kept)
    for wire in [*unchanged, *changed]:
        name = candidates[wire]
        if name in taken:
            name = _with_suffix(name, "_" + _digest("\0" + wire), limit)
        counter = 2
        while name in taken:  # only on a hash collision
            name = _with_suffix(candidates[wire], f"_{_digest(wire)}_{counter}", limit)
            counter += 1
        taken.add(name)
        result[wire] = name
    return {wire: result[wire] for wire in names}


def _plain(wire: str, prefix: str, namespace: str | None) -> str:
    if namespace is None:
        return prefix + wire
    return f"mcp__{namespace}__{prefix}{wire}"


def _with_suffix(name: str, suffix: str, limit: int) -> str:
    head = name[: max(1, limit - len(suffix))]
    return head + suffix


def distinct_name(name: str, taken: set[str], limit: int = MAX_NAME_LENGTH) -> str:
    """`name`, or `name` with a `_2`, `_3`, ... suffix (within `limit`) when it is in `taken`."""
    candidate = name
    counter = 2
    while candidate in taken:
        candidate = _with_suffix(name, f"_{counter}", limit)
        counter += 1
    return candidate
