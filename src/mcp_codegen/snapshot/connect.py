"""Connecting to a server for a snapshot: the generator's side of the one connection stack.

The transports are the ones every generated client ships (`mcp_codegen_runtime.connection`): the
stdio transport (`stdio_transport`: own process group, exit code, stderr tail, non-JSON stdout
skipped and counted, stdin EOF then SIGTERM then SIGKILL, always reaped, shielded from
cancellation), streamable HTTP and legacy SSE with the status-recording response hook
(`http_transport`, `HttpWatch`), the same `mcp.Client` settings (`sdk_client`: legacy handshake,
no response cache), one `${VAR}` expander and one URL redactor.

What stays here, and why it differs from the runtime's `AsyncConnection`:

* `connect()` yields the `mcp.Client` to the caller's block, which lists through a raw
  `JSONRPCDispatcher` (see `snapshot.fetch`: off-spec tools must not abort a listing), and every
  failure, during the handshake or while the block lists, becomes a `ServerError` whose one-line
  message is documented with exit code 3 (docs: reference/exit-codes.md): messages name the phase
  ("during tools/list (page 2)"), scrub secret values, and differ in wording from the runtime's
  `ConnectError`s, which only cover connecting.
* the `auto` fallback to legacy SSE happens only when the first POST is refused with a 4xx other
  than an auth failure or 429 (an SSE-only server answers 404/405); the runtime also falls back
  after other failures, for a client that would rather connect than explain.
* `_Tap` keeps the raw `initialize` result dict (the SDK only keeps its validated model, which
  drops vendor keys); a running client has no use for it.
* the SDK's own log records are muted while logging is unconfigured (a CLI prints one line).
"""

from __future__ import annotations

import functools
import logging
import math
import os
import sys
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Literal, Self, TextIO, cast

import anyio
import anyio.abc
import mcp_types
from mcp import Client
from mcp.client._transport import ReadStream, Transport, TransportStreams
from mcp.client.extension import advertise
from mcp.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.shared.message import SessionMessage

from mcp_codegen.errors import ServerError
from mcp_codegen.inputs.launch import HttpLaunch, LaunchRecord, ServerLaunch, StdioLaunch, redact_url
from mcp_codegen.snapshot.failures import is_interrupt, root_cause, to_server_error
from mcp_codegen.snapshot.probe import AUTH_STATUSES, HttpFailure, Probe, Scrubber, SpawnError
from mcp_codegen.snapshot.waits import FIRST_NOTICE, Waits
from mcp_codegen_runtime.calls.errors import unwrap_exception_group
from mcp_codegen_runtime.calls.skills import SKILLS_EXTENSION
from mcp_codegen_runtime.connection.attempt import MODERN_OPTIONS, sdk_client, speaks_only_modern
from mcp_codegen_runtime.connection.http import HttpWatch, http_transport
from mcp_codegen_runtime.connection.stdio import ProcessWatch, stdio_transport
from mcp_codegen_runtime.text import one_line

Progress = Callable[[str], None]

#: Loggers the SDK and its HTTP client write to ("client" is mcp.client.session's odd name).
_SDK_LOGGERS = ("mcp", "client", "httpx2")


@dataclass
class Connection:
    """An initialized client plus what the handshake returned; valid inside `connect()` only."""

    client: Client
    #: Seconds each request may take.
    timeout: float
    #: The initialize result as wire JSON (raw when the transport could be tapped, else the SDK model's dump).
    init_result: dict[str, Any]
    #: The secret-free launch record (`None` for an in-process server).
    record: LaunchRecord | None
    _probe: Probe = field(repr=False)
    #: Replaces the launch's secret values in text meant for the user (a server's error message).
    scrub: Callable[[str], str] = field(default=lambda text: text, repr=False)
    #: Says what is awaited when a request takes long (None: no progress lines).
    _waits: Waits | None = field(default=None, repr=False)

    def set_phase(self, phase: str) -> None:
        """Name the request being sent (e.g. "tools/list (page 2)"), for error messages and "still waiting" lines."""
        self._probe.phase = phase
        if self._probe.http is not None:
            self._probe.http.reset()
        if self._waits is not None:
            self._waits.waiting_for(phase)

    @property
    def stdout_garbage(self) -> tuple[int, str | None]:
        """How many non-JSON lines a stdio server wrote to stdout, and the first of them."""
        probe = self._probe
        return probe.garbage_count, probe.garbage[0] if probe.garbage else None


@contextmanager
def _quiet_unconfigured_sdk_logging() -> Iterator[None]:
    """Mute the SDK's own log records while nobody has configured logging.

    The SDK logs transport trouble with `logger.exception()`; with no handler anywhere, Python's
    last-resort handler prints those as raw tracebacks, next to the one-line error we report. When
    logging is configured (a `--verbose` flag, pytest), nothing is changed.
    """
    if logging.getLogger().handlers or any(logging.getLogger(name).handlers for name in _SDK_LOGGERS):
        yield
        return
    saved = [(logger, logger.level) for logger in map(logging.getLogger, _SDK_LOGGERS)]
    for logger, _ in saved:
        logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for logger, level in saved:
            logger.setLevel(level)


def _auth_provider(launch: HttpLaunch) -> Any:
    """The launch's OAuth as an `httpx2.Auth`; a login URL is shown on stderr, even with --quiet."""
    from mcp_codegen.snapshot.auth import provider

    assert launch.auth is not None

    def show(line: str) -> None:
        print(f"mcp-codegen: {line}", file=sys.stderr, flush=True)

    try:
        return provider(launch.url, launch.auth, show)
    except Exception as error:  # e.g. the keyring chosen but unusable: the runtime's one-line message
        raise ServerError(one_line(error, None)) from None


def _say(progress: Progress | None, line: str) -> None:
    if progress is not None:
        progress(line)


# --------------------------------------------------------------------------------------------------
# Public entry points
# --------------------------------------------------------------------------------------------------


@asynccontextmanager
async def connect(
    launch: ServerLaunch,
    *,
    timeout: float,
    progress: Progress | None = None,
    show_stderr: bool = False,
    modern: bool = False,
    patience: float = FIRST_NOTICE,
) -> AsyncIterator[Connection]:
    """Start or reach the server, initialize, and yield the connection.

    Initialize is bounded by `timeout` (so is each later request). Every failure, also one raised
    by the caller's block while it lists, leaves as a one-line `ServerError` (a `ServerError` the
    block raises itself passes through). Cancellation and KeyboardInterrupt propagate unchanged
    after the server process is gone. `show_stderr`: a stdio server's stderr is copied to ours (else
    kept for messages only). `modern`: start with `server/discover` (MCP 2026-07-28, declaring the skills
    extension) instead of the legacy handshake. With `progress`, a request (initialize included) unanswered
    for `patience` seconds gets a "still waiting" line (`waits.Waits`), except while a person may be logging in.
    """
    with _quiet_unconfigured_sdk_logging():
        if progress is None or _may_log_in(launch):
            async with _connect(
                launch, timeout=timeout, progress=progress, show_stderr=show_stderr, modern=modern
            ) as connection:
                yield connection
            return
        waits = Waits(progress, timeout, launch, first=patience)
        waits.waiting_for("initialize")
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(waits.run)
                async with _connect(
                    launch, timeout=timeout, progress=progress, show_stderr=show_stderr, modern=modern, waits=waits
                ) as connection:
                    yield connection
                group.cancel_scope.cancel()
        except BaseExceptionGroup as group_error:  # the watcher never fails: the one error is the connection's
            if len(group_error.exceptions) == 1:
                raise group_error.exceptions[0] from None
            raise


def _may_log_in(launch: ServerLaunch) -> bool:
    """Whether a browser login may happen while initializing (a wait that is the person's, not the server's)."""
    return isinstance(launch, HttpLaunch) and launch.auth is not None and launch.auth.no_login is None


@asynccontextmanager
async def _connect(
    launch: ServerLaunch,
    *,
    timeout: float,
    progress: Progress | None,
    show_stderr: bool = False,
    modern: bool = False,
    waits: Waits | None = None,
) -> AsyncIterator[Connection]:
    scrub = Scrubber.for_launch(launch)
    deadline = anyio.current_time() + timeout
    if isinstance(launch, StdioLaunch):
        probe = Probe(watch=ProcessWatch())
        _say(progress, f"starting {launch.describe()}")
        async with _attempt(
            lambda: _stdio_transport(launch, probe, _ScrubbedLines(scrub) if show_stderr else None),
            probe,
            launch,
            "stdio",
            timeout,
            deadline,
            scrub,
            modern,
            waits,
        ) as c:
            yield c
        return

    url = redact_url(launch.url)
    auth = None
    if launch.auth is not None:
        auth = _auth_provider(launch)
        if launch.auth.kind == "oauth" and launch.auth.no_login is None:  # a person may log in within the handshake
            deadline += launch.auth.login_timeout
    elif launch.stored_token and not any(name.lower() == "authorization" for name in launch.headers):
        from mcp_codegen.snapshot.auth import stored_token

        auth = stored_token(launch.url)
    kinds: list[Literal["http", "sse"]] = ["sse"] if launch.transport == "sse" else ["http"]
    if launch.transport == "auto":
        kinds.append("sse")
    first_error: ServerError | None = None
    for kind in kinds:
        watch = HttpWatch(any_method=kind == "sse")
        probe = Probe(http=watch)
        entered = False
        label = "streamable HTTP" if kind == "http" else "legacy SSE"
        _say(progress, f"connecting to {url} ({label})")
        try:
            async with _attempt(
                functools.partial(http_transport, kind, launch.url, launch.headers, timeout, watch, auth),
                probe,
                launch,
                kind,
                timeout,
                deadline,
                scrub,
                modern,
                waits,
            ) as c:
                entered = True
                yield c
            return
        except ServerError as error:
            if entered:
                raise
            failure = probe.http_failure
            if kind == "http" and "sse" in kinds and failure is not None and _wants_sse_fallback(failure):
                first_error = error
                _say(progress, f"{url} does not speak streamable HTTP (HTTP {failure.status}); trying legacy SSE")
                continue
            if first_error is None:
                raise
            if str(error) == str(first_error):
                raise ServerError(f"{first_error} (the legacy SSE fallback got the same answer)") from None
            raise ServerError(f"{first_error}; the legacy SSE fallback failed too: {error}") from None


@asynccontextmanager
async def connect_in_process(server: object, *, timeout: float) -> AsyncIterator[Connection]:
    """`connect()` for an in-process `MCPServer` / low-level `Server` (tests, demos)."""
    if not isinstance(server, (Server, MCPServer)):
        raise TypeError(f"expected an MCPServer or mcp.server.Server, got {type(server).__name__}")
    probe = Probe()
    deadline = anyio.current_time() + timeout
    async with _attempt(lambda: server, probe, None, None, timeout, deadline, Scrubber([])) as c:
        yield c


# --------------------------------------------------------------------------------------------------
# One connection attempt
# --------------------------------------------------------------------------------------------------


@asynccontextmanager
async def _attempt(
    make_target: Callable[[], Transport | Server[Any] | MCPServer],
    probe: Probe,
    launch: ServerLaunch | None,
    kind: Literal["stdio", "http", "sse"] | None,
    timeout: float,
    deadline: float,
    scrub: Scrubber,
    modern: bool = False,
    waits: Waits | None = None,
) -> AsyncIterator[Connection]:
    try:
        with anyio.CancelScope(deadline=deadline) as scope:
            async with _handshake(make_target, probe, timeout, modern) as client:
                scope.deadline = math.inf  # the handshake is done: from now on each request has its own timeout
                probe.phase = "listing"
                if waits is not None:
                    waits.waiting_for(None)
                if probe.watch is not None:
                    probe.watch.mark_initialized()
                record: LaunchRecord | None = None
                if isinstance(launch, StdioLaunch):
                    record = launch.record()
                elif isinstance(launch, HttpLaunch):
                    record = launch.record(transport="sse" if kind == "sse" else "http")
                yield Connection(client, timeout, _init_result(client, probe), record, probe, scrub, waits)
        if scope.cancelled_caught:
            raise TimeoutError
    except BaseException as exc:  # translated, or re-raised when it is an interrupt
        if is_interrupt(exc):
            raise
        raise to_server_error(exc, probe, launch, timeout, scrub) from None


@asynccontextmanager
async def _handshake(
    make_target: Callable[[], Transport | Server[Any] | MCPServer], probe: Probe, timeout: float, modern: bool = False
) -> AsyncIterator[Client]:
    """An initialized client: the legacy handshake, or `server/discover` for a server that refuses it (or at
    once when `modern`). A `server/discover` connection declares the skills extension (`skills/*`)."""

    def client(options: Mapping[str, Any] | None) -> Client:
        target = make_target()
        tapped = _Tap(target, probe) if not isinstance(target, (Server, MCPServer)) else target
        return sdk_client(tapped, timeout, options)

    async with AsyncExitStack() as stack:
        modern_options = {**MODERN_OPTIONS, "extensions": [advertise(SKILLS_EXTENSION)]}
        if modern:
            entered = await stack.enter_async_context(client(modern_options))
        else:
            try:
                entered = await stack.enter_async_context(client(None))
            except Exception as error:
                if not speaks_only_modern(unwrap_exception_group(error)):
                    raise
                entered = await stack.enter_async_context(client(modern_options))
        yield entered


def _init_result(client: Client, probe: Probe) -> dict[str, Any]:
    """What the handshake returned, as wire JSON: the raw `initialize` result, or its 2026-07-28 equivalent."""
    session = client.session
    discovered = probe.discover_result
    if session.discover_result is not None and discovered is not None:
        result: dict[str, Any] = {"protocolVersion": session.protocol_version}
        for key in ("capabilities", "instructions"):
            if key in discovered:
                result[key] = discovered[key]
        meta = discovered.get("_meta")
        server_info = meta.get(mcp_types.SERVER_INFO_META_KEY) if isinstance(meta, dict) else None
        if isinstance(server_info, dict):
            result["serverInfo"] = server_info
        return result
    if probe.init_result is not None:
        return probe.init_result
    initialized = session.initialize_result
    if initialized is not None:
        return initialized.model_dump(mode="json", by_alias=True, exclude_none=True)
    return {}


class _Tap:
    """A transport wrapper that keeps the raw `initialize` result (the first response on the wire)."""

    def __init__(self, inner: Transport, probe: Probe) -> None:
        self._inner = inner
        self._probe = probe

    async def __aenter__(self) -> TransportStreams:
        read_stream, write_stream = await self._inner.__aenter__()
        return _TappedReadStream(read_stream, self._probe), write_stream

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc, tb)


class _TappedReadStream:
    def __init__(self, inner: ReadStream[SessionMessage | Exception], probe: Probe) -> None:
        self._inner = inner
        self._probe = probe

    @property
    def last_context(self) -> Any:
        # The dispatcher reads the sender's contextvars from here (streamable HTTP sets it).
        return getattr(self._inner, "last_context", None)

    def _see(self, item: SessionMessage | Exception) -> SessionMessage | Exception:
        if self._probe.init_result is None and isinstance(item, SessionMessage):
            message = item.message
            if isinstance(message, mcp_types.JSONRPCResponse) and "protocolVersion" in message.result:
                self._probe.init_result = dict(message.result)
        if self._probe.discover_result is None and isinstance(item, SessionMessage):
            message = item.message
            if isinstance(message, mcp_types.JSONRPCResponse) and "supportedVersions" in message.result:
                self._probe.discover_result = dict(message.result)
        return item

    async def receive(self) -> SessionMessage | Exception:
        return self._see(await self._inner.receive())

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc_val: BaseException | None, exc_tb: TracebackType | None
    ) -> bool | None:
        await self.aclose()
        return None


# --------------------------------------------------------------------------------------------------
# Transports
# --------------------------------------------------------------------------------------------------


class _ScrubbedLines:
    """A server's stderr copied to ours (`-v`) whole line by whole line, its secrets replaced by `***`."""

    def __init__(self, scrub: Scrubber) -> None:
        self._scrub = scrub
        self._partial = ""

    def write(self, text: str) -> None:
        lines = (self._partial + text).split("\n")
        self._partial = lines.pop()
        for line in lines:
            sys.stderr.write(self._scrub(line) + "\n")

    def flush(self) -> None:
        sys.stderr.flush()


@asynccontextmanager
async def _stdio_transport(
    launch: StdioLaunch, probe: Probe, shown: _ScrubbedLines | None
) -> AsyncIterator[TransportStreams]:
    """The runtime's stdio transport (stderr kept; copied to `shown` as it comes), with spawn failures as final
    messages."""
    assert probe.watch is not None
    if launch.cwd is not None and not os.path.isdir(launch.cwd):
        raise SpawnError(f"working directory does not exist: {launch.cwd}")
    target: TextIO | Literal["discard"] = cast("TextIO", shown) if shown is not None else "discard"  # writes text
    transport = stdio_transport(launch.command, launch.args, launch.env, launch.cwd, probe.watch, target)
    entered = False
    try:
        async with transport as streams:
            entered = True
            yield streams
    except FileNotFoundError:
        if entered:
            raise
        raise SpawnError(f"command not found: {launch.command}") from None
    except PermissionError:
        if entered:
            raise
        raise SpawnError(f"cannot run {launch.command}: permission denied") from None
    except OSError as error:
        if entered:
            raise
        raise SpawnError(f"cannot start {launch.command}: {error.strerror or error.__class__.__name__}") from None


def _wants_sse_fallback(failure: HttpFailure) -> bool:
    """A 4xx on the first POST that is not about credentials or rate: probably a server without streamable HTTP."""
    return 400 <= failure.status < 500 and failure.status not in (*AUTH_STATUSES, 429)


# --------------------------------------------------------------------------------------------------
# Failures
# --------------------------------------------------------------------------------------------------


__all__ = ["Connection", "connect", "connect_in_process", "root_cause"]
