"""A raw JSON-RPC stdio MCP server answering `tools/call` in the forms older and rougher servers use.

No SDK: it speaks protocol 2024-11-05 line by line, as @cloudflare/mcp-server-cloudflare 0.2.0 does, and answers
`zones_list` in the 2024-10-07 compatibility form `{"toolResult": {"content": [...]}}`, `account_name` as
`{"toolResult": "text"}`, `zone_count` with `structuredContent` and no `content`, and `broken` with a result
that is no tool result at all. It writes one line to stderr per call.
"""

from __future__ import annotations

import json
import sys
from typing import Any

TOOLS: list[dict[str, Any]] = [
    {
        "name": "zones_list",
        "description": "The account's zones.",
        "inputSchema": {"type": "object", "properties": {}},
    },
    {
        "name": "account_name",
        "description": "The account's name.",
        "inputSchema": {"type": "object", "properties": {}},
    },
    {
        "name": "zone_count",
        "description": "How many zones there are.",
        "inputSchema": {"type": "object", "properties": {}},
        "outputSchema": {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]},
    },
    {
        "name": "broken",
        "description": "Answers something that is no tool result.",
        "inputSchema": {"type": "object", "properties": {}},
    },
]

RESULTS: dict[str, dict[str, Any]] = {
    "zones_list": {"toolResult": {"content": [{"type": "text", "text": "example.com, example.org"}]}},
    "account_name": {"toolResult": "Example Account"},
    "zone_count": {"structuredContent": {"count": 2}},
    "broken": {"answer": 42},
}


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    method = message.get("method")
    if "id" not in message:
        return None  # a notification
    reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
    if method == "initialize":
        reply["result"] = {
            "protocolVersion": "2024-11-05",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "old-forms", "version": "0.2.0"},
        }
    elif method == "tools/list":
        reply["result"] = {"tools": TOOLS}
    elif method == "tools/call":
        name = message.get("params", {}).get("name")
        print(f"[DEBUG] old-forms: calling {name}", file=sys.stderr, flush=True)
        reply["result"] = RESULTS.get(name, {"content": [], "isError": True})
    elif method == "ping":
        reply["result"] = {}
    else:
        reply["error"] = {"code": -32601, "message": f"Method not found: {method}"}
    return reply


def main() -> None:
    for line in sys.stdin:
        if line.strip():
            reply = answer(json.loads(line))
            if reply is not None:
                sys.stdout.write(json.dumps(reply) + "\n")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
