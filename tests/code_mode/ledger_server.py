"""An SDK MCPServer that keeps a ledger of what it executes, for the tests of how a code run ends.

Its two tools are unannotated (so never retried after they may have run):

* ``work(key)`` records its start and finishes at once;
* ``hold(key)`` records its start and waits until it is cancelled, which happens only when the client
  sends ``notifications/cancelled``; it then records the cancellation.

Keys are ``<run>:<name>``, so the ledger tells the calls of one run from another's. Waiting on the ledger
is event-driven (``wait_until``), never a sleep.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import anyio
from mcp.server.mcpserver import MCPServer


@dataclass
class Ledger:
    """What the server executed: starts, finishes and cancellations, by key, in order."""

    started: list[str] = field(default_factory=list)
    finished: list[str] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)
    _changed: anyio.Event = field(default_factory=anyio.Event)

    def note(self, entries: list[str], key: str) -> None:
        entries.append(key)
        self._changed.set()
        self._changed = anyio.Event()

    def of_run(self, entries: list[str], run: str) -> list[str]:
        return [key for key in entries if key.startswith(f"{run}:")]

    def active(self) -> list[str]:
        """Calls started and neither finished nor cancelled."""
        ended = set(self.finished) | set(self.cancelled)
        return [key for key in self.started if key not in ended]

    async def wait_until(self, condition: Callable[[], bool], timeout: float = 60) -> None:
        """Return once `condition()` holds, re-checked at every change of the ledger (TimeoutError after
        `timeout` seconds: a generous bound for a loaded machine, not a time budget)."""
        with anyio.fail_after(timeout):
            while not condition():
                await self._changed.wait()


def build_ledger_server(ledger: Ledger) -> MCPServer:
    server = MCPServer("ledger", version="1.0.0")

    @server.tool()
    async def work(key: str) -> str:
        """Record `key` and finish at once."""
        ledger.note(ledger.started, key)
        ledger.note(ledger.finished, key)
        return key

    @server.tool()
    async def hold(key: str) -> str:
        """Record `key`, then wait until cancelled."""
        ledger.note(ledger.started, key)
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            ledger.note(ledger.cancelled, key)
            raise
        return key  # pragma: no cover - never reached

    return server
