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

from dataclasses import fields
from typing import Any

from mcp_codegen.diagnostics import Diagnostic, Diagnostics
from mcp_codegen.generate.cache import ServerResults, value_digest
from mcp_codegen.generate.naming import ClassNames
from mcp_codegen.generate.schema_prep import PreparedTool, prepare_tool

#: The tool keys `prepare_tool` reads: only they are passed to it and hashed into the key.
SCHEMA_KEYS = ("inputSchema", "outputSchema")


def open_store(server_name: str) -> ServerResults | None:
    """The prepared tools of `server_name` (None when the cache is off or unusable)."""
    from mcp_codegen.generate.fingerprint import generator_fingerprint

    return ServerResults.open("prepared", generator_fingerprint(), server_name, _valid)


def prepared_tool(
    tool: dict[str, Any],
    *,
    class_prefix: str,
    location: str,
    diagnostics: Diagnostics,
    names: ClassNames,
    store: ServerResults | None,
) -> PreparedTool:
    """`prepare_tool` of `tool`, from `store` when its recorded class names are granted again."""
    return prepared_tool_keyed(
        tool, class_prefix=class_prefix, location=location, diagnostics=diagnostics, names=names, store=store
    )[0]


def prepared_tool_keyed(
    tool: dict[str, Any],
    *,
    class_prefix: str,
    location: str,
    diagnostics: Diagnostics,
    names: ClassNames,
    store: ServerResults | None,
) -> tuple[PreparedTool, str]:
    """`prepared_tool`, and a digest of what the result is made from (the entry's key and the class names granted;
    the same digest, the same result), for the next stages' keys; empty without a store.

    The key encodes the schemas whichever way the snapshot was read (a digest of the tool's file text would be
    cheaper, but a cold run, reading a new file, has none: its entries would never be found again)."""
    schemas = {key: tool[key] for key in SCHEMA_KEYS if key in tool}
    key = _key(schemas, class_prefix, location) if store is not None else ""
    entry = store.get(key) if store is not None else None
    if entry is not None and names.replay((asked, granted) for asked, granted in entry["claims"]):
        assert store is not None
        store.use(key, entry, made=False)
        for item in entry["diagnostics"]:
            diagnostics.add(_diagnostic(item))
        return PreparedTool(**entry["prepared"]), _digest(key, entry["claims"])
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
    return prepared, _digest(key, [list(pair) for pair in claims]) if store is not None else ""


def _digest(key: str, claims: list[list[str]]) -> str:
    return value_digest([key, claims])


def _key(schemas: dict[str, Any], class_prefix: str, location: str) -> str:
    return value_digest([schemas, class_prefix, location])


def _diagnostic(item: dict[str, Any]) -> Diagnostic:
    return Diagnostic.from_json(item)


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
