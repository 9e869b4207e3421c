"""The generator's failures, each mapped to one documented exit code.

Every failure the CLI reports is one of these: it prints `str(error)` as a single line and exits
with `error.exit_code`. Nothing else escapes as a traceback.
"""

from __future__ import annotations

import re
from enum import IntEnum

_CONTROL = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]|[\x00-\x1f\x7f-\x9f]")


class ExitCode(IntEnum):
    """Exit codes of `mcp-codegen generate` and `snapshot` (documented in the README)."""

    OK = 0
    #: `--check` found stale output, or `--strict` turned warnings into a failure.
    FAILED_CHECK = 1
    #: Bad command line, unreadable snapshot or config.
    USAGE = 2
    #: The server could not be started or reached, or failed while being listed.
    SERVER = 3
    #: The output location cannot be used: it holds files mcp-codegen did not generate (use --overwrite),
    #: lies under a regular file, or cannot be written.
    OUTPUT_CONFLICT = 4
    #: Several servers: some failed (named in the summary); the others were generated.
    PARTIAL = 5
    #: A bug of ours (an unexpected exception): one line, `MCP_CODEGEN_DEBUG=1` shows the traceback.
    INTERNAL = 70
    #: Interrupted (Ctrl-C); the previous output is left as it was.
    INTERRUPTED = 130


class CodegenError(Exception):
    """Base of every failure reported to the user as one line."""

    exit_code: ExitCode = ExitCode.USAGE


class UsageError(CodegenError):
    """The command line, a config value or an input file is wrong."""

    exit_code = ExitCode.USAGE


class SnapshotFormatError(UsageError):
    """A snapshot file cannot be read."""


class ServerError(CodegenError):
    """The server could not be reached, started, or listed."""

    exit_code = ExitCode.SERVER


class OutputConflictError(CodegenError):
    """Refusing to replace a directory mcp-codegen did not write."""

    exit_code = ExitCode.OUTPUT_CONFLICT


class OutputLocationError(OutputConflictError):
    """The output path cannot be created or written (under a regular file, no permission, disk full)."""


class StrictModeError(CodegenError):
    """`--strict` and at least one warning."""

    exit_code = ExitCode.FAILED_CHECK


def one_line(error: BaseException) -> str:
    """An error as one printable line (control characters blanked, at most 300 characters)."""
    text = " ".join(_CONTROL.sub(" ", str(error) or error.__class__.__name__).split())
    return text if len(text) <= 300 else text[:299] + "…"
