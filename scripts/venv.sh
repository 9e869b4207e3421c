# Sourced by demo.sh and test.sh: create (or reuse) the project-local virtual environment .venv/ and put
# it first on PATH, so `python`, `pip` and `mcp-codegen` below are the venv's, never the system's.
# $PYTHON picks the interpreter that creates it (default: python3, else python); Python 3.11+.
# `venv_install ARGS...` installs into it with uv (MCP_CODEGEN_INSTALLER=pip: with pip alone); `venv_has_uv`
# installs uv alone, for tests/servers/install.py to use.
venv_dir="$PWD/.venv"
if [ -x "$venv_dir/bin/python" ] && "$venv_dir/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    :  # reuse it
else
    creator="${PYTHON:-$(command -v python3 || command -v python || true)}"
    if [ -z "$creator" ]; then
        echo "error: no python3 on PATH; set PYTHON=/path/to/python3.11+" >&2
        exit 2
    fi
    if ! "$creator" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        echo "error: $creator is not Python 3.11+; set PYTHON=/path/to/python3.11+" >&2
        exit 2
    fi
    rm -rf "$venv_dir"
    if ! "$creator" -m venv "$venv_dir"; then
        echo "error: '$creator -m venv' failed (on Debian/Ubuntu: apt install python3-venv)" >&2
        exit 2
    fi
fi
export VIRTUAL_ENV="$venv_dir"
export PATH="$venv_dir/bin:$PATH"
unset PYTHONHOME

# uv resolves and installs the project in about 20 s on a fresh clone, where pip takes two minutes (compiling the
# bytecode too, as pip does: else every test process of a first run compiles what it imports). It reads no
# pip.conf: MCP_CODEGEN_INSTALLER=pip keeps pip (a private index set there, say), and pip is used when uv fails.
venv_has_uv() {
    [ "${MCP_CODEGEN_INSTALLER:-uv}" != pip ] \
        && { python -c 'import uv' 2>/dev/null \
            || python -m pip install --quiet --disable-pip-version-check 'uv>=0.9,<1' >/dev/null 2>&1; }
}
venv_install() {
    if venv_has_uv; then
        if python -m uv pip install --quiet --compile-bytecode "$@"; then
            return 0
        fi
        echo "note: uv could not install the project (above); trying pip (MCP_CODEGEN_INSTALLER=pip skips uv)" >&2
    fi
    python -m pip install --quiet --disable-pip-version-check "$@"
}
