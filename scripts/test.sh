#!/usr/bin/env bash
# Install the project with its test extras and the npm test servers into the project-local virtual
# environment .venv/ (created if missing; $PYTHON picks the interpreter that creates it), check src/ with
# `mypy --strict` and `ruff check`, then run the test suite.
# Extra arguments go to pytest, e.g. `bash scripts/test.sh tests/servers -x`.
# Exits non-zero if mypy or ruff fail (pytest is not run), else with pytest's code.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/venv.sh

python -m pip install --quiet --disable-pip-version-check -e '.[test]'
python tests/servers/install.py

python -m mypy --strict src
python -m ruff check src

status=0
python -m pytest -n 2 -q "$@" || status=$?
exit "$status"
