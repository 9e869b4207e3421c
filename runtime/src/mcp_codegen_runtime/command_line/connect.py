"""Connecting the command line to the server and turning what fails into one line and an exit code."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from ..text import one_line
from .parsing import pairs
from .table import (
    EXIT_CONNECTION,
    EXIT_OUTCOME_UNKNOWN,
    EXIT_SERVER,
    EXIT_TASK_CANCELLED,
    EXIT_USAGE,
    CommandLine,
    UsageError,
)

__all__ = ["connected", "connection_of"]


def connection_of(line: CommandLine, options: argparse.Namespace) -> Any:
    client = line.client
    stderr: Literal["discard", "inherit"] = "inherit" if options.verbose else "discard"
    if options.stdio:
        import shlex

        words = shlex.split(options.stdio)
        if not words:
            raise UsageError("--stdio: the command is empty")
        env = dict(pairs(options.env, "--env", "="))
        return client.stdio(
            words[0],
            words[1:],
            env=env,
            timeout=options.timeout,
            stderr=stderr,
            retries=options.retries,
        )
    if options.url:
        headers = {
            k.strip(): v.strip() for k, v in pairs(options.header, "--header", ":")
        }
        return client.http(
            options.url,
            headers=headers,
            timeout=options.timeout,
            retries=options.retries,
        )
    if options.header or options.env:
        raise UsageError("--header goes with --url, --env with --stdio")
    if line.launch is None:
        raise UsageError(
            "this package recorded no server launch: give --stdio CMD or --url URL"
        )
    return client.connect(
        timeout=options.timeout, stderr=stderr, retries=options.retries
    )


def connected(
    line: CommandLine,
    options: argparse.Namespace,
    work: Callable[[Any], Awaitable[int]],
) -> int:
    """Connect, run `work(client)`, close; errors become one line and an exit code."""
    connection = connection_of(line, options)
    if not options.verbose:
        _quiet_sdk_logs()

    async def run() -> int:
        async with connection as client:
            return await work(client)

    import anyio

    from ..calls.errors import (
        ArgumentsValidationError,
        ConnectError,
        ConnectionClosedError,
        HttpStatusError,
        McpClientError,
        MissingVariableError,
        OutcomeUnknownError,
        RequestTimeoutError,
        TaskCancelledError,
        TaskNotFoundError,
    )

    try:
        return anyio.run(run)
    except ArgumentsValidationError as error:
        print(f"{line.prog}: error: {one_line(str(error))}", file=sys.stderr)
        return EXIT_USAGE
    except TaskCancelledError as error:
        print(f"{line.prog}: {one_line(str(error))}", file=sys.stderr)
        return EXIT_TASK_CANCELLED
    except TaskNotFoundError as error:
        print(f"{line.prog}: {one_line(str(error))}", file=sys.stderr)
        return EXIT_SERVER
    except OutcomeUnknownError as error:
        print(f"{line.prog}: {one_line(str(error))}", file=sys.stderr)
        return EXIT_OUTCOME_UNKNOWN
    except HttpStatusError as error:
        if error.status not in _UNAVAILABLE:
            print(f"{line.prog}: server error: {one_line(str(error))}", file=sys.stderr)
            return EXIT_SERVER
        print(
            f"{line.prog}: server unavailable: {one_line(str(error))}", file=sys.stderr
        )
        return EXIT_CONNECTION
    except (
        MissingVariableError
    ) as error:  # the library's hint names its API; this one the command line's
        instead = (
            "--stdio CMD" if error.place == "argument" else "--url URL -H 'NAME: VALUE'"
        )
        print(
            f"{line.prog}: cannot reach the server: {error.needed_by} needs the environment variable"
            f" ${{{error.variable}}}, which is not set (a secret is recorded by name: set it, or give"
            f" the server with {instead})",
            file=sys.stderr,
        )
        return EXIT_CONNECTION
    except (ConnectError, ConnectionClosedError, RequestTimeoutError) as error:
        print(
            f"{line.prog}: cannot reach the server: {one_line(str(error))}",
            file=sys.stderr,
        )
        return EXIT_CONNECTION
    except McpClientError as error:
        print(f"{line.prog}: server error: {one_line(str(error))}", file=sys.stderr)
        return EXIT_SERVER


def _quiet_sdk_logs() -> None:
    """Keep the SDK's log records (a traceback it logs for a response that arrives as the connection
    closes) off stderr, where errors are one line; `-v` shows them."""
    import logging

    logging.getLogger("mcp").addHandler(logging.NullHandler())


#: Statuses that say the server (or a gateway before it) could not take the call now: retries were spent.
_UNAVAILABLE = frozenset({408, 429, 502, 503, 504})
