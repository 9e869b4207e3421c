"""The connect-time schema drift guard: does the live server still list the tools this package was made for?

At generation, every tool's input and output schemas are hashed (`tool_fingerprint`: the first 16 hex
digits of the SHA-256 of `[input, output]` as sorted, compact JSON, a schema without `"type"` read as
`"type": "object"`, non-local `$ref`s as one placeholder) into `specs.TOOL_HASHES`. On connect, the client lists the live tools once, hashes them the same way and
compares: a removed tool or a changed schema is drift. By default that is one logged warning naming
what drifted; `strict=True` raises `SchemaDriftError` before any call; `drift_check=False` skips it.
For the full breaking/dangerous/safe analysis, run `mcp-codegen check` in CI.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from ..text import one_line
from .errors import McpClientError, ProtocolError

if TYPE_CHECKING:
    import mcp_types
    from mcp import ClientSession

#: Names listed per kind of change in a drift message (a server may add hundreds of tools).
_NAMES_SHOWN = 8

logger = logging.getLogger(__name__)


def _without_remote_refs(schema: object) -> object:
    """`schema` with every non-local `$ref` (a URL, not `#/...`) replaced by one placeholder: the generator
    types such a reference as any value, so where it points never changes the package (a server may even put
    its own per-run address in it)."""
    if isinstance(schema, dict):
        items = cast("dict[str, object]", schema).items()
        return {
            key: (
                "<non-local>"
                if key == "$ref"
                and isinstance(value, str)
                and not value.startswith("#")
                else _without_remote_refs(value)
            )
            for key, value in items
        }
    if isinstance(schema, list):
        return [_without_remote_refs(item) for item in cast("list[object]", schema)]
    return schema


def _as_object_schema(schema: object) -> object:
    """`schema`, `"type": "object"` added when it has no type: how both the generator and the listing read it
    (`result_forms.current_tools_listing`), so a server adding or dropping that key changes no hash.
    """
    if not isinstance(schema, dict):
        return schema
    fields = cast("dict[str, object]", schema)
    return fields if "type" in fields else {"type": "object", **fields}


def tool_fingerprint(input_schema: object, output_schema: object) -> str:
    """A short, stable hash of what a tool accepts and returns (the generator uses this same function)."""
    schemas = [_as_object_schema(input_schema), _as_object_schema(output_schema)]
    canonical = json.dumps(
        [_without_remote_refs(schema) for schema in schemas],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class DriftSummary:
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    added: tuple[str, ...] = ()

    @property
    def drifted(self) -> bool:
        return bool(self.removed or self.changed)

    def describe(self, limit: int = _NAMES_SHOWN) -> str:
        """One line; each list shows its first `limit` names (the attributes keep them all)."""
        parts: list[str] = []
        for label, names in (
            ("removed", self.removed),
            ("schema changed", self.changed),
            ("new on the server", self.added),
        ):
            if names:
                shown = ", ".join(names[:limit])
                if len(names) > limit:
                    shown += f" and {len(names) - limit} more"
                parts.append(f"{label}: {shown}")
        return "; ".join(parts) or "no drift"


class SchemaDriftError(McpClientError):
    """The live server's tools differ from the snapshot this client was generated from."""

    def __init__(self, summary: DriftSummary, *, reason: str | None = None) -> None:
        if reason is not None:  # the listing could not be compared at all
            message = (
                "could not compare the server's tools with this client's snapshot "
                f"({reason}); drift_check=False skips the comparison"
            )
        else:
            message = (
                "the server's tools drifted from this client's snapshot ("
                f"{summary.describe()}); regenerate the client or run `mcp-codegen check`"
            )
        super().__init__(message)
        self.summary = summary
        self.reason = reason


def compare(expected: Mapping[str, str], live: Mapping[str, str]) -> DriftSummary:
    return DriftSummary(
        removed=tuple(sorted(name for name in expected if name not in live)),
        changed=tuple(
            sorted(
                name
                for name, digest in expected.items()
                if name in live and live[name] != digest
            )
        ),
        added=tuple(sorted(name for name in live if name not in expected)),
    )


async def list_session_tools(session: ClientSession) -> list[mcp_types.Tool]:
    """Every page of the live tool listing, listed through the SDK session, which keeps what it derives
    from a listing (each tool's output-schema validator and `x-mcp-header` map)."""
    import mcp_types

    tools: list[mcp_types.Tool] = []
    cursor: str | None = None
    for _ in range(10_000):
        page = await session.list_tools(
            params=mcp_types.PaginatedRequestParams(cursor=cursor)
        )
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


async def live_fingerprints(session: ClientSession) -> dict[str, str]:
    """Every page of the live tool listing, hashed per tool."""
    return fingerprints_of_tools(await list_session_tools(session))


def fingerprints_of_tools(tools: list[mcp_types.Tool]) -> dict[str, str]:
    return {
        tool.name: tool_fingerprint(tool.input_schema, tool.output_schema)
        for tool in tools
    }


async def check_drift(
    session: ClientSession,
    expected: Mapping[str, str],
    *,
    strict: bool,
    explain: Callable[[Exception, str | None], BaseException] | None = None,
    on_changed: Callable[[dict[str, dict[str, Any]]], None] | None = None,
) -> DriftSummary | None:
    """Compare the live tools with `expected`; warn, or raise when `strict`. None if the check could not run.

    `explain` turns a failed `tools/list` into the client's error (e.g. `HttpStatusError` with the
    HTTP status and the header names sent): a refused or lost connection is raised as that error
    when `strict` (it is not drift), and named in the warning otherwise.
    """
    try:
        tools = await list_session_tools(session)
        summary = compare(expected, fingerprints_of_tools(tools))
    except Exception as error:  # an off-spec listing must not stop a client that works
        reason = explain(error, "tools/list") if explain is not None else error
        if strict:
            if isinstance(reason, McpClientError) and not isinstance(
                reason, ProtocolError
            ):
                raise reason from None
            raise SchemaDriftError(DriftSummary(), reason=_describe(reason)) from error
        logger.warning(
            "could not check the server's tools for drift: %s", _describe(reason)
        )
        return None
    if on_changed is not None:
        changed = set(summary.changed)
        on_changed(
            {tool.name: tool.input_schema for tool in tools if tool.name in changed}
        )
    if summary.drifted:
        if strict:
            raise SchemaDriftError(summary)
        logger.warning(
            "the server's tools drifted from this client's snapshot (%s)",
            summary.describe(),
        )
    return summary


def _describe(error: BaseException) -> str:
    # Our own errors have secret-free one-line messages; others are named by type only.
    if isinstance(error, McpClientError):
        return f"{type(error).__name__}: {one_line(str(error), 300)}"
    return type(error).__name__


def fingerprints_of(tools: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """Wire tool dicts (as in snapshot.json) by name -> fingerprints: what the generator embeds."""
    return {
        name: tool_fingerprint(tool.get("inputSchema"), tool.get("outputSchema"))
        for name, tool in tools.items()
    }
