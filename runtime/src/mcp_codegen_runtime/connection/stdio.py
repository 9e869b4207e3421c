"""The stdio transport: a child process speaking JSON-RPC on stdin/stdout, its stderr relayed and its exit watched."""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import AsyncGenerator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Literal, TextIO, cast

from ..calls.telemetry import STDIO_PEER
from ..text import one_line
from .attempt import Attempt, describe_error, diagnose_common, sdk_client
from .server_env import inherited_environment, proxy_passwords

if TYPE_CHECKING:
    import anyio.abc
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
    from mcp import Client
    from mcp.shared.message import SessionMessage

__all__ = [
    "ProcessWatch",
    "StderrTarget",
    "server_logger",
    "stdio_attempt",
    "stdio_transport",
]

#: Where a stdio server's stderr goes: None (the default) = the logger `<package>.server`, one INFO
#: record per line (`server_logger()`); "inherit" = this process's stderr; "discard"; a logger; or an
#: open text or binary file. The last lines are kept for error messages whatever the target.
StderrTarget = Literal["discard", "inherit"] | logging.Logger | TextIO | BinaryIO | None
#: Whose logger a stdio server's stderr goes to when no client class names its package (the generator's).
_PACKAGE = "mcp_codegen"
#: A stderr line longer than this is cut in error messages (a path or a message is far shorter).
_LINE_KEPT = 4000
_STDIN_GRACE = 2.0  # seconds a stdio server gets to exit after its stdin closes
_FAILED_GRACE = (
    0.2  # the same after a failure or before initializing: nothing is left to flush
)
_KILL_GRACE = 2.0


def server_logger() -> logging.Logger:
    """The logger a stdio server's stderr lines go to by default: `<package>.server`, at INFO."""
    return logging.getLogger(f"{_PACKAGE}.server")


class ProcessWatch:
    """What the stdio transport saw of its child, for error messages (the generator reads it too)."""

    __slots__ = (
        "garbage",
        "garbage_count",
        "initialized",
        "process",
        "stdout_ended",
        "tail",
    )

    def __init__(self) -> None:
        self.process: anyio.abc.Process | None = None
        #: A server that never finished initializing gets no shutdown grace period.
        self.initialized = False
        #: The last lines the server wrote to stderr (for error messages).
        self.tail: list[str] = []
        #: Lines on stdout that are not JSON-RPC (skipped, like the SDK does): how many, the first few.
        self.garbage_count = 0
        self.garbage: list[str] = []
        #: When (`time.monotonic()`) the server's stdout ended: a request sent after it never reached the server.
        self.stdout_ended: float | None = None

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
            target in ("discard", "inherit")
            or isinstance(target, logging.Logger)
            or callable(getattr(target, "write", None))
        ):
            raise TypeError(
                "stderr must be None, 'inherit', 'discard', a logging.Logger or an open"
                f" file, not {type(target).__name__}"
            )
        self._target: StderrTarget = server_logger() if target is None else target
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
            out = cast(
                "TextIO | BinaryIO", sys.stderr if target == "inherit" else target
            )
            if _is_binary(out):
                cast("BinaryIO", out).write(chunk)
            else:
                cast("TextIO", out).write(text)
            out.flush()
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
async def stdio_transport(
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
    """The stdio transport every connection uses (the generator's snapshots too).

    On POSIX our own: newline-delimited JSON-RPC over the child's stdin/stdout, keeping the
    process for exit codes (the SDK's `stdio_client` hides the child, so a server dying during
    initialize would read as a bare "connection closed" without its exit code or its last
    stderr lines). Shutdown follows the spec (and the SDK's transport): close stdin, give the
    server a grace period, then terminate its whole process group. On Windows the SDK's
    (job objects; no exit code there).
    """
    if sys.platform == "win32":  # pragma: no cover
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        params = StdioServerParameters(
            command=command,
            args=list(args),
            env=inherited_environment() | dict(env),
            cwd=cwd,
        )
        errlog: Any = sys.stderr  # the SDK's transport takes a file only
        if stderr not in (None, "discard", "inherit") and not isinstance(
            stderr, logging.Logger
        ):
            errlog = stderr
        async with stdio_client(params, errlog=errlog) as streams:
            yield streams
        return

    import subprocess

    import anyio
    import mcp_types
    from anyio.streams.text import TextReceiveStream
    from mcp.os.posix.utilities import terminate_posix_process_tree
    from mcp.shared.message import SessionMessage

    relay = _StderrRelay(stderr, watch)
    process = await anyio.open_process(
        [command, *args],
        env=inherited_environment() | dict(env),
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
    # What reading a pipe of a child that exited or closed it raises.
    stream_ended = (
        anyio.EndOfStream,
        anyio.ClosedResourceError,
        anyio.BrokenResourceError,
        OSError,
    )
    stderr_done = anyio.Event()

    async def relay_stderr() -> None:
        # Always drained, so a chatty server never blocks on a full stderr pipe.
        try:
            while True:
                relay.feed(await errout.receive())
        except stream_ended:
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
            except stream_ended:
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
                watch.stdout_ended = time.monotonic()
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


def stdio_attempt(
    command: str,
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None,
    cwd: str | Path | None,
    timeout: float,
    stderr: StderrTarget = None,
) -> Attempt:
    """Starting `command` with `args` as a child process and speaking MCP on its stdin/stdout."""
    watch = ProcessWatch()
    _StderrRelay(stderr, watch)  # a wrong target fails here, before anything is started
    cwd_text = os.fspath(cwd) if cwd is not None else None
    shown = os.path.basename(command) or command

    def open_client(options: Mapping[str, Any]) -> Client:
        transport = stdio_transport(command, args, env or {}, cwd_text, watch, stderr)
        return sdk_client(transport, timeout, options)

    given = [*(env or {}).values(), *proxy_passwords()]
    secrets = sorted(
        {value for value in given if len(value) >= 4},
        key=len,
        reverse=True,
    )

    def masked(text: str) -> str:
        for (
            secret
        ) in (
            secrets
        ):  # values given in env= (tokens), proxy passwords: never in a message
            text = text.replace(secret, "***")
        return text

    def last_lines() -> str:
        found = ""
        if watch.garbage:  # e.g. a banner printed to stdout, which breaks the protocol
            first = masked(one_line(watch.garbage[0], 100))
            found = f"; it wrote non-JSON to stdout: {first!r}"
        if watch.tail:  # whole lines: a path cut in its middle explains nothing
            text = masked(" | ".join(one_line(line, _LINE_KEPT) for line in watch.tail))
            found += f"; last stderr lines: {text}"
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
        common = diagnose_common(error, timeout)
        if common is not None:
            return f"{common} (command {shown!r}){last_lines()}"
        if isinstance(error, OSError):
            return f"cannot start {command}: {error.strerror or describe_error(error)}"
        return f"cannot start {shown!r}: {describe_error(error)}"

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
        ended_at=lambda: watch.stdout_ended,
        peer=STDIO_PEER,
    )
