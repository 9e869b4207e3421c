"""Stage 5: format the generated Python exactly as `black` would, fast, formatting only what is new.

`ruff format` runs once over the files to format (a few ms per thousand lines, where black takes about a
second) with pinned settings and `--isolated`, so no configuration of the user's can change the bytes. Its
output is black-compatible for the constructs we emit; the golden tests run `black --check` on every
generated example to keep that true. Every file is formatted on its own (the package imports itself by
relative imports only), so a file's result depends on its path and text alone: results are kept in the
user's cache (`cache.py`, `formatted/`), and regenerating after one tool changed formats that tool's files
and the few that list every tool.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from mcp_codegen.errors import CodegenError
from mcp_codegen.generate.cache import ResultCache

LINE_LENGTH = 88  # black's default: what `black --check` expects without configuration
_SETTINGS = ("--isolated", "--quiet", f"--line-length={LINE_LENGTH}", "--target-version=py311", "--no-cache")


def _ruff_executable() -> str:
    from ruff.__main__ import find_ruff_bin  # type: ignore[import-untyped]

    return os.fsdecode(find_ruff_bin())


@cache
def _fingerprint() -> str:
    """What a formatted file depends on besides its path and text: ruff's version and our settings."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        ruff_version = version("ruff")
    except PackageNotFoundError:  # a ruff that is not a distribution: its executable's bytes identify it
        ruff_version = hashlib.sha256(Path(_ruff_executable()).read_bytes()).hexdigest()
    return hashlib.sha256("\0".join([ruff_version, *_SETTINGS]).encode()).hexdigest()


def _key(path: str, text: str) -> str:
    return hashlib.sha256(f"{path}\0{text}".encode()).hexdigest()


def _valid(entry: dict[str, Any]) -> bool:
    return entry.keys() == {"text"} and isinstance(entry["text"], str)


def _ruff(arguments: list[str], directory: str) -> None:
    # Run inside the directory: import sorting looks for first-party code from the working directory.
    completed = subprocess.run(
        [_ruff_executable(), *arguments], cwd=directory, capture_output=True, text=True, check=False
    )
    if completed.returncode != 0:
        first = (completed.stderr or completed.stdout).strip().splitlines()[:1]
        raise CodegenError(f"formatting the generated code failed: {first[0] if first else 'ruff failed'}")


def _run_ruff(python: Mapping[str, str]) -> dict[str, str]:
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-format-") as directory:
        root = Path(directory)
        for path, text in python.items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        # Sort imports and drop unused ones (pyright strict rejects them), then format.
        _ruff(["check", "--select=I,F401", "--fix", "--exit-zero", *_SETTINGS, "."], directory)
        _ruff(["format", *_SETTINGS, "."], directory)
        return {path: (root / path).read_text(encoding="utf-8") for path in python}


def format_python(files: Mapping[str, str]) -> dict[str, str]:
    """Format every `.py` file of `files` (by relative path); other files pass through unchanged."""
    python = {path: text for path, text in files.items() if path.endswith(".py")}
    if not python:
        return dict(files)
    store = ResultCache.open("formatted", _fingerprint(), _valid)
    keys = {path: _key(path, text) for path, text in python.items()}
    formatted: dict[str, str] = {}
    if store is not None:
        for path, key in keys.items():
            if (entry := store.get(key)) is not None:
                formatted[path] = entry["text"]
    missing = {path: text for path, text in python.items() if path not in formatted}
    if missing:
        fresh = _run_ruff(missing)
        formatted |= fresh
        if store is not None:
            for path, text in fresh.items():
                store.put(keys[path], {"text": text})
            store.prune()
    return {path: formatted.get(path, text) for path, text in files.items()}
