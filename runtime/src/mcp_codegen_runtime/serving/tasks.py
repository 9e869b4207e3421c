"""The fake server's MCP tasks (2025-11-25): a tool call the client asks to run as a task is answered with
`CreateTaskResult` at once, and its handler runs in the background; `tasks/get`, `tasks/result`,
`tasks/cancel` and `tasks/list` follow it.

A handler running as a task posts status messages (`FakeContext.status`) and asks for input
(`FakeContext.elicit`, `.sample`): the task is then `input_required` and the request goes out through
the client's waiting `tasks/result` (carrying the related-task `_meta`, as the spec says), so a client
that only polls `tasks/get` sees the status and then calls `tasks/result`. `tasks/cancel` cancels the
handler (its awaits raise the cancellation). Tasks belong to the server, not to a connection: over
HTTP any connection reads them; a task still running when its server stops is cancelled.

The background work runs in a task group the fake's lifespan opens for each `Server.run` (stdio, in
memory) or once for the streamable HTTP app; this module is imported on the first task only.
"""

from __future__ import annotations

import time
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

if TYPE_CHECKING:
    from mcp.server.session import ServerSession

__all__ = [
    "RELATED_TASK",
    "FakeTask",
    "TaskStore",
    "send_related",
]

#: The `_meta` key a request or result related to a task carries (`{"taskId": ...}`).
RELATED_TASK = "io.modelcontextprotocol/related-task"

FakeTaskStatus = Literal[
    "working", "input_required", "completed", "failed", "cancelled"
]
_TERMINAL = frozenset({"completed", "failed", "cancelled"})

_ResultT = TypeVar("_ResultT", bound=BaseModel)
#: `send(session, request_id)`: a request to the client, sent from the waiting `tasks/result`.
_Send = Callable[["ServerSession", "types.RequestId | None"], Awaitable[Any]]


def _iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).isoformat().replace("+00:00", "Z")


class _Ask:
    """One request a task's handler makes to the client, waiting for a `tasks/result` to send it."""

    __slots__ = ("done", "error", "send", "value")

    def __init__(self, send: _Send) -> None:
        self.send = send
        self.done = anyio.Event()
        self.value: Any = None
        self.error: BaseException | None = None


@dataclass(eq=False)
class FakeTask:
    """One task of the fake: its status as `tasks/get` reports it, and its result once it ended."""

    task_id: str
    #: The tool's wire name and the arguments as sent.
    tool: str
    arguments: dict[str, Any]
    #: Milliseconds the server keeps the task after its creation (None: without limit).
    ttl: int | None
    #: Milliseconds between two `tasks/get` the fake suggests.
    poll_interval: int
    status: FakeTaskStatus = "working"
    message: str | None = None
    #: The tool's result, once the task completed or failed.
    result: types.CallToolResult | None = None
    #: A protocol error the handler raised (`tasks/result` answers it).
    error: MCPError | None = None
    created: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)
    _scope: anyio.CancelScope | None = field(default=None, repr=False)
    _changed: anyio.Event = field(default_factory=anyio.Event, repr=False)
    _asks: deque[_Ask] = field(default_factory=deque[_Ask], repr=False)

    @property
    def terminal(self) -> bool:
        """Whether the task ended (completed, failed or cancelled)."""
        return self.status in _TERMINAL

    def wire(self) -> dict[str, Any]:
        """The task as `tasks/get` answers it."""
        task: dict[str, Any] = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": _iso(self.created),
            "lastUpdatedAt": _iso(self.updated),
            "ttl": self.ttl,
            "pollInterval": self.poll_interval,
        }
        if self.message is not None:
            task["statusMessage"] = self.message
        return task

    def set(self, status: FakeTaskStatus, message: str | None) -> None:
        """Change the status (a task that ended keeps its end) and wake whoever waits on it."""
        if self.terminal:
            return
        self.status, self.message, self.updated = status, message, time.time()
        changed, self._changed = self._changed, anyio.Event()
        changed.set()

    def cancel(self, message: str) -> None:
        """Cancel the task: its status first, then its handler."""
        if self.terminal:
            return
        self.set("cancelled", message)
        if self._scope is not None:
            self._scope.cancel()

    async def ask(self, send: _Send, message: str) -> Any:
        """Send a request to the client through the waiting `tasks/result` (the task is `input_required`
        meanwhile, with `message` as its status message) and return the client's answer.
        """
        before = self.message
        pending = _Ask(send)
        self._asks.append(pending)
        self.set("input_required", message)
        try:
            await pending.done.wait()
        finally:
            if pending in self._asks:
                self._asks.remove(pending)
        self.set("working", before)
        if pending.error is not None:
            raise pending.error
        return pending.value

    def related_meta(self) -> dict[str, Any]:
        return {RELATED_TASK: {"taskId": self.task_id}}

    async def run(
        self,
        work: Callable[[], Awaitable[types.CallToolResult]],
        on_end: Callable[[FakeTask], None],
    ) -> None:
        """Run the tool call `work` as this task (in the fake's task group); `on_end` sees the task
        once it ended, however it did."""
        try:
            with anyio.CancelScope() as scope:
                self._scope = scope
                if self.terminal:  # cancelled before it started
                    return
                try:
                    result = await work()
                except MCPError as error:
                    self.error = error
                    self.set("failed", error.message)
                except (
                    Exception
                ) as error:  # noqa: BLE001 - the task fails, the server goes on
                    message = str(error) or type(error).__name__
                    self.error = MCPError(code=types.INTERNAL_ERROR, message=message)
                    self.set("failed", message)
                else:
                    self.result = result
                    self.set("failed" if result.is_error else "completed", self.message)
        finally:
            if not self.terminal:  # the server stopped under it
                self.set("cancelled", "the server stopped")
            on_end(self)

    async def outcome(self, session: ServerSession, request_id: Any) -> dict[str, Any]:
        """What `tasks/result` answers: waits for the end, sending the handler's requests to the
        client meanwhile (through `session`, related to `request_id`)."""
        while not self.terminal:
            if self._asks:
                pending = self._asks.popleft()
                try:
                    pending.value = await pending.send(session, request_id)
                except Exception as error:  # noqa: BLE001 - raised in the handler
                    pending.error = error
                finally:
                    pending.done.set()
                continue
            await self._changed.wait()
        if self.status == "cancelled":
            raise MCPError(
                code=types.INTERNAL_ERROR,
                message=f"task {self.task_id} was cancelled: it has no result",
            )
        if self.error is not None:
            raise self.error
        assert self.result is not None
        answer: dict[str, Any] = self.result.model_dump(
            mode="json", by_alias=True, exclude_none=True
        )
        answer.pop(
            "resultType", None
        )  # a 2026-07-28 field; these tasks are 2025-11-25's
        answer["_meta"] = {**answer.get("_meta", {}), **self.related_meta()}
        return answer


class TaskStore:
    """The fake's tasks, by id, whichever connection made them; expired ones are forgotten."""

    def __init__(self) -> None:
        self.by_id: dict[str, FakeTask] = {}

    def __getitem__(self, task_id: str) -> FakeTask:
        return self.by_id[task_id]

    def __contains__(self, task_id: object) -> bool:
        return task_id in self.by_id

    def __iter__(self) -> Iterator[FakeTask]:
        return iter(self.all())

    def __len__(self) -> int:
        return len(self.by_id)

    def clear(self) -> None:
        """Cancel the tasks still running and forget every task."""
        for task in self.by_id.values():
            task.cancel("the fake was reset")
        self.by_id.clear()

    def create(
        self, tool: str, arguments: dict[str, Any], ttl: object, poll_interval: int
    ) -> FakeTask:
        task = FakeTask(
            task_id=uuid.uuid4().hex,
            tool=tool,
            arguments=arguments,
            ttl=ttl if isinstance(ttl, int) and not isinstance(ttl, bool) else None,
            poll_interval=poll_interval,
        )
        self.by_id[task.task_id] = task
        return task

    def find(self, task_id: str) -> FakeTask:
        """The task, or the error servers answer for an unknown (or expired) id."""
        self._forget_expired()
        task = self.by_id.get(task_id)
        if task is None:
            raise MCPError(
                code=types.INVALID_PARAMS, message=f"Task not found: {task_id}"
            )
        return task

    def all(self) -> list[FakeTask]:
        self._forget_expired()
        return sorted(self.by_id.values(), key=lambda task: task.created)

    def _forget_expired(self) -> None:
        now = time.time()
        for task_id, task in list(self.by_id.items()):
            if task.ttl is not None and now > task.created + task.ttl / 1000:
                task.cancel("expired")
                del self.by_id[task_id]


async def send_related(
    session: ServerSession,
    request_id: Any,
    request: Any,
    result_type: type[_ResultT],
) -> _ResultT:
    """Send `request` (its params already carrying the related-task `_meta`) on the stream of the
    client's request `request_id` (the waiting `tasks/result`)."""
    from mcp.shared.message import ServerMessageMetadata

    answer: _ResultT = await session.send_request(
        request,
        result_type,
        metadata=ServerMessageMetadata(related_request_id=request_id),
    )
    return answer
