"""Opening connections: transports, the connection-owning task, and one-line connect errors.

A connector (`AsyncClientBase.stdio/http/connect`) returns an `AsyncConnection`. Entering it
starts one *owner task* that enters the SDK's `mcp.Client` and keeps it open until the connection
is closed. The user's `async with` body therefore never runs inside the SDK's task groups: a
transport failure cannot cancel it, its own exceptions leave unwrapped, and `aclose()` works from
any task. Everything heavy (`mcp`, `httpx2`) is imported only when a connection is opened.

This is also the generator's connection stack: `mcp_codegen.snapshot.connect` snapshots servers
through `stdio_transport`, `http_transport` and `sdk_client`, and the generator expands `${VAR}`
with `expand_env_references` and redacts URLs with `redact_url`. What differs there (raw listing,
phase-aware CLI messages) is explained in that module.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from collections.abc import (
    AsyncGenerator,
    Awaitable,
    Callable,
    Coroutine,
    Mapping,
    Sequence,
)
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, BinaryIO, Literal, TextIO, TypeVar, cast

from ..calls.errors import (
    AuthRequiredError,
    ConnectError,
    HttpStatusError,
    http_status_message,
    unwrap_exception_group,
)

if TYPE_CHECKING:
    import anyio
    import anyio.abc
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
    from mcp import Client
    from mcp.shared.message import SessionMessage

__all__ = [
    "ENV_REFERENCE",
    "AsyncConnection",
    "Attempt",
    "HttpWatch",
    "ProcessWatch",
    "StderrTarget",
    "expand_env_references",
    "http_attempts",
    "http_transport",
    "in_process_attempt",
    "launch_attempts",
    "launch_auth",
    "redact_url",
    "safe_url",
    "sdk_client",
    "stdio_attempt",
    "stdio_transport",
]

ClientT = TypeVar("ClientT")

HttpTransport = Literal["auto", "http", "sse"]

#: Where a stdio server's stderr goes: None = our stderr, "discard", a logger (one INFO record
#: per line) or an open text or binary file. The last lines are kept for error messages anyway.
StderrTarget = Literal["discard"] | logging.Logger | TextIO | BinaryIO | None

ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_HTTP_READ_TIMEOUT = 300.0  # an SSE stream may stay quiet for long; requests are bounded by the session instead
_STDIN_GRACE = 2.0  # seconds a stdio server gets to exit after its stdin closes
_FAILED_GRACE = (
    0.2  # the same after a failure or before initializing: nothing is left to flush
)
_KILL_GRACE = 2.0


def _never(_error: BaseException) -> bool:
    return False


def _nothing() -> None:
    return None


def _as_is(_error: BaseException, _method: str | None) -> Exception | None:
    return None


class Attempt:
    """One way to reach the server: `open(options)` gives an un-entered `mcp.Client`.

    `options` are more keyword arguments for `mcp.Client` (e.g. `client_info`).
    """

    __slots__ = (
        "auth_failure",
        "closed_detail",
        "connected",
        "diagnose",
        "explain",
        "fall_through",
        "label",
        "open",
        "target",
    )

    def __init__(
        self,
        *,
        label: str,
        open: Callable[[Mapping[str, Any]], Client],
        diagnose: Callable[[BaseException], str],
        fall_through: Callable[[BaseException], bool] = _never,
        connected: Callable[[], None] = _nothing,
        target: str | None = None,
        explain: Callable[[BaseException, str | None], Exception | None] = _as_is,
        auth_failure: Callable[[], BaseException | None] = _nothing,
        closed_detail: Callable[[], Awaitable[str | None]] | None = None,
    ) -> None:
        self.label = label
        #: What the auth flow raised while connecting, if anything.
        self.auth_failure = auth_failure
        #: What is being reached, for messages (a command or a URL without secrets).
        self.target = target if target is not None else label
        self.open = open
        #: Turns the (unwrapped) failure of entering the client into a one-line reason.
        self.diagnose = diagnose
        #: Whether the next attempt is worth trying after this failure.
        self.fall_through = fall_through
        #: Called once the session is initialized.
        self.connected = connected
        #: A better error for a request that failed after connecting (e.g. with its HTTP status), or None.
        self.explain = explain
        #: Why the connection closed under a request (a stdio server's exit code and stderr), or None.
        self.closed_detail = closed_detail


def sdk_client(
    target: Any, timeout: float, options: Mapping[str, Any] | None = None
) -> Client:
    """The SDK client every connection uses: legacy handshake first (no 10 s `server/discover`
    probe, which 2.x servers answer too; `options={"mode": "auto"}` after `speaks_only_modern`),
    no response cache (a stale `tools/list` would fool the drift guard), and a bound on each
    request."""
    from mcp import Client

    settings: dict[str, Any] = {
        "mode": "legacy",
        "cache": None,
        "read_timeout_seconds": timeout,
    }
    settings.update(options or {})
    return Client(target, **settings)


#: What an `initialize` refused by a server that speaks only 2026-07-28 (no handshake) looks like.
_MODERN_ONLY_CODES = (-32022, -32601)  # UNSUPPORTED_PROTOCOL_VERSION, METHOD_NOT_FOUND


def speaks_only_modern(error: BaseException) -> bool:
    """Whether a failed legacy handshake says the server speaks only 2026-07-28 or newer.

    Such a server refuses `initialize` (-32022 naming its versions, or -32601) or answers it with a
    version the handshake does not know. The caller then connects again with `mode="auto"`, whose
    `server/discover` answers at once: old servers never pay the SDK's 10 s discovery probe.
    """
    if _mcp_error_code(error) in _MODERN_ONLY_CODES:
        return True
    return isinstance(error, RuntimeError) and str(error).startswith(
        "Unsupported protocol version from the server"
    )


#: `mcp.Client` options for the second try against a server that refused the handshake.
MODERN_OPTIONS: Mapping[str, Any] = {"mode": "auto"}


def _one_line(text: str, limit: int = 200) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _mcp_error_code(error: BaseException) -> int | None:
    code = getattr(error, "code", None)
    if isinstance(code, int) and any(
        cls.__name__ == "MCPError" for cls in type(error).__mro__
    ):
        return code
    return None


def _diagnose_common(error: BaseException, timeout: float) -> str | None:
    code = _mcp_error_code(error)
    if code == -32000:
        return "the server closed the connection during initialization"
    if code == -32001 or isinstance(error, TimeoutError):
        return f"no initialize response within {timeout:g} s"
    if code is not None:
        message = getattr(error, "message", "") or str(error)
        return f"the server rejected initialization: {_one_line(str(message))} (error {code})"
    if type(error).__name__ == "ValidationError":
        return "the server's initialize response does not conform to MCP"
    return None


def _generic(error: BaseException) -> str:
    text = _one_line(str(error))
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


# --------------------------------------------------------------------------------------------- stdio


class ProcessWatch:
    """What the stdio transport saw of its child, for error messages (the generator reads it too)."""

    __slots__ = ("garbage", "garbage_count", "initialized", "process", "tail")

    def __init__(self) -> None:
        self.process: anyio.abc.Process | None = None
        #: A server that never finished initializing gets no shutdown grace period.
        self.initialized = False
        #: The last lines the server wrote to stderr (for error messages).
        self.tail: list[str] = []
        #: Lines on stdout that are not JSON-RPC (skipped, like the SDK does): how many, the first few.
        self.garbage_count = 0
        self.garbage: list[str] = []

    def mark_initialized(self) -> None:
        self.initialized = True

    @property
    def returncode(self) -> int | None:
        return self.process.returncode if self.process is not None else None


_STDERR_TAIL_LINES = 5
_GARBAGE_KEPT = 3


class _StderrRelay:
    """Copies a child's stderr to the chosen target, keeping its last lines.

    The child always writes to a pipe we read (never to our descriptor directly), so every
    target, including a logger or a `StringIO`, works the same way and the tail is always kept.
    """

    def __init__(self, target: StderrTarget, watch: ProcessWatch) -> None:
        import codecs

        if target is not None and not (
            target == "discard"
            or isinstance(target, logging.Logger)
            or callable(getattr(target, "write", None))
        ):
            raise TypeError(
                "stderr must be None, 'discard', a logging.Logger or an open file,"
                f" not {type(target).__name__}"
            )
        self._target: StderrTarget = target
        self._watch = watch
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._partial = ""

    def feed(self, chunk: bytes) -> None:
        text = self._decoder.decode(chunk)
        lines = (self._partial + text).split("\n")
        self._partial = lines.pop()
        self._keep(lines)
        self._forward(chunk, text, lines)

    def finish(self) -> None:
        rest = self._partial + self._decoder.decode(b"", final=True)
        self._partial = ""
        if rest:
            self._keep([rest])
            self._forward(rest.encode("utf-8"), rest, [rest])

    def _keep(self, lines: list[str]) -> None:
        tail = self._watch.tail
        tail.extend(line.rstrip("\r") for line in lines if line.strip())
        del tail[:-_STDERR_TAIL_LINES]

    def _forward(self, chunk: bytes, text: str, lines: list[str]) -> None:
        target = self._target
        if target == "discard":
            return
        try:
            if isinstance(target, logging.Logger):
                for line in lines:
                    target.info("%s", line.rstrip("\r"))
                return
            if target is None:
                target = sys.stderr
            if _is_binary(target):
                cast("BinaryIO", target).write(chunk)
            else:
                cast("TextIO", target).write(text)
            target.flush()
        except (
            OSError,
            ValueError,
            AttributeError,
        ):  # closed, broken or None (pythonw)
            # stop forwarding, keep draining
            self._target = "discard"


def _is_binary(stream: object) -> bool:
    import io

    if isinstance(stream, (io.RawIOBase, io.BufferedIOBase)):
        return True
    if isinstance(stream, io.TextIOBase):
        return False
    return "b" in str(getattr(stream, "mode", ""))


@asynccontextmanager
async def _posix_stdio_transport(
    command: str,
    args: Sequence[str],
    env: Mapping[str, str],
    cwd: str | None,
    watch: ProcessWatch,
    stderr: StderrTarget = None,
) -> AsyncGenerator[
    tuple[
        MemoryObjectReceiveStream[SessionMessage | Exception],
        MemoryObjectSendStream[SessionMessage],
    ],
    None,
]:
    """Newline-delimited JSON-RPC over a child's stdin/stdout, keeping the process for exit codes.

    Shutdown follows the spec (and the SDK's transport): close stdin, give the server a grace
    period, then terminate its whole process group.
    """
    import subprocess

    import anyio
    import mcp_types
    from anyio.streams.text import TextReceiveStream
    from mcp.client.stdio import get_default_environment
    from mcp.os.posix.utilities import terminate_posix_process_tree
    from mcp.shared.message import SessionMessage

    relay = _StderrRelay(stderr, watch)
    process = await anyio.open_process(
        [command, *args],
        env=get_default_environment() | dict(env),
        stderr=subprocess.PIPE,
        cwd=cwd,
        start_new_session=True,
    )
    watch.process = process
    stdin, stdout, errout = process.stdin, process.stdout, process.stderr
    assert stdin is not None and stdout is not None and errout is not None
    read_sender, read_stream = anyio.create_memory_object_stream[
        SessionMessage | Exception
    ](0)
    write_stream, write_receiver = anyio.create_memory_object_stream[SessionMessage](0)
    writer_done = anyio.Event()
    stderr_done = anyio.Event()

    async def relay_stderr() -> None:
        # Always drained, so a chatty server never blocks on a full stderr pipe.
        try:
            while True:
                relay.feed(await errout.receive())
        except (
            anyio.EndOfStream,
            anyio.ClosedResourceError,
            anyio.BrokenResourceError,
            OSError,
        ):
            pass
        finally:
            relay.finish()
            stderr_done.set()

    async def drain() -> None:
        # Keep reading so a server blocked on a full stdout pipe can still see stdin close and exit.
        with anyio.CancelScope(shield=True):
            try:
                while True:
                    await stdout.receive()
            except (
                anyio.EndOfStream,
                anyio.ClosedResourceError,
                anyio.BrokenResourceError,
                OSError,
            ):
                pass

    async def reader() -> None:
        try:
            async with read_sender:
                buffer = ""
                async for chunk in TextReceiveStream(stdout, errors="replace"):
                    lines = (buffer + chunk).split("\n")
                    buffer = lines.pop()
                    for line in lines:
                        if not line.strip():
                            continue
                        try:
                            message = mcp_types.jsonrpc_message_adapter.validate_json(
                                line, by_name=False
                            )
                        except ValueError:
                            watch.garbage_count += 1
                            if len(watch.garbage) < _GARBAGE_KEPT:
                                watch.garbage.append(line[:1000])
                            continue
                        try:
                            await read_sender.send(SessionMessage(message))
                        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                            return
                # stdout ended: the child is most likely exiting. A moment to reap it lets the
                # failure message carry its real exit code.
                await wait_exit(1.0)
        except (
            anyio.ClosedResourceError,
            anyio.BrokenResourceError,
            OSError,
        ):
            pass
        finally:
            await drain()

    async def writer() -> None:
        try:
            async with write_receiver:
                async for message in write_receiver:
                    line = (
                        message.message.model_dump_json(
                            by_alias=True, exclude_unset=True
                        )
                        + "\n"
                    )
                    await stdin.send(line.encode("utf-8"))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            # The server stopped reading: end the session's view of the connection.
            await read_sender.aclose()
        finally:
            writer_done.set()

    async def wait_exit(seconds: float) -> bool:
        with anyio.move_on_after(seconds):
            while process.returncode is None:
                await anyio.sleep(0.01)
        return process.returncode is not None

    async def shutdown() -> None:
        read_stream.close()
        write_stream.close()
        with anyio.move_on_after(0.5):
            await writer_done.wait()
        for stream in (stdin,):
            try:
                await stream.aclose()
            except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                pass
        grace = _STDIN_GRACE if watch.initialized and not failed else _FAILED_GRACE
        if not await wait_exit(grace):
            await terminate_posix_process_tree(process, _KILL_GRACE)
            await wait_exit(_KILL_GRACE)
        # What the server wrote last explains a failure: let the relay reach the end of the pipe
        # (a grandchild may hold it open, hence the bound).
        with anyio.move_on_after(0.5):
            await stderr_done.wait()
        for output in (stdout, errout):
            try:
                await output.aclose()
            except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                pass
        for resource in (read_sender, write_receiver):
            await resource.aclose()

    async with anyio.create_task_group() as group:
        group.start_soon(reader)
        group.start_soon(writer)
        group.start_soon(relay_stderr)
        failed = True
        try:
            yield read_stream, write_stream
            failed = False
        finally:
            with anyio.CancelScope(shield=True):
                await shutdown()
            group.cancel_scope.cancel()


def stdio_transport(
    command: str,
    args: Sequence[str],
    env: Mapping[str, str],
    cwd: str | None,
    watch: ProcessWatch,
    stderr: StderrTarget = None,
) -> AbstractAsyncContextManager[Any]:
    """The stdio transport every connection uses (the generator's snapshots too).

    On POSIX our own (see `_posix_stdio_transport`): the SDK's `stdio_client` hides the child,
    so a server dying during initialize would read as a bare "connection closed" without its
    exit code or its last stderr lines. On Windows the SDK's (job objects; no exit code there).
    """
    if sys.platform == "win32":  # pragma: no cover
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        params = StdioServerParameters(
            command=command, args=list(args), env=dict(env), cwd=cwd
        )
        errlog: Any = sys.stderr
        if (
            stderr is not None
            and stderr != "discard"
            and not isinstance(stderr, logging.Logger)
        ):
            errlog = stderr
        return stdio_client(params, errlog=errlog)
    return _posix_stdio_transport(command, args, env, cwd, watch, stderr)


def stdio_attempt(
    command: str,
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None,
    cwd: str | Path | None,
    timeout: float,
    stderr: StderrTarget = None,
) -> Attempt:
    watch = ProcessWatch()
    _StderrRelay(stderr, watch)  # a wrong target fails here, before anything is started
    cwd_text = os.fspath(cwd) if cwd is not None else None
    shown = os.path.basename(command) or command

    def open_client(options: Mapping[str, Any]) -> Client:
        transport = stdio_transport(command, args, env or {}, cwd_text, watch, stderr)
        return sdk_client(transport, timeout, options)

    secrets = sorted(
        {value for value in (env or {}).values() if len(value) >= 4},
        key=len,
        reverse=True,
    )

    def masked(text: str) -> str:
        for secret in secrets:  # values given in env= (tokens) never reach a message
            text = text.replace(secret, "***")
        return text

    def last_lines() -> str:
        found = ""
        if watch.garbage:  # e.g. a banner printed to stdout, which breaks the protocol
            first = masked(_one_line(watch.garbage[0], 100))
            found = f"; it wrote non-JSON to stdout: {first!r}"
        if watch.tail:
            text = masked(" | ".join(_one_line(line) for line in watch.tail))
            found += f"; last stderr lines: {_one_line(text, 600)}"
        return found

    def diagnose(error: BaseException) -> str:
        if isinstance(error, FileNotFoundError):
            if cwd_text is not None and getattr(error, "filename", None) == cwd_text:
                return f"working directory not found: {cwd_text}"
            return f"command not found: {command}"
        if isinstance(error, PermissionError):
            return f"command is not executable: {command}"
        if isinstance(error, NotADirectoryError):
            return f"working directory is not a directory: {cwd_text}"
        returncode = watch.returncode
        if returncode is not None:
            how = (
                f"was killed by signal {-returncode}"
                if returncode < 0
                else f"exited with code {returncode}"
            )
            return (
                f"server process {shown!r} {how} before completing initialization"
                + last_lines()
            )
        common = _diagnose_common(error, timeout)
        if common is not None:
            return f"{common} (command {shown!r}){last_lines()}"
        if isinstance(error, OSError):
            return f"cannot start {command}: {error.strerror or _generic(error)}"
        return f"cannot start {shown!r}: {_generic(error)}"

    async def closed_detail() -> str | None:
        import anyio

        process = watch.process
        if process is not None and process.returncode is None:
            with anyio.move_on_after(
                2
            ):  # the pipe closes a moment before the exit is seen
                await process.wait()
        returncode = watch.returncode
        if returncode is None:
            return None
        how = (
            f"was killed by signal {-returncode}"
            if returncode < 0
            else f"exited with code {returncode}"
        )
        return f"the MCP server process {shown!r} {how}{last_lines()}"

    return Attempt(
        label=f"command {shown!r}",
        open=open_client,
        diagnose=diagnose,
        connected=watch.mark_initialized,
        closed_detail=closed_detail,
    )


def in_process_attempt(server: Any, *, timeout: float) -> Attempt:
    def open_client(options: Mapping[str, Any]) -> Client:
        return sdk_client(server, timeout, options)

    def diagnose(error: BaseException) -> str:
        return _diagnose_common(error, timeout) or _generic(error)

    return Attempt(label="in-process server", open=open_client, diagnose=diagnose)


# ---------------------------------------------------------------------------------------------- HTTP


_SECRET_QUERY_KEY = re.compile(
    r"token|key|secret|pass|auth|sig|cred|session|code", re.IGNORECASE
)


def redact_url(url: str, *, keep_query: bool = True) -> str:
    """The URL without userinfo and fragment, safe to print and store (the generator uses it too).

    Query values under token-like keys become `REDACTED`; `keep_query=False` drops the query.
    """
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        try:
            port = parts.port
        except ValueError:
            port = None
    except ValueError:
        return "<invalid URL>"
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    if port is not None:
        host = f"{host}:{port}"
    query = ""
    if keep_query:
        pairs = parse_qsl(parts.query, keep_blank_values=True)
        query = urlencode(
            [
                (key, "REDACTED" if _SECRET_QUERY_KEY.search(key) else value)
                for key, value in pairs
            ],
            safe="{}$",
        )
    return urlunsplit((parts.scheme, host, parts.path, query, ""))


def safe_url(url: str) -> str:
    """The URL without userinfo, query or fragment (those may carry secrets), for messages."""
    return redact_url(url, keep_query=False)


class HttpWatch:
    """The HTTP statuses the SDK's transports turn into generic errors (the generator reads it too).

    Counted: refused POSTs on streamable HTTP (its optional GET stream may be refused, 405, without
    harm) and any refused request on legacy SSE.
    """

    __slots__ = (
        "any_method",
        "auth_error",
        "bearer",
        "last",
        "reason",
        "status",
        "with_auth",
    )

    def __init__(self, *, any_method: bool = False) -> None:
        self.any_method = any_method
        #: Requests go through an `httpx2.Auth` (a refused first request may be part of its flow).
        self.with_auth = False
        #: What the auth flow raised last (no login stored, a refused token exchange...).
        self.auth_error: BaseException | None = None
        #: The first refusal was a 401 with a Bearer challenge (the server speaks OAuth).
        self.bearer = False
        #: The first refused response since `reset()`: what explains a failed connect.
        self.status: int | None = None
        self.reason = ""
        #: The latest (status, reason). After connecting, the SDK reports a refused request as a
        #: generic JSON-RPC error without the status; concurrent requests refused with different
        #: statuses may see each other's (a rare, harmless mix-up).
        self.last: tuple[int, str] | None = None

    def reset(self) -> None:
        self.status = None
        self.reason = ""
        self.last = None
        self.auth_error = None
        self.bearer = False


# Marks the requests an auth flow makes of its own (metadata, registration, token): their
# statuses say nothing about the MCP endpoint.
_AUTH_REQUEST = "mcp_codegen_auth_request"


def _status_hook(watch: HttpWatch) -> Callable[[Any], Any]:
    async def on_response(response: Any) -> None:
        status = int(response.status_code)
        if response.request.extensions.get(_AUTH_REQUEST):
            return
        if not watch.any_method and response.request.method != "POST":
            return
        if status < 400:
            if (
                watch.with_auth
            ):  # the 401 that started a successful login explains nothing
                watch.status = None
                watch.reason = ""
            return
        reason = str(getattr(response, "reason_phrase", "") or "")
        watch.last = (status, reason)
        if watch.status is None:
            watch.status = status
            watch.reason = reason
            challenge = str(response.headers.get("www-authenticate", ""))
            watch.bearer = status == 401 and challenge.lower().startswith("bearer")

    return on_response


# What the SDK reports for a POST refused with an HTTP error status (mcp.client.streamable_http).
_SDK_STATUS_STAND_INS = (
    (-32603, "Server returned an error response"),
    (-32600, "Session terminated"),
    (-32600, "Session not found"),  # a 404 for a session the server no longer knows
)


def _tagged_auth(auth: Any, watch: HttpWatch) -> Any:
    """`auth` with the requests its flow makes of its own marked for `_status_hook`, and
    its failures kept in `watch` (the SDK's transport only logs them)."""
    import httpx2

    class TaggedAuth(httpx2.Auth):
        requires_request_body = bool(getattr(auth, "requires_request_body", False))
        requires_response_body = bool(getattr(auth, "requires_response_body", False))

        def __repr__(self) -> str:
            return repr(auth)

        async def async_auth_flow(
            self, request: httpx2.Request
        ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
            flow = auth.async_auth_flow(request)
            try:
                outgoing = await flow.__anext__()
                while True:
                    if outgoing is not request:
                        outgoing.extensions = {
                            **outgoing.extensions,
                            _AUTH_REQUEST: True,
                        }
                    response = yield outgoing
                    outgoing = await flow.asend(response)
            except StopAsyncIteration:
                return
            except Exception as error:
                watch.auth_error = error
                raise
            finally:
                await flow.aclose()

    return TaggedAuth()


def _http_client(
    headers: Mapping[str, str], timeout: float, watch: HttpWatch, auth: Any = None
) -> Any:
    import httpx2

    if auth is not None:
        watch.with_auth = True
        auth = _tagged_auth(auth, watch)
    return httpx2.AsyncClient(
        headers=dict(headers),
        timeout=httpx2.Timeout(timeout, read=max(timeout, _HTTP_READ_TIMEOUT)),
        auth=auth,
        event_hooks={"response": [_status_hook(watch)]},
    )


@asynccontextmanager
async def _streamable_transport(
    url: str,
    headers: Mapping[str, str],
    timeout: float,
    watch: HttpWatch,
    auth: Any = None,
) -> AsyncGenerator[Any, None]:
    from mcp.client.streamable_http import streamable_http_client

    async with (
        _http_client(headers, timeout, watch, auth) as http_client,
        streamable_http_client(url, http_client=http_client) as streams,
    ):
        yield streams


def _sse_transport(
    url: str,
    headers: Mapping[str, str],
    timeout: float,
    watch: HttpWatch,
    auth: Any = None,
) -> Any:
    from mcp.client.sse import sse_client

    explicit_auth = auth

    def factory(
        headers: dict[str, str] | None = None, timeout: Any = None, auth: Any = None
    ) -> Any:
        import httpx2

        client = _http_client(headers or {}, 30.0, watch, explicit_auth or auth)
        if timeout is not None:
            client.timeout = (
                timeout
                if isinstance(timeout, httpx2.Timeout)
                else httpx2.Timeout(timeout)
            )
        return client

    return sse_client(
        url,
        headers=dict(headers),
        timeout=timeout,
        sse_read_timeout=max(timeout, _HTTP_READ_TIMEOUT),
        httpx_client_factory=factory,
    )


def http_transport(
    kind: Literal["http", "sse"],
    url: str,
    headers: Mapping[str, str],
    timeout: float,
    watch: HttpWatch,
    auth: Any = None,
) -> AbstractAsyncContextManager[Any]:
    """Streamable HTTP or legacy SSE through an `httpx2` client whose response hook fills `watch`.

    The generator's snapshots use it too. `watch` should be `HttpWatch(any_method=kind == "sse")`.
    `auth` is any `httpx2.Auth` (e.g. `auth.oauth(url)`), applied to every request.
    """
    maker = _streamable_transport if kind == "http" else _sse_transport
    return cast(
        "AbstractAsyncContextManager[Any]", maker(url, headers, timeout, watch, auth)
    )


def _auth_failure(error: BaseException, shown: str) -> str:
    """One line for a failed auth flow: ours say what to do; the SDK's name the step."""
    if isinstance(error, ConnectError):
        return str(error)
    return f"OAuth failed for {shown}: {_generic(error)}"


def _is_refused_or_timeout(error: BaseException) -> bool:
    name = type(error).__name__
    return name in {"ConnectError", "ConnectTimeout", "TimeoutException"} or isinstance(
        error, (ConnectionRefusedError, TimeoutError)
    )


def http_attempts(
    url: str,
    *,
    headers: Mapping[str, str] | None,
    timeout: float,
    transport: HttpTransport,
    header_hint: Sequence[str] = (),
    auth: Any = None,
) -> list[Attempt]:
    if transport not in ("auto", "http", "sse"):
        raise ConnectError(
            f"unknown HTTP transport {transport!r} (expected 'auto', 'http' or 'sse')"
        )
    shown = safe_url(url)
    sent = dict(headers or {})

    def make(kind: Literal["http", "sse"]) -> Attempt:
        watch = HttpWatch(any_method=kind == "sse")

        def open_client(options: Mapping[str, Any]) -> Client:
            watch.reset()
            return sdk_client(
                http_transport(kind, url, sent, timeout, watch, auth), timeout, options
            )

        def credentials() -> list[str]:
            return list(header_hint) or sorted(sent)

        def diagnose(error: BaseException) -> str:
            if watch.auth_error is not None:
                return _auth_failure(watch.auth_error, shown)
            if watch.bearer and not watch.with_auth and not sent:
                return (
                    f"HTTP 401 from {shown}: the server wants an OAuth login"
                    " (pass auth=oauth(url), or auth=stored(url) after"
                    f" `mcp-codegen auth login {shown}`)"
                )
            if watch.status is not None:
                return http_status_message(
                    watch.status, watch.reason, shown, credentials()
                )
            if _is_refused_or_timeout(error):
                if "Timeout" in type(error).__name__ or isinstance(error, TimeoutError):
                    return f"timed out connecting to {shown}"
                return f"cannot connect to {shown} (connection refused or host unreachable)"
            common = _diagnose_common(error, timeout)
            if common is not None:
                return f"{common} ({shown})"
            return f"cannot connect to {shown}: {_generic(error)}"

        def explain(error: BaseException, method: str | None) -> Exception | None:
            if isinstance(watch.auth_error, ConnectError):
                found, watch.auth_error = watch.auth_error, None
                return found
            failure = watch.last
            code = _mcp_error_code(error)
            if failure is None or code is None:
                return None
            message = str(getattr(error, "message", ""))
            if (code, message) not in _SDK_STATUS_STAND_INS:
                return None
            status, reason = failure
            return HttpStatusError(
                code,
                status=status,
                reason=reason,
                url=shown,
                headers_sent=credentials(),
                method=method,
            )

        def connected() -> None:
            watch.last = None  # from now on `last` explains failed requests

        def fall_through(error: BaseException) -> bool:
            if watch.status in (401, 403) or watch.auth_error is not None:
                return False
            return not _is_refused_or_timeout(error)

        def auth_failure() -> BaseException | None:
            return watch.auth_error

        label = "streamable HTTP" if kind == "http" else "SSE"
        return Attempt(
            label=label,
            open=open_client,
            diagnose=diagnose,
            fall_through=fall_through,
            target=shown,
            explain=explain,
            connected=connected,
            auth_failure=auth_failure,
        )

    if transport == "http":
        return [make("http")]
    if transport == "sse":
        return [make("sse")]
    return [make("http"), make("sse")]


# -------------------------------------------------------------------------------------- launch spec


def expand_env_references(
    text: str, environ: Mapping[str, str], missing: Callable[[str], Exception]
) -> str:
    """Replace every `${VAR}` in `text` from `environ`; raise `missing(VAR)` for an unset one.

    The only `${VAR}` expander: the generator's command line and config files use it too.
    """

    def substitute(match: re.Match[str]) -> str:
        variable = match.group(1)
        if variable not in environ:
            raise missing(variable)
        return environ[variable]

    return ENV_REFERENCE.sub(substitute, text)


def expand_header_template(name: str, template: str, environ: Mapping[str, str]) -> str:
    return expand_env_references(
        template,
        environ,
        lambda variable: ConnectError(
            f"header {name!r} needs the environment variable ${{{variable}}}, which is not set"
        ),
    )


def _strings(value: object) -> list[str]:
    if isinstance(value, list):
        return [item for item in cast("list[object]", value) if isinstance(item, str)]
    return []


def launch_attempts(
    launch: Mapping[str, Any] | None,
    *,
    env: Mapping[str, str] | None,
    headers: Mapping[str, str] | None,
    timeout: float,
    stderr: StderrTarget = None,
    auth: Any = None,
) -> list[Attempt]:
    """The attempts for the server recorded at generation time, with secrets read from the environment now.

    For HTTP, `auth` (an `httpx2.Auth`) wins; else the recorded `"auth"` entry decides (see
    `launch_auth`); else a stored OAuth token is used once the server asks for one.
    """
    if launch is None:
        raise ConnectError(
            "this client was generated from a snapshot without a launch spec"
        )
    transport = launch.get("transport")
    environ = os.environ
    if transport == "stdio":
        command = launch.get("command")
        if not isinstance(command, str) or not command:
            raise ConnectError("the recorded launch spec has no command")
        child_env = {
            name: environ[name]
            for name in _strings(launch.get("envNames"))
            if name in environ
        }
        child_env.update(env or {})
        cwd = launch.get("cwd")
        return [
            stdio_attempt(
                command,
                _strings(launch.get("args")),
                env=child_env,
                cwd=cwd if isinstance(cwd, str) else None,
                timeout=timeout,
                stderr=stderr,
            )
        ]
    if transport in ("http", "sse"):
        url = launch.get("url")
        if not isinstance(url, str) or not url:
            raise ConnectError("the recorded launch spec has no URL")
        explicit = {key.lower(): key for key in (headers or {})}
        resolved: dict[str, str] = {}
        recorded_names: list[str] = []
        records = launch.get("headers")
        for entry in cast("list[object]", records) if isinstance(records, list) else []:
            if not isinstance(entry, dict):
                continue
            record = cast("dict[str, object]", entry)
            name = record.get("name")
            if not isinstance(name, str):
                continue
            recorded_names.append(name)
            template = record.get("template")
            if name.lower() in explicit or not isinstance(template, str):
                continue
            resolved[name] = expand_header_template(name, template, environ)
        resolved.update(headers or {})
        if auth is None:
            auth = launch_auth(url, launch.get("auth"), environ)
        return http_attempts(
            url,
            headers=resolved,
            timeout=timeout,
            transport=transport,
            header_hint=recorded_names,
            auth=auth,
        )
    raise ConnectError(
        f"the recorded launch spec has an unsupported transport {transport!r}"
    )


def launch_auth(url: str, entry: object, environ: Mapping[str, str]) -> Any:
    """The `httpx2.Auth` for a recorded `"auth"` entry (no secret values in it), for `url`.

    `{"kind": "oauth"}`: the token `mcp-codegen auth login` stored (refreshed, never a login).
    `{"kind": "client-credentials", "clientId": ..., "clientSecretEnv": NAME, "scopes": [...]}`
    (optional `"tokenEndpointAuthMethod"`: "client_secret_basic", the default, or
    "client_secret_post"): the client-credentials grant with the secret read from `$NAME`. No entry: the stored
    token, used only when the server answers 401 with a Bearer challenge.
    """
    from .. import auth

    if entry is None:
        return auth.when_challenged(url)
    if not isinstance(entry, dict):
        raise ConnectError("the recorded launch spec has an invalid auth entry")
    record = cast("dict[str, object]", entry)
    kind = record.get("kind")
    scopes = _strings(record.get("scopes")) or None
    if kind == "oauth":
        return auth.stored(url)
    if kind == "client-credentials":
        client_id = record.get("clientId")
        variable = record.get("clientSecretEnv")
        if not isinstance(client_id, str) or not client_id:
            raise ConnectError("the recorded client-credentials auth has no client id")
        if not isinstance(variable, str) or not variable:
            raise ConnectError(
                "the recorded client-credentials auth names no client-secret variable"
            )
        if variable not in environ:
            raise ConnectError(
                f"OAuth client credentials need the environment variable ${{{variable}}},"
                " which is not set"
            )
        method = record.get("tokenEndpointAuthMethod", "client_secret_basic")
        if method not in ("client_secret_basic", "client_secret_post"):
            raise ConnectError(
                f"the recorded client-credentials auth has an unsupported"
                f" token endpoint auth method {method!r}"
            )
        return auth.client_credentials(
            url,
            client_id=client_id,
            client_secret=environ[variable],
            scopes=scopes,
            token_endpoint_auth_method=method,
        )
    raise ConnectError(
        f"the recorded launch spec has an unsupported auth kind {kind!r}"
    )


# ------------------------------------------------------------------------------------- the connection


class AsyncConnection(AbstractAsyncContextManager[ClientT]):
    """`async with connection as client:` connects; leaving closes it. The body's exceptions pass unchanged."""

    def __init__(
        self,
        make_client: Callable[[Any, AsyncConnection[ClientT]], ClientT],
        attempts: Callable[[], Sequence[Attempt]],
        *,
        timeout: float,
        after_connect: Callable[[ClientT], Awaitable[object]] | None = None,
        client_options: Mapping[str, Any] | None = None,
    ) -> None:
        self._make_client = make_client
        #: More keyword arguments for `mcp.Client` (e.g. `client_info`).
        self._client_options: Mapping[str, Any] = client_options or {}
        #: Runs once the client exists (the drift guard); if it raises, the connection is closed.
        self.after_connect = after_connect
        self._attempts = attempts
        self._timeout = timeout
        self._group: anyio.abc.TaskGroup | None = None
        self._owner_scope: anyio.CancelScope | None = None
        self._ready: anyio.Event | None = None
        self._stop: anyio.Event | None = None
        self._done: anyio.Event | None = None
        self._session: Any = None
        self._attempt: Attempt | None = None
        self._failures: list[str] = []
        self._auth_required: AuthRequiredError | None = None
        self._entered = False
        #: Called once when the connection ends (closed, or lost after it was up).
        self.on_close: Callable[[str], None] | None = None
        #: An error the connection ended with after it was up (a transport crash), kept for diagnostics.
        self.error: BaseException | None = None

    def _closed(self, reason: str) -> None:
        hook, self.on_close = self.on_close, None
        if hook is not None:
            hook(reason)

    def explain(self, error: BaseException, method: str | None) -> Exception | None:
        """A better error than the SDK's for a request that failed on this connection, or None."""
        attempt = self._attempt
        return attempt.explain(error, method) if attempt is not None else None

    async def _own(self, attempts: Sequence[Attempt]) -> None:
        import anyio

        assert (
            self._ready is not None
            and self._stop is not None
            and self._done is not None
        )
        try:
            with anyio.CancelScope() as scope:
                self._owner_scope = scope
                for index, attempt in enumerate(attempts):
                    options = self._client_options
                    try:
                        try:
                            await self._serve(attempt, options)
                            return
                        except Exception as error:
                            if self._session is not None or not speaks_only_modern(
                                unwrap_exception_group(error)
                            ):
                                raise
                        await self._serve(attempt, {**options, **MODERN_OPTIONS})
                        return
                    except Exception as error:
                        root = unwrap_exception_group(error)
                        if self._session is not None:
                            self.error = root
                            return
                        refused = attempt.auth_failure()
                        if isinstance(refused, AuthRequiredError):
                            self._auth_required = (
                                refused  # raised as it is: a login helps
                            )
                            return
                        reason = attempt.diagnose(root)
                        self._failures.append(
                            f"{attempt.label}: {reason}"
                            if len(attempts) > 1
                            else reason
                        )
                        if index + 1 >= len(attempts) or not attempt.fall_through(root):
                            return
        finally:
            if self._session is not None and not self._stop.is_set():
                self._closed("the connection to the MCP server was lost")
            self._ready.set()
            self._done.set()

    async def _serve(self, attempt: Attempt, options: Mapping[str, Any]) -> None:
        """Connect through `attempt` and hold the session open until the connection is closed."""
        assert self._ready is not None and self._stop is not None
        async with attempt.open(options) as client:
            self._session = client.session
            self._attempt = attempt
            attempt.connected()
            self._ready.set()
            await self._stop.wait()

    async def __aenter__(self) -> ClientT:
        import anyio

        if self._entered:
            raise RuntimeError(
                "this connection was already used; call the connector again for a new one"
            )
        self._entered = True
        attempts = self._attempts()  # may raise ConnectError (launch spec problems)
        self._ready, self._stop, self._done = (
            anyio.Event(),
            anyio.Event(),
            anyio.Event(),
        )
        group = anyio.create_task_group()
        await group.__aenter__()
        self._group = group
        try:
            group.start_soon(self._own, attempts)
            with anyio.move_on_after(self._timeout):
                await self._ready.wait()
            if self._session is None:
                if not self._failures:
                    last = attempts[-1].target if attempts else "the server"
                    self._failures.append(
                        f"timed out after {self._timeout:g} s ({last})"
                    )
                if self._owner_scope is not None:
                    self._owner_scope.cancel()
                self._stop.set()
        except BaseException:
            # Cancelled (or failed) while connecting: stop the owner and wait for its cleanup. The group's
            # own scope is shielded, since a new scope around its exit would break the LIFO order.
            group.cancel_scope.cancel()
            group.cancel_scope.shield = True
            await self._exit_group()
            raise
        if self._session is None:
            await self._exit_group()
            if self._auth_required is not None:
                raise self._auth_required
            raise ConnectError(
                "cannot connect to the MCP server: " + "; ".join(self._failures)
            )
        client = self._make_client(self._session, self)
        if self.after_connect is not None:
            try:
                await self.after_connect(client)
            except BaseException as error:
                await self.__aexit__(type(error), error, error.__traceback__)
                raise
        return client

    async def closed_detail(self) -> str | None:
        """Why the connection closed under a request (a stdio server's exit code and stderr), or None."""
        attempt = self._attempt
        if attempt is None or attempt.closed_detail is None:
            return None
        return await attempt.closed_detail()

    def spawn(self, fn: Callable[..., Coroutine[Any, Any, object]], *args: Any) -> None:
        """Run `fn(*args)` in this connection's task group (work a notification starts); dropped once closed."""
        group = self._group
        if group is not None:
            group.start_soon(fn, *args)

    async def reconnect(self) -> Any:
        """Close the current session (if any is left) and connect again the same way; the new session.

        A stdio server is started again, an HTTP server gets a new session. Raises `ConnectError` (the
        connection then stays closed) when the server cannot be reached.
        """
        import anyio

        group = self._group
        if group is None or self._stop is None or self._done is None:
            raise ConnectError("this connection is not open")
        hook, self.on_close = (
            self.on_close,
            None,
        )  # the old session ends on purpose: not a lost connection
        self._stop.set()
        await self._done.wait()
        self._session, self._attempt, self.error, self._failures = None, None, None, []
        self._ready, self._stop, self._done = (
            anyio.Event(),
            anyio.Event(),
            anyio.Event(),
        )
        attempts = self._attempts()
        group.start_soon(self._own, attempts)
        with anyio.move_on_after(self._timeout):
            await self._ready.wait()
        if self._session is None:
            if self._owner_scope is not None:
                self._owner_scope.cancel()
            self._stop.set()
            await self._done.wait()
            reason = "; ".join(self._failures) or f"timed out after {self._timeout:g} s"
            raise ConnectError(f"cannot reconnect to the MCP server: {reason}")
        self.on_close = hook
        return self._session

    async def _exit_group(self, error: BaseException | None = None) -> None:
        group, self._group = self._group, None
        if group is None:
            return
        try:
            if error is None:
                await group.__aexit__(None, None, None)
            else:
                await group.__aexit__(type(error), error, error.__traceback__)
        except BaseException as raised:
            root = unwrap_exception_group(raised)
            if root is error:
                return
            raise root from None

    async def aclose(self) -> None:
        """Close the connection now (idempotent); `async with` still has to be left as usual."""
        self._closed("the client was closed")
        if self._stop is None or self._done is None:
            return
        self._stop.set()
        await self._done.wait()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        import anyio

        self._closed("the client was closed")
        if self._stop is not None:
            self._stop.set()
        cancelled = exc is not None and isinstance(exc, anyio.get_cancelled_exc_class())
        # A body that failed still gets a graceful shutdown; only a cancellation is handed to the group.
        await self._exit_group(exc if cancelled else None)
