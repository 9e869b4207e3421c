"""Files made of one piece per tool: a skeleton with a one-line slot per piece, and the pieces, rendered on demand.

At 300+ tools the client module (two methods per tool) and the specs module (a spec per tool) are most of what a
regeneration renders and formats. Split this way, the format stage (`formatting.py`) formats the skeleton alone
and each tool's pieces alone, keeps the tool's formatted pieces in the user's cache under what they are rendered
from (`Piece.group`), and puts them into their slots: a tool that did not change is neither rendered nor formatted
again. The result is the text formatting the whole file gives, since the formatter lays out each statement on its
own and the skeleton already has the blank lines it would leave around them (the golden tests compare).
"""

from __future__ import annotations

import symtable
from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: The statement standing in for a piece (in the skeleton, and between pieces formatted together).
SLOT = "pass  # @mcp-codegen-piece"


@dataclass(frozen=True)
class Piece:
    """One piece of a file: `render()` gives its text, indented as it sits in the file, without a final newline."""

    #: A hash of everything the tool's pieces are rendered from (all pieces of one tool share it).
    group: str
    #: Which of the tool's pieces this is (`async_method`, `sync_method`, `spec`).
    name: str
    #: 0: a statement of the module; 4: a member of a class.
    indent: int
    render: Callable[[], str]
    #: The kind of file it is formatted as: `.py`, or `.pyi` (a stub's layout: one blank line between blocks).
    suffix: str = ".py"


@dataclass(frozen=True)
class PieceFile:
    """A file as its skeleton (a `SLOT` line, indented, where each piece goes, in order) and its pieces, and the
    file rendered whole, for when server text in the skeleton looks like a slot (then the slots are not known)."""

    skeleton: str
    pieces: tuple[Piece, ...]
    render_whole: Callable[[], str]

    def slots_match(self) -> bool:
        """Whether the skeleton has exactly one slot per piece (server text in a docstring could mimic one)."""
        return len(slot_lines(self.skeleton)) == len(self.pieces)

    def assembled(self, skeleton: str, texts: Sequence[str]) -> str:
        """`skeleton` (this one, or it formatted) with the slots replaced by `texts`, in order."""
        lines = skeleton.split("\n")
        for index, text in zip(reversed(slot_lines(skeleton)), reversed(texts), strict=True):
            lines[index] = text
        return "\n".join(lines)

    def whole(self) -> str:
        """The file with every piece rendered in its place (as the template alone gives it)."""
        return self.render_whole()


def slot_line(indent: int) -> str:
    return " " * indent + SLOT


def slot_lines(text: str) -> list[int]:
    """The indexes of the lines of `text` that are slots."""
    return [index for index, line in enumerate(text.split("\n")) if line.lstrip(" ") == SLOT]


def names_used(piece_text: str, indent: int) -> list[str]:
    """The module-level names a piece's code refers to (sorted): with them the skeleton's unused imports can be
    told. Its methods' parameters are left out, so renaming one does not change the skeleton. (The symbol table
    says it at half the cost of walking the syntax tree: a cold run asks for every piece of a large server.)"""
    tables = [symtable.symtable(f"class _:\n{piece_text}\n" if indent else piece_text, "<piece>", "exec")]
    used: set[str] = set()
    while tables:
        table = tables.pop()
        module = table.get_type() == "module"
        for symbol in table.get_symbols():
            if symbol.is_referenced() and not symbol.is_assigned() and (module or symbol.is_global()):
                used.add(symbol.get_name())
        tables.extend(table.get_children())
    return sorted(used)


def joined(texts: Sequence[str], indent: int) -> str:
    """Pieces of one indentation as one module to format at once (`split_joined` takes it apart again)."""
    separator = f"\n\n{slot_line(indent)}\n\n"
    body = separator.join(texts)
    return f"class _:\n{body}\n" if indent else f"{body}\n"


def split_joined(text: str, indent: int, count: int) -> list[str] | None:
    """The formatted pieces of a `joined` module, or None if it does not split into `count` of them."""
    lines = text.split("\n")
    if indent:
        lines = lines[1:]  # the `class _:` line
    pieces: list[list[str]] = [[]]
    for line in lines:
        if line == slot_line(indent):
            pieces.append([])
        else:
            pieces[-1].append(line)
    if len(pieces) != count:
        return None
    return ["\n".join(piece).strip("\n") for piece in pieces]
