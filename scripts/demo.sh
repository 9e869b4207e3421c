#!/usr/bin/env bash
# Generate a typed client for the demo server and call it (the README's quick start).
# Output goes to ${TMPDIR:-/tmp}/mcp-codegen-demo/demo_client.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON="${PYTHON:-python}"
out_dir="${TMPDIR:-/tmp}/mcp-codegen-demo"

"$PYTHON" -m pip install --quiet --disable-pip-version-check -e .

mcp-codegen generate --stdio "python -m mcp_codegen.demo" -o "$out_dir/demo_client" --overwrite

PYTHONPATH="$out_dir${PYTHONPATH:+:$PYTHONPATH}" "$PYTHON" examples/demo_call.py
