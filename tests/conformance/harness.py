"""How the tests run the MCP conformance harness: its client scenarios, their servers, and its command line.

The harness (npm ``@modelcontextprotocol/conformance``, pinned in tests/conformance/node/package.json and
installed with Node 22 by ``python tests/servers/install.py``) starts a reference server per client scenario,
runs the client command with the server's URL appended as the last argument and ``MCP_CONFORMANCE_SCENARIO``
set, and prints ``OVERALL: PASSED`` or ``FAILED``; with ``-o DIR`` it writes ``DIR/<scenario>-<time>/checks.json``.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from pathlib import Path

from servers import install

HERE = Path(__file__).resolve().parent
SNAPSHOTS = HERE / "snapshots"
CLIENT_PROGRAM = HERE / "client.py"

#: The client scenarios of the pinned harness (`conformance list`), each with the server it runs (one snapshot
#: and one generated package per server; all auth scenarios serve the same protected MCP server).
CLIENT_SCENARIOS: dict[str, str] = {
    "initialize": "initialize",
    "tools_call": "tools_call",
    "elicitation-sep1034-client-defaults": "elicitation_defaults",
    "sse-retry": "sse_retry",
    **{
        f"auth/{name}": "auth"
        for name in (
            "metadata-default",
            "metadata-var1",
            "metadata-var2",
            "metadata-var3",
            "basic-cimd",
            "scope-from-www-authenticate",
            "scope-from-scopes-supported",
            "scope-omitted-when-undefined",
            "scope-step-up",
            "scope-retry-limit",
            "token-endpoint-auth-basic",
            "token-endpoint-auth-post",
            "token-endpoint-auth-none",
            "pre-registration",
            "2025-03-26-oauth-metadata-backcompat",
            "2025-03-26-oauth-endpoint-fallback",
            "resource-mismatch",
            "offline-access-scope",
            "offline-access-not-supported",
            "client-credentials-jwt",
            "client-credentials-basic",
            "cross-app-access-complete-flow",
        )
    },
}
#: The scenario servers, in a stable order; the generated package of server S is ``conformance_S``.
SCENARIO_SERVERS: tuple[str, ...] = tuple(dict.fromkeys(CLIENT_SCENARIOS.values()))
#: Milliseconds the harness gives the client command.
CLIENT_TIMEOUT_MS = 30_000


def package_name(server: str) -> str:
    return f"conformance_{server}"


def harness_command(client: Sequence[str], scenario: str, results: Path) -> list[str]:
    """The command line that runs `client` (argv, quoted for the shell the harness uses) under `scenario`."""
    node, entry = install.ensure_conformance(quiet=True)
    return [
        str(node),
        str(entry),
        "client",
        "--command",
        shlex.join(client),
        "--scenario",
        scenario,
        "-o",
        str(results),
        "--timeout",
        str(CLIENT_TIMEOUT_MS),
    ]


def list_command() -> list[str]:
    node, entry = install.ensure_conformance(quiet=True)
    return [str(node), str(entry), "list"]


def harness_env(extra_pythonpath: Sequence[Path] = ()) -> dict[str, str]:
    """The environment for the harness: Node 22 first on PATH, and `extra_pythonpath` for the client."""
    node, _ = install.ensure_conformance(quiet=True)
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(node.parent), env.get("PATH", "")])
    paths = [str(path) for path in extra_pythonpath]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    if paths:
        env["PYTHONPATH"] = os.pathsep.join(paths)
    return env
