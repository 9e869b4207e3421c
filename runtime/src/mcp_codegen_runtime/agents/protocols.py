"""What agent tools need from a client, as protocols: the leaf that keeps the runtime's imports acyclic.

Agent tools are a view of a client: they call its validated tool calls and, for a blocking
client, its event-loop thread. They depend on these protocols, never on `client` or `sync`, so
those modules can import the agent modules and not the reverse (a test checks the runtime's
imports have no cycle). `AsyncClientBase` implements `ToolCaller`, `SyncClientBase`
implements `LoopRunner`; the methods are public but internal: generated code and users call the
typed methods, `call()` and `tools()` instead.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, ParamSpec, Protocol, TypeVar, runtime_checkable

if TYPE_CHECKING:
    from ..calls.results import ToolResult
    from ..calls.specs import ToolSpec

__all__ = ["LoopRunner", "ToolCaller"]

P = ParamSpec("P")
R = TypeVar("R")


class ToolCaller(Protocol):
    """An async client as agent tools call it: validate arguments against a spec, call, answer."""

    async def call_spec(
        self,
        spec: ToolSpec[Any, Any],
        arguments: Mapping[str, object],
        *,
        timeout: float | None = None,
    ) -> Any:
        """The typed result, as the generated method for `spec` returns it (raises on failures)."""
        ...

    async def call_spec_result(
        self,
        spec: ToolSpec[Any, Any],
        arguments: Mapping[str, object],
        *,
        timeout: float | None = None,
        agent_name: str | None = None,
        framework: str | None = None,
    ) -> ToolResult:
        """The whole result (every content block); raises ToolError for `isError`."""
        ...


@runtime_checkable
class LoopRunner(Protocol):
    """A blocking client as agent tools call it: an async client driven on an event-loop thread."""

    @property
    def async_client(self) -> ToolCaller:
        """The async client whose calls run on the loop thread."""
        ...

    def run_blocking(
        self, fn: Callable[P, Awaitable[R]], *args: P.args, **kwargs: P.kwargs
    ) -> R:
        """Run `await fn(*args, **kwargs)` on the loop thread; the caller's thread waits."""
        ...

    async def run_on_loop(self, fn: Callable[[], Awaitable[R]]) -> R:
        """Await `fn()` on the loop thread from any event loop (directly when already on it)."""
        ...
