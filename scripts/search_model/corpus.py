"""The training corpus: paragraphs of docstrings read with `ast` from the standard library and named packages.

Generic technical English, none of it from a tool-search benchmark. Deterministic for one Python version and one
set of package versions: files are read in sorted order, paragraphs cleaned, filtered, de-duplicated, ordered by
the SHA-256 of their text and the first `limit` kept. Runs with the standard library alone (the build's first
stage, and the CI test that checks the standard library's part against the recorded digest).
"""

from __future__ import annotations

import ast
import hashlib
import re
import sys
import sysconfig
from collections.abc import Iterable, Iterator
from pathlib import Path

#: Words in a paragraph kept for training.
SHORTEST, LONGEST = 6, 120
_LEGAL = re.compile(r"licen[cs]e|copyright|warranty|all rights reserved|redistribut", re.IGNORECASE)
#: Marks of code, doctests, reST directives, tables and parameter lists rather than prose.
_CODE = re.compile(r">>>|\.\.\. |^\s*\.\. |::\s*$|[{}\[\]]{2}|\w\(.*\)\s*=|={3,}|-{3,}|\|\s|\bdef |\breturn |\bself\.")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_SPACE = re.compile(r"\s+")
#: Folders under a source tree never read: tests and vendored copies (their text repeats or is not prose).
_SKIPPED_PARTS = frozenset({"test", "tests", "testing", "_vendor", "vendor", "idlelib", "lib2to3", "site-packages"})


def python_files(root: Path) -> Iterator[Path]:
    """The `.py` files under `root`, in sorted order, outside tests and vendored folders."""
    for path in sorted(root.rglob("*.py")):
        if not _SKIPPED_PARTS.intersection(path.relative_to(root).parts[:-1]):
            yield path


def docstrings(source: str) -> Iterator[str]:
    """The docstrings of a module's text: the module's, then each class's and function's in source order."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            text = ast.get_docstring(node, clean=True)
            if text:
                yield text


def paragraphs(docstring: str) -> Iterator[str]:
    """A docstring's prose paragraphs (blank-line separated), each on one line, filtered as the module says."""
    for block in re.split(r"\n\s*\n", docstring):
        lines = block.splitlines()
        # Indented blocks are code or literal text; section underlines mark numpydoc headings.
        if any(line.startswith((" ", "\t")) for line in lines[1:]) and len(lines) > 1:
            continue
        text = _SPACE.sub(" ", block).strip()
        words = text.split(" ")
        if not SHORTEST <= len(words) <= LONGEST:
            continue
        if _LEGAL.search(text) or _CODE.search(text):
            continue
        # Mostly words: identifiers, numbers and symbols make code-like text.
        if len(_WORD.findall(text)) < 0.75 * len(words):
            continue
        yield text


def collect(roots: Iterable[Path]) -> list[str]:
    """Every distinct kept paragraph of the files under `roots`, in reading order."""
    seen: set[str] = set()
    found: list[str] = []
    for root in roots:
        for path in python_files(root):
            try:
                source = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            for docstring in docstrings(source):
                for text in paragraphs(docstring):
                    if text not in seen:
                        seen.add(text)
                        found.append(text)
    return found


def select(texts: Iterable[str], limit: int) -> list[str]:
    """The first `limit` texts by the SHA-256 of their UTF-8 (a fixed sample, the same on every run)."""
    return sorted(texts, key=lambda text: hashlib.sha256(text.encode()).hexdigest())[:limit]


def stdlib_root() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def package_roots(names: Iterable[str]) -> list[Path]:
    """The folders of these importable packages (their `__init__.py`'s folder), in the order given."""
    import importlib.util

    roots = []
    for name in names:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise SystemExit(f"corpus: package {name!r} is not installed in {sys.prefix}")
        roots.append(Path(next(iter(spec.submodule_search_locations))))
    return roots


def digest(texts: Iterable[str]) -> str:
    """The SHA-256 of the texts, one per line (the corpus file's own bytes)."""
    sha = hashlib.sha256()
    for text in texts:
        sha.update(text.encode() + b"\n")
    return sha.hexdigest()
