"""The generator's failures, each mapped to one documented exit code.

Every failure the CLI reports is one of these: it prints `str(error)` as a single line and exits
with `error.exit_code`. Nothing else escapes as a traceback.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Exit codes of `mcp-codegen generate` and `snapshot` (what each means: `EXIT_CODE_MEANINGS`)."""

    OK = 0
    #: `--check` found stale output, or `--strict` turned warnings into a failure.
    FAILED_CHECK = 1
    #: Bad command line, unreadable snapshot or config.
    USAGE = 2
    #: The server could not be started or reached, or failed while being listed.
    SERVER = 3
    #: The output location cannot be used: it holds files mcp-codegen did not write (named; --keep-other-files
    #: writes beside them), a generated file you changed (--overwrite), a file of yours where a generated file
    #: goes, is the current folder or reached through a link, lies under a regular file, or cannot be written.
    OUTPUT_CONFLICT = 4
    #: Several servers: some failed (named in the summary); the others were generated.
    PARTIAL = 5
    #: Interrupted (Ctrl-C) once the new output was in place: it is complete, the summary may be missing.
    INTERRUPTED_AFTER_WRITE = 6
    #: A bug of ours (an unexpected exception): one line, `MCP_CODEGEN_DEBUG=1` shows the traceback.
    INTERNAL = 70
    #: Interrupted (Ctrl-C) before anything was written; the previous output is left as it was.
    INTERRUPTED = 130


#: What each exit code of `generate` and `snapshot` means: the one table the docs' exit-code page is rendered from.
EXIT_CODE_MEANINGS: dict[ExitCode, str] = {
    ExitCode.OK: "success (or the output was already up to date)",
    ExitCode.FAILED_CHECK: (
        "`--check` found stale output, or `--strict` and at least one warning not accepted with `--allow-warning`"
    ),
    ExitCode.USAGE: (
        "bad usage, an unreadable snapshot or config, a missing `${VAR}`, an unknown warning code, a `--registry`"
        " name or version the registry does not have, a value a registry server needs that is not set"
    ),
    ExitCode.SERVER: (
        "the server could not be started, reached or listed (command not found, exited with code N plus its last"
        " stderr lines, HTTP 401 naming the headers sent (or, for a server answering with an OAuth"
        " `Bearer ... resource_metadata=` challenge, suggesting `--auth oauth` / `mcp-codegen auth login URL`),"
        " an OAuth login or token request that failed, an OAuth login this run cannot wait for (stdin not a"
        " terminal, `--no-browser`, `CI` set: naming `mcp-codegen auth login URL`), a login not finished within"
        " `--login-timeout`, timed out after N s, ...), or the `--registry` registry did"
        " not answer (or not with a server.json)"
    ),
    ExitCode.OUTPUT_CONFLICT: (
        "the output location cannot be used, and what was found is named: files mcp-codegen did not write in a"
        " folder it did not generate, or beside `--overwrite` (`--keep-other-files` writes beside them; nothing of"
        " yours is ever deleted), a generated file you changed (`--overwrite` replaces it), a file of yours where a"
        " generated file goes (move it), `-o` naming the current folder (or one holding it) or leading through a"
        " symbolic link, a path under a regular file, or a place that cannot be written. Checked before the server"
        " is contacted where possible; nothing is written"
    ),
    ExitCode.PARTIAL: "several servers: some failed (each named in the summary), the others were generated",
    ExitCode.INTERRUPTED_AFTER_WRITE: (
        "interrupted after the new output was put in place (each path named: it is complete; with several servers,"
        " the ones not named are unchanged); no staging or `.old-*` directory is left"
    ),
    ExitCode.INTERNAL: ("internal error, a bug of mcp-codegen's (one line; `MCP_CODEGEN_DEBUG=1` shows the traceback)"),
    ExitCode.INTERRUPTED: (
        "interrupted before anything was written (Ctrl-C, also while starting); the previous output is untouched"
        " and no staging directory is left"
    ),
}

#: The other commands' exit codes: command(s) -> {code: meaning} (rendered into the same page).
COMMAND_EXIT_CODES: dict[str, dict[int, str]] = {
    "verify": {
        0: "every package is current",
        1: "stale files (each named)",
        2: "a path holds no generated package, a package's snapshot cannot be read, or bad usage",
    },
    "diff, check": {
        0: "no drift at or above `--fail-on`",
        1: "drift at or above `--fail-on`",
        2: 'the comparison could not be made (server unreachable, unreadable snapshot): never "no drift"',
    },
    "serve": {
        0: "stopped (Ctrl-C included)",
        2: "an unreadable snapshot, or handlers that cannot be loaded",
        3: "the HTTP address is in use",
    },
    "auth login, auth logout": {
        0: "done",
        2: "bad usage",
        3: "the server or its authorization server failed or refused",
    },
    "auth status": {
        0: "something is stored (for URL, or for any server)",
        1: "nothing is stored",
        2: "bad usage",
    },
}


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
    # The runtime's filter, imported on use: importing the runtime costs ~0.2 s, which errors need not pay.
    from mcp_codegen_runtime.text import one_line as printable_line

    return printable_line(error, 300)
