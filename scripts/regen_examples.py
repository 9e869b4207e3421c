"""Regenerate the committed clients in generated_examples/ from the live servers.

    python scripts/regen_examples.py

The demo server runs over stdio from this checkout; npm server-everything is installed at its pinned
version by tests/servers/install.py. Each example keeps the snapshot it came from, so the tests can
regenerate it offline and compare byte for byte.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "generated_examples"
EVERYTHING = "tests/servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"

#: package name -> the --stdio command line it is generated from (relative paths: run from the repo root).
SERVERS = {
    "demo_client": "python -m mcp_codegen.demo",
    "everything_client": f"node {EVERYTHING} stdio",
}
#: package name -> the other options it is generated with (the demo shows the command line and SKILL.md).
OPTIONS: dict[str, list[str]] = {"demo_client": ["--cli"]}


def main() -> int:
    subprocess.run([sys.executable, "tests/servers/install.py"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    for package, command in SERVERS.items():
        subprocess.run(
            [
                "mcp-codegen",
                "generate",
                "--stdio",
                command,
                *OPTIONS.get(package, []),
                "-o",
                str(EXAMPLES / package),
                "-q",
            ],
            cwd=ROOT,
            check=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
