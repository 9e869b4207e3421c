"""The host side of one run of code: its tool calls, each a task of a group the run owns, its output and its limits.

A run ends one of four ways: the code returns, raises, hits a limit, or the caller cancels
`run_code()`. In each, `HostRun.run` leaves its task group only after every call still in
flight was cancelled (the client tells the server: `notifications/cancelled`) and has ended,
and a call the code starts after that is refused before anything is sent. So no call of a run
outlives it, and each call's record says how it ended: succeeded, failed, or cancelled (it may
have run).

The run also holds the limits the sandbox cannot count itself: the wall-clock deadline over the
whole run, the number of tool calls, and the bytes the code prints.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import anyio

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

__all__ = ["CANCELLED", "CallRecord", "CallStatus", "HostRun", "LimitName", "RunEnded"]

#: How a call of the code ended.
CallStatus = Literal["succeeded", "failed", "cancelled"]
#: The limit that stopped a run (`CodeLimitError.limit`).
LimitName = Literal["time", "memory", "calls", "output", "suspensions", "worker"]
#: The error text of a call the run's end cancelled.
CANCELLED = (
    "cancelled: the run ended before the call's answer came; the server was told to "
    "cancel it, but it may have run"
)
T = TypeVar("T")


class RunEnded(RuntimeError):
    """A call the code made after its run ended, or past the call limit: nothing was sent."""


@dataclass
class CallRecord:
    """One call as it stands: its tool, arguments (wire names), module, status and error."""

    tool: str
    arguments: dict[str, Any]
    module: str
    status: CallStatus | Literal["running"] = "running"
    error: str | None = None


class _Outcome:
    __slots__ = ("done", "error", "value")

    def __init__(self) -> None:
        self.done = anyio.Event()
        self.value: object = None
        self.error: Exception | None = None


class HostRun:
    """One run's calls (in a task group it owns), its printed output and the limit that stopped it."""

    def __init__(self, *, max_calls: int, max_output: int) -> None:
        self.max_calls = max_calls
        self.max_output = max_output
        self.records: list[CallRecord] = []
        #: The limit that ended the run and what to say about it, once one did.
        self.limit: tuple[LimitName, str] | None = None
        self._group: TaskGroup | None = None
        self._scope: anyio.CancelScope | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._output: list[str] = []
        self._output_bytes = 0

    @property
    def output(self) -> str:
        """What the code printed (up to the output limit)."""
        return "".join(self._output)

    async def run(self, body: Callable[[], Awaitable[T]], timeout: float) -> T | None:
        """`body()` (the code's run in the sandbox) with a deadline `timeout` seconds away; None when a
        limit or the deadline stopped it (`limit` says which). Returns or raises only once every call
        the code started has ended."""
        self._loop = asyncio.get_running_loop()
        async with anyio.create_task_group() as group:
            self._group = group
            scope = anyio.CancelScope(deadline=anyio.current_time() + timeout)
            self._scope = scope
            try:
                with scope:
                    return await body()
            finally:
                self._group = None  # no call starts from here on
                group.cancel_scope.cancel()
                if scope.cancelled_caught and self.limit is None:
                    self.limit = (
                        "time",
                        f"the run took longer than its time limit ({timeout:g} s, "
                        "wall-clock: the code, its sleeps and the calls it awaits)",
                    )
        return None

    def stop(self, limit: LimitName, message: str) -> None:
        """End the run at `limit` (from the event loop's thread)."""
        if self.limit is None:
            self.limit = (limit, message)
        if self._scope is not None:
            self._scope.cancel()

    async def call(
        self,
        tool: str,
        arguments: dict[str, Any],
        module: str,
        invoke: Callable[[], Awaitable[object]],
    ) -> object:
        """`invoke()` (one tool call) as a task of the run's group, recorded; its value, or its error
        raised. RunEnded when the run is over or the call would pass the call limit."""
        group = self._group
        if group is None or self.limit is not None:
            raise RunEnded("the run has ended: no call was sent")
        if len(self.records) >= self.max_calls:
            self.stop(
                "calls",
                f"the code made more than {self.max_calls} tool calls (the call limit per run)",
            )
            raise RunEnded("the call limit is reached: no call was sent")
        record = CallRecord(tool, arguments, module)
        self.records.append(record)
        outcome = _Outcome()
        group.start_soon(self._call, record, invoke, outcome)
        await outcome.done.wait()
        if outcome.error is not None:
            raise outcome.error
        if record.status == "cancelled":
            raise RunEnded(CANCELLED)
        return outcome.value

    @staticmethod
    async def _call(
        record: CallRecord,
        invoke: Callable[[], Awaitable[object]],
        outcome: _Outcome,
    ) -> None:
        try:
            outcome.value = await invoke()
            record.status = "succeeded"
        except anyio.get_cancelled_exc_class():
            record.status, record.error = "cancelled", CANCELLED
            raise
        except Exception as error:  # noqa: BLE001 - recorded, then raised in the code
            record.status, record.error = "failed", f"{type(error).__name__}: {error}"
            outcome.error = error
        finally:
            outcome.done.set()

    def printed(self, _stream: str, text: str) -> None:
        """The sandbox's print callback (called from a worker thread): keep `text` up to the output
        limit; past it, end the run."""
        size = len(text.encode("utf-8", "replace"))
        room = self.max_output - self._output_bytes
        self._output_bytes += size
        if size <= room:
            self._output.append(text)
            return
        self._output.append(
            text.encode("utf-8", "replace")[: max(room, 0)].decode("utf-8", "ignore")
        )
        message = (
            f"the code printed more than {self.max_output} bytes (the output limit)"
        )
        if self.limit is None:
            self.limit = ("output", message)
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.stop, "output", message)
        raise RunEnded(message)
