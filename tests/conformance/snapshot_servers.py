"""Re-record the snapshots of the conformance harness's scenario servers (a maintainer tool, not run by tests).

Usage: ``python tests/conformance/snapshot_servers.py`` (after ``python tests/servers/install.py``).

The harness starts its reference server only while it runs a client scenario, so each snapshot is taken by
running the harness with ``mcp-codegen snapshot --url`` as the "client": the harness appends the server's URL as
the last argument. The scenarios report FAILED (a snapshot calls no tool); only the snapshot file matters.

All ``auth/*`` scenarios serve the same MCP server behind OAuth. It is recorded through
``auth/client-credentials-basic``, whose harness context holds a pre-registered client id and secret: this
script (run as the harness's client in ``--as-auth-client`` mode) discovers the token endpoint (RFC 9728, then
RFC 8414), gets a token with the client-credentials grant and hands it to ``mcp-codegen snapshot`` through an
environment variable, so the snapshot records only the ``Bearer ${...}`` template, never the token.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SNAPSHOTS = HERE / "snapshots"
sys.path.insert(0, str(ROOT / "tests"))

from conformance.harness import SCENARIO_SERVERS, harness_command, harness_env  # noqa: E402

#: The scenario each server is recorded through (the first scenario that serves it).
_RECORD_THROUGH = {
    "initialize": "initialize",
    "tools_call": "tools_call",
    "elicitation_defaults": "elicitation-sep1034-client-defaults",
    "sse_retry": "sse-retry",
    "auth": "auth/client-credentials-basic",
}
_TOKEN_VARIABLE = "CONFORMANCE_BEARER_TOKEN"


def _snapshot_command(output: Path) -> list[str]:
    return [sys.executable, "-m", "mcp_codegen", "snapshot", "-o", str(output)]


def _get_json(url: str) -> dict[str, object]:
    with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 (the harness's localhost server)
        return dict(json.load(response))


def _client_credentials_token(server_url: str, context: dict[str, str]) -> str:
    parts = urllib.parse.urlsplit(server_url)
    origin = f"{parts.scheme}://{parts.netloc}"
    resource = _get_json(f"{origin}/.well-known/oauth-protected-resource{parts.path}")
    issuer = str(list(resource["authorization_servers"])[0]).rstrip("/")  # type: ignore[call-overload]
    metadata = _get_json(f"{issuer}/.well-known/oauth-authorization-server")
    basic = base64.b64encode(f"{context['client_id']}:{context['client_secret']}".encode()).decode()
    request = urllib.request.Request(
        str(metadata["token_endpoint"]),
        data=urllib.parse.urlencode({"grant_type": "client_credentials", "resource": server_url}).encode(),
        headers={"Authorization": f"Basic {basic}", "Content-Type": "application/x-www-form-urlencoded"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
        return str(json.load(response)["access_token"])


def _as_auth_client(output: str, server_url: str) -> int:
    """Run by the harness: get a token, then snapshot the protected server with it."""
    context = json.loads(os.environ["MCP_CONFORMANCE_CONTEXT"])
    env = {**os.environ, _TOKEN_VARIABLE: _client_credentials_token(server_url, context)}
    command = [*_snapshot_command(Path(output)), "-H", f"Authorization: Bearer ${{{_TOKEN_VARIABLE}}}"]
    return subprocess.run([*command, "--url", server_url], env=env, check=False).returncode


def main() -> int:
    if sys.argv[1:2] == ["--as-auth-client"]:
        return _as_auth_client(sys.argv[2], sys.argv[3])
    SNAPSHOTS.mkdir(exist_ok=True)
    env = harness_env([ROOT / "src"])
    for server in SCENARIO_SERVERS:
        scenario = _RECORD_THROUGH[server]
        target = SNAPSHOTS / f"{server}.json"
        target.unlink(missing_ok=True)
        if server == "auth":
            client = [sys.executable, str(Path(__file__).resolve()), "--as-auth-client", str(target)]
        else:
            client = [*_snapshot_command(target), "--url"]
        with tempfile.TemporaryDirectory() as results:
            completed = subprocess.run(
                harness_command(client, scenario, Path(results)), env=env, capture_output=True, text=True, check=False
            )
        if not target.is_file():
            print(f"error: no snapshot of {server} ({scenario}):\n{completed.stderr}", file=sys.stderr)
            return 1
        print(f"{target.relative_to(ROOT)} (through {scenario})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
