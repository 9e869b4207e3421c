#!/usr/bin/env bash
# Generate a typed client for the demo server and call it (the README's quick start).
# Installs into the project-local virtual environment .venv/ (created if missing; $PYTHON picks the
# interpreter that creates it). Output goes to ${TMPDIR:-/tmp}/mcp-codegen-demo/demo_client.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/venv.sh

out_dir="${TMPDIR:-/tmp}/mcp-codegen-demo"

# The runtime (runtime/) and the generator, both editable, in one step: the generator requires the runtime of its
# own version (hatch_build.py), which the installer takes from ./runtime.
venv_install -e ./runtime -e .

mcp-codegen generate --stdio "python -m mcp_codegen.demo" -o "$out_dir/demo_client" --overwrite

PYTHONPATH="$out_dir${PYTHONPATH:+:$PYTHONPATH}" python examples/demo_call.py
