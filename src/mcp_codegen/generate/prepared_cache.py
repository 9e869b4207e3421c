"""Each tool's prepared schemas (`schema_prep.prepare_tool`) kept in the user's cache, replayed while they still hold.

Preparing a tool reads only its own two schemas, its class prefix and its location; it depends on the other
tools only through the class names it is granted (`ClassNames`: unique across tools, asked in sorted tool
order), and its only other effect is the diagnostics it emits. So a tool's entry (keyed by those inputs,
kept with the server's other tools' in one `prepared/` entry of `cache.py`'s cache) records what was asked
and granted, the diagnostics and the `PreparedTool`; a later run uses it only when `ClassNames.replay`
grants the same names now (a tool added before it may have taken one), else prepares the tool again.
Either way the result is what preparing it gives.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import fields
from typing import Any

from mcp_codegen.diagnostics import Diagnostic, Diagnostics, Level
from mcp_codegen.generate.cache import ResultCache
from mcp_codegen.generate.naming import ClassNames
from mcp_codegen.generate.schema_prep import PreparedTool, prepare_tool

#: The tool keys `prepare_tool` reads: only they are passed to it and hashed into the key.
_SCHEMA_KEYS = ("inputSchema", "outputSchema")
#: Bumped when the entry's layout changes.
_ENTRY_FORMAT = 1
#: A server's entry is written again when at least one of this many of its tools was prepared afresh (measured
#: on 360 real tools: rewriting their entry, ~6 ms, costs what preparing ~60 of them does).
_REWRITE_SHARE = 16


class PreparedStore:
    """The prepared tools of one server: a single cache entry (one file to read, one to write) holding an entry per
    tool by its key. Preparing a tool costs about as much as reading a file, so a file per tool would not pay."""

    def __init__(self, cache: ResultCache, name: str) -> None:
        self.cache = cache
        self.name = name
        bundle = cache.get(name)
        self.known: dict[str, Any] = bundle["tools"] if bundle is not None else {}
        #: The entries this run used or made: what is written back (so the entry holds the server's tools only).
        self.used: dict[str, Any] = {}
        self.made = 0

    @classmethod
    def open(cls, server_name: str) -> PreparedStore | None:
        """The store of `server_name`'s prepared tools (None when the cache is off or unusable)."""
        from mcp_codegen.generate.fingerprint import generator_fingerprint

        cache = ResultCache.open("prepared", generator_fingerprint(), _valid_bundle)
        return None if cache is None else cls(cache, hashlib.sha256(server_name.encode()).hexdigest())

    def get(self, key: str) -> dict[str, Any] | None:
        entry = self.known.get(key)
        try:
            return entry if isinstance(entry, dict) and _valid(entry) else None
        except (KeyError, TypeError, ValueError, AttributeError):  # a corrupt entry is a miss
            return None

    def use(self, key: str, entry: dict[str, Any], *, made: bool) -> None:
        self.used[key] = entry
        self.made += made

    def close(self) -> None:
        """Write the entries back (before the later stages change any plan) once enough of them are new.

        Rewriting the whole entry costs about what preparing one tool in `_REWRITE_SHARE` again does: a few
        changed tools are prepared again on each run until they are that many."""
        if self.made and self.made * _REWRITE_SHARE >= len(self.used):
            self.cache.put(self.name, {"format": _ENTRY_FORMAT, "tools": self.used})
            self.cache.prune()


def prepared_tool(
    tool: dict[str, Any],
    *,
    class_prefix: str,
    location: str,
    diagnostics: Diagnostics,
    names: ClassNames,
    store: PreparedStore | None,
) -> PreparedTool:
    """`prepare_tool` of `tool`, from `store` when its recorded class names are granted again."""
    schemas = {key: tool[key] for key in _SCHEMA_KEYS if key in tool}
    key = _key(schemas, class_prefix, location) if store is not None else ""
    entry = store.get(key) if store is not None else None
    if entry is not None and names.replay((asked, granted) for asked, granted in entry["claims"]):
        assert store is not None
        store.use(key, entry, made=False)
        for item in entry["diagnostics"]:
            diagnostics.add(_diagnostic(item))
        return PreparedTool(**entry["prepared"])
    claims: list[tuple[str, str]] = []

    def claim(name: str) -> str:
        granted = names.claim(name)
        claims.append((name, granted))
        return granted

    emitted = Diagnostics()
    prepared = prepare_tool(schemas, class_prefix=class_prefix, location=location, diagnostics=emitted, claim=claim)
    diagnostics.extend(emitted)
    if store is not None:
        store.use(
            key,
            {
                "claims": [list(pair) for pair in claims],
                "diagnostics": [item.as_json() for item in emitted],
                "prepared": {f.name: getattr(prepared, f.name) for f in fields(PreparedTool)},
            },
            made=True,
        )
    return prepared


def _key(schemas: dict[str, Any], class_prefix: str, location: str) -> str:
    text = json.dumps([schemas, class_prefix, location], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _diagnostic(item: dict[str, Any]) -> Diagnostic:
    return Diagnostic(item["location"], item["message"], Level(item["level"]), item["code"])


def _valid_bundle(bundle: dict[str, Any]) -> bool:
    """A store this version wrote (its tools' entries are checked one by one, as they are used)."""
    return bundle.get("format") == _ENTRY_FORMAT and isinstance(bundle["tools"], dict)


def _valid(entry: dict[str, Any]) -> bool:
    """A tool's entry, whole (a corrupt one is a miss, never an error)."""
    claims, prepared = entry["claims"], entry["prepared"]
    if not all(isinstance(c, list) and len(c) == 2 and all(isinstance(n, str) for n in c) for c in claims):
        return False
    for item in entry["diagnostics"]:
        _diagnostic(item)
    return (
        prepared.keys() == {f.name for f in fields(PreparedTool)}
        and isinstance(prepared["definitions"], dict)
        and all(isinstance(name, str) and isinstance(body, dict) for name, body in prepared["definitions"].items())
        and isinstance(prepared["permissive_arguments"], bool)
        and (prepared["result_class"] is None or isinstance(prepared["result_class"], str))
    )
