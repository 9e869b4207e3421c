"""How the tests run the MCP conformance harness: its versions, their client scenarios and servers, its command line.

Two harness versions are pinned side by side (npm ``@modelcontextprotocol/conformance``): the released one in
tests/conformance/node/package.json and the next, prerelease one in tests/conformance/node-next/package.json,
each installed with its own Node 22 by ``python tests/servers/install.py``. The harness starts a reference
server per client scenario, runs the client command with the server's URL appended as the last argument and
``MCP_CONFORMANCE_SCENARIO`` set, and prints ``OVERALL: PASSED`` or ``FAILED``; with ``-o DIR`` it writes
``DIR/<scenario>-<time>/checks.json``.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from servers import install

HERE = Path(__file__).resolve().parent
CLIENT_PROGRAM = HERE / "client.py"
#: Milliseconds the harness gives the client command.
CLIENT_TIMEOUT_MS = 30_000

#: The ``auth/`` scenarios both versions share; each serves the same protected MCP server.
_SHARED_AUTH = (
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
)
_SHARED = {
    "initialize": "initialize",
    "tools_call": "tools_call",
    "elicitation-sep1034-client-defaults": "elicitation_defaults",
    "sse-retry": "sse_retry",
}


@dataclass(frozen=True)
class Harness:
    """One pinned harness version: where it is installed, its client scenarios and their servers' snapshots."""

    #: The folder whose package.json pins it (and Node 22).
    folder: Path
    #: Scenario -> the server it runs (one snapshot and one generated package per server).
    client_scenarios: dict[str, str]
    #: Where the scenario servers' snapshots are committed (``<server>.json``).
    snapshots: Path

    @property
    def version(self) -> str:
        """The exact harness version the folder's package.json pins."""
        return install.conformance_pins(self.folder)[install.HARNESS_PACKAGE]

    @property
    def servers(self) -> tuple[str, ...]:
        """The scenario servers, in a stable order; the generated package of server S is ``conformance_S``."""
        return tuple(dict.fromkeys(self.client_scenarios.values()))

    def ensure(self) -> tuple[Path, Path]:
        """Node 22 and the harness's ``index.js``, installed if missing."""
        return install.ensure_conformance(self.folder, quiet=True)


#: The released harness (0.1.16): 26 client scenarios, all for protocols up to 2025-11-25.
RELEASED = Harness(
    folder=install.CONFORMANCE_DIR,
    client_scenarios={
        **_SHARED,
        **{f"auth/{name}": "auth" for name in (*_SHARED_AUTH, "cross-app-access-complete-flow")},
    },
    snapshots=HERE / "snapshots",
)

#: Servers of the next harness's scenarios that each run a server of their own (named after the scenario).
_NEXT_OWN_SERVER = (
    "request-metadata",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
    "json-schema-2020-12-preservation",
    "sep-2640-client-no-prefetch",
    "sep-2640-client-verify-digest",
    "sep-2640-client-verify-size",
    "sep-2640-client-verify-frontmatter",
)
#: The next harness (0.2.0-alpha): 48 client scenarios, most for the 2026-07-28 protocol and extensions.
NEXT = Harness(
    folder=install.CONFORMANCE_NEXT_DIR,
    client_scenarios={
        **_SHARED,
        **{name: name.replace("-", "_") for name in _NEXT_OWN_SERVER},
        **{
            f"auth/{name}": "auth"
            for name in (
                *_SHARED_AUTH,
                "authorization-server-migration",
                "iss-supported",
                "iss-not-advertised",
                "iss-supported-missing",
                "iss-wrong-issuer",
                "iss-unexpected",
                "iss-normalized",
                "metadata-issuer-mismatch",
                "enterprise-managed-authorization",
                "dpop",
                "dpop-nonce",
                "wif-jwt-bearer",
            )
        },
    },
    snapshots=HERE / "snapshots-next",
)
HARNESSES: tuple[Harness, ...] = (RELEASED, NEXT)


def package_name(server: str) -> str:
    return f"conformance_{server}"


def harness_command(harness: Harness, client: Sequence[str], scenario: str, results: Path) -> list[str]:
    """The command line that runs `client` (argv, quoted for the shell the harness uses) under `scenario`."""
    node, entry = harness.ensure()
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


def list_command(harness: Harness) -> list[str]:
    node, entry = harness.ensure()
    return [str(node), str(entry), "list"]


def harness_env(harness: Harness, extra_pythonpath: Sequence[Path] = ()) -> dict[str, str]:
    """The environment for the harness: its Node 22 first on PATH, and `extra_pythonpath` for the client."""
    node, _ = harness.ensure()
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(node.parent), env.get("PATH", "")])
    paths = [str(path) for path in extra_pythonpath]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    if paths:
        env["PYTHONPATH"] = os.pathsep.join(paths)
    return env
