"""Results as they arrive: a response without `resultType` is taken as "complete" (SEP-2322), for every transport.

A 2026-07-28 client MUST read a result with no `resultType` as `complete`, but the SDK's
per-version result schemas require the field and raise a ValidationError. `complete_results`
wraps a transport's read stream and fills the field in before the SDK sees the message, so
one rule serves tools, prompts, resources and every other result. On older protocol versions
the SDK drops the field again (it belongs to a later revision), so the rule is harmless there.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import Self

__all__ = ["StreamProxy", "complete_results", "with_complete_results"]


def _completed(item: Any) -> Any:
    from mcp_types import JSONRPCResponse

    message = getattr(item, "message", None)
    if isinstance(message, JSONRPCResponse) and "resultType" not in message.result:
        message.result = {**message.result, "resultType": "complete"}
    return item


class StreamProxy:
    """A transport stream passed through: what the SDK reads off it (`last_context`, ...), closing and
    entering are the inner stream's. Subclasses change what goes through (`receive`, `send`).
    """

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool | None:
        result: bool | None = await self._inner.__aexit__(exc_type, exc, traceback)
        return result


class _CompletingStream(StreamProxy):
    """A read stream that passes each message on, with `resultType` filled in where absent."""

    async def receive(self) -> Any:
        return _completed(await self._inner.receive())

    def __aiter__(self) -> _CompletingStream:
        return self

    async def __anext__(self) -> Any:
        return _completed(await self._inner.__anext__())


def complete_results(streams: tuple[Any, Any]) -> tuple[Any, Any]:
    """A transport's `(read, write)` streams, the read side filling in a missing `resultType`."""
    read, write = streams
    return _CompletingStream(read), write


@asynccontextmanager
async def with_complete_results(
    transport: AbstractAsyncContextManager[Any],
) -> AsyncGenerator[tuple[Any, Any], None]:
    """A transport (an async context manager giving `(read, write)`) with `complete_results` applied."""
    async with transport as streams:
        yield complete_results(streams)
