"""The several-servers display: a live status line per server on stderr, and the end-of-run summary."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import TextIO

from mcp_codegen.errors import one_line
from mcp_codegen.snapshot.many import DONE, FAILED, WAITING
from mcp_codegen.snapshot.model import Snapshot
from mcp_codegen.wording import plural


def summarize(results: Mapping[str, Snapshot | Exception]) -> tuple[str, bool]:
    """The end-of-run summary (one line, plus one per failed server) and whether any server failed.

    `partial` is True when at least one server failed (also when all did: tell the two apart with
    `any(isinstance(r, Snapshot) for r in results.values())`).
    """
    succeeded = [name for name, result in results.items() if isinstance(result, Snapshot)]
    failed = {name: result for name, result in results.items() if not isinstance(result, Snapshot)}
    total = len(results)
    if not failed:
        head = f"snapshotted {plural(total, 'server')}: {', '.join(succeeded)}"
        return head, False
    if succeeded:
        head = (
            f"snapshotted {len(succeeded)} of {plural(total, 'server')} ({', '.join(succeeded)}); {len(failed)} failed:"
        )
    else:
        head = f"all {plural(total, 'server')} failed:"
    lines = [head, *(f"  {name}: {one_line(error)}" for name, error in failed.items())]
    return "\n".join(lines), True


class LiveProgress:
    """Per-server status lines on stderr: redrawn in place on a terminal, else one line per change.

    Call it as the `progress` of `snapshot_many`. Redrawing (ANSI cursor movement) is used when the
    stream is a TTY, `TERM` is not `dumb` and `CI` is not set (to anything but `0`/`false`); `redraw=`
    forces either way. Every message is cleaned of control characters (server names come from the
    server) and cut to the terminal width.
    """

    def __init__(
        self,
        names: Sequence[str],
        *,
        stream: TextIO | None = None,
        redraw: bool | None = None,
        prefix: str = "mcp-codegen: ",
    ) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._redraw = _can_redraw(self._stream) if redraw is None else redraw
        self._color = self._redraw and "NO_COLOR" not in os.environ
        self._prefix = prefix
        self._names = list(dict.fromkeys(names))
        self._width = max((len(_clean(name)) for name in self._names), default=0)
        self.states: dict[str, str] = {name: WAITING for name in self._names}
        self._drawn = 0
        self._closed = False

    def __enter__(self) -> LiveProgress:
        if self._redraw:
            self._draw()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()

    def __call__(self, name: str, message: str) -> None:
        message = _clean(message)
        if name not in self.states:
            self._names.append(name)
            self._width = max(self._width, len(_clean(name)))
        elif self.states[name] == message:
            return
        self.states[name] = message
        if self._closed:
            return
        if self._redraw:
            self._draw()
        else:
            self._stream.write(f"{self._prefix}{_clean(name)}: {message}\n")
            self._stream.flush()

    def close(self) -> None:
        """Stop redrawing; the last state of every line stays on screen."""
        if not self._closed and self._redraw:
            self._draw()
        self._closed = True

    def _draw(self) -> None:
        columns = shutil.get_terminal_size((100, 24)).columns
        out = [f"\x1b[{self._drawn}F" if self._drawn else ""]
        for name in self._names:
            state = self.states.get(name, WAITING)
            line = f"{self._prefix}{_clean(name).ljust(self._width)}  {state}"
            if len(line) >= columns:
                line = line[: max(columns - 2, 1)] + "…"
            out.append("\x1b[2K" + self._paint(line, state) + "\n")
        self._drawn = len(self._names)
        self._stream.write("".join(out))
        self._stream.flush()

    def _paint(self, line: str, state: str) -> str:
        if not self._color:
            return line
        if state.startswith(DONE):
            return f"\x1b[32m{line}\x1b[0m"
        if state.startswith(FAILED):
            return f"\x1b[31m{line}\x1b[0m"
        if state == WAITING:
            return f"\x1b[2m{line}\x1b[0m"
        return line


def _can_redraw(stream: TextIO) -> bool:
    ci = os.environ.get("CI", "").strip().lower()
    if ci not in ("", "0", "false", "no"):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _clean(text: str) -> str:
    from mcp_codegen_runtime.text import one_line  # on use: the runtime costs ~0.2 s to import

    return one_line(text, None)
