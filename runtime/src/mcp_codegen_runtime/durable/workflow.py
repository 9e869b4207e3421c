"""The workflow's side: `ToolsBase`, which a package's `Tools` extends with one typed method per tool.

Each method runs its tool's activity (`names.tool_activity`) with the options given to `Tools(...)` (Temporal's
own names) and a retry policy from the tool. A tool safe to repeat (`readOnlyHint` or `idempotentHint`, or
`repeatable=` says so) is retried by Temporal with backoff (the `retry_policy=` given, else Temporal's
default). Any other is tried once (`maximum_attempts=1`): when that attempt may have reached the server (the
client's `OutcomeUnknownError` or `RequestTimeoutError`, or any timeout of an attempt that had started: a
lost worker's heartbeat, start-to-close or schedule-to-close timeout) the workflow receives
`ToolMayHaveRunError`, a non-retryable `ApplicationError`. A timeout before any worker took the call
(schedule-to-start, or schedule-to-close with no attempt started) arrives as Temporal's `ActivityError`.
Other failures arrive as Temporal's `ActivityError`, the client's error class name as its cause's `type`.

Only `temporalio.workflow` calls are made: deterministic, and safe in the workflow sandbox once the package
is imported through `workflow.unsafe.imports_passed_through()`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import timedelta
from types import GenericAlias, ModuleType
from typing import Any, ClassVar, TypedDict, TypeVar, Unpack, cast

import mcp_types
from pydantic import BaseModel, ValidationError
from temporalio import workflow
from temporalio.common import Priority, RetryPolicy
from temporalio.exceptions import (
    ActivityError,
    ApplicationError,
    TimeoutError,
    TimeoutType,
)

from ..calls.results import ToolResult
from ..calls.sentinel import NOT_SENT
from ..calls.specs import ToolSpec
from .names import MAY_HAVE_RUN, MAY_HAVE_RUN_CAUSES, listing_activity, tool_activity

__all__ = ["ActivityOptions", "ToolMayHaveRunError", "ToolsBase", "bind_lazy_names"]

R = TypeVar("R")


class ActivityOptions(TypedDict, total=False):
    """The options of `workflow.execute_activity` that `Tools(...)` takes, by Temporal's names."""

    task_queue: str
    schedule_to_close_timeout: timedelta
    schedule_to_start_timeout: timedelta
    start_to_close_timeout: timedelta
    heartbeat_timeout: timedelta
    retry_policy: RetryPolicy
    cancellation_type: workflow.ActivityCancellationType
    versioning_intent: workflow.VersioningIntent
    summary: str
    priority: Priority


class ToolMayHaveRunError(ApplicationError):
    """A tool not safe to repeat was sent, and whether it ran is unknown: it was not sent again.

    Non-retryable. Check the server's state before calling it again.
    """

    def __init__(self, message: str, *, tool: str) -> None:
        super().__init__(message, tool, type=MAY_HAVE_RUN, non_retryable=True)
        self.tool = tool


class ToolsBase:
    """Typed tool calls for workflow code, each one its tool's activity: `Tools(start_to_close_timeout=...)`.

    `options`: Temporal's activity options (`start_to_close_timeout` or `schedule_to_close_timeout` is
    required; `heartbeat_timeout` makes a lost worker noticed sooner). `repeatable`: tool name (wire or
    Python) -> whether a call that may have run is safe to send again, overriding its annotations (as
    `Retries.repeatable` does for the client). `server_key`: the name the activities are named with
    (`mcp:<server key>:tool:<wire name>`), the package's `SERVER_KEY` unless given; the worker's
    `activities(server_key=...)` must name the same.
    """

    __slots__ = ("_options", "_repeatable", "_server_key")

    #: The package's server key, which its activities are named with (the generated class sets it).
    _default_server_key: ClassVar[str] = ""

    def __init__(
        self,
        *,
        repeatable: Mapping[str, bool] | None = None,
        server_key: str | None = None,
        **options: Unpack[ActivityOptions],
    ) -> None:
        if (
            "start_to_close_timeout" not in options
            and "schedule_to_close_timeout" not in options
        ):
            raise ValueError(
                "Tools() needs start_to_close_timeout= or schedule_to_close_timeout="
            )
        self._options = options
        self._repeatable = dict(repeatable or {})
        self._server_key = server_key or self._default_server_key

    def _policy(self, spec: ToolSpec[Any, Any], repeatable: bool) -> RetryPolicy:
        """The retry policy of a call of `spec`: the given (or Temporal's default) when it may be repeated,
        else one attempt."""
        for name in (spec.name, spec.python_name):
            if name in self._repeatable:
                repeatable = self._repeatable[name]
                break
        given = self._options.get("retry_policy") or RetryPolicy()
        return given if repeatable else dataclasses.replace(given, maximum_attempts=1)

    async def _call(
        self,
        spec: ToolSpec[Any, R],
        arguments_class: type[BaseModel],
        values: Mapping[str, object],
        *,
        extra: Mapping[str, object] | None = None,
        result_type: Any,
        repeatable: bool,
    ) -> R:
        """Run the activity of `spec` with the arguments model of `values` (NOT_SENT left out) and `extra`."""
        given = {key: value for key, value in values.items() if value is not NOT_SENT}
        try:
            arguments = arguments_class.model_validate({**given, **(extra or {})})
        except ValidationError as error:
            raise ApplicationError(
                f"tool {spec.name!r}: {error}",
                type="ArgumentsValidationError",
                non_retryable=True,
            ) from None
        policy = self._policy(spec, repeatable)
        wraps = result_type is ToolResult
        options: dict[str, Any] = {**self._options, "retry_policy": policy}
        try:
            result: Any = await workflow.execute_activity(
                tool_activity(self._server_key, spec.name),
                arguments,
                result_type=mcp_types.CallToolResult if wraps else result_type,
                **options,
            )
        except ActivityError as error:
            if policy.maximum_attempts == 1 and _may_have_run(error):
                raise ToolMayHaveRunError(
                    f"tool {spec.name!r} may have run on the server (it is not safe to repeat,"
                    f" so it was not sent again): {error.cause}",
                    tool=spec.name,
                ) from error
            raise
        return cast(R, ToolResult(result) if wraps else result)

    async def _listing(self, kind: str, item_type: type[R]) -> list[R]:
        """Every page of a listing, in one activity (retried by Temporal: listings change nothing)."""
        options: dict[str, Any] = dict(self._options)
        found: list[R] = await workflow.execute_activity(
            listing_activity(self._server_key, kind),
            result_type=cast(type, GenericAlias(list, (item_type,))),
            **options,
        )
        return found

    async def list_tools(self) -> list[mcp_types.Tool]:
        """The server's tools as listed now, every page (one activity)."""
        return await self._listing("tools", mcp_types.Tool)

    async def list_resources(self) -> list[mcp_types.Resource]:
        """The server's resources as listed now, every page (one activity)."""
        return await self._listing("resources", mcp_types.Resource)

    async def list_prompts(self) -> list[mcp_types.Prompt]:
        """The server's prompts as listed now, every page (one activity)."""
        return await self._listing("prompts", mcp_types.Prompt)


def _may_have_run(error: ActivityError) -> bool:
    """Whether an activity's failure leaves open that the tool ran: the client's "may have run" errors, or
    any timeout once an attempt had started (a worker took the call: it may have sent it). Only a timeout
    before any start (schedule-to-start, or schedule-to-close while the call waited for a worker) rules a
    send out.
    """
    cause = error.cause
    if isinstance(cause, TimeoutError):
        return cause.type != TimeoutType.SCHEDULE_TO_START and (
            error.started_event_id > 0 or cause.type != TimeoutType.SCHEDULE_TO_CLOSE
        )
    return isinstance(cause, ApplicationError) and cause.type in MAY_HAVE_RUN_CAUSES


def bind_lazy_names(module: ModuleType) -> None:
    """Bind every name `module` imports on first use (its `__dir__`) now, as a plain attribute.

    The workflow sandbox keeps modules of its own: a lazy attribute first read inside it would load a second
    copy of its module, whose classes are not the ones the activities' results are decoded to. Bound outside
    (while `imports_passed_through()` imports the package's `temporal` module), the sandbox reads them as is.
    """
    for name in dir(module):
        setattr(module, name, getattr(module, name))
