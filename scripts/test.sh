#!/usr/bin/env bash
# Install the project with its test extras and the npm test servers, then run the test suite.
# Extra arguments go to pytest, e.g. `bash scripts/test.sh tests/servers -x`. Exits with pytest's code.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON="${PYTHON:-python}"

"$PYTHON" -m pip install --quiet --disable-pip-version-check -e '.[test]'
"$PYTHON" tests/servers/install.py

status=0
"$PYTHON" -m pytest -n 2 -q "$@" || status=$?
exit "$status"
