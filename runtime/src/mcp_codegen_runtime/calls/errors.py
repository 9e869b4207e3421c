"""The one exception hierarchy every generated client raises.

Everything derives from `McpClientError`. The SDK's own exceptions (`MCPError`, anyio stream errors,
pydantic errors about malformed responses) and its `ExceptionGroup`s never leave a runtime API:
`translate_error` maps them here. Messages never include secrets (header values, environment
values): only names, codes and the server's own error text.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from ..text import one_line

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

    from .results import ToolResult

__all__ = [
    "ArgumentsValidationError",
    "AuthRequiredError",
    "BearerTokenRequiredError",
    "ConnectError",
    "ConnectionClosedError",
    "HttpStatusError",
    "McpClientError",
    "MissingVariableError",
    "ObservedResultError",
    "OutcomeUnknownError",
    "PromptError",
    "ProtocolError",
    "ReplayMismatchError",
    "RequestTimeoutError",
    "ResourceError",
    "ResultValidationError",
    "ServerRequestError",
    "SnapshotError",
    "SubscriptionLostError",
    "TaskCancelledError",
    "TaskNotFoundError",
    "ToolError",
    "UnknownToolError",
    "UnsupportedByServerError",
    "http_status_message",
    "server_excerpt",
    "request_label",
    "sdk_connection_closed",
    "sdk_request_timeout",
    "translate_error",
    "unwrap_exception_group",
]

# JSON-RPC error codes the SDK uses for transport-level failures (mcp_types.CONNECTION_CLOSED / REQUEST_TIMEOUT).
# Servers use the same codes for errors of their own (-32000 is the most common server-defined code;
# the TypeScript SDK answers an unknown session with -32001), so the SDK's signals are told by their wording.
_CONNECTION_CLOSED = -32000
_REQUEST_TIMEOUT = -32001


def sdk_connection_closed(error: BaseException) -> bool:
    """Whether `error` is the SDK's own signal that the transport closed (not a server's -32000 error)."""
    error = unwrap_exception_group(error)
    return (
        getattr(error, "code", None) == _CONNECTION_CLOSED
        and getattr(error, "message", None) == "Connection closed"
        and getattr(error, "data", None) is None
    )


def sdk_request_timeout(error: BaseException) -> bool:
    """Whether `error` is the SDK's own request timeout (not a server's -32001 error)."""
    error = unwrap_exception_group(error)
    message = getattr(error, "message", None)
    return (
        getattr(error, "code", None) == _REQUEST_TIMEOUT
        and isinstance(message, str)
        and message.startswith("Request ")
        and message.endswith(" timed out")
        and getattr(error, "data", None) is None
    )


def _restore(
    cls: type[BaseException], args: tuple[Any, ...], state: dict[str, Any]
) -> BaseException:
    error = cls.__new__(cls, *args)
    error.args = args
    error.__dict__.update(state)
    return error


class McpClientError(Exception):
    """Base class of every error raised by a generated MCP client."""

    def __reduce__(self) -> tuple[Any, ...]:
        # Subclasses take keyword-only arguments, which Exception's default pickling cannot replay.
        return (_restore, (type(self), self.args, self.__dict__))


class ConnectError(McpClientError):
    """The server could not be started, reached or initialized (the message is one line, without secrets)."""


class MissingVariableError(ConnectError):
    """A recorded launch needs an environment variable that is not set (a secret recorded by its name).

    `variable` is its name, `needed_by` what needs it ("argument 3 of the recorded command", "header
    'Authorization'"), `place` "argument" or "header" (what to give instead: a command, or headers).
    """

    variable: str
    needed_by: str
    place: str

    def __init__(self, variable: str, needed_by: str, place: str, fix: str) -> None:
        super().__init__(
            f"{needed_by} needs the environment variable ${{{variable}}}, which is not set"
            f" (a secret is recorded by name: set it, or {fix})"
        )
        self.variable = variable
        self.needed_by = needed_by
        self.place = place


class AuthRequiredError(ConnectError):
    """The server needs an OAuth login and no usable token is stored (the message names the command).

    `url` is the server URL without secrets; run `mcp-codegen auth login <url>`.
    """

    url: str

    def __init__(self, message: str, *, url: str = "") -> None:
        super().__init__(message)
        self.url = url


class BearerTokenRequiredError(AuthRequiredError):
    """The server answered 401 with a plain Bearer challenge (no OAuth in it or in its metadata): it wants a
    token the caller brings in a header, not an OAuth login; the message names the header to pass.
    """


class ConnectionClosedError(McpClientError):
    """The connection failed under a request and it could not complete (retries, if any, are spent).

    The client is not ended by it: a later call opens the connection again (a stdio server is started
    again), unless retries are off (`retries=0`), where a lost connection fails every later call fast.
    """


class OutcomeUnknownError(ConnectionClosedError):
    """The request was sent and its answer never came: the server may have run it.

    Raised for a tool call that is not safe to repeat (neither `readOnlyHint` nor `idempotentHint`,
    and not named in `Retries.repeatable`): it is never sent a second time. Check the server's state
    before calling again. `method` and `tool` say which request it was.
    """

    method: str
    tool: str | None

    def __init__(self, message: str, *, method: str, tool: str | None = None) -> None:
        super().__init__(message)
        self.method = method
        self.tool = tool


class RequestTimeoutError(McpClientError, TimeoutError):
    """A request got no response in time; the session stays usable for later calls."""


class ProtocolError(McpClientError):
    """The server's response does not conform to the MCP protocol."""


class UnsupportedByServerError(McpClientError):
    """What was asked needs a newer protocol version than the one the server negotiated (e.g. `listen()`,
    which needs 2026-07-28)."""


class SubscriptionLostError(McpClientError):
    """A `listen()` change stream ended without the server's graceful close: listen again and list again
    (there is no replay). The session itself may still be usable."""


class SnapshotError(McpClientError):
    """The package's embedded snapshot.json is missing, unreadable or lacks an item (a packaging problem)."""


class ServerRequestError(McpClientError):
    """The server answered a request with a JSON-RPC error response."""

    code: int
    message: str
    data: object
    method: str | None

    def __init__(
        self, code: int, message: str, data: object = None, *, method: str | None = None
    ) -> None:
        super().__init__(f"{message} (error {code})")
        self.code = code
        self.message = message
        self.data = data
        self.method = method


class HttpStatusError(ServerRequestError):
    """An HTTP server refused a request after connecting (e.g. 401/403: expired credentials).

    `status` is the HTTP status; `headers_sent` the names (never the values) of the headers sent.
    `code` stays the JSON-RPC code the SDK reported, so `except ServerRequestError` still catches it.
    """

    status: int
    reason: str
    url: str
    headers_sent: tuple[str, ...]

    def __init__(
        self,
        code: int,
        *,
        status: int,
        reason: str,
        url: str,
        headers_sent: Sequence[str] = (),
        method: str | None = None,
    ) -> None:
        text = http_status_message(status, reason, url, headers_sent)
        if method:
            text += f" (during {method})"
        super().__init__(code, text, method=method)
        self.args = (text,)
        self.status = status
        self.reason = reason
        self.url = url
        self.headers_sent = tuple(headers_sent)


def http_status_message(
    status: int, reason: str, url: str, headers_sent: Sequence[str]
) -> str:
    """`HTTP 401 Unauthorized from <url> (...)`: which credentials were sent, by header name only."""
    message = f"HTTP {status}{f' {reason}' if reason else ''} from {url}"
    if status in (401, 403):
        if headers_sent:
            message += (
                f" (check the credentials in header(s) {', '.join(headers_sent)})"
            )
        else:
            message += " (the server wants credentials: pass headers=...)"
    return message


class ResourceError(ServerRequestError):
    """The server answered `resources/read` with an error (for example: no such resource)."""

    uri: str

    def __init__(
        self, code: int, message: str, data: object = None, *, uri: str
    ) -> None:
        super().__init__(code, message, data, method="resources/read")
        self.uri = uri


class PromptError(ServerRequestError):
    """The server answered `prompts/get` with an error (for example: unknown prompt, missing argument)."""

    prompt: str

    def __init__(
        self, code: int, message: str, data: object = None, *, prompt: str
    ) -> None:
        super().__init__(code, message, data, method="prompts/get")
        self.prompt = prompt


class TaskCancelledError(McpClientError):
    """The task was cancelled (by this client, another one, or the server) before it produced a result."""

    task_id: str
    tool: str | None

    def __init__(self, message: str, *, task_id: str, tool: str | None = None) -> None:
        super().__init__(message)
        self.task_id = task_id
        self.tool = tool


class TaskNotFoundError(ServerRequestError):
    """The server does not know the task id: it never existed, or its `ttl` passed and it was removed."""

    task_id: str

    def __init__(
        self,
        code: int,
        message: str,
        data: object = None,
        *,
        method: str | None = None,
        task_id: str,
    ) -> None:
        super().__init__(code, message, data, method=method)
        self.args = (f"no task {task_id!r} on the server ({message})",)
        self.task_id = task_id


class ToolError(McpClientError):
    """The tool ran and reported failure (`isError: true`); the message is the result's text."""

    result: ToolResult
    tool: str

    def __init__(self, result: ToolResult, *, tool: str) -> None:
        super().__init__(result.text or f"tool {tool!r} reported an error")
        self.result = result
        self.tool = tool


def _describe_errors(errors: Sequence[ErrorDetails], limit: int = 3) -> str:
    parts: list[str] = []
    for error in errors[:limit]:
        location = ".".join(str(item) for item in error["loc"]) or "(root)"
        parts.append(f"{location}: {error['msg']}")
    if len(errors) > limit:
        parts.append(f"... and {len(errors) - limit} more")
    return "; ".join(parts)


class ArgumentsValidationError(McpClientError, ValueError):
    """The arguments do not match the tool's input model; nothing was sent to the server."""

    tool: str
    errors: list[ErrorDetails]

    def __init__(
        self, errors: Sequence[ErrorDetails], *, tool: str, what: str = "tool"
    ) -> None:
        super().__init__(
            f"invalid arguments for {what} {tool!r}: {_describe_errors(errors)}"
        )
        self.tool = tool
        self.errors = list(errors)


#: The most of a server's answer an error message quotes.
EXCERPT_LIMIT = 300
#: The fields a structured answer says why in: quoted first.
_REASON_FIELDS = ("error", "message")
#: A run of characters a token is made of (base64, URL-safe base64, JWT dots, key prefixes).
_TOKEN = re.compile(r"[A-Za-z0-9+/=_.~-]{16,}")


def server_excerpt(structured: object, text: str, limit: int = EXCERPT_LIMIT) -> str:
    """What the server sent, as one bounded line: its structured result as JSON with its `error` and `message`
    fields first, else its text; a token that looks like a secret is masked as `***`."""
    if structured is None:
        shown = text
    else:
        if isinstance(structured, dict):
            first = {
                key: structured[key] for key in _REASON_FIELDS if key in structured
            }
            structured = {**first, **structured}
        shown = json.dumps(structured, ensure_ascii=False, default=str)
    masked = _TOKEN.sub(
        _mask, shown[: limit * 4]
    )  # a long answer is cut first: the rest is never shown
    line = one_line(masked, None)
    # Cut where the limit falls (not at a space: a long value would vanish whole).
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _mask(match: re.Match[str]) -> str:
    from ..secret_shapes import looks_random, public_identifier

    token = match.group()
    return "***" if looks_random(token) and not public_identifier(token) else token


class ResultValidationError(McpClientError):
    """The tool's structured result does not match its output model; `.result` keeps the raw result.

    The message quotes what the server sent (`server_excerpt`: its `error`/`message` first, bounded, secret-looking
    tokens masked): a server that answers `{"success": false, "error": "no kubeconfig"}` instead of its schema's
    result says why in the message, not only in `.result.raw`.
    """

    tool: str
    result: ToolResult
    errors: list[ErrorDetails]
    #: How the message says what the result does not match, and what to do (subclasses say otherwise).
    _mismatch = "does not match its output schema: {detail}"

    def __init__(
        self,
        errors: Sequence[ErrorDetails],
        *,
        tool: str,
        result: ToolResult,
        reason: str | None = None,
    ) -> None:
        detail = reason if reason is not None else _describe_errors(errors)
        sent = server_excerpt(result.structured, result.text)
        super().__init__(
            f"result of tool {tool!r} "
            + self._mismatch.format(detail=detail)
            + (f"; the server sent: {sent}" if sent else "")
        )
        self.tool = tool
        self.result = result
        self.errors = list(errors)


class ObservedResultError(ResultValidationError):
    """A result of a tool typed from recorded answers (`--results-from`) does not fit that observed type.

    The server declares no output schema: its answers changed shape since they were recorded. `.result`
    keeps the raw result; record again and regenerate with `--results-from` to type the new shape.
    """

    _mismatch = (
        "does not fit the type observed in its recorded results: {detail}"
        " (record again and regenerate with --results-from)"
    )


class ReplayMismatchError(McpClientError):
    """A replayed session was sent what its recording does not have, or was closed with recorded requests
    unused. `.request` is what was sent (None on close), `.expected` what the recording expected next.
    """

    request: str | None
    expected: str | None

    def __init__(
        self, message: str, *, request: str | None = None, expected: str | None = None
    ) -> None:
        super().__init__(message)
        self.request = request
        self.expected = expected


class NoUIError(McpClientError, LookupError):
    """`read_ui()` was given a tool without an MCP Apps UI (its `_meta.ui` names no `resourceUri`)."""

    tool: str

    def __init__(self, tool: str) -> None:
        super().__init__(
            f"tool {tool!r} has no MCP Apps UI (its _meta.ui names no resourceUri)"
        )
        self.tool = tool


class UnknownToolError(McpClientError):
    """`call()` was given a tool name this client was not generated with."""

    name: str
    suggestions: tuple[str, ...]

    def __init__(self, name: str, suggestions: Sequence[str] = ()) -> None:
        hint = (
            f"; did you mean {', '.join(repr(s) for s in suggestions)}?"
            if suggestions
            else ""
        )
        super().__init__(f"unknown tool {name!r}{hint}")
        self.name = name
        self.suggestions = tuple(suggestions)


def _is_cancellation(error: BaseException) -> bool:
    asyncio = sys.modules.get(
        "asyncio"
    )  # no asyncio imported: no asyncio cancellation can exist
    if asyncio is not None and isinstance(error, asyncio.CancelledError):
        return True
    cls = type(error)
    return cls.__name__ == "Cancelled" and cls.__module__.startswith("trio")


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    found: list[BaseException] = []
    for error in group.exceptions:
        if isinstance(error, BaseExceptionGroup):
            found.extend(_leaves(error))  # pyright: ignore[reportUnknownArgumentType]
        else:
            found.append(error)
    return found


def unwrap_exception_group(error: BaseException) -> BaseException:
    """The root cause inside the SDK's (nested) exception groups.

    The single non-cancellation leaf when there is exactly one; else the first non-cancellation leaf
    (the others stay reachable through the group, kept as `__context__`); else the first cancellation.
    """
    if not isinstance(error, BaseExceptionGroup):
        return error
    group = cast(BaseException, error)
    leaves = _leaves(error)  # pyright: ignore[reportUnknownArgumentType]
    real = [leaf for leaf in leaves if not _is_cancellation(leaf)]
    if real:
        chosen = real[0]
        if len(real) > 1 and chosen.__context__ is None:
            chosen.__context__ = group
        return chosen
    return leaves[0] if leaves else group


def request_label(method: str | None, subject: str | None = None) -> str:
    """How an error names a request: `tools/call request for tool 'search'`."""
    what = f"{method} request" if method else "request"
    return f"{what} for {subject}" if subject else what


def translate_error(
    error: BaseException,
    *,
    method: str | None = None,
    uri: str | None = None,
    prompt: str | None = None,
    subject: str | None = None,
    limit: float | None = None,
) -> BaseException:
    """Map an exception raised by the SDK or a transport to this hierarchy.

    Unwraps exception groups first. Returns the (unwrapped) exception itself when it has no mapping:
    callers re-raise that, so a bug shows its real type instead of a vague wrapper. `subject` (e.g.
    `tool 'search'`) and `limit` (the timeout in seconds) make a timeout's message say which request
    and after how long.
    """
    error = unwrap_exception_group(error)
    if isinstance(error, McpClientError) or _is_cancellation(error):
        return error
    what = request_label(method, subject)
    after = f" after {limit:g} s" if limit is not None else ""
    if isinstance(error, TimeoutError):
        return RequestTimeoutError(f"{what} timed out{after}")
    code = getattr(error, "code", None)
    if isinstance(code, int) and _is_mcp_error(error):
        message = str(getattr(error, "message", "") or error)
        data = getattr(error, "data", None)
        if sdk_connection_closed(error):
            return ConnectionClosedError(
                f"connection to the MCP server closed ({message})"
            )
        if sdk_request_timeout(error):
            return RequestTimeoutError(f"{what} timed out{after or f' ({message})'}")
        if uri is not None:
            return ResourceError(code, message, data, uri=uri)
        if prompt is not None:
            return PromptError(code, message, data, prompt=prompt)
        return ServerRequestError(code, message, data, method=method)
    if _is_stream_closed(error):
        return ConnectionClosedError(
            f"connection to the MCP server closed ({type(error).__name__})"
        )
    if _is_validation_error(error):
        return ProtocolError(
            f"the server's response to the {what} does not conform to MCP: {error}"
        )
    return error


def _is_mcp_error(error: BaseException) -> bool:
    for cls in type(error).__mro__:
        if cls.__name__ == "MCPError" and cls.__module__.startswith("mcp."):
            return True
    return False


def _is_stream_closed(error: BaseException) -> bool:
    import anyio

    return isinstance(
        error,
        (
            anyio.ClosedResourceError,
            anyio.BrokenResourceError,
            anyio.EndOfStream,
            BrokenPipeError,
        ),
    )


def _is_validation_error(error: BaseException) -> bool:
    from pydantic import ValidationError

    return isinstance(error, ValidationError)
