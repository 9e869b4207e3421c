"""Regenerate the committed clients in generated_examples/ from the live servers.

    python scripts/regen_examples.py

The demo server runs over stdio from this checkout; npm server-everything and server-pdf are installed at
their pinned versions by tests/servers/install.py. Each example keeps the snapshot it came from, so the tests can
regenerate it offline and compare byte for byte. The examples are generated outside this checkout and moved
in, so they show the formatter's defaults (this project's own `[tool.ruff]`/`[tool.black]` settings are for
its sources, and `generate` honours the nearest pyproject.toml above the output).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "generated_examples"
EVERYTHING = "tests/servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
#: The MCP Apps example: a viewer UI resource and six app-only tools (tests/servers/pdf).
PDF = "tests/servers/pdf/node_modules/@modelcontextprotocol/server-pdf/dist/index.js"

#: package name -> the --stdio command line it is generated from (relative paths: run from the repo root).
SERVERS = {
    "demo_client": "python -m mcp_codegen.demo",
    "everything_client": f"node {EVERYTHING} stdio",
    "pdf_client": f"node {PDF} --stdio",
}
#: package name -> the other options it is generated with (the demo shows the command line and SKILL.md).
OPTIONS: dict[str, list[str]] = {"demo_client": ["--cli"]}


def main() -> int:
    subprocess.run([sys.executable, "tests/servers/install.py"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-examples-") as directory:
        for package, command in SERVERS.items():
            subprocess.run(
                [
                    "mcp-codegen",
                    "generate",
                    "--stdio",
                    command,
                    *OPTIONS.get(package, []),
                    "-o",
                    str(Path(directory) / package),
                    "-q",
                ],
                cwd=ROOT,
                check=True,
            )
            shutil.rmtree(EXAMPLES / package, ignore_errors=True)
            shutil.copytree(Path(directory) / package, EXAMPLES / package)
    return 0


if __name__ == "__main__":
    sys.exit(main())
