"""Stage 5: format the generated Python with the chosen formatter (ruff, black or none), formatting only what is new.

`--formatter ruff` (the default) runs `ruff format` once over the files to format (a few ms per thousand lines,
where black takes about a second), `--isolated`, with the settings `inputs.formatter` read from the user's
pyproject.toml and nothing else of theirs. Its output is black-compatible for the constructs we emit; the golden
tests run `black --check` on every generated example to keep that true. `--formatter black` runs black itself,
in this process, with the user's `[tool.black]` settings. Both first sort the imports and drop unused ones
(`ruff check --select I,F401 --fix`: pyright strict rejects unused imports). `--formatter none` writes the code
as rendered: valid, typed, not tidied.

Every file is formatted on its own (the package imports itself by relative imports only), so a file's result
depends on its path, text and the settings alone: results are kept in the user's cache (`cache.py`,
`formatted/` for ruff, `formatted-black/` for black), and regenerating after one tool changed formats that
tool's files and the few that list every tool.
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
from mcp_codegen.inputs.formatter import FormatterSettings

_TARGET = "py311"
_COMMON = ("--isolated", "--quiet", f"--target-version={_TARGET}", "--no-cache")
_DEFAULT = FormatterSettings()


def _ruff_executable() -> str:
    from ruff.__main__ import find_ruff_bin  # type: ignore[import-untyped]

    return os.fsdecode(find_ruff_bin())


@cache
def _fingerprint(formatter: str) -> str:
    """What a formatted file depends on besides its path, text and settings: the formatters' versions."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        ruff_version = version("ruff")
    except PackageNotFoundError:  # a ruff that is not a distribution: its executable's bytes identify it
        ruff_version = hashlib.sha256(Path(_ruff_executable()).read_bytes()).hexdigest()
    versions = [ruff_version, *_COMMON]
    if formatter == "black":
        versions.append(version("black"))
    return hashlib.sha256("\0".join(versions).encode()).hexdigest()


def _key(path: str, text: str, settings: FormatterSettings) -> str:
    return hashlib.sha256(f"{settings.key()}\0{path}\0{text}".encode()).hexdigest()


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


def _ruff_settings(settings: FormatterSettings) -> list[str]:
    arguments = [*_COMMON, f"--line-length={settings.line_length}"]
    if settings.name == "ruff":
        for key, value in settings.extra:
            literal = ("true" if value else "false") if isinstance(value, bool) else f"'{value}'"
            arguments.append(f"--config=format.{key}={literal}")
    return arguments


def _run_formatter(python: Mapping[str, str], settings: FormatterSettings) -> dict[str, str]:
    """`python` (text by relative path) formatted: imports tidied by ruff, then ruff's or black's format."""
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-format-") as directory:
        root = Path(directory)
        for path, text in python.items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        arguments = _ruff_settings(settings)
        # Sort imports and drop unused ones (pyright strict rejects them), then format.
        _ruff(["check", "--select=I,F401", "--fix", "--exit-zero", *arguments, "."], directory)
        if settings.name == "black":
            return {path: _black((root / path).read_text(encoding="utf-8"), settings) for path in python}
        _ruff(["format", *arguments, "."], directory)
        return {path: (root / path).read_text(encoding="utf-8") for path in python}


def _black(text: str, settings: FormatterSettings) -> str:
    from black import format_str
    from black.mode import Mode, TargetVersion
    from black.parsing import InvalidInput

    mode = Mode(
        target_versions={TargetVersion.PY311},
        line_length=settings.line_length,
        string_normalization=not settings.get("skip-string-normalization", False),
        magic_trailing_comma=not settings.get("skip-magic-trailing-comma", False),
    )
    try:
        return format_str(text, mode=mode)
    except InvalidInput as error:  # a fault of ours (the text parsed before), said in one line
        raise CodegenError(f"formatting the generated code failed: {str(error).splitlines()[0]}") from None


def format_python(files: Mapping[str, str], settings: FormatterSettings = _DEFAULT) -> dict[str, str]:
    """Format every `.py` file of `files` (by relative path); other files pass through unchanged."""
    python = {path: text for path, text in files.items() if path.endswith(".py")}
    if not python or settings.name == "none":
        return dict(files)
    kind = "formatted" if settings.name == "ruff" else f"formatted-{settings.name}"
    store = ResultCache.open(kind, _fingerprint(settings.name), _valid)
    keys = {path: _key(path, text, settings) for path, text in python.items()}
    formatted: dict[str, str] = {}
    if store is not None:
        for path, key in keys.items():
            if (entry := store.get(key)) is not None:
                formatted[path] = entry["text"]
    missing = {path: text for path, text in python.items() if path not in formatted}
    if missing:
        fresh = _run_formatter(missing, settings)
        formatted |= fresh
        if store is not None:
            for path, text in fresh.items():
                store.put(keys[path], {"text": text})
            store.prune()
    return {path: formatted.get(path, text) for path, text in files.items()}
