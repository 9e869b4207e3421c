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

# `beside NAME COMMAND...` starts COMMAND in the background, its output kept in a file; `joined NAME FIX` waits for
# it and prints that output, or stops the script when it failed, saying FIX.
declare -A beside_pid beside_log
beside() {
    local name="$1"
    shift
    beside_log[$name]="$(mktemp)"
    "$@" > "${beside_log[$name]}" 2>&1 &
    beside_pid[$name]=$!
}
joined() {
    local log="${beside_log[$1]}"
    if ! wait "${beside_pid[$1]}"; then
        cat "$log" >&2
        rm -f "$log"
        echo "error: $2" >&2
        exit 1
    fi
    cat "$log"
    rm -f "$log"
}

# The npm test servers (and the skills server's own venv) install while the project does: they need only the
# standard library (and uv), and both wait on the network and disk more than on the CPU.
venv_has_uv || true  # the skills server's venv installs with it too
beside servers python tests/servers/install.py
# The runtime (runtime/), the search model of its `semantic` extra (search-model/, a distribution of its own) and
# the generator with its extras, all editable, in one step: the generator requires the runtime of its own version
# (hatch_build.py), which the installer takes from ./runtime.
venv_install -e ./runtime -e ./search-model -e '.[test,docs]'
joined servers "installing the test servers failed (above); run: python tests/servers/install.py"

# The docs build (one core) runs beside mypy (the other).
beside docs env NO_MKDOCS_2_WARNING=1 python -m mkdocs build --strict --quiet --site-dir "${TMPDIR:-/tmp}/mcp-codegen-site"
python -m mypy --strict src runtime/src
python -m ruff check src runtime/src
joined docs "the docs build failed (above)"

status=0
# One worker per core this process may use (two on the CI machine).
python -m pytest -n "$(nproc)" -q "$@" || status=$?
exit "$status"
