#!/usr/bin/env bash
# Install the project with its test and docs extras, the search model (search-model/, the runtime's `semantic`
# extra) and the npm test servers into the project-local virtual
# environment .venv/ (created if missing; $PYTHON picks the interpreter that creates it), check src/ with
# `mypy --strict` and `ruff check`, build the documentation site with `mkdocs build --strict` (a few seconds;
# broken links, nav entries and reference pages fail it), then run the test suite.
# Extra arguments go to pytest, e.g. `bash scripts/test.sh tests/servers -x`.
# Exits non-zero if mypy, ruff or the docs build fail (pytest is not run), else with pytest's code.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/venv.sh

# The runtime (runtime/), the search model of its `semantic` extra (search-model/, a distribution of its own) and
# the generator with its extras, all editable, in one step: the generator requires the runtime of its own version
# (hatch_build.py), which pip takes from ./runtime.
# The npm test servers (and the skills server's own venv) install meanwhile: they need only the standard library,
# and the two installs wait on the network and disk more than on the CPU (about 50 s saved on a fresh clone).
servers_log="$(mktemp)"
python tests/servers/install.py > "$servers_log" 2>&1 &
servers=$!
python -m pip install --quiet --disable-pip-version-check -e ./runtime -e ./search-model -e '.[test,docs]'
if ! wait "$servers"; then
    cat "$servers_log" >&2
    echo "error: installing the test servers failed (above); run: python tests/servers/install.py" >&2
    exit 1
fi
cat "$servers_log"
rm -f "$servers_log"

# The docs build (one core) runs beside mypy (the other).
site_log="$(mktemp)"
NO_MKDOCS_2_WARNING=1 python -m mkdocs build --strict --quiet --site-dir "${TMPDIR:-/tmp}/mcp-codegen-site" > "$site_log" 2>&1 &
site=$!
python -m mypy --strict src runtime/src
python -m ruff check src runtime/src
if ! wait "$site"; then
    cat "$site_log" >&2
    echo "error: the docs build failed (above)" >&2
    exit 1
fi
cat "$site_log"
rm -f "$site_log"

status=0
# One worker per core this process may use (two on the CI machine).
python -m pytest -n "$(nproc)" -q "$@" || status=$?
exit "$status"
