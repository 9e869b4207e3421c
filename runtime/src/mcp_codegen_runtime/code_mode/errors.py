"""The errors of running code (`client.run_code()`): refused before it ran, raised while running, or stopped at a limit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..calls.errors import McpClientError

if TYPE_CHECKING:
    from .host import LimitName
    from .sandbox import CodeCall

__all__ = ["CodeError", "CodeLimitError", "CodeRunError", "CodeTypeError"]


class CodeRunError(McpClientError):
    """Code given to `run_code()` failed. `line` is the line of the code it names (1-based; None if
    none), `stdout` what the code printed and `calls` the tool calls it made, each with its `status`
    (none is still in flight: the run's unfinished calls were cancelled before this was raised).
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
    """The code raised an exception it did not catch (a failed tool call among them; `line` is where),
    or its value has no JSON form."""


class CodeLimitError(CodeRunError):
    """The run hit a limit and was stopped; the client is unaffected. `limit` names it: `"time"`
    (wall-clock over the whole run), `"memory"`, `"calls"` (tool calls per run), `"output"` (bytes
    printed, or of the value as JSON), `"suspensions"` (the sandbox's pauses: tool calls, sleeps,
    waits) or `"worker"` (the sandbox's worker stopped)."""

    limit: LimitName

    def __init__(
        self,
        message: str,
        *,
        limit: LimitName,
        line: int | None = None,
        stdout: str = "",
        calls: tuple[CodeCall, ...] = (),
    ) -> None:
        super().__init__(message, line=line, stdout=stdout, calls=calls)
        self.limit = limit
