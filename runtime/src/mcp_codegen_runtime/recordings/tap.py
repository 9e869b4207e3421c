"""Recording a session as it happens: a transport whose every message is also written to a `RecordingSink`.

`RecordingTap(sink, server, redactor)` wraps a transport (an async context manager giving `(read, write)`
streams): each message the client sends is written as `send` before it goes out, each one the server sends
as `recv` as it arrives, and the session is bounded by `$transport/start` and `$transport/close` lines. The
redactor (if any) rewrites a copy of each message for the file; what the client and server see is untouched.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from ..connection.results import StreamProxy
from .envelope import TRANSPORT_CLOSE, TRANSPORT_START, Direction, RecordingSink
from .redact import Redactor

__all__ = ["RecordingTap", "wire_json"]


def wire_json(message: Any) -> dict[str, Any] | None:
    """A `SessionMessage`'s JSON-RPC message as wire JSON, or None for what is not one (a transport error)."""
    inner = getattr(message, "message", None)
    dump = getattr(inner, "model_dump", None)
    if dump is None:
        return None
    wire: dict[str, Any] = dump(by_alias=True, mode="json", exclude_none=True)
    return wire


class RecordingTap:
    """Records the sessions of one connection (each new session of it appends to the same sink)."""

    def __init__(
        self, sink: RecordingSink, server: str, redactor: Redactor | None
    ) -> None:
        self.sink = sink
        self.server = server
        self.redactor = redactor

    def write(self, message: dict[str, Any], direction: Direction) -> None:
        if self.redactor is not None:
            message = self.redactor.message(message)
        self.sink.write(message, direction, self.server)

    def lifecycle(self, method: str) -> None:
        self.sink.write({"jsonrpc": "2.0", "method": method}, "lifecycle", self.server)

    def wrap(
        self, transport: AbstractAsyncContextManager[Any]
    ) -> AbstractAsyncContextManager[tuple[Any, Any]]:
        """`transport` with its messages recorded."""
        return _tapped(transport, self)


@asynccontextmanager
async def _tapped(
    transport: AbstractAsyncContextManager[Any], tap: RecordingTap
) -> AsyncGenerator[tuple[Any, Any], None]:
    tap.lifecycle(TRANSPORT_START)
    try:
        async with transport as (read, write):
            yield _ReadTap(read, tap), _WriteTap(write, tap)
    finally:
        tap.lifecycle(TRANSPORT_CLOSE)


class _StreamTap(StreamProxy):
    def __init__(self, inner: Any, tap: RecordingTap) -> None:
        super().__init__(inner)
        self._tap = tap


class _ReadTap(_StreamTap):
    """The server-to-client stream: each message recorded as `recv` as it is taken."""

    def _seen(self, item: Any) -> Any:
        wire = wire_json(item)
        if wire is not None:
            self._tap.write(wire, "recv")
        return item

    async def receive(self) -> Any:
        return self._seen(await self._inner.receive())

    def __aiter__(self) -> _ReadTap:
        return self

    async def __anext__(self) -> Any:
        return self._seen(await self._inner.__anext__())


class _WriteTap(_StreamTap):
    """The client-to-server stream: each message recorded as `send` before it goes out."""

    async def send(self, item: Any) -> None:
        wire = wire_json(item)
        if wire is not None:
            self._tap.write(wire, "send")
        await self._inner.send(item)
