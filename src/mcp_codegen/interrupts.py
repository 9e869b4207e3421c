"""Ctrl-C that tells the truth: writes it cannot split, a record of what was written, and a pause for tests.

A directory is swapped in by two renames (`output.write`): an interrupt between them would leave neither the
old output nor the new one in place. `deferred_interrupts()` holds SIGINT back across such a section and
raises the `KeyboardInterrupt` once it is over; `record_written` notes each output in place, so the command
line can say which state an interrupt left (`written()`): nothing written, the previous output is unchanged
(exit 130), or the new output is in place (exit 6).

`MCP_CODEGEN_TEST_PAUSE=POINT` (tests only) makes the run print `mcp-codegen: paused at POINT` to stderr and
sleep at that named point, so a test can interrupt it exactly there: `start` (before the command line is
imported), `staged` (the new package staged, not yet swapped in), `swapping` (between the two renames,
SIGINT held back), `written` (the package in place, before the summary).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

_written: list[Path] = []


def record_written(path: Path) -> None:
    """`path` now holds this run's new output."""
    _written.append(path)


def written() -> list[Path]:
    """The outputs this run has put in place so far."""
    return list(_written)


class HeldInterrupt:
    """A SIGINT held back by `deferred_interrupts`: `check()` raises it where stopping is safe."""

    def __init__(self) -> None:
        self.requested = False

    def hold(self, _signum: int, _frame: FrameType | None) -> None:
        self.requested = True

    def check(self) -> None:
        if self.requested:
            self.requested = False
            raise KeyboardInterrupt


@contextmanager
def deferred_interrupts() -> Iterator[HeldInterrupt]:
    """Hold SIGINT back inside the block: it is raised as `KeyboardInterrupt` at the block's `check()` calls,
    or when the block is over. Only the main thread receives Python's signal handlers; elsewhere the block
    runs as is.
    """
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        yield HeldInterrupt()  # no handler to hold back, or SIGINT ignored (a background job of a shell)
        return
    held = HeldInterrupt()
    previous = signal.signal(signal.SIGINT, held.hold)
    try:
        yield held
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)
    held.check()


def pause(point: str) -> None:
    """Stop at `point` for a test that interrupts there (`MCP_CODEGEN_TEST_PAUSE`); nothing otherwise."""
    if os.environ.get("MCP_CODEGEN_TEST_PAUSE") == point:
        sys.stderr.write(f"mcp-codegen: paused at {point}\n")
        sys.stderr.flush()
        time.sleep(float(os.environ.get("MCP_CODEGEN_TEST_PAUSE_SECONDS", "3")))


__all__ = [
    "HeldInterrupt",
    "caused_by_interrupt",
    "deferred_interrupts",
    "pause",
    "record_written",
    "written",
]


def caused_by_interrupt(error: BaseException) -> bool:
    """Whether Ctrl-C is what this error wraps: Python turns a KeyboardInterrupt raised while a class is being
    made (`__set_name__`, as a module is imported) into a RuntimeError caused by it."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False
