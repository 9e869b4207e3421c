"""One server of a toolkit: its state, the status a toolkit reports, and the slot holding its connection."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ..agents.names import sanitize_name
from ..calls.errors import McpClientError

if TYPE_CHECKING:
    from .base import AsyncClientBase

__all__ = ["ServerState", "ServerStatus", "ServerUnavailableError"]

#: Opens one server's connection: `async with connector() as client`.
Connector = Callable[[], AbstractAsyncContextManager[Any]]

ServerState = Literal[
    "not connected yet", "connecting", "connected", "failed", "disabled", "closed"
]


class ServerUnavailableError(McpClientError):
    """The server asked for is not connected (failed, disabled, or the toolkit is closed)."""


@dataclass(frozen=True)
class ServerStatus:
    """One server's state in a toolkit."""

    name: str
    state: ServerState
    #: Why the server is not connected (the one-line error), or None.
    error: str | None = None
    #: How many tools its client offers (0 when not connected).
    tools: int = 0
    #: Seconds the last connection attempt (or health probe) took.
    latency: float | None = None

    def __str__(self) -> str:
        detail = f": {self.error}" if self.error else ""
        return f"{self.name}: {self.state}{detail}"


class ServerSlot:
    """One server: its connector and, while connected, the task holding the connection open."""

    def __init__(self, name: str, connector: Connector, *, enabled: bool) -> None:
        self.name = name
        self.connector = connector
        self.enabled = enabled
        self.client: AsyncClientBase | None = None
        self.error: str | None = None
        self.latency: float | None = None
        self.state: ServerState = "closed" if enabled else "disabled"
        self.stop: Any = None  # anyio.Event, set to close the connection
        self.done: Any = None  # anyio.Event, set once the connection is closed
        self.first_use: Any = (
            None  # anyio.Lock: one connect for concurrent first uses (lazy)
        )

    def status(self) -> ServerStatus:
        state = self.state
        client = self.client
        if state == "connected" and client is not None and client.closed:
            state, self.error = "failed", "the connection to the MCP server was lost"
        tools = (
            len(client.tool_specs) if client is not None and state == "connected" else 0
        )
        return ServerStatus(self.name, state, self.error, tools, self.latency)


def recording_name(server: str) -> str:
    """The file a toolkit records `server` to, in its folder: the name as an agent tool's name is made safe
    (`agents.names.sanitize_name`: runs of anything but ASCII letters, digits, `-` and `_` as one `_`), so a
    config's free-text names are never a path.
    """
    return sanitize_name(server) + ".ndjson"
