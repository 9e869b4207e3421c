"""A raw JSON-RPC stdio MCP server that reports the environment it was started with: `python environ_server.py
[REPORT | --fail]`.

With `--fail` it writes the proxy it was given to stderr and exits with code 3 before initializing (as a
server that cannot reach the network says why). Else it writes its `os.environ` as JSON to REPORT when given
(what `generate` started it with); the
`environment` tool returns it (what a client's connect started it with). No SDK, protocol 2025-03-26 line by
line, as mcp-obsidian 1.0.0 speaks it, and like mcp-obsidian's its tools' input schemas have no `"type"`:
`properties` and `required` only (the SDK's own server refuses to send that).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

TOOLS: list[dict[str, Any]] = [
    {
        "name": "environment",
        "description": "The server's environment variables, as JSON.",
        "inputSchema": {"properties": {}},
    },
    {
        "name": "append_content",
        "description": "Append content to a note.",
        "inputSchema": {
            "properties": {"filepath": {"type": "string"}, "content": {"type": "string"}},
            "required": ["filepath", "content"],
        },
    },
]


def _text(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}]}


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    method = message.get("method")
    if "id" not in message:
        return None  # a notification
    reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
    if method == "initialize":
        reply["result"] = {
            "protocolVersion": "2025-03-26",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "environ-demo", "version": "1.0.0"},
        }
    elif method == "tools/list":
        reply["result"] = {"tools": TOOLS}
    elif method == "tools/call":
        params = message.get("params", {})
        arguments = params.get("arguments") or {}
        if params.get("name") == "environment":
            reply["result"] = _text(json.dumps(dict(os.environ), sort_keys=True))
        else:
            reply["result"] = _text(f"appended {len(str(arguments.get('content', '')))} characters")
    elif method == "ping":
        reply["result"] = {}
    else:
        reply["error"] = {"code": -32601, "message": f"Method not found: {method}"}
    return reply


def main() -> None:
    if sys.argv[1:] == ["--fail"]:
        print(f"environ-demo: cannot reach the vault through {os.environ.get('HTTPS_PROXY')}", file=sys.stderr)
        sys.exit(3)
    if sys.argv[1:]:
        with open(sys.argv[1], "w", encoding="utf-8") as report:
            json.dump(dict(os.environ), report, sort_keys=True)
    for line in sys.stdin:
        if line.strip():
            reply = answer(json.loads(line))
            if reply is not None:
                sys.stdout.write(json.dumps(reply) + "\n")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
