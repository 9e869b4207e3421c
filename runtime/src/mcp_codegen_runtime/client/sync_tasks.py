"""The blocking twins of MCP task handles: `SyncTask` (one task) and `SyncTasksBase` (`client.tasks`)."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from ..calls.specs import ToolSpec
    from ..calls.tasks import TaskState, TaskStatus
    from .base import AsyncClientBase
    from .blocking import BlockingCore
    from .task_handles import AsyncTasksBase, Task

__all__ = ["SyncTask", "SyncTasksBase"]

R = TypeVar("R")


class SyncTask(Generic[R]):
    """The blocking twin of `Task`: a tool call running as an MCP task (`client.tasks.start(...)`)."""

    __slots__ = ("_client", "_task")

    def __init__(self, client: BlockingCore[Any], task: Task[R]) -> None:
        self._client = client
        self._task = task

    @property
    def id(self) -> str:
        """The task id the server gave ("" when the server ran the call at once, without a task)."""
        return self._task.id

    @property
    def tool(self) -> str | None:
        """The tool's wire name, when known."""
        return self._task.tool

    def status(self) -> TaskState:
        """The task's state now (`tasks/get`)."""
        return self._client.run_blocking(self._task.status)

    def result(self, *, timeout: float | None = None) -> R:
        """Wait for the task to end and return its result, typed as the tool's method returns it (see
        `Task.result`); after `timeout` seconds `RequestTimeoutError`, and the task goes on.
        """
        return self._client.run_blocking(self._task.result, timeout=timeout)

    def cancel(self) -> TaskState:
        """Cancel the task (`tasks/cancel`); one that already ended keeps its status."""
        return self._client.run_blocking(self._task.cancel)

    def updates(self) -> Iterator[TaskState]:
        """The task's states as they change: its state now first, then each change, ending after it ends."""
        states = self._task.updates()
        try:
            while True:
                try:
                    yield self._client.run_blocking(states.__anext__)
                except StopAsyncIteration:
                    return
        finally:
            if not self._client.closed:
                self._client.run_blocking(states.aclose)

    def wait(
        self,
        until: TaskStatus | Collection[TaskStatus] | None = None,
        *,
        timeout: float | None = None,
    ) -> TaskState:
        """Wait until the task's status is `until` (default: any end) or it ends (see `Task.wait`)."""
        return self._client.run_blocking(self._task.wait, until, timeout=timeout)

    def __repr__(self) -> str:
        return repr(self._task)


class SyncTasksBase:
    """The blocking twin of `client.tasks` (`AsyncTasksBase`): start, resume and list tasks.

    A generated package's `Tasks` adds one typed method per tool that may run as a task.
    """

    __slots__ = ("_client",)

    def __init__(self, client: BlockingCore[Any]) -> None:
        self._client = client

    def _tasks(self) -> AsyncTasksBase:
        async_client: AsyncClientBase = self._client.async_client
        return async_client.tasks

    def start(
        self,
        tool: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        ttl: float | None = None,
        timeout: float | None = None,
    ) -> SyncTask[Any]:
        """Call `tool` as a task and return its (blocking) handle at once (see `AsyncTasksBase.start`)."""
        task = self._client.run_blocking(
            self._tasks().start, tool, arguments, ttl=ttl, timeout=timeout
        )
        return SyncTask(self._client, task)

    def _start(
        self,
        spec: ToolSpec[Any, R],
        arguments: Mapping[str, object],
        *,
        extra: Mapping[str, object] | None = None,
    ) -> SyncTask[R]:
        """`start` for a spec, typed: what a generated `client.tasks.<tool>(...)` method calls."""
        started = self._tasks()._start  # pyright: ignore[reportPrivateUsage]
        task = self._client.run_blocking(started, spec, arguments, extra=extra)
        return SyncTask(self._client, task)

    def resume(self, task_id: str, tool: str | None = None) -> SyncTask[Any]:
        """The handle of a task started before (see `AsyncTasksBase.resume`)."""
        return SyncTask(self._client, self._tasks().resume(task_id, tool))

    def list(self, *, timeout: float | None = None) -> list[TaskState]:
        """The tasks the server keeps (`tasks/list`); `UnsupportedByServerError` when it lists none."""
        return self._client.run_blocking(self._tasks().list, timeout=timeout)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._client!r}>"
