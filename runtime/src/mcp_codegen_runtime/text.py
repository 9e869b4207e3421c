"""Untrusted text (a server's, an error's) made printable and short: the one control-character filter."""

from __future__ import annotations

import re

__all__ = ["one_line", "printable", "shortened"]

# Terminal escape sequences (CSI and two-byte) vanish whole.
_ESCAPE_SEQUENCE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]")


def printable(text: str, *, keep: str = "") -> str:
    """`text` without terminal escape sequences; every other character that does not print (C0 and C1
    controls, bidirectional overrides, line separators), except those in `keep`, becomes a space.
    """
    text = _ESCAPE_SEQUENCE.sub("", text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c in keep else " " for c in text)


def one_line(
    text: str | BaseException | None, limit: int | None = 300, marker: str = "…"
) -> str:
    """`text` (or an error's message, else its class name) as one printable line.

    White space is folded; a line longer than `limit` characters is cut and ends in `marker`.
    """
    if isinstance(text, BaseException):
        text = str(text) or type(text).__name__
    line = " ".join(printable(text or "").split())
    return line if limit is None else shortened(line, limit, marker)


def shortened(text: str, limit: int, marker: str = "…") -> str:
    """`text` cut to at most `limit` characters, ending in `marker` when cut.

    The cut falls on white space, so a word or a URL is kept whole or left out; only a first word longer
    than the limit is cut inside.
    """
    if len(text) <= limit:
        return text
    room = max(limit - len(marker), 0)
    window = text[: room + 1]  # a space just past the room is a boundary too
    space = next((i for i in range(len(window) - 1, 0, -1) if window[i].isspace()), 0)
    return (window[:space].rstrip() or text[:room]) + marker
