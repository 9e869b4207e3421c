"""Listing a connected server page by page, as raw wire dicts, into a `Snapshot`.

The SDK's typed `list_tools()` is not used: it validates a whole page strictly (one tool with
`inputSchema: {}` loses the page) and its models drop vendor keys. Requests go out raw through
`raw_request()`, the one function that touches SDK internals, and each item is kept exactly as
received. Items without an identity (`name`, `uri`, `uriTemplate`) are left out with a warning;
everything else, off-spec schemas included, is kept for later stages to judge.

Tools are required: a `tools/list` that fails fails the snapshot. Resources, resource templates and prompts
are not: one answered with a JSON-RPC error or not in time is a `listing-failed` warning, and one given in
`skip` is not asked for; either way the snapshot names it in `not_listed` (empty is not the same as unknown).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from typing import Any

import mcp_types
from mcp import Client
from mcp.shared.dispatcher import CallOptions
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcp_codegen.diagnostics import Diagnostics
from mcp_codegen.errors import ServerError
from mcp_codegen.inputs.launch import HttpLaunch, ServerLaunch, StdioLaunch
from mcp_codegen.inputs.options import SKIPPABLE
from mcp_codegen.snapshot.connect import Connection, Progress, connect, connect_in_process
from mcp_codegen.snapshot.model import OPTIONAL_LISTINGS, JsonObject, Snapshot
from mcp_codegen.snapshot.skills import list_skills
from mcp_codegen.snapshot.waits import FIRST_NOTICE
from mcp_codegen_runtime.calls.errors import sdk_connection_closed, sdk_request_timeout
from mcp_codegen_runtime.calls.skills import SKILLS_EXTENSION
from mcp_codegen_runtime.text import one_line, shortened

#: More items than this in one listing is a runaway server, not an API.
MAX_ITEMS = 100_000
#: A listing with more pages than this is stopped too (a server paging one item at a time stays well under).
MAX_PAGES = 10_000


@dataclass(frozen=True)
class _Listing:
    #: Snapshot location prefix and result key, e.g. "tools" / "resourceTemplates".
    key: str
    method: str
    #: The capability the server must declare for the list to be asked for.
    capability: str
    #: The field that identifies an item.
    identity: str
    #: For progress lines: "tools", "resource templates".
    label: str


_LISTINGS = (
    _Listing("tools", "tools/list", "tools", "name", "tools"),
    _Listing("resources", "resources/list", "resources", "uri", "resources"),
    _Listing("resourceTemplates", "resources/templates/list", "resources", "uriTemplate", "resource templates"),
    _Listing("prompts", "prompts/list", "prompts", "name", "prompts"),
)


class _ListingFailed(Exception):
    """An optional listing the server answered with an error, or not in time: the snapshot goes on without it."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


async def raw_request(client: Client, method: str, params: JsonObject | None, *, timeout: float) -> JsonObject:
    """Send one JSON-RPC request and return its `result` as the raw dict the server sent.

    This is the only place mcp-codegen uses SDK internals (hence the `mcp>=2.3,<2.4` pin): the public
    `ClientSession.send_request` validates the result against the protocol models, which rejects a
    whole page over one off-spec item and drops unknown keys. It is `send_request` minus the
    validation: the session's `_stamp` adds what the negotiated protocol needs on every request (the
    `MCP-Protocol-Version` header on HTTP), then the dispatcher's `send_raw_request` sends it and waits
    at most `timeout` seconds.

    Raises:
        MCPError: an error response, `REQUEST_TIMEOUT`, or `CONNECTION_CLOSED`.
    """
    session = client.session
    data: dict[str, Any] = {"method": method, "params": dict(params or {})}
    opts: CallOptions = {}
    session._stamp(data, opts)  # SDK internal, see the docstring
    opts["timeout"] = timeout
    return await session._dispatcher.send_raw_request(method, data.get("params"), opts)  # SDK internal


async def take_snapshot(
    launch: ServerLaunch,
    *,
    timeout: float = 30.0,
    diagnostics: Diagnostics,
    progress: Callable[[str], None] | None = None,
    show_stderr: bool = False,
    skip: Collection[str] = (),
    patience: float = FIRST_NOTICE,
) -> Snapshot:
    """Start or reach the server described by `launch`, list everything it offers, and return the snapshot.

    `timeout` bounds connecting (initialize) and each request. Every failure is a one-line
    `ServerError` without secrets; items that cannot be kept become warnings in `diagnostics`.
    `show_stderr`: a stdio server's stderr goes to ours as it comes (`-v`); else only its last
    lines, in a failure's message. `skip`: the optional listings (snapshot keys, `OPTIONAL_LISTINGS`)
    not to ask for. `patience`: seconds a request may go unanswered before `progress` says what is awaited.
    """
    first_diagnostics = Diagnostics()
    async with connect(
        launch, timeout=timeout, progress=progress, show_stderr=show_stderr, patience=patience
    ) as connection:
        snapshot = await _list_everything(connection, first_diagnostics, progress, skip)
    if _may_offer_skills(snapshot):
        # Skills exist only at 2026-07-28, which the legacy handshake never reaches: ask again with
        # `server/discover` (answered at once by a server that speaks it) and keep that snapshot if it does.
        _say(progress, "the server lists skill:// resources; connecting again at MCP 2026-07-28 for its skills")
        second_diagnostics = Diagnostics()
        try:
            async with connect(
                launch, timeout=timeout, progress=progress, show_stderr=show_stderr, modern=True, patience=patience
            ) as connection:
                modern = await _list_everything(connection, second_diagnostics, progress, skip)
        except ServerError as error:  # the first snapshot stands; its skills are not recorded
            first_diagnostics.warn(
                "skills",
                f"the server lists skill:// resources, but connecting at 2026-07-28 failed ({one_line(str(error), 200)})",
                code="skills-not-listed",
            )
        else:
            if modern.protocol_version in MODERN_PROTOCOL_VERSIONS:
                snapshot, first_diagnostics = modern, second_diagnostics
    diagnostics.extend(first_diagnostics)
    if launch.registry is not None:
        snapshot = replace(snapshot, registry=launch.registry)
    if isinstance(launch, StdioLaunch):
        for name in launch.recorded_args()[1]:
            diagnostics.warn(
                "launch.args",
                f"a secret in the command line is recorded as ${{{name}}}: set {name} when the generated client"
                " connects, or write ${VAR} in --stdio yourself (single-quoted, so your shell leaves it);"
                " --no-redact VALUE keeps a value that only looks secret",
                code="secret-in-command",
            )
    if isinstance(launch, HttpLaunch):
        headers, introduced = launch.recorded_headers()
        for header, name in ((h, n) for h in headers for n in introduced if h.template and f"${{{n}}}" in h.template):
            diagnostics.warn(
                "launch.headers",
                f"a secret in the header {header.name} is recorded as ${{{name}}}: set {name} when the generated"
                f" client connects, or write ${{VAR}} in -H yourself (single-quoted: -H '{header.name}:"
                " ...${VAR}'); --no-redact VALUE keeps a value that only looks secret",
                code="secret-in-command",
            )
    return snapshot


async def snapshot_server(
    server: object, *, timeout: float = 30.0, diagnostics: Diagnostics, skip: Collection[str] = ()
) -> Snapshot:
    """`take_snapshot()` for an in-process `MCPServer` or low-level `mcp.server.Server` (tests, demos).

    The launch record is `None`, and `serverInfo` comes from the SDK's model of the initialize result
    (the in-memory transport cannot be tapped for the raw one).
    """
    async with connect_in_process(server, timeout=timeout) as connection:
        snapshot = await _list_everything(connection, diagnostics, None, skip)
    return snapshot


async def _list_everything(
    connection: Connection, diagnostics: Diagnostics, progress: Progress | None, skip: Collection[str] = ()
) -> Snapshot:
    init = connection.init_result
    server_info = init.get("serverInfo")
    server_info = dict(server_info) if isinstance(server_info, dict) else {}
    capabilities = init.get("capabilities")
    capabilities = dict(capabilities) if isinstance(capabilities, dict) else {}
    protocol_version = init.get("protocolVersion")
    instructions = init.get("instructions")
    if progress is not None:
        name = server_info.get("name") if isinstance(server_info.get("name"), str) else "server"
        version = server_info.get("version")
        label = f"{name} {version}" if isinstance(version, str) and version else str(name)
        progress(f"connected to {label} (protocol {protocol_version})")

    count, first = connection.stdout_garbage
    if count:
        diagnostics.warn(
            "server",
            f"wrote {count} non-JSON line(s) to stdout, skipped (first: {first!r})",
            code="server-stdout-noise",
        )

    listed: dict[str, tuple[JsonObject, ...]] = {}
    not_listed: dict[str, str] = {}
    for listing in _LISTINGS:
        listed[listing.key] = ()
        if capabilities.get(listing.capability) is None:
            continue
        if listing.key in skip and listing.key in OPTIONAL_LISTINGS:
            not_listed[listing.key] = "skipped"
            continue
        try:
            listed[listing.key] = await _list_all(connection, listing, diagnostics, progress)
        except _ListingFailed as failure:
            not_listed[listing.key] = failure.reason
            diagnostics.warn(
                listing.key,
                f"{connection.scrub(str(failure))}; left out, so the package has no {listing.label}"
                f" (--skip {_skip_name(listing.key)} stops asking for them)",
                code="listing-failed",
            )
    if protocol_version in MODERN_PROTOCOL_VERSIONS:
        listed["tools"] = _with_valid_headers(listed["tools"], diagnostics)
    extensions = capabilities.get("extensions")
    skills = None
    if isinstance(extensions, dict) and SKILLS_EXTENSION in extensions:  # at any version the server offers them
        skills = await list_skills(
            connection,
            diagnostics,
            progress,
            lambda method, params: raw_request(connection.client, method, params, timeout=connection.timeout),
        )

    return Snapshot(
        server_info=server_info,
        protocol_version=protocol_version if isinstance(protocol_version, str) else None,
        capabilities=capabilities,
        instructions=instructions if isinstance(instructions, str) else None,
        launch=connection.record,
        tools=listed["tools"],
        resources=listed["resources"],
        resource_templates=listed["resourceTemplates"],
        prompts=listed["prompts"],
        skills=skills,
        not_listed=not_listed,
    ).canonical()


def _skip_name(key: str) -> str:
    return next(name for name, listed in SKIPPABLE.items() if listed == key)


def _may_offer_skills(snapshot: Snapshot) -> bool:
    """Whether a legacy snapshot's server serves skills as resources (`skill://…/SKILL.md`): it may offer the
    Skills extension at 2026-07-28."""
    return snapshot.protocol_version not in MODERN_PROTOCOL_VERSIONS and any(
        isinstance(uri := resource.get("uri"), str) and uri.startswith("skill://") and uri.endswith("/SKILL.md")
        for resource in snapshot.resources
    )


def _say(progress: Progress | None, line: str) -> None:
    if progress is not None:
        progress(line)


def _with_valid_headers(tools: tuple[JsonObject, ...], diagnostics: Diagnostics) -> tuple[JsonObject, ...]:
    """The tools a 2026-07-28 client may call: one whose `x-mcp-header` annotations are invalid is dropped by
    every client (the SDK's own `tools/list` included), so the snapshot leaves it out too."""
    from mcp.shared.inbound import find_invalid_x_mcp_header

    kept: list[JsonObject] = []
    for tool in tools:
        reason = find_invalid_x_mcp_header(tool.get("inputSchema"))
        if reason is None:
            kept.append(tool)
        else:
            diagnostics.warn(
                f"tools.{one_line(str(tool.get('name')), 80)}",
                f"left out: invalid x-mcp-header ({one_line(reason, 120)}); clients drop this tool",
                code="tool-invalid-header",
            )
    return tuple(kept)


async def _list_all(
    connection: Connection, listing: _Listing, diagnostics: Diagnostics, progress: Progress | None
) -> tuple[JsonObject, ...]:
    """Every page of one listing, following `nextCursor`; items without an identity are left out."""
    kept: list[JsonObject] = []
    seen_cursors: set[str] = set()
    cursor: str | None = None
    index = 0
    page = 0
    while True:
        page += 1
        where = listing.method if page == 1 else f"{listing.method} (page {page})"
        connection.set_phase(where)
        if progress is not None:
            progress(f"listing {listing.label}" + (f" (page {page})" if page > 1 else ""))
        try:
            result = await raw_request(
                connection.client,
                listing.method,
                {"cursor": cursor} if cursor is not None else None,
                timeout=connection.timeout,
            )
        except MCPError as error:
            if error.code == mcp_types.METHOD_NOT_FOUND and page == 1:
                diagnostics.warn(
                    listing.key,
                    f"the server declares the {listing.capability!r} capability but does not implement "
                    f"{listing.method}; listed as empty",
                    code="listing-not-implemented",
                )
                return ()
            if listing.key in OPTIONAL_LISTINGS and sdk_request_timeout(error):
                raise _ListingFailed(
                    "timed-out", f"{where} did not answer within {connection.timeout:g} s (--timeout)"
                ) from None
            if listing.key in OPTIONAL_LISTINGS and not sdk_connection_closed(error):
                raise _ListingFailed(
                    "failed",
                    f"the server answered {where} with an error: {one_line(error.message, 200)} (JSON-RPC {error.code})",
                ) from None
            raise
        items = result.get(listing.key)
        if not isinstance(items, list):
            raise ServerError(f"the server sent an invalid {where} result: {listing.key!r} is not a list")
        for item in items:
            location = f"{listing.key}[{index}]"
            index += 1
            if not isinstance(item, dict):
                diagnostics.warn(location, f"left out: not an object (got {_json_type(item)})", code="item-not-object")
                continue
            identity = item.get(listing.identity)
            if not isinstance(identity, str):
                problem = "has no" if identity is None else "has a non-string"
                diagnostics.warn(location, f"left out: {problem} {listing.identity!r}", code="item-without-name")
                continue
            kept.append(item)
        if index > MAX_ITEMS:
            raise ServerError(f"{listing.method}: the server listed more than {MAX_ITEMS} {listing.label}; giving up")

        next_cursor = result.get("nextCursor")
        if next_cursor is None or next_cursor == "":
            return tuple(kept)
        if not isinstance(next_cursor, str):
            raise ServerError(f"the server sent an invalid {where} result: nextCursor is not a string")
        if next_cursor in seen_cursors:
            raise ServerError(
                f"{listing.method}: the server sent cursor {shortened(next_cursor, 40)!r} again on page {page}; "
                "stopping to avoid an endless listing"
            )
        if page >= MAX_PAGES:
            raise ServerError(f"{listing.method}: more than {MAX_PAGES} pages; giving up")
        seen_cursors.add(next_cursor)
        cursor = next_cursor


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return type(value).__name__


__all__ = ["MAX_ITEMS", "MAX_PAGES", "raw_request", "snapshot_server", "take_snapshot"]
