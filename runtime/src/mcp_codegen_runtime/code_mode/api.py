"""A package's code API (the `code_api.pyi` the generator ships): its functions and classes, whole or in part.

The stub is parsed, never executed: each top-level `async def` (one per tool) and each `TypedDict`
class is kept as its source text with the names it refers to, so a subset of functions comes with
exactly the classes they need, and an index lists every function on one line. A run's code is
type-checked against the part of the stub it can name (`named_in`): ms-365's whole stub (727 KB)
costs the checker ~50-90 ms a run, the few functions a program calls a few.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CODE_API_FILE", "SEARCH_API_STUB", "CodeApi", "load_code_api"]

#: The stub's file name beside the package's `snapshot.json` (written by the generator).
CODE_API_FILE = "code_api.pyi"
#: The sandbox module's search function, added to the stub when the model is given only an index.
SEARCH_API_STUB = (
    "def search_api(query: str, limit: int = 5) -> str:\n"
    '    """The stubs of the functions best matching `query` (words of what you want to do), best first."""\n'
)
#: How much of a function's docstring an index line keeps.
_SUMMARY = 80
#: A word of code: every name it can write (identifiers, attributes, words in strings) is one.
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class _Definition:
    source: str
    references: frozenset[str]
    summary: str = ""
    #: A function's keywords (None: it takes any, `**arguments`).
    parameters: frozenset[str] | None = frozenset()


class CodeApi:
    """The functions and classes of one code API stub, in the stub's order."""

    __slots__ = ("_classes", "_functions", "_header", "module", "text")

    def __init__(self, text: str, module: str) -> None:
        self.text = text
        #: The module name the code imports (the package's import name).
        self.module = module
        tree = ast.parse(text)
        lines = text.splitlines(keepends=True)
        header: list[str] = []
        self._classes: dict[str, _Definition] = {}
        self._functions: dict[str, _Definition] = {}
        for node in tree.body:
            # Top-level statements span whole lines (ast.get_source_segment splits the text each time).
            source = "".join(lines[node.lineno - 1 : node.end_lineno]).rstrip("\n")
            if isinstance(node, ast.AsyncFunctionDef):
                self._functions[node.name] = _Definition(
                    source, _names(node), _summary(node), _parameters(node)
                )
            elif isinstance(node, ast.ClassDef):
                self._classes[node.name] = _Definition(source, _names(node))
            elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                self._classes[node.targets[0].id] = _Definition(
                    source, _names(node.value)
                )
            elif isinstance(node, ast.ImportFrom):
                header.append(source)
        self._header = "\n".join(header)

    @property
    def functions(self) -> list[str]:
        """The functions' names (the tools' Python names), in order."""
        return list(self._functions)

    def parameters(self, name: str) -> frozenset[str] | None:
        """The keywords function `name` declares (None when it takes any: `**arguments`)."""
        definition = self._functions.get(name)
        return definition.parameters if definition is not None else frozenset()

    def named_in(
        self, code: str, functions: Iterable[str]
    ) -> tuple[list[str], list[str]]:
        """The functions among `functions` and the classes whose names are words of `code` (in
        identifiers, attributes, strings or comments: a superset of what the code can name without
        computing a name), in the stub's order: the stub a run of `code` is checked against. A name
        the code computes (`getattr(module, name)`) is not checked with or without the others.
        """
        words = set(_WORD.findall(code))
        allowed = set(functions)
        return (
            [n for n in self._functions if n in words and n in allowed],
            [n for n in self._classes if n in words],
        )

    def stubs(
        self,
        names: Iterable[str] | None = None,
        *,
        extra: str = "",
        classes: Iterable[str] = (),
    ) -> str:
        """The stub of the functions `names` (all when None), the `classes` named and the classes
        they need, then `extra`."""
        chosen = (
            list(self._functions)
            if names is None
            else [n for n in names if n in self._functions]
        )
        needed: set[str] = set()
        pending = [ref for name in chosen for ref in self._functions[name].references]
        pending += [name for name in classes if name in self._classes]
        while pending:
            name = pending.pop()
            if name in self._classes and name not in needed:
                needed.add(name)
                pending.extend(self._classes[name].references)
        blocks = [self._header] if self._header else []
        blocks += [
            definition.source
            for name, definition in self._classes.items()
            if name in needed
        ]
        blocks += [self._functions[name].source for name in chosen]
        if extra:
            blocks.append(extra.rstrip("\n"))
        return "\n\n".join(blocks) + "\n"

    def index(self, names: Iterable[str] | None = None) -> str:
        """One line per function: `name: the first sentence of its docstring` (shortened)."""
        chosen = (
            list(self._functions)
            if names is None
            else [n for n in names if n in self._functions]
        )
        return "\n".join(
            f"{name}: {self._functions[name].summary}".rstrip(": ") for name in chosen
        )


def _names(node: ast.AST) -> frozenset[str]:
    return frozenset(
        child.id for child in ast.walk(node) if isinstance(child, ast.Name)
    )


def _parameters(node: ast.AsyncFunctionDef) -> frozenset[str] | None:
    arguments = node.args
    if arguments.kwarg is not None:
        return None
    return frozenset(
        argument.arg for argument in [*arguments.args, *arguments.kwonlyargs]
    )


def _summary(node: ast.AsyncFunctionDef) -> str:
    text = " ".join((ast.get_docstring(node) or "").split())
    end = text.find(". ")
    first = text[: end + 1] if end != -1 else text
    return first if len(first) <= _SUMMARY else first[: _SUMMARY - 3].rstrip() + "..."


@functools.cache
def load_code_api(folder: str, module: str) -> CodeApi | None:
    """The code API shipped in the package `folder` (None without the file), read once per process."""
    path = Path(folder) / CODE_API_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    return CodeApi(text, module)
