"""Untrusted text (a server's, an error's) made into one printable line: the one control-character filter."""

from __future__ import annotations

import re

__all__ = ["one_line", "printable", "shortened"]

# Terminal escape sequences (CSI and two-byte) vanish whole; any other C0/C1 control becomes a space.
_ESCAPE_SEQUENCE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]")
_CONTROL_CHARACTER = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """`text` without terminal escape sequences, its other control characters as spaces."""
    return _CONTROL_CHARACTER.sub(" ", _ESCAPE_SEQUENCE.sub("", text))


def one_line(text: str | BaseException, limit: int | None = 300) -> str:
    """`text` (or an error's message, else its class name) as one printable line.

    White space is folded; a line longer than `limit` characters is cut and ends in "…".
    """
    if isinstance(text, BaseException):
        text = str(text) or type(text).__name__
    line = " ".join(printable(text).split())
    return line if limit is None else shortened(line, limit)


def shortened(text: str, limit: int, marker: str = "…") -> str:
    """`text` cut to at most `limit` characters, ending in `marker` when cut."""
    return text if len(text) <= limit else text[: limit - len(marker)] + marker
