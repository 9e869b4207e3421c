"""A stdio server that crashes at start: the error shows its last stderr lines whole, and `-v` shows every line.

As @heroku/mcp-server 1.2.8 does, the server writes a stack of lines ending in a long module path and exits 1
before answering `initialize`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from cli.test_cli import assert_fails, run

MODULE = "/usr/lib/node_modules/@example/mcp-server/dist/" + "/".join(f"part{i:02d}" for i in range(30)) + "/index.js"
CRASH = f"""
import sys
for i in range(8):
    print(f"    at frame {{i}} (node:internal/modules/esm/resolve:{{i}})", file=sys.stderr)
print("Error [ERR_MODULE_NOT_FOUND]: Cannot find module '{MODULE}'", file=sys.stderr)
sys.exit(1)
"""


def crash_server(tmp_path: Path) -> str:
    path = tmp_path / "crash.py"
    path.write_text(CRASH, encoding="utf-8")
    return f"{sys.executable} {path}"


def test_a_crash_at_start_shows_its_last_stderr_lines_whole(tmp_path: Path) -> None:
    result = run("snapshot", "-q", "--stdio", crash_server(tmp_path), "-o", str(tmp_path / "s.json"))
    line = assert_fails(result, 3, "server exited with code 1 during initialize")
    assert line.endswith(
        "last stderr lines: "
        + " | ".join(f"at frame {i} (node:internal/modules/esm/resolve:{i})" for i in range(4, 8))
        + f" | Error [ERR_MODULE_NOT_FOUND]: Cannot find module '{MODULE}'"
    )


def test_verbose_shows_every_stderr_line_as_it_comes(tmp_path: Path) -> None:
    result = run("snapshot", "-v", "--stdio", crash_server(tmp_path), "-o", str(tmp_path / "s.json"))
    assert result.returncode == 3
    lines = result.stderr.splitlines()
    for i in range(8):
        assert f"    at frame {i} (node:internal/modules/esm/resolve:{i})" in lines
    assert f"Error [ERR_MODULE_NOT_FOUND]: Cannot find module '{MODULE}'" in lines
    assert lines[-1].startswith("mcp-codegen: error: server exited with code 1 during initialize")
