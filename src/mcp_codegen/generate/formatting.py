"""Stage 5: format the generated Python exactly as `black` would, fast.

`ruff format` runs once over the whole package (a few ms per thousand lines, where black takes
about a second) with pinned settings and `--isolated`, so no configuration of the user's can change
the bytes. Its output is black-compatible for the constructs we emit; the golden tests run
`black --check` on every generated example to keep that true.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from mcp_codegen.errors import CodegenError

LINE_LENGTH = 88  # black's default: what `black --check` expects without configuration


def _ruff_executable() -> str:
    from ruff.__main__ import find_ruff_bin  # type: ignore[import-untyped]

    return os.fsdecode(find_ruff_bin())


def _ruff(arguments: list[str]) -> None:
    completed = subprocess.run([_ruff_executable(), *arguments], capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        first = (completed.stderr or completed.stdout).strip().splitlines()[:1]
        raise CodegenError(f"formatting the generated code failed: {first[0] if first else 'ruff failed'}")


def format_python(files: Mapping[str, str]) -> dict[str, str]:
    """Format every `.py` file of `files` (by relative path); other files pass through unchanged."""
    python = {path: text for path, text in files.items() if path.endswith(".py")}
    if not python:
        return dict(files)
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-format-") as directory:
        root = Path(directory)
        for path, text in python.items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        settings = ["--isolated", "--quiet", f"--line-length={LINE_LENGTH}", "--target-version=py311", "--no-cache"]
        # Sort imports and drop unused ones (pyright strict rejects them), then format.
        _ruff(["check", "--select=I,F401", "--fix", "--exit-zero", *settings, directory])
        _ruff(["format", *settings, directory])
        formatted = {path: (root / path).read_text(encoding="utf-8") for path in python}
    return {path: formatted.get(path, text) for path, text in files.items()}
