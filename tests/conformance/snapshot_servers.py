"""Re-record the snapshots of the conformance harness's scenario servers (a maintainer tool, not run by tests).

Usage: ``python tests/conformance/snapshot_servers.py`` (after ``python tests/servers/install.py``): records the
servers of both pinned harness versions (tests/conformance/snapshots and tests/conformance/snapshots-next);
``snapshot_servers.py 0.2.0-alpha.12`` records only the servers of the harness versions named.

The harness starts its reference server only while it runs a client scenario, so each snapshot is taken by
running the harness with ``mcp-codegen snapshot --url`` as the "client": the harness appends the server's URL as
the last argument. The scenarios report FAILED (a snapshot calls no tool); only the snapshot file matters.

All ``auth/*`` scenarios serve the same MCP server behind OAuth. It is recorded through
``auth/client-credentials-basic``, whose harness context holds a pre-registered client id and secret: this
script (run as the harness's client in ``--as-auth-client`` mode) runs ``mcp-codegen snapshot --auth
client-credentials`` with the secret in an environment variable, so the snapshot records only the client id
and the variable's name, never the secret or a token (tokens go to a temporary store).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from conformance.harness import HARNESSES, Harness, harness_command, harness_env  # noqa: E402

#: The server of the ``auth/`` scenarios is recorded through this one (its context has a client id and secret).
_AUTH_RECORD_THROUGH = "auth/client-credentials-basic"
_SECRET_VARIABLE = "CONFORMANCE_CLIENT_SECRET"


def _snapshot_command(output: Path) -> list[str]:
    return [sys.executable, "-m", "mcp_codegen", "snapshot", "-o", str(output)]


def _as_auth_client(output: str, server_url: str) -> int:
    """Run by the harness: snapshot the protected server with the client-credentials grant."""
    context = json.loads(os.environ["MCP_CONFORMANCE_CONTEXT"])
    with tempfile.TemporaryDirectory() as tokens:
        env = {**os.environ, _SECRET_VARIABLE: context["client_secret"], "MCP_CODEGEN_CONFIG_DIR": tokens}
        command = [
            *_snapshot_command(Path(output)),
            "--auth",
            "client-credentials",
            "--client-id",
            context["client_id"],
            "--client-secret-env",
            _SECRET_VARIABLE,
        ]
        return subprocess.run([*command, "--url", server_url], env=env, check=False).returncode


def _record_through(harness: Harness, server: str) -> str:
    """The scenario a server is recorded through: the first that serves it (for auth, the one with a secret)."""
    if server == "auth":
        return _AUTH_RECORD_THROUGH
    return next(name for name, served in harness.client_scenarios.items() if served == server)


def main() -> int:
    if sys.argv[1:2] == ["--as-auth-client"]:
        return _as_auth_client(sys.argv[2], sys.argv[3])
    wanted = set(sys.argv[1:])  # harness versions to record; none: all
    return max(_record(harness) for harness in HARNESSES if not wanted or harness.version in wanted)


def _record(harness: Harness) -> int:
    harness.snapshots.mkdir(exist_ok=True)
    env = harness_env(harness, [ROOT / "src"])
    for server in harness.servers:
        scenario = _record_through(harness, server)
        target = harness.snapshots / f"{server}.json"
        target.unlink(missing_ok=True)
        if server == "auth":
            client = [sys.executable, str(Path(__file__).resolve()), "--as-auth-client", str(target)]
        else:
            client = [*_snapshot_command(target), "--url"]
        with tempfile.TemporaryDirectory() as results:
            completed = subprocess.run(
                harness_command(harness, client, scenario, Path(results)),
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
        if not target.is_file():
            print(f"error: no snapshot of {server} ({scenario}):\n{completed.stderr}", file=sys.stderr)
            return 1
        print(f"{target.relative_to(ROOT)} (through {scenario})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
