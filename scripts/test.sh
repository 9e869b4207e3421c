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
python -m pip install --quiet --disable-pip-version-check -e ./runtime -e ./search-model -e '.[test,docs]'
python tests/servers/install.py

python -m mypy --strict src runtime/src
python -m ruff check src runtime/src
NO_MKDOCS_2_WARNING=1 python -m mkdocs build --strict --quiet --site-dir "${TMPDIR:-/tmp}/mcp-codegen-site"

status=0
# One worker per core this process may use (two on the CI machine).
python -m pytest -n "$(nproc)" -q "$@" || status=$?
exit "$status"
