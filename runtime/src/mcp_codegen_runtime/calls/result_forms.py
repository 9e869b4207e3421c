"""Older and rougher result forms that real servers send (`tools/call`, `tools/list`), read as the current form
before validation.

The TypeScript SDK (whose servers are most of those in use) accepts two forms the Python SDK refuses:

* the 2024-10-07 compatibility form `{"toolResult": ...}` (its `CompatibilityCallToolResultSchema`), which
  @cloudflare/mcp-server-cloudflare 0.2.0 still answers with: a `toolResult` holding `content` is read as that
  result, any other `toolResult` as one text block (a string as is, other JSON as its text);
* a result without `content` (its `CallToolResultSchema` defaults `content` to `[]`), as servers answering with
  `structuredContent` alone send it.

A listed tool whose `inputSchema` or `outputSchema` has no `"type"` (mcp-obsidian's, the Python SDK before 2.x
sent them as given) is read as an object schema, as the generator reads it (`drift.tool_fingerprint` hashes
both forms alike): the SDK refuses the whole page otherwise, and with it the drift check and `list_tools()`.

Each is logged once per result at DEBUG. Anything else is left as received, so the SDK's validation refuses it
and the caller gets the `ProtocolError` quoting it. `accept_result_forms(session)` puts this beneath every
path of a session (typed methods, `call_raw()`, agent tools, the command line, tasks), which all send through
its dispatcher's `send_raw_request` (an SDK internal, pinned by tests/runtime/test_sdk_private_pins.py).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any, cast

__all__ = ["accept_result_forms", "current_call_result", "current_tools_listing"]

#: The schemas of a listed tool that MCP requires to be object schemas.
_SCHEMA_KEYS = ("inputSchema", "outputSchema")

_log = logging.getLogger(__name__)


def current_call_result(raw: object) -> object:
    """`raw` (a `tools/call` result as received) in the current form when it is one of the forms above."""
    if not isinstance(raw, dict):
        return raw
    result = cast("dict[str, Any]", raw)
    if "content" in result:
        return result
    if "toolResult" in result:
        rest = {key: value for key, value in result.items() if key != "toolResult"}
        inner: object = result["toolResult"]
        fields = cast("dict[str, Any]", inner) if isinstance(inner, dict) else {}
        if isinstance(fields.get("content"), list):
            _log.debug(
                "the server answered tools/call in the 2024-10-07 toolResult form: read as its content"
            )
            return {**rest, **fields}
        text = (
            inner if isinstance(inner, str) else json.dumps(inner, ensure_ascii=False)
        )
        _log.debug(
            "the server answered tools/call in the 2024-10-07 toolResult form: read as one text block"
        )
        return {**rest, "content": [{"type": "text", "text": text}]}
    if isinstance(result.get("structuredContent"), dict):
        _log.debug(
            "the server answered tools/call without content: read as no content blocks"
        )
        return {**result, "content": []}
    return result


def current_tools_listing(raw: object) -> object:
    """`raw` (a `tools/list` result as received) with each schema lacking `"type"` read as an object schema."""
    if not isinstance(raw, dict):
        return raw
    result = cast("dict[str, Any]", raw)
    tools: object = result.get("tools")
    if not isinstance(tools, list):
        return result
    listed: list[object] = []
    untyped = 0
    for item in cast("list[object]", tools):
        if isinstance(item, dict):
            tool = dict(cast("dict[str, Any]", item))
            for key in _SCHEMA_KEYS:
                schema: object = tool.get(key)
                if isinstance(schema, dict) and "type" not in schema:
                    tool[key] = {"type": "object", **cast("dict[str, Any]", schema)}
                    untyped += 1
            item = tool
        listed.append(item)
    if not untyped:
        return result
    _log.debug(
        "the server listed %d tool schemas without a type: read as object schemas",
        untyped,
    )
    return {**result, "tools": listed}


def accept_result_forms(session: Any) -> None:
    """Make `session` (an SDK `ClientSession`) read the forms above in every `tools/call` and `tools/list`
    answer."""
    dispatcher = getattr(session, "_dispatcher", None)
    send = getattr(dispatcher, "send_raw_request", None)
    if send is None or getattr(send, "_reads_result_forms", False):
        return

    async def send_raw_request(
        method: str, params: Mapping[str, Any] | None, *args: Any, **kwargs: Any
    ) -> Any:
        raw = await send(method, params, *args, **kwargs)
        if method == "tools/call":
            return current_call_result(raw)
        return current_tools_listing(raw) if method == "tools/list" else raw

    send_raw_request._reads_result_forms = True  # type: ignore[attr-defined]
    dispatcher.send_raw_request = send_raw_request  # type: ignore[union-attr]
