"""The errors of running code (`client.run_code()`): refused before it ran, raised while running, or stopped at a limit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..calls.errors import McpClientError

if TYPE_CHECKING:
    from .sandbox import CodeCall

__all__ = ["CodeError", "CodeLimitError", "CodeRunError", "CodeTypeError"]


class CodeRunError(McpClientError):
    """Code given to `run_code()` failed. `line` is the line of the code it names (1-based; None if
    none), `stdout` what the code printed and `calls` the tool calls it made before it failed.
    """

    line: int | None
    stdout: str
    calls: tuple[CodeCall, ...]

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        stdout: str = "",
        calls: tuple[CodeCall, ...] = (),
    ) -> None:
        super().__init__(message)
        self.line = line
        self.stdout = stdout
        self.calls = calls


class CodeTypeError(CodeRunError):
    """The code does not parse or does not type-check against the code API; nothing ran, no tool was called."""


class CodeError(CodeRunError):
    """The code raised an exception it did not catch (a failed tool call among them); `line` is where."""


class CodeLimitError(CodeRunError):
    """The code hit its time or memory limit and was stopped; the client is unaffected."""
